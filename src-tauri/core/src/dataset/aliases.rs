//! The alias table of DATA.md: which source field names mean which canonical field, in
//! which order of precedence, and the bookkeeping of what a file actually used
//! (the report's mapping and detected schema).
//!
//! Owns: field-name recognition (case-insensitive) and schema detection. Must not: look
//! at values; converting values is `mapping`'s job.

use std::collections::{BTreeMap, HashSet};

use super::Schema;

/// The canonical destinations a source field can map onto.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Canon {
    Id,
    Question,
    Answer,
    Contexts,
    GroundTruth,
    ReferenceContexts,
    CitationLabel,
    RetrievedIds,
    GoldContextIds,
    Aspects,
    Metadata,
    ResponseClaims,
    GtAnswerClaims,
    Answer2Response,
    Response2Answer,
    Retrieved2Response,
    Retrieved2Answer,
}

pub(crate) const CANON_COUNT: usize = 17;

impl Canon {
    /// The name shown in the report's mapping.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Canon::Id => "id",
            Canon::Question => "question",
            Canon::Answer => "answer",
            Canon::Contexts => "contexts",
            Canon::GroundTruth => "ground_truth",
            Canon::ReferenceContexts => "reference_contexts",
            Canon::CitationLabel => "citation_label",
            Canon::RetrievedIds => "retrieved_ids",
            Canon::GoldContextIds => "gold_context_ids",
            Canon::Aspects => "aspects",
            Canon::Metadata => "metadata",
            Canon::ResponseClaims => "ragchecker.response_claims",
            Canon::GtAnswerClaims => "ragchecker.gt_answer_claims",
            Canon::Answer2Response => "ragchecker.answer2response",
            Canon::Response2Answer => "ragchecker.response2answer",
            Canon::Retrieved2Response => "ragchecker.retrieved2response",
            Canon::Retrieved2Answer => "ragchecker.retrieved2answer",
        }
    }

    /// Fields whose CSV cell holds a list (a JSON array, or items joined by ` || `).
    pub(crate) fn is_list(self) -> bool {
        matches!(
            self,
            Canon::Contexts
                | Canon::ReferenceContexts
                | Canon::RetrievedIds
                | Canon::GoldContextIds
                | Canon::Aspects
        )
    }

    /// Fields whose CSV cell is JSON when it looks like JSON (labels, metadata).
    pub(crate) fn is_structured(self) -> bool {
        self == Canon::Metadata || self.is_ragchecker()
    }

    /// RAGChecker's precomputed claims and labels: an empty list is a result, not absent.
    pub(crate) fn is_ragchecker(self) -> bool {
        matches!(
            self,
            Canon::ResponseClaims
                | Canon::GtAnswerClaims
                | Canon::Answer2Response
                | Canon::Response2Answer
                | Canon::Retrieved2Response
                | Canon::Retrieved2Answer
        )
    }
}

/// Every alias, grouped by canonical field; within a group, earlier = more specific and
/// wins when one record uses two aliases for the same field.
const ALIASES: [(&str, Canon); 54] = [
    ("id", Canon::Id),
    ("query_id", Canon::Id),
    ("question_id", Canon::Id),
    ("qid", Canon::Id),
    ("question", Canon::Question),
    ("query", Canon::Question),
    ("user_input", Canon::Question),
    ("input", Canon::Question),
    ("prompt", Canon::Question),
    ("answer", Canon::Answer),
    ("generated_answer", Canon::Answer),
    ("actual_output", Canon::Answer),
    ("response", Canon::Answer),
    ("prediction", Canon::Answer),
    ("output", Canon::Answer),
    ("retrieved_contexts", Canon::Contexts),
    ("retrieved_context", Canon::Contexts),
    ("retrieval_context", Canon::Contexts),
    ("contexts", Canon::Contexts),
    ("context", Canon::Contexts),
    ("passages", Canon::Contexts),
    ("chunks", Canon::Contexts),
    ("documents", Canon::Contexts),
    ("ground_truth", Canon::GroundTruth),
    ("reference_answer", Canon::GroundTruth),
    ("gold_answer", Canon::GroundTruth),
    ("gt_answer", Canon::GroundTruth),
    ("answer_gt", Canon::GroundTruth),
    ("expected_output", Canon::GroundTruth),
    ("reference", Canon::GroundTruth),
    ("reference_contexts", Canon::ReferenceContexts),
    ("gold_contexts", Canon::ReferenceContexts),
    ("gt_context", Canon::ReferenceContexts),
    ("citation_label", Canon::CitationLabel),
    ("gold_id", Canon::CitationLabel),
    ("gold_article_id", Canon::CitationLabel),
    ("label_id", Canon::CitationLabel),
    ("retrieved_ids", Canon::RetrievedIds),
    ("retrieved_context_ids", Canon::RetrievedIds),
    ("ranked_ids", Canon::RetrievedIds),
    ("doc_ids", Canon::RetrievedIds),
    ("gold_context_ids", Canon::GoldContextIds),
    ("reference_context_ids", Canon::GoldContextIds),
    ("relevant_ids", Canon::GoldContextIds),
    ("gt_context_id", Canon::GoldContextIds),
    ("aspects", Canon::Aspects),
    ("metadata", Canon::Metadata),
    ("meta", Canon::Metadata),
    ("response_claims", Canon::ResponseClaims),
    ("gt_answer_claims", Canon::GtAnswerClaims),
    ("answer2response", Canon::Answer2Response),
    ("response2answer", Canon::Response2Answer),
    ("retrieved2response", Canon::Retrieved2Response),
    ("retrieved2answer", Canon::Retrieved2Answer),
];

