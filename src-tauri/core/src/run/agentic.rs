//! Run modes and the agentic choice of metrics per item.
//!
//! Agentic mode looks at what each item carries and runs what that supports: contexts →
//! retrieval metrics; an answer → answer metrics; both → grounding metrics; beyond
//! RAGVUE, a ground truth → RAGChecker and reference-answer metrics, a citation label →
//! citation metrics, ranked ids → ranking metrics; RAGXplain's diamond and RAGalyst by
//! the same rule (a ground truth → answer correctness, factuality and context recall;
//! contexts → answerability); the user's own criteria when the item has the fields each
//! reads. Each chosen metric records why; each metric not chosen records why not. An
//! item with only a question runs nothing.

use serde::{Deserialize, Serialize};

use crate::item::{Field, Item};
use crate::metrics::{self, Family, MetricSpec, Scope};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Exactly the metrics the user chose.
    #[default]
    Manual,
    /// Metrics chosen per item by the fields present.
    Agentic,
    /// Retrieval metrics only; no answer needed.
    RetrievalOnly,
}

impl Mode {
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Manual => "manual",
            Mode::Agentic => "agentic",
            Mode::RetrievalOnly => "retrieval_only",
        }
    }
}

const RETRIEVAL: &[&str] = &[
    "ragvue.retrieval_relevance",
    "ragvue.retrieval_coverage",
    "ragvue.retrieval_overall",
];
const RANKING: &[&str] = &["reference.recall_at_k", "reference.mrr_at_k"];

/// Every metric a run of this mode may use (the run's metric list).
pub fn candidates(mode: Mode) -> Vec<&'static MetricSpec> {
    metrics::catalogue()
        .iter()
        .filter(|m| m.scope == Scope::Item || m.family == Family::Citation)
        .filter(|m| match mode {
            Mode::Manual => false,
            Mode::Agentic => true,
            Mode::RetrievalOnly => RETRIEVAL.contains(&m.id) || RANKING.contains(&m.id),
        })
        .collect()
}

