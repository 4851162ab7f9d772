//! Which metrics exist, what each needs, and how a user's `--metrics` list resolves.
//!
//! Only metrics that are really implemented are listed: a metric appears here in the same
//! change that makes it compute. The static table holds the built-in families; a user's
//! own criteria (`criteria.<name>`) are the dynamic part (`custom`), and `find` and the selection see both.

pub mod custom;
pub mod outcome;
pub mod stage;

use serde::Serialize;

use crate::item::Field;

pub use outcome::{MetricResult, Status};

/// The paper or source a metric comes from, or the user's own criteria.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Family {
    Ragvue,
    Ragxplain,
    RagChecker,
    Citation,
    Ragalyst,
    Reference,
    /// A user's own criteria, defined in plain words (`crate::criteria`).
    Criteria,
}

impl Family {
    pub const ALL: [Family; 7] = [
        Family::Ragvue,
        Family::Ragxplain,
        Family::RagChecker,
        Family::Citation,
        Family::Ragalyst,
        Family::Reference,
        Family::Criteria,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Family::Ragvue => "ragvue",
            Family::Ragxplain => "ragxplain",
            Family::RagChecker => "ragchecker",
            Family::Citation => "citation",
            Family::Ragalyst => "ragalyst",
            Family::Reference => "reference",
            Family::Criteria => custom::FAMILY,
        }
    }
}

/// Whether a metric scores each item or only the dataset as a whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Scope {
    Item,
    /// Computed in `analysis` from the per-item details of other metrics of its family.
    Dataset,
}

/// One metric of the catalogue: what it needs and how to read it (the picker and the
/// tables show it as it is).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MetricSpec {
    /// Family and name joined ("ragvue.strict_faithfulness"), as runs and exports name it.
    pub id: &'static str,
    pub family: Family,
    /// The name the tables show.
    pub name: &'static str,
    /// The item fields it needs (their badges: `labels.ts`).
    pub needs: &'static [Field],
    /// Scoring it asks the run's judge; the others are computed from the item alone.
    pub judge: bool,
    /// Hallucination-style metrics: 0 is good. Charts and failure rules flip them.
    pub lower_is_better: bool,
    pub scope: Scope,
    /// Computed from other metrics of the same item (overalls), not judged directly.
    pub synthesised: bool,
    /// One or two sentences on what it measures.
    pub description: &'static str,
}

use Field::*;

const fn item(
    id: &'static str,
    family: Family,
    name: &'static str,
    needs: &'static [Field],
    description: &'static str,
) -> MetricSpec {
    MetricSpec {
        id,
        family,
        name,
        needs,
        judge: false,
        lower_is_better: false,
        scope: Scope::Item,
        synthesised: false,
        description,
    }
}

const fn judged(mut spec: MetricSpec) -> MetricSpec {
    spec.judge = true;
    spec
}

const fn lower(mut spec: MetricSpec) -> MetricSpec {
    spec.lower_is_better = true;
    spec
}

const fn synthesised(mut spec: MetricSpec) -> MetricSpec {
    spec.synthesised = true;
    spec
}

const fn dataset(mut spec: MetricSpec) -> MetricSpec {
    spec.scope = Scope::Dataset;
    spec
}

/// RAGChecker metrics use supplied claims and labels when the item has them, and ask the
/// judge to extract and label claims otherwise.
const RC: &[Field] = &[Answer, Contexts, GroundTruth];
/// Precision, recall and F1 compare the answer with the ground truth only: they must not
/// be skipped because an item has no contexts.
const RC_ANSWER: &[Field] = &[Answer, GroundTruth];

