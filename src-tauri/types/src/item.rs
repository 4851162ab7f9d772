//! The canonical evaluation item: what every importer produces and every metric reads.
//!
//! Absent is absent: the importer turns empty or whitespace-only strings and empty lists
//! into `None` / empty, so a metric can ask "is the answer present?" with one call
//! (`Item::has`) and never has to guess whether `""` means "the model said nothing".

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Characters of an answer, a ground truth or one context a judge reads (`run::shortened`
/// cuts longer ones; the importer says so at import): a long report (about 3,000 words)
/// fits; a pasted log or a whole book does not.
pub const TEXT_CHARS: usize = 20_000;
/// Characters of a question a judge reads.
pub const QUESTION_CHARS: usize = 4_000;

/// One retrieved chunk. `id` is the document id the pipeline gave it, when it had one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Context {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub text: String,
}

/// An entailment label as RAGChecker writes it. Only `Entailment` counts as true.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Label {
    Entailment,
    Neutral,
    Contradiction,
}

impl Label {
    /// Parses RAGChecker's spellings ("Entailment", "entailment", "contradiction", ...).
    pub fn parse(s: &str) -> Option<Label> {
        match s.trim().to_ascii_lowercase().as_str() {
            "entailment" | "entailed" | "supported" => Some(Label::Entailment),
            "neutral" | "not_enough_info" | "unknown" => Some(Label::Neutral),
            "contradiction" | "contradicted" | "refuted" => Some(Label::Contradiction),
            _ => None,
        }
    }

    pub fn is_entailment(self) -> bool {
        self == Label::Entailment
    }
}

/// Claims and entailment labels an upstream RAGChecker run already computed. When they
/// are present the `ragchecker.*` metrics use them instead of asking a judge.
///
/// Shapes follow RAGChecker: `answer2response[i]` is response claim i checked against the
/// ground truth; `response2answer[j]` is GT claim j checked against the response;
/// `retrieved2response[i][k]` is response claim i against chunk k; `retrieved2answer[j][k]`
/// is GT claim j against chunk k.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RagCheckerLabels {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_claims: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gt_answer_claims: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer2response: Option<Vec<Label>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response2answer: Option<Vec<Label>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retrieved2response: Option<Vec<Vec<Label>>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retrieved2answer: Option<Vec<Vec<Label>>>,
}

impl RagCheckerLabels {
    /// True when all four label sets the 11 metrics need are present.
    pub fn is_complete(&self) -> bool {
        self.answer2response.is_some()
            && self.response2answer.is_some()
            && self.retrieved2response.is_some()
            && self.retrieved2answer.is_some()
    }
}

/// An item in canonical form (DATA.md). Only `question` is required.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Item {
    /// The id the user's file gave the item, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub question: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contexts: Vec<Context>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ground_truth: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reference_contexts: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub citation_label: Option<String>,
    /// Ranked ids of what the retriever returned, best first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retrieved_ids: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gold_context_ids: Vec<String>,
    /// User-provided information needs; they override aspect extraction.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aspects: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ragchecker: Option<RagCheckerLabels>,
    /// Every field the mapping did not recognise, kept verbatim.
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub metadata: Map<String, Value>,
}

/// The item fields a metric can need (METRICS.md letters in brackets).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Field {
    /// Q
    Question,
    /// A
    Answer,
    /// C
    Contexts,
    /// GT
    GroundTruth,
    /// CIT
    CitationLabel,
    /// RANK: a ranked list of retrieved ids and at least one gold id.
    Ranking,
    /// Claims and entailment labels precomputed by RAGChecker.
    RagCheckerLabels,
}

impl Field {
    pub const ALL: [Field; 7] = [
        Field::Question,
        Field::Answer,
        Field::Contexts,
        Field::GroundTruth,
        Field::CitationLabel,
        Field::Ranking,
        Field::RagCheckerLabels,
    ];

    /// The short badge shown next to a metric: "Q", "A", "C", "GT", "CIT", "RANK", "LABELS".
    pub fn badge(self) -> &'static str {
        match self {
            Field::Question => "Q",
            Field::Answer => "A",
            Field::Contexts => "C",
            Field::GroundTruth => "GT",
            Field::CitationLabel => "CIT",
            Field::Ranking => "RANK",
            Field::RagCheckerLabels => "LABELS",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Field::Question => "a question",
            Field::Answer => "an answer",
            Field::Contexts => "retrieved contexts",
            Field::GroundTruth => "a ground-truth answer",
            Field::CitationLabel => "a gold citation id",
            Field::Ranking => "ranked retrieved ids with a gold context id",
            Field::RagCheckerLabels => "precomputed RAGChecker claims and labels",
        }
    }
}