/// Whether `spec` runs on `item` in agentic mode, and the reason either way.
pub fn choose(spec: &MetricSpec, item: &Item) -> (bool, String) {
    let has = |f: Field| item.has(f);
    if !has(Field::Answer)
        && !has(Field::Contexts)
        && !has(Field::GroundTruth)
        && !has(Field::Ranking)
    {
        return (
            false,
            "the item has only a question: there is nothing to evaluate".into(),
        );
    }
    let missing = metrics::missing_fields(item, spec.needs);
    let why = match spec.family {
        Family::RagChecker if spec.needs.contains(&Field::Contexts) => {
            "the item has a ground-truth answer, an answer and contexts"
        }
        Family::RagChecker => "the item has a ground-truth answer and an answer",
        Family::Citation => "the item has a gold citation id and an answer",
        Family::Reference if spec.needs.contains(&Field::Ranking) => {
            "the item has ranked retrieved ids and a gold id"
        }
        Family::Reference => "the item has a ground-truth answer and an answer",
        Family::Ragalyst if spec.needs.contains(&Field::GroundTruth) => {
            "the item has a ground-truth answer to check the answer's correctness against"
        }
        Family::Ragalyst => "the item has retrieved contexts, so their sufficiency can be judged",
        Family::Criteria => "your own criterion, and the item has the fields it reads",
        Family::Ragxplain if spec.needs.contains(&Field::GroundTruth) => {
            "the item has a ground-truth answer to compare with"
        }
        _ if RETRIEVAL.contains(&spec.id) => "the item has retrieved contexts",
        _ if spec.needs.contains(&Field::Contexts) && spec.needs.contains(&Field::Answer) => {
            "the item has an answer and contexts, so grounding can be checked"
        }
        _ => "the item has an answer",
    };
    if missing.is_empty() {
        (true, why.to_string())
    } else {
        (
            false,
            format!("not chosen: {}", metrics::skip_reason(&missing)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::item::Context;

    fn item(answer: Option<&str>, contexts: &[&str]) -> Item {
        Item {
            question: "What is the chemical symbol for gold?".into(),
            answer: answer.map(String::from),
            contexts: contexts
                .iter()
                .map(|t| Context {
                    id: None,
                    text: t.to_string(),
                })
                .collect(),
            ..Default::default()
        }
    }

    fn chosen(item: &Item) -> Vec<&'static str> {
        candidates(Mode::Agentic)
            .into_iter()
            .filter(|m| choose(m, item).0)
            .map(|m| m.id)
            .collect()
    }

    #[test]
    fn answer_and_contexts_choose_retrieval_answer_and_grounding_metrics() {
        let got = chosen(&item(Some("Au"), &["Gold has the symbol Au."]));
        for id in [
            "ragvue.retrieval_relevance",
            "ragvue.answer_relevance",
            "ragvue.strict_faithfulness",
            "ragvue.retrieval_overall",
        ] {
            assert!(got.contains(&id), "{id} chosen: {got:?}");
        }
        assert!(
            !got.iter()
                .any(|m| m.starts_with("ragchecker.") || m.starts_with("citation.")),
            "no GT, no citation label"
        );
    }

    #[test]
    fn agentic_skips_answer_metrics_when_answer_is_empty() {
        let got = chosen(&item(None, &["Mars is called the Red Planet."]));
        assert!(got.contains(&"ragvue.retrieval_relevance"));
        assert!(
            !got.contains(&"ragvue.answer_relevance")
                && !got.contains(&"ragvue.strict_faithfulness")
        );
        let spec = metrics::find("ragvue.answer_relevance").unwrap();
        assert_eq!(
            choose(spec, &item(None, &["x"])).1,
            "not chosen: the item has no answer"
        );
    }

    #[test]
    fn answer_only_chooses_answer_metrics_but_no_grounding() {
        let got = chosen(&item(Some("Yes"), &[]));
        assert!(got.contains(&"ragvue.answer_relevance") && got.contains(&"ragvue.clarity"));
        assert!(
            !got.contains(&"ragvue.retrieval_relevance")
                && !got.contains(&"ragvue.strict_faithfulness")
        );
    }

    #[test]
    fn question_only_item_runs_nothing_with_a_reason() {
        let q = item(None, &[]);
        assert!(chosen(&q).is_empty());
        assert!(choose(metrics::find("ragvue.clarity").unwrap(), &q)
            .1
            .contains("only a question"));
    }

    #[test]
    fn ground_truth_and_citation_label_add_their_families() {
        let mut it = item(Some("Au [ID: 3]"), &["Gold has the symbol Au."]);
        it.ground_truth = Some("Au".into());
        it.citation_label = Some("3".into());
        let got = chosen(&it);
        assert!(got.contains(&"ragchecker.precision") && got.contains(&"reference.token_f1"));
        assert!(got.contains(&"citation.strict_accuracy"));
    }

    #[test]
    fn ground_truth_adds_correctness_factuality_and_recall_and_contexts_answerability() {
        let mut it = item(Some("Au"), &["Gold has the symbol Au."]);
        let without = chosen(&it);
        assert!(without.contains(&"ragalyst.answerability"));
        assert!(!without.contains(&"ragalyst.answer_correctness"));
        assert!(!without.contains(&"ragxplain.factuality"));
        it.ground_truth = Some("Au".into());
        let with = chosen(&it);
        for id in [
            "ragalyst.answer_correctness",
            "ragxplain.factuality",
            "ragxplain.context_recall",
        ] {
            assert!(with.contains(&id), "{id} chosen: {with:?}");
        }
        let why = choose(metrics::find("ragalyst.answer_correctness").unwrap(), &it).1;
        assert!(why.contains("ground-truth"), "{why}");
        let no_contexts = item(Some("Au"), &[]);
        let why = choose(
            metrics::find("ragalyst.answerability").unwrap(),
            &no_contexts,
        )
        .1;
        assert_eq!(why, "not chosen: the item has no retrieved contexts");
    }

    #[test]
    fn retrieval_only_mode_has_no_answer_metrics() {
        let ids: Vec<_> = candidates(Mode::RetrievalOnly)
            .iter()
            .map(|m| m.id)
            .collect();
        assert!(ids.contains(&"ragvue.retrieval_relevance") && ids.contains(&"reference.mrr_at_k"));
        assert!(!ids.iter().any(|m| m.contains("answer")));
    }
}