static CATALOGUE: &[MetricSpec] = &[
    // Family 1, RAGVUE, judged.
    judged(item("ragvue.retrieval_relevance", Family::Ragvue, "retrieval_relevance", &[Question, Contexts],
        "Share of retrieved chunks that are useful for the question (per-chunk relevance at least 0.7).")),
    judged(item("ragvue.retrieval_coverage", Family::Ragvue, "retrieval_coverage", &[Question, Contexts],
        "Share of the question's parts (aspects) that some retrieved chunk supports.")),
    judged(item("ragvue.answer_relevance", Family::Ragvue, "answer_relevance", &[Question, Answer],
        "How well the answer addresses what was asked (intent, not correctness or style).")),
    judged(item("ragvue.answer_completeness", Family::Ragvue, "answer_completeness", &[Question, Answer],
        "Share of the question's parts that the answer addresses.")),
    judged(item("ragvue.clarity", Family::Ragvue, "clarity", &[Answer],
        "Grammar, fluency, organisation and readability of the answer.")),
    judged(item("ragvue.strict_faithfulness", Family::Ragvue, "strict_faithfulness", &[Answer, Contexts],
        "Share of the answer's claims supported by the contexts, with names and dates matching exactly.")),
    judged(item("ragvue.context_utilization", Family::Ragvue, "context_utilization", &[Question, Answer, Contexts],
        "Share of the retrieved chunks the answer actually draws on.")),
    judged(item("ragvue.negative_rejection", Family::Ragvue, "negative_rejection", &[Question, Answer, Contexts],
        "1 when the answer answers if the contexts suffice and declines if they do not.")),
    judged(item("ragvue.multi_hop_faithfulness", Family::Ragvue, "multi_hop_faithfulness", &[Question, Answer, Contexts],
        "Share of the answer's reasoning steps that the contexts back and that follow from the step before.")),
    judged(item("ragvue.implicit_contradiction", Family::Ragvue, "implicit_contradiction", &[Question, Answer, Contexts],
        "1 when the answer has no subtle mismatch with the contexts (negation, scope, dates, magnitudes).")),
    judged(item("ragvue.coherence", Family::Ragvue, "coherence", &[Question, Answer],
        "Internal logic of the answer: no self-contradiction, non-sequitur or circular reasoning.")),
    judged(item("ragvue.answer_conciseness", Family::Ragvue, "answer_conciseness", &[Question, Answer],
        "Absence of repetition, filler and padding in the answer.")),
    synthesised(item("ragvue.retrieval_overall", Family::Ragvue, "retrieval_overall", &[Question, Contexts],
        "Harmonic mean of retrieval relevance and retrieval coverage.")),
    synthesised(item("ragvue.answer_overall", Family::Ragvue, "answer_overall", &[Question, Answer],
        "Weighted mean of the answer metrics present (weight profile ragvue-paper or ragvue-0.6).")),
    // Family 1, judge-free RAGVUE 0.6 extensions.
    item("ragvue.answer_length", Family::Ragvue, "answer_length", &[Answer],
        "How appropriate the answer's length is: very short or very long answers score lower."),
    item("ragvue.readability", Family::Ragvue, "readability", &[Answer],
        "Flesch reading ease of the answer, scaled to 0-1: higher is easier to read."),
    item("ragvue.token_overlap", Family::Ragvue, "token_overlap", &[Answer, Contexts],
        "Word overlap (F1 of content-word sets) between the answer and the retrieved contexts."),
    item("ragvue.context_similarity", Family::Ragvue, "context_similarity", &[Answer, Contexts],
        "TF-IDF cosine similarity between the answer and the retrieved contexts."),
    // Family 2, the RAGXplain metric diamond: 0.2-step rubric ratings from one scorecard
    // call per item (the grading note comes with the aspects).
    judged(item("ragxplain.context_relevancy", Family::Ragxplain, "context_relevancy", &[Question, Contexts],
        "How well the retrieved context, as a whole, serves the question (rubric 0.2-1.0); chunks cut mid-sentence count against it.")),
    judged(item("ragxplain.context_adherence", Family::Ragxplain, "context_adherence", &[Answer, Contexts],
        "Whether the answer comes only from the retrieved context, with no outside facts or assumptions (rubric 0.2-1.0).")),
    judged(item("ragxplain.answer_relevancy", Family::Ragxplain, "answer_relevancy", &[Question, Answer],
        "Whether the answer addresses the question directly and completely (rubric 0.2-1.0).")),
    judged(item("ragxplain.context_recall", Family::Ragxplain, "context_recall", &[Contexts, GroundTruth],
        "Whether the retrieved context holds what the ground-truth answer needs (rubric 0.2-1.0).")),
    judged(item("ragxplain.factuality", Family::Ragxplain, "factuality", &[Question, Answer, GroundTruth],
        "Whether the answer carries the ground truth's essential information without misleading errors (rubric 0.2-1.0).")),
    judged(item("ragxplain.grading_note", Family::Ragxplain, "grading_note", &[Question, Answer],
        "Whether the answer has the structure a good answer to this question has, per a grading note written from the question (rubric 0.2-1.0).")),
    // Family 5, RAGalyst: correctness against the reference and answerability.
    judged(item("ragalyst.answer_correctness", Family::Ragalyst, "answer_correctness", &[Answer, GroundTruth],
        "How correct the answer is against the ground truth, on a continuous 0-1 scale with anchors and scored examples; low answers get a failure taxonomy.")),
    judged(item("ragalyst.answerability", Family::Ragalyst, "answerability", &[Question, Contexts],
        "1 when the retrieved context alone holds everything needed to answer the question, else 0.")),
    // Family 3, RAGChecker claim metrics: supplied labels, or a judge extracts them.
    judged(item("ragchecker.precision", Family::RagChecker, "precision", RC_ANSWER,
        "Share of the answer's claims that the ground truth entails.")),
    judged(item("ragchecker.recall", Family::RagChecker, "recall", RC_ANSWER,
        "Share of the ground truth's claims that the answer entails.")),
    judged(item("ragchecker.f1", Family::RagChecker, "f1", RC_ANSWER,
        "Harmonic mean of claim precision and claim recall.")),
    judged(item("ragchecker.claim_recall", Family::RagChecker, "claim_recall", RC,
        "Share of the ground truth's claims that some retrieved chunk entails.")),
    judged(item("ragchecker.context_precision", Family::RagChecker, "context_precision", RC,
        "Share of retrieved chunks that entail at least one ground-truth claim.")),
    judged(item("ragchecker.context_utilization", Family::RagChecker, "context_utilization", RC,
        "Of the ground-truth claims the chunks support, the share the answer also states.")),
    judged(lower(item("ragchecker.noise_sensitivity_relevant", Family::RagChecker, "noise_sensitivity_relevant", RC,
        "Share of the answer's claims that are wrong yet supported by a relevant chunk (lower is better)."))),
    judged(lower(item("ragchecker.noise_sensitivity_irrelevant", Family::RagChecker, "noise_sensitivity_irrelevant", RC,
        "Share of the answer's claims that are wrong and come only from irrelevant chunks (lower is better)."))),
    judged(lower(item("ragchecker.hallucination", Family::RagChecker, "hallucination", RC,
        "Share of the answer's claims that are wrong and supported by no chunk (lower is better)."))),
    judged(item("ragchecker.self_knowledge", Family::RagChecker, "self_knowledge", RC,
        "Share of the answer's claims that are correct but supported by no chunk.")),
    judged(item("ragchecker.faithfulness", Family::RagChecker, "faithfulness", RC,
        "Share of the answer's claims that some retrieved chunk entails.")),
    // Family 4, citation accuracy without a judge.
    item("citation.strict_accuracy", Family::Citation, "strict_accuracy", &[Answer, CitationLabel],
        "1 when the answer cites exactly one source and it is the gold one."),
    item("citation.lenient_accuracy", Family::Citation, "lenient_accuracy", &[Answer, CitationLabel],
        "1 when the gold source is among the answer's citations."),
    lower(item("citation.no_citation_rate", Family::Citation, "no_citation_rate", &[Answer, CitationLabel],
        "1 when the answer cites nothing (lower is better).")),
    lower(item("citation.multi_citation_rate", Family::Citation, "multi_citation_rate", &[Answer, CitationLabel],
        "1 when the answer cites more than one source (lower is better).")),
    dataset(item("citation.macro_precision", Family::Citation, "macro_precision", &[Answer, CitationLabel],
        "Precision of cited ids, averaged over gold articles (dataset level).")),
    dataset(item("citation.macro_recall", Family::Citation, "macro_recall", &[Answer, CitationLabel],
        "Recall of cited ids, averaged over gold articles (dataset level).")),
    dataset(item("citation.macro_f1", Family::Citation, "macro_f1", &[Answer, CitationLabel],
        "F1 of cited ids, averaged over gold articles (dataset level).")),
    // Family 5, classic reference metrics.
    item("reference.recall_at_k", Family::Reference, "recall_at_k", &[Ranking],
        "1 when a gold context is among the top k retrieved ids."),
    item("reference.mrr_at_k", Family::Reference, "mrr_at_k", &[Ranking],
        "Reciprocal rank of the first gold context within the top k (0 if absent)."),
    item("reference.exact_match", Family::Reference, "exact_match", &[Answer, GroundTruth],
        "1 when the normalised answer equals the normalised ground truth."),
    item("reference.token_f1", Family::Reference, "token_f1", &[Answer, GroundTruth],
        "SQuAD token F1 between the answer and the ground truth."),
    item("reference.rouge_l", Family::Reference, "rouge_l", &[Answer, GroundTruth],
        "ROUGE-L F1 (longest common subsequence) between the answer and the ground truth."),
    item("reference.bleu", Family::Reference, "bleu", &[Answer, GroundTruth],
        "Smoothed sentence BLEU of the answer against the ground truth."),
    item("reference.semantic_similarity", Family::Reference, "semantic_similarity", &[Answer, GroundTruth],
        "How close the answer's meaning is to the ground truth's (cosine of embedded all-MiniLM-L6-v2 sentence vectors; 0 when unrelated)."),
];