impl Item {
    /// Ranked ids to score retrieval against: the explicit list, else the ids of the
    /// contexts in order when every context has one.
    pub fn ranked_ids(&self) -> Vec<String> {
        if !self.retrieved_ids.is_empty() {
            return self.retrieved_ids.clone();
        }
        if !self.contexts.is_empty() && self.contexts.iter().all(|c| c.id.is_some()) {
            return self.contexts.iter().filter_map(|c| c.id.clone()).collect();
        }
        Vec::new()
    }

    /// Whether the item carries what `field` names.
    pub fn has(&self, field: Field) -> bool {
        match field {
            Field::Question => !self.question.trim().is_empty(),
            Field::Answer => self.answer.is_some(),
            Field::Contexts => !self.contexts.is_empty(),
            Field::GroundTruth => self.ground_truth.is_some(),
            Field::CitationLabel => self.citation_label.is_some(),
            Field::Ranking => !self.ranked_ids().is_empty() && !self.gold_context_ids.is_empty(),
            Field::RagCheckerLabels => self.ragchecker.as_ref().is_some_and(|r| r.is_complete()),
        }
    }

    /// The case's identity regardless of the pipeline's output: the question and ground
    /// truth (see `question_key`). Two versions of a pipeline answering the same test set
    /// give items with different content hashes but the same question key.
    pub fn question_key(&self) -> String {
        question_key(&self.question, self.ground_truth.as_deref())
    }

    /// The item's identity across datasets and runs: a hash of everything evaluated
    /// (not metadata), so the same case in two files compares as the same case.
    pub fn content_hash(&self) -> String {
        let evaluated = serde_json::json!({
            "question": self.question,
            "answer": self.answer,
            "contexts": self.contexts,
            "ground_truth": self.ground_truth,
            "reference_contexts": self.reference_contexts,
            "citation_label": self.citation_label,
            "retrieved_ids": self.retrieved_ids,
            "gold_context_ids": self.gold_context_ids,
        });
        let bytes = serde_json::to_vec(&evaluated).expect("serialising plain JSON cannot fail");
        blake3::hash(&bytes).to_hex()[..32].to_string()
    }
}

/// A hash of a question and its ground truth, insensitive to case and spacing (a
/// re-exported file may re-wrap or re-case text; it is still the same test case).
pub fn question_key(question: &str, ground_truth: Option<&str>) -> String {
    let normal = |text: &str| -> String {
        text.split_whitespace()
            .map(str::to_lowercase)
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut hasher = blake3::Hasher::new();
    hasher.update(normal(question).as_bytes());
    // A separator no text contains, so ("a b", None) and ("a", "b") differ.
    hasher.update(b"\0");
    if let Some(gt) = ground_truth {
        hasher.update(normal(gt).as_bytes());
    }
    hasher.finalize().to_hex()[..32].to_string()
}

/// The fingerprint of a dataset's questions: the same multiset of question keys gives the
/// same fingerprint whatever the order of the items (a wrapping sum of the keys, so it
/// is built while streaming, in constant memory).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QuestionSet {
    count: u64,
    sum: u128,
}

impl QuestionSet {
    pub fn add(&mut self, question_key: &str) {
        let value = u128::from_str_radix(question_key, 16).unwrap_or(0);
        self.sum = self.sum.wrapping_add(value);
        self.count += 1;
    }

    pub fn fingerprint(&self) -> String {
        format!("{}:{:032x}", self.count, self.sum)
    }
}

#[cfg(test)]
mod question_tests {
    use super::*;

    #[test]
    fn a_question_key_ignores_case_and_spacing_but_not_the_ground_truth() {
        let key = question_key("What is the  range?", Some("60 km"));
        assert_eq!(key, question_key("what is the range?\n", Some("60  KM")));
        assert_ne!(key, question_key("What is the range?", Some("70 km")));
        assert_ne!(key, question_key("What is the range?", None));
        assert_ne!(
            question_key("a b", None),
            question_key("a", Some("b")),
            "the separator keeps question and ground truth apart"
        );
    }

    #[test]
    fn a_question_set_is_the_same_in_any_order_and_counts_repeats() {
        let keys: Vec<String> = ["q1", "q2", "q3"]
            .iter()
            .map(|q| question_key(q, None))
            .collect();
        let (mut forward, mut backward, mut fewer) = (
            QuestionSet::default(),
            QuestionSet::default(),
            QuestionSet::default(),
        );
        keys.iter().for_each(|k| forward.add(k));
        keys.iter().rev().for_each(|k| backward.add(k));
        keys[..2].iter().for_each(|k| fewer.add(k));
        assert_eq!(forward.fingerprint(), backward.fingerprint());
        assert_ne!(forward.fingerprint(), fewer.fingerprint());
        assert!(forward.fingerprint().starts_with("3:"));
    }
}