/// The question aliases, for messages about a missing question column.
pub(crate) fn question_aliases() -> Vec<&'static str> {
    ALIASES
        .iter()
        .filter(|(_, c)| *c == Canon::Question)
        .map(|(n, _)| *n)
        .collect()
}

/// A recognised field name. `index` orders precedence: lower wins within a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Alias {
    pub index: usize,
    pub canon: Canon,
}

pub(crate) fn classify(key: &str) -> Option<Alias> {
    let exact = |k: &str| {
        ALIASES
            .iter()
            .position(|(name, _)| *name == k)
            .map(|index| Alias {
                index,
                canon: ALIASES[index].1,
            })
    };
    match exact(key) {
        Some(alias) => Some(alias),
        None if key.bytes().any(|b| b.is_ascii_uppercase()) => exact(&key.to_ascii_lowercase()),
        None => None,
    }
}

/// Where names recognised by their words (`classify_loose`) rank: after every listed
/// alias, so a listed name in the same record always wins.
const LOOSE_BASE: usize = ALIASES.len();

/// The fields a name can be recognised for by its words, in `LOOSE_BASE` order.
const LOOSE: [Canon; 6] = [
    Canon::Question,
    Canon::Answer,
    Canon::Contexts,
    Canon::GroundTruth,
    Canon::ReferenceContexts,
    Canon::GoldContextIds,
];

/// The words of a field name, lower case and singular: `predicted_answers` → predicted,
/// answer; `documentText` → document, text; `Ground-Truths` → ground, truth.
pub(crate) fn words(key: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut prev_lower = false;
    for c in key.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        out.push(word);
    }
    out.into_iter()
        .map(|w| match w.strip_suffix('s') {
            Some(stem) if stem.len() >= 3 && !stem.ends_with('s') => stem.to_string(),
            _ => w,
        })
        .collect()
}

/// Whether `general` names what `specific` names one qualified part of, by words:
/// `retrieved_contents` beside `retrieved_contents_lexical` (AutoRAG keeps each
/// retriever's passages and the final ones side by side); the general name is the
/// pipeline's own output.
pub(crate) fn names_more_generally(general: &str, specific: &str) -> bool {
    let (general, specific) = (words(general), words(specific));
    general.len() < specific.len() && general.iter().all(|w| specific.contains(w))
}

/// A field name no alias lists, recognised by its words (another tool's `Document`,
/// `document_text`, `ground_truths`, `generation_gt`, `predicted_answers`): the word
/// families decide, reference words before context words before answer words before
/// question words, and a name that also speaks of an id, a score or a time is left alone
/// (`doc_id`, `answer_score` are not texts). The mapper takes such a field only when its
/// value has the field's shape.
pub(crate) fn classify_loose(key: &str) -> Option<Alias> {
    // One word family per line, kept as written: a list a reader scans, not code.
    #[rustfmt::skip]
    const REFERENCE: &[&str] = &["truth", "true", "gt", "gold", "golden", "ideal", "expected", "reference", "target", "correct"];
    #[rustfmt::skip]
    const CONTEXT: &[&str] = &["context", "document", "doc", "passage", "chunk", "retrieved", "retrieval", "evidence", "snippet", "knowledge"];
    #[rustfmt::skip]
    const ANSWER: &[&str] = &["answer", "response", "output", "completion", "generation", "generated", "reply", "prediction", "predicted"];
    const QUESTION: &[&str] = &["question", "query", "prompt", "input", "utterance"];
    // Ids, scores, times and settings: a name with one of these is not the text itself.
    #[rustfmt::skip]
    const NOT_TEXT: &[&str] = &[
        "id", "ids", "uuid", "key", "hash", "index", "idx", "score", "metric", "reason", "rating",
        "latency", "cost", "token", "time", "timestamp", "feedback", "grade", "error", "status",
        "type", "count", "length", "len", "prob", "confidence", "pass", "success", "url", "path",
        "file", "format", "template", "config", "date", "rank", "label", "judgement",
        "explanation", "eval", "evaluation", "result", "threshold", "name", "title", "relevance",
        "relevancy", "faithfulness", "precision", "recall", "mrr", "map", "ndcg", "hit", "sas",
        "f1", "accuracy", "similarity", "overlap", "rate",
    ];
    let words = words(key);
    let any = |family: &[&str]| words.iter().any(|w| family.contains(&w.as_str()));
    let retrieval_gt = any(REFERENCE) && any(&["retrieval", "retrieved"]);
    if retrieval_gt && words.len() == 2 {
        // AutoRAG's `retrieval_gt`: the ids of the passages that should have been found.
        return loose(Canon::GoldContextIds);
    }
    if words.is_empty() || any(NOT_TEXT) {
        return None;
    }
    let canon = if any(REFERENCE) && any(CONTEXT) {
        Canon::ReferenceContexts
    } else if any(REFERENCE) {
        Canon::GroundTruth
    } else if any(CONTEXT) {
        Canon::Contexts
    } else if any(ANSWER) {
        Canon::Answer
    } else if any(QUESTION) {
        Canon::Question
    } else {
        return None;
    };
    loose(canon)
}