/// Every metric this build can compute, in presentation order.
pub fn catalogue() -> &'static [MetricSpec] {
    CATALOGUE
}

/// Metrics that describe answers rather than judge them: a low value is not a failure
/// by itself. Exact match is 0 for any answer longer than its reference, BLEU and
/// ROUGE-L reward wording, self-knowledge counts correct claims no passage backs (0 is
/// what a grounded system shows). Reports give them no good/critical band and insights
/// call them neither.
pub const DESCRIPTIVE: &[&str] = &[
    "reference.exact_match",
    "reference.bleu",
    "reference.rouge_l",
    "ragchecker.self_knowledge",
];

pub fn is_descriptive(id: &str) -> bool {
    DESCRIPTIVE.contains(&id)
}

/// The built-in metric or the registered criterion called `id`.
pub fn find(id: &str) -> Option<&'static MetricSpec> {
    CATALOGUE
        .iter()
        .find(|m| m.id == id)
        .or_else(|| custom::find(id))
}

/// The specs of `ids` (a run's metric list) that exist: the built-in ones in catalogue
/// order, then the criteria in the list's order.
pub fn in_order<S: AsRef<str>>(ids: &[S]) -> Vec<&'static MetricSpec> {
    let listed = |id: &str| ids.iter().any(|i| i.as_ref() == id);
    let mut out: Vec<&'static MetricSpec> = CATALOGUE.iter().filter(|m| listed(m.id)).collect();
    out.extend(ids.iter().filter_map(|id| custom::find(id.as_ref())));
    out
}

