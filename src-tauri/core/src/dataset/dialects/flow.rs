//! Rows of a flow run (promptflow, Azure AI Evaluation's `evaluate()`): the data the
//! flow read under `inputs.` and what it and its evaluators wrote under `outputs.`, as
//! dotted keys (`inputs.query`, `outputs.groundedness.gpt_groundedness`) or as two
//! objects (`{"inputs": {…}, "outputs": {…}}`). The inputs are the item's fields, a text
//! output the flow's answer, and an evaluator's numbers its prior scores, with its reason
//! and pass/fail result beside them.
//!
//! Owns: that unprefixing and the choice of each evaluator's score among its numbers.
//! Must not: drop anything: every key it does not read stays in the record.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use super::super::values::number;
use super::Notes;

const INPUTS: &str = "inputs";
const OUTPUTS: &str = "outputs";

/// Whether the record is a flow row.
pub(crate) fn is_row(record: &Map<String, Value>) -> bool {
    record.keys().any(|k| {
        k.starts_with("inputs.")
            || k.starts_with("outputs.")
            || ((k == INPUTS || k == OUTPUTS) && record[k].is_object())
    })
}

/// One evaluator's fields: `outputs.<evaluator>.<field>`.
#[derive(Default)]
struct Evaluator {
    numbers: Vec<(String, f64)>,
    reason: Option<Value>,
    result: Option<Value>,
}

/// Unprefixes a flow row in place.
pub(crate) fn unprefix(record: &mut Map<String, Value>, notes: &mut Notes) {
    for side in [INPUTS, OUTPUTS] {
        if let Some(Value::Object(inner)) = record.remove(side) {
            for (k, v) in inner {
                record.entry(format!("{side}.{k}")).or_insert(v);
            }
        }
    }
    let keys: Vec<String> = record.keys().cloned().collect();
    let mut evaluators: BTreeMap<String, Evaluator> = BTreeMap::new();
    for key in keys {
        if let Some(field) = key.strip_prefix("inputs.") {
            if !record.contains_key(field) {
                let v = record.remove(&key).expect("listed above");
                notes.source(super::canon_name(field), &key);
                record.insert(field.to_string(), v);
            }
            continue;
        }
        let Some(rest) = key.strip_prefix("outputs.") else {
            continue;
        };
        match rest.split_once('.') {
            None if record[&key].is_string() && !record.contains_key(rest) => {
                let v = record.remove(&key).expect("listed above");
                notes.source(super::canon_name(rest), &key);
                record.insert(rest.to_string(), v);
            }
            None => {
                // An older evaluator writes its score flat: `outputs.gpt_groundedness`.
                if let Some(score) = number(&record[&key]) {
                    record.remove(&key);
                    let e = evaluators.entry(rest.to_string()).or_default();
                    e.numbers.push((rest.to_string(), score));
                }
            }
            Some((evaluator, field)) => {
                let e = evaluators.entry(evaluator.to_string()).or_default();
                let value = &record[&key];
                if field.ends_with("_reason") || field == "reason" {
                    e.reason = Some(record.remove(&key).expect("listed above"));
                } else if field.ends_with("_result") || field == "result" {
                    e.result = Some(record.remove(&key).expect("listed above"));
                } else if field.ends_with("_threshold") || field == "threshold" {
                    // The pass line is the evaluator's setting, not the item's score.
                } else if let Some(score) = number(value) {
                    record.remove(&key);
                    e.numbers.push((field.to_string(), score));
                }
            }
        }
    }
    for (name, e) in evaluators {
        let Some(score) = main_score(&name, &e.numbers) else {
            continue;
        };
        let mut prior = json!({ "score": score });
        if let Some(reason) = e.reason {
            prior["explanation"] = reason;
        }
        if let Some(result) = e.result {
            prior["label"] = result;
        }
        notes.prior(record, &name, "outputs", prior);
    }
}

/// The score of an evaluator among its numbers: the one named after it (`groundedness`,
/// `gpt_groundedness`), else `score`, else the first.
fn main_score(name: &str, numbers: &[(String, f64)]) -> Option<f64> {
    let named = |n: &str| n == name || n.strip_prefix("gpt_") == Some(name) || n == "score";
    numbers
        .iter()
        .find(|(n, _)| named(n))
        .or_else(|| numbers.first())
        .map(|(_, s)| *s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_evaluate_row_gives_its_inputs_as_fields_and_its_evaluators_as_prior_scores() {
        let Value::Object(mut row) = json!({
            "inputs.query": "What is the fee?",
            "inputs.context": "The fee is £5.",
            "outputs.response": "£5.",
            "outputs.groundedness.groundedness": 5.0,
            "outputs.groundedness.gpt_groundedness": 5.0,
            "outputs.groundedness.groundedness_reason": "All in the context.",
            "outputs.groundedness.groundedness_result": "pass",
            "outputs.groundedness.groundedness_threshold": 3,
            "outputs.gpt_relevance": 4,
            "line_number": 0
        }) else {
            unreachable!()
        };
        assert!(is_row(&row));
        let mut notes = Notes::default();
        unprefix(&mut row, &mut notes);
        assert_eq!(row["query"], "What is the fee?");
        assert_eq!(row["response"], "£5.");
        let priors = &row["metadata"]["prior_scores"];
        assert_eq!(priors["groundedness"]["score"], 5.0);
        assert_eq!(priors["groundedness"]["label"], "pass");
        assert_eq!(priors["gpt_relevance"]["score"], 4.0);
        assert_eq!(row["outputs.groundedness.groundedness_threshold"], 3);
        assert_eq!(row["line_number"], 0);
    }

    #[test]
    fn a_run_line_of_two_objects_reads_the_same() {
        let Value::Object(mut row) = json!({
            "inputs": {"question": "Q?", "chat_history": []},
            "outputs": {"answer": "A."}
        }) else {
            unreachable!()
        };
        unprefix(&mut row, &mut Notes::default());
        assert_eq!(row["question"], "Q?");
        assert_eq!(row["answer"], "A.");
    }
}