/// The field a name stands for: a listed alias, else by its words (without looking at
/// the value; the mapper checks that before it takes a field named by its words).
pub(crate) fn field_of(key: &str) -> Option<Canon> {
    classify(key)
        .or_else(|| classify_loose(key))
        .map(|a| a.canon)
}

fn loose(canon: Canon) -> Option<Alias> {
    LOOSE.iter().position(|c| *c == canon).map(|i| Alias {
        index: LOOSE_BASE + i,
        canon,
    })
}

impl Alias {
    /// Recognised by its words, not listed.
    pub(crate) fn is_loose(self) -> bool {
        Alias::loose_index(self.index)
    }

    /// Whether a precedence index is that of a name recognised by its words.
    pub(crate) fn loose_index(index: usize) -> bool {
        index >= LOOSE_BASE
    }
}

/// Unknown field names listed in the mapping under "metadata"; more are still kept.
const MAX_UNKNOWN_LISTED: usize = 100;

/// What source fields a file used, accumulated over its records.
#[derive(Debug, Default)]
pub(crate) struct SourceFields {
    seen: u64,
    /// The spelling the file used for each alias, the first time it appeared.
    spelling: BTreeMap<usize, String>,
    /// The names recognised by their words, per field, in the order first seen.
    loose_spelling: BTreeMap<usize, Vec<String>>,
    metadata_id: bool,
    unknown: HashSet<String>,
    unknown_listed: Vec<String>,
}

impl SourceFields {
    pub(crate) fn note(&mut self, alias: Alias, key: &str) {
        if alias.is_loose() {
            let names = self.loose_spelling.entry(alias.index).or_default();
            if names.len() < 5 && !names.iter().any(|n| n == key) {
                // In precedence order: a general name before the qualified ones it
                // wins over (`mapping::map_record`).
                let at = names
                    .iter()
                    .position(|n| names_more_generally(key, n))
                    .unwrap_or(names.len());
                names.insert(at, key.to_string());
            }
        }
        let bit = 1u64 << alias.index;
        if self.seen & bit == 0 {
            self.seen |= bit;
            self.spelling.insert(alias.index, key.to_string());
        }
    }

    pub(crate) fn note_metadata_id(&mut self) {
        self.metadata_id = true;
    }

    pub(crate) fn note_unknown(&mut self, key: &str) {
        if self.unknown_listed.len() < MAX_UNKNOWN_LISTED && !self.unknown.contains(key) {
            self.unknown.insert(key.to_string());
            self.unknown_listed.push(key.to_string());
        }
    }

    fn used(&self, name: &str) -> bool {
        ALIASES
            .iter()
            .position(|(n, _)| *n == name)
            .is_some_and(|i| self.seen & (1 << i) != 0)
    }

    /// canonical field -> source names, in precedence order; unknown names under metadata.
    pub(crate) fn mapping(&self) -> BTreeMap<String, Vec<String>> {
        let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (index, spelled) in &self.spelling {
            if *index >= LOOSE_BASE {
                continue;
            }
            out.entry(ALIASES[*index].1.name().to_string())
                .or_default()
                .push(spelled.clone());
        }
        for (index, names) in &self.loose_spelling {
            out.entry(LOOSE[index - LOOSE_BASE].name().to_string())
                .or_default()
                .extend(names.iter().map(|n| format!("{n} (by its name)")));
        }
        if self.metadata_id {
            out.entry("id".to_string())
                .or_default()
                .push("metadata.id".to_string());
        }
        if !self.unknown_listed.is_empty() {
            out.entry("metadata".to_string())
                .or_default()
                .extend(self.unknown_listed.iter().cloned());
        }
        out
    }

