//! A tool we do not know by name still writes its scores beside the item: numbers under
//! metric-like names (`gpt_groundedness`, `faithfulness`, `context_relevance_score`).
//! Those are the tool's own prior scores, kept for comparison, not metadata.
//!
//! Owns: telling a score from another number by its name (a latency, a length, a count
//! or an index is not a score). Must not: touch a field the mapper reads.

use serde_json::{json, Map, Value};

use super::super::aliases::{classify, words};
use super::super::values::number;
use super::Notes;

/// Words that make a numeric field a score (ARES's 0/1 `…_Label` columns are the
/// human labels its judge is measured against: scores too).
#[rustfmt::skip]
const SCORE_WORDS: &[&str] = &[
    "score", "gpt", "groundedness", "grounded", "relevance", "relevancy", "coherence",
    "fluency", "similarity", "faithfulness", "correctness", "precision", "recall", "f1",
    "accuracy", "hallucination", "toxicity", "bleu", "rouge", "meteor", "rating", "grade",
    "match", "matched", "utilization", "completeness", "helpfulness", "harmfulness", "mrr",
    "map", "ndcg", "hit", "sas", "label",
];

/// Words that make a numeric field something other than a score.
#[rustfmt::skip]
const NOT_SCORE_WORDS: &[&str] = &[
    "latency", "length", "len", "count", "token", "cost", "time", "duration", "id", "index",
    "idx", "line", "number", "num", "threshold", "seed", "temperature", "top", "k", "step",
    "version", "size", "total",
];

/// Moves the record's top-level score-like numbers to its prior scores.
pub(crate) fn beside(record: &mut Map<String, Value>, notes: &mut Notes) {
    let names: Vec<String> = record
        .iter()
        .filter(|(k, v)| score_of(v).is_some() && classify(k).is_none() && is_score_name(k))
        .map(|(k, _)| k.clone())
        .collect();
    for name in names {
        let value = record.remove(&name).expect("listed above");
        if let Some(score) = score_of(&value) {
            notes.prior(record, &name, "a score column", json!({ "score": score }));
        }
    }
}

/// A score as a tool writes it: a number, the number as text ("0.75" in a CSV cell), or
/// a verdict (`[[Yes]]`, as ARES writes its labels; `pass`, `false`).
fn score_of(value: &Value) -> Option<f64> {
    if let Value::String(s) = value {
        let verdict = s
            .trim()
            .trim_matches(|c| c == '[' || c == ']')
            .to_ascii_lowercase();
        match verdict.as_str() {
            "yes" | "true" | "pass" | "passed" | "correct" => return Some(1.0),
            "no" | "false" | "fail" | "failed" | "incorrect" => return Some(0.0),
            _ => {}
        }
    }
    number(value).filter(|x| x.is_finite())
}

fn is_score_name(name: &str) -> bool {
    let words = words(name);
    let any = |family: &[&str]| words.iter().any(|w| family.contains(&w.as_str()));
    any(SCORE_WORDS) && !any(NOT_SCORE_WORDS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metric_named_numbers_become_prior_scores_and_latencies_stay() {
        let Value::Object(mut r) = json!({
            "question": "q", "gpt_groundedness": 5, "gpt_relevance": 4,
            "citations_matched": 0.5, "latency": 2.1, "answer_length": 900, "line_number": 3,
            "Answer_Faithfulness_Label": "[[No]]", "doc_mrr": "0.5"
        }) else {
            unreachable!()
        };
        beside(&mut r, &mut Notes::default());
        let priors = &r["metadata"]["prior_scores"];
        assert_eq!(priors["gpt_groundedness"]["score"], 5.0);
        assert_eq!(priors["citations_matched"]["score"], 0.5);
        assert_eq!(priors["Answer_Faithfulness_Label"]["score"], 0.0);
        assert_eq!(priors["doc_mrr"]["score"], 0.5, "a CSV cell's number");
        for kept in ["latency", "answer_length", "line_number", "question"] {
            assert!(r.contains_key(kept), "{kept}");
        }
    }
}