/// Why a `--metrics` entry did not resolve.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SelectionError {
    #[error("unknown metric or family '{0}' (see `ragnosis list-metrics`)")]
    Unknown(String),
    #[error("there is no criterion called '{0}' (see `ragnosis criteria list`; `ragnosis criteria add` defines one)")]
    UnknownCriterion(String),
    #[error("no criteria are defined yet: `ragnosis criteria add` or Settings → Your criteria defines one")]
    NoCriteria,
    #[error("'{name}' is ambiguous: it could be {}", candidates.join(" or "))]
    Ambiguous {
        name: String,
        candidates: Vec<String>,
    },
    #[error("no metrics selected")]
    Empty,
}

/// Resolves a list of ids, bare names or family names into metric specs, in catalogue
/// order, without duplicates; criteria are the ones registered in this process.
pub fn resolve_selection<S: AsRef<str>>(
    entries: &[S],
) -> Result<Vec<&'static MetricSpec>, SelectionError> {
    resolve_selection_in(entries, &custom::all())
}

/// `resolve_selection` with the criteria a store holds: the built-in metrics in
/// catalogue order, then the chosen criteria in `criteria`'s order.
pub fn resolve_selection_in<S: AsRef<str>>(
    entries: &[S],
    criteria: &[&'static MetricSpec],
) -> Result<Vec<&'static MetricSpec>, SelectionError> {
    let all = || CATALOGUE.iter().chain(criteria.iter().copied());
    let mut chosen: Vec<&'static str> = Vec::new();
    for entry in entries {
        let entry = entry.as_ref().trim();
        if entry.is_empty() {
            continue;
        }
        let lower = entry.to_ascii_lowercase();
        let matched: Vec<&'static MetricSpec> = if let Some(spec) = all().find(|m| m.id == lower) {
            vec![spec]
        } else if lower == Family::Criteria.as_str() {
            if criteria.is_empty() {
                return Err(SelectionError::NoCriteria);
            }
            criteria.to_vec()
        } else if let Some(family) = Family::ALL.iter().find(|f| f.as_str() == lower) {
            CATALOGUE.iter().filter(|m| m.family == *family).collect()
        } else if let Some(name) = lower.strip_prefix("criteria.") {
            return Err(SelectionError::UnknownCriterion(name.to_string()));
        } else {
            let by_name: Vec<_> = all().filter(|m| m.name == lower).collect();
            if by_name.len() > 1 {
                return Err(SelectionError::Ambiguous {
                    name: entry.to_string(),
                    candidates: by_name.iter().map(|m| m.id.to_string()).collect(),
                });
            }
            by_name
        };
        if matched.is_empty() {
            return Err(SelectionError::Unknown(entry.to_string()));
        }
        chosen.extend(matched.iter().map(|m| m.id));
    }
    let selected: Vec<_> = all().filter(|m| chosen.contains(&m.id)).collect();
    if selected.is_empty() {
        return Err(SelectionError::Empty);
    }
    Ok(selected)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_family_dot_name_and_unique() {
        let mut seen = std::collections::HashSet::new();
        for m in catalogue() {
            assert_eq!(
                m.id,
                format!("{}.{}", m.family.as_str(), m.name),
                "id must be family.name"
            );
            assert!(seen.insert(m.id), "duplicate id {}", m.id);
        }
    }

    #[test]
    fn family_name_selects_the_whole_family() {
        let got = resolve_selection(&["ragchecker"]).unwrap();
        assert_eq!(got.len(), 11, "RAGChecker has 11 metrics");
        assert!(got.iter().all(|m| m.family == Family::RagChecker));
    }

    #[test]
    fn bare_name_resolves_when_unambiguous() {
        let got = resolve_selection(&["token_f1", "citation.strict_accuracy"]).unwrap();
        let ids: Vec<_> = got.iter().map(|m| m.id).collect();
        assert_eq!(ids, vec!["citation.strict_accuracy", "reference.token_f1"]);
    }

    #[test]
    fn unknown_entry_is_rejected_by_name() {
        let err = resolve_selection(&["token_f1", "nonsense"]).unwrap_err();
        assert_eq!(err, SelectionError::Unknown("nonsense".into()));
        assert_eq!(
            resolve_selection::<&str>(&[]).unwrap_err(),
            SelectionError::Empty
        );
    }
}
