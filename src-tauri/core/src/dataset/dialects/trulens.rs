//! TruLens's feedback results (`FeedbackResult`: one feedback function run on one record,
//! `{feedback_result_id, record_id, name, result, calls: [{args, ret}]}`), saved alone or
//! as a list. The calls' arguments hold the record's text under the names the feedback
//! function takes: `question` / `prompt` for the question, `context` / `source` for the
//! passages, `response` / `statement` for the answer.
//!
//! Owns: recognising a feedback result and reshaping it into the record it judged, with
//! its result as a prior score. Must not: join it to the record itself (another file).

use std::collections::BTreeSet;

use serde_json::{json, Map, Value};

use super::Notes;

/// Whether a record with these keys is a TruLens feedback result.
pub(crate) fn is_feedback(keys: &BTreeSet<&str>) -> bool {
    keys.contains("feedback_result_id") && keys.contains("calls")
}

const QUESTION: [&str; 3] = ["question", "prompt", "input"];
const CONTEXT: [&str; 2] = ["context", "source"];
const ANSWER: [&str; 3] = ["response", "statement", "answer"];

pub(crate) fn feedback(record: &mut Map<String, Value>, notes: &mut Notes) {
    let Some(Value::Array(calls)) = record.remove("calls") else {
        return;
    };
    let args: Vec<&Map<String, Value>> = calls
        .iter()
        .filter_map(|c| c.get("args").and_then(Value::as_object))
        .collect();
    let first_text = |names: &[&str]| {
        args.iter()
            .find_map(|a| names.iter().find_map(|n| a.get(*n).and_then(Value::as_str)))
            .map(str::to_string)
    };
    if let Some(question) = first_text(&QUESTION) {
        record.insert("question".into(), json!(question));
        notes.source("question", "calls[].args.question (or prompt)");
    }
    if let Some(answer) = first_text(&ANSWER) {
        record.insert("answer".into(), json!(answer));
        notes.source("answer", "calls[].args.response (or statement)");
    }
    // Each call of a context feedback judges one passage: the passages, once each.
    let mut contexts: Vec<String> = Vec::new();
    for passage in args
        .iter()
        .flat_map(|a| CONTEXT.iter().filter_map(|n| a.get(*n)))
        .flat_map(|v| match v {
            Value::String(s) => vec![s.clone()],
            Value::Array(items) => items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
            _ => Vec::new(),
        })
    {
        if !contexts.contains(&passage) {
            contexts.push(passage);
        }
    }
    if !contexts.is_empty() {
        record.insert("retrieved_contexts".into(), json!(contexts));
        notes.source("contexts", "calls[].args.context (or source)");
    }
    if let Some(id) = record.remove("record_id") {
        record.insert("id".into(), id);
        notes.source("id", "record_id (the record the feedback judged)");
    }
    let name = record
        .get("name")
        .and_then(Value::as_str)
        .map(str::to_string);
    let result = record.get("result").and_then(super::super::values::number);
    if let (Some(name), Some(score)) = (name, result) {
        record.remove("name");
        record.remove("result");
        let mut value = json!({ "score": score });
        if let Some(error) = record.get("error").and_then(Value::as_str) {
            value["error"] = json!(error);
        }
        notes.prior(record, &name, "TruLens feedback result", value);
    }
    record.insert("calls".into(), Value::Array(calls));
}
