//! Saved examples: DSPy demos, RAGalyst's files and RAGAS's annotation export.
//! - DSPy: a raw example's `answer` (from the train set, not `augmented` by a program
//!   run) is its label, so it is the ground truth; an augmented demo's is the program's
//!   answer.
//! - RAGalyst: a few-shot file's demos (`response`, `reference`, `correctness_score`)
//!   are examples for the judge, not items (refused with the option that reads them);
//!   its `answerability` ("1.0"/"0.0" or numbers) is the dataset's label, kept as the
//!   prior score `ragalyst.answerability` with the label answerable / unanswerable.
//! - RAGAS annotations (`{metric: [{metric_input, metric_output, prompts}]}`): the
//!   input's fields are the item, the output the metric's prior score.
//!
//! Owns: those readings. Must not: map fields.

use serde_json::{json, Map, Value};

use super::super::values::number;
use super::Notes;

pub(super) fn dspy(record: &mut Map<String, Value>, notes: &mut Notes) {
    let augmented = record.get("augmented").and_then(Value::as_bool) == Some(true);
    if augmented {
        return;
    }
    if let Some(answer) = record.remove("answer") {
        record.insert("ground_truth".into(), answer);
        notes.source("ground_truth", "answer (a raw DSPy example)");
        notes.choose(
            "ground_truth",
            "answer",
            vec!["answer".into()],
            "a DSPy demo that is not `augmented` is a train-set example: its `answer` is the label, not a model's answer",
        );
    }
}

/// Why a RAGalyst few-shot demo is not an item.
pub(super) const FEW_SHOT_REFUSAL: &str = "a few-shot example for the answer-correctness judge (response, reference, correctness_score), not an item to evaluate: give this file to `ragnosis eval --few-shot FILE` (or choose it in Settings → Answer correctness examples)";

pub(super) fn answerability(record: &mut Map<String, Value>, notes: &mut Notes) {
    let Some(value) = record.remove("answerability") else {
        return;
    };
    let prior = match number(&value) {
        Some(v) if v == 1.0 || v == 0.0 => json!({
            "score": v,
            "label": if v == 1.0 { "answerable" } else { "unanswerable" },
            "explanation": "the dataset's label (RAGalyst), not a score a tool computed",
        }),
        _ => json!({ "error": format!("answerability {value} is neither 1.0 nor 0.0") }),
    };
    notes.prior(record, "ragalyst.answerability", "label", prior);
}

pub(super) fn ragas_annotation(record: &mut Map<String, Value>, notes: &mut Notes) {
    if let Some(Value::Object(input)) = record.remove("metric_input") {
        for (key, value) in input {
            notes.source(&key, &format!("metric_input.{key}"));
            record.entry(key).or_insert(value);
        }
    }
    let metric = record
        .get("group")
        .and_then(Value::as_str)
        .unwrap_or("metric_output")
        .to_string();
    if let Some(output) = record.remove("metric_output") {
        let prior = match number(&output) {
            Some(score) => json!({ "score": score }),
            None => json!({ "label": output }),
        };
        notes.prior(record, &metric, "metric_output", prior);
    }
}