    /// The tool the file most likely came from, judged by its field names.
    pub(crate) fn schema(&self) -> Schema {
        let any = |names: &[&str]| names.iter().any(|n| self.used(n));
        if any(&[
            "response_claims",
            "gt_answer_claims",
            "answer2response",
            "response2answer",
            "retrieved2response",
            "retrieved2answer",
            "gt_answer",
            "retrieved_context",
        ]) {
            Schema::RagChecker
        } else if any(&["gold_id", "citation_label", "gold_article_id", "label_id"]) {
            Schema::RagCitations
        } else if any(&["user_input", "retrieved_contexts"])
            || (self.used("response") && self.used("reference"))
        {
            Schema::Ragas
        } else if self.used("question") && any(&["answer", "contexts"]) {
            Schema::Ragvue
        } else {
            Schema::Custom
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_match_case_insensitively() {
        assert_eq!(classify("Question").map(|a| a.canon), Some(Canon::Question));
        assert_eq!(
            classify("GT_ANSWER").map(|a| a.canon),
            Some(Canon::GroundTruth)
        );
        assert_eq!(
            classify("retrieved_context").map(|a| a.canon),
            Some(Canon::Contexts)
        );
        assert_eq!(classify("shape"), None);
    }

    #[test]
    fn more_specific_aliases_have_lower_index() {
        let rank = |k: &str| classify(k).unwrap().index;
        assert!(rank("contexts") < rank("context"), "contexts beats context");
        assert!(rank("retrieved_contexts") < rank("contexts"));
        assert!(rank("question") < rank("prompt"));
        assert!(rank("ground_truth") < rank("reference"));
    }

    #[test]
    fn every_alias_fits_the_seen_bitmask() {
        assert!(ALIASES.len() + LOOSE.len() <= 64);
    }

    #[test]
    fn other_tools_names_are_recognised_by_their_words_and_ids_scores_are_not() {
        let canon = |k: &str| classify_loose(k).map(|a| a.canon);
        assert_eq!(canon("Document"), Some(Canon::Contexts));
        assert_eq!(canon("document_text"), Some(Canon::Contexts));
        assert_eq!(canon("truth"), Some(Canon::GroundTruth));
        assert_eq!(canon("ground_truths"), Some(Canon::GroundTruth));
        assert_eq!(canon("generation_gt"), Some(Canon::GroundTruth));
        assert_eq!(canon("ideal"), Some(Canon::GroundTruth));
        assert_eq!(
            canon("ground_truth_context"),
            Some(Canon::ReferenceContexts)
        );
        assert_eq!(canon("retrieval_gt"), Some(Canon::GoldContextIds));
        assert_eq!(canon("predicted_answers"), Some(Canon::Answer));
        assert_eq!(canon("modelResponse"), Some(Canon::Answer));
        assert_eq!(canon("questions"), Some(Canon::Question));
        for not_text in [
            "doc_id",
            "answer_score",
            "response_time",
            "query_id",
            "shape",
            "gpt_groundedness",
        ] {
            assert_eq!(canon(not_text), None, "{not_text}");
        }
        assert!(classify_loose("truth").unwrap().is_loose());
    }

    #[test]
    fn schema_follows_the_field_names_used() {
        let mut f = SourceFields::default();
        for k in ["user_input", "response", "retrieved_contexts", "reference"] {
            f.note(classify(k).unwrap(), k);
        }
        assert_eq!(f.schema(), Schema::Ragas);
        let mut f = SourceFields::default();
        for k in ["query", "gt_answer", "retrieved_context"] {
            f.note(classify(k).unwrap(), k);
        }
        assert_eq!(f.schema(), Schema::RagChecker);
        let mut f = SourceFields::default();
        for k in ["Question", "answer", "contexts"] {
            f.note(classify(k).unwrap(), k);
        }
        assert_eq!(f.schema(), Schema::Ragvue);
        assert_eq!(
            f.mapping()["question"],
            vec!["Question".to_string()],
            "the file's spelling"
        );
    }

    #[test]
    fn a_general_name_is_listed_before_the_qualified_names_it_wins_over() {
        let mut f = SourceFields::default();
        for k in [
            "retrieved_contents_lexical",
            "retrieved_contents_semantic",
            "retrieved_contents",
        ] {
            f.note(classify_loose(k).unwrap(), k);
        }
        assert_eq!(
            f.mapping()["contexts"][0],
            "retrieved_contents (by its name)"
        );
    }
}
