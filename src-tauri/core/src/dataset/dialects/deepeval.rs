//! DeepEval test cases, goldens and test runs.
//!
//! Owns: `context` as reference contexts, `|`-joined CSV lists, `metricsData` as prior
//! scores. Must not: map fields.

use serde_json::{json, Map, Value};

use super::super::values::{is_absent, number};
use super::Notes;

/// DeepEval test cases: `context` is what the test's author says the answer needs,
/// which is a reference, never what the pipeline retrieved.
pub(super) fn deepeval(record: &mut Map<String, Value>, csv: bool, notes: &mut Notes) {
    if csv {
        for key in ["retrieval_context", "context"] {
            if let Some(v) = record.get_mut(key) {
                split_pipes(v);
            }
        }
    }
    if let Some(context) = record.remove("context") {
        record.insert("reference_contexts".into(), context);
        notes.source("reference_contexts", "context");
        notes.choose(
            "reference_contexts",
            "context",
            vec!["contexts".into()],
            "DeepEval's `context` is the ideal context written for the test case; what the pipeline retrieved is `retrieval_context`",
        );
    }
}

/// A CSV cell DeepEval wrote as `first|second`: one list entry per `|` part.
fn split_pipes(value: &mut Value) {
    let joined = match value {
        Value::String(s) => s.clone(),
        Value::Array(items) if items.len() == 1 => match &items[0] {
            Value::String(s) => s.clone(),
            _ => return,
        },
        _ => return,
    };
    *value = Value::Array(
        joined
            .split('|')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| Value::String(s.into()))
            .collect(),
    );
}

/// A test run's `metricsData[]` (or older `metricsMetadata[]`) as prior scores; a metric
/// that errored stays an error, never a 0.
pub(super) fn deepeval_metrics(record: &mut Map<String, Value>, notes: &mut Notes) {
    let metrics = record
        .remove("metricsData")
        .or_else(|| record.remove("metricsMetadata"));
    let Some(Value::Array(metrics)) = metrics else {
        return;
    };
    for metric in metrics {
        if let Some((name, score)) = metric.as_object().and_then(metric_prior) {
            notes.prior(record, &name, "metricsData", score);
        }
    }
}

/// One DeepEval metric result as (name, prior score).
fn metric_prior(m: &Map<String, Value>) -> Option<(String, Value)> {
    let name = m
        .get("name")
        .or_else(|| m.get("metric"))
        .and_then(Value::as_str)?;
    let mut score = json!({});
    if let Some(s) = m.get("score").and_then(number) {
        score["score"] = json!(s);
    }
    if let Some(pass) = m.get("success").and_then(Value::as_bool) {
        score["label"] = json!(if pass { "pass" } else { "fail" });
    }
    if let Some(reason) = m.get("reason").filter(|r| r.is_string()) {
        score["explanation"] = reason.clone();
    }
    if let Some(error) = m.get("error").filter(|e| !e.is_null()) {
        score["error"] = error.clone();
    }
    Some((name.to_string(), score))
}

const SPAN_KINDS: [&str; 5] = [
    "agentSpans",
    "baseSpans",
    "llmSpans",
    "retrieverSpans",
    "toolSpans",
];

/// A traced test case (`testCases[].trace`): what the pipeline retrieved, when the case
/// has no `retrievalContext` of its own, is on the trace's retriever spans (or, for
/// LlamaIndex, on a base span); the answer, when `actualOutput` is only a placeholder,
/// is the trace's output; each span's `metricsData` are prior scores named
/// `<span name>/<metric name>`.
pub(super) fn traced(record: &mut Map<String, Value>, notes: &mut Notes) {
    let Some(Value::Object(trace)) = record.remove("trace") else {
        return;
    };
    if record.get("retrieval_context").is_none_or(is_absent) {
        if let Some((contexts, from)) = trace_contexts(&trace) {
            record.insert("retrieval_context".into(), contexts);
            notes.source("contexts", &format!("testCases[].trace.{from}"));
        }
    }
    let placeholder = record
        .get("actual_output")
        .and_then(Value::as_str)
        .is_none_or(|a| a.trim().is_empty() || a.trim() == "{...}");
    if placeholder {
        if let Some(answer) = trace.get("output").and_then(output_text) {
            if let Some(old) = record.insert("actual_output".into(), Value::String(answer)) {
                record.insert("actual_output_placeholder".into(), old);
            }
            notes.source("answer", "testCases[].trace.output");
        }
    }
    span_metrics(&trace, record, notes);
    if let Some(uuid) = trace.get("uuid") {
        record.insert("trace_uuid".into(), uuid.clone());
    }
}

/// The contexts on a trace's spans: `retrieverSpans[].retrievalContext`, else any span
/// carrying a `retrievalContext`; with the path they came from.
fn trace_contexts(trace: &Map<String, Value>) -> Option<(Value, String)> {
    let mut found = Vec::new();
    let mut from = None;
    for kind in std::iter::once("retrieverSpans").chain(SPAN_KINDS) {
        for span in trace
            .get(kind)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(Value::Array(chunks)) = span.get("retrievalContext") {
                found.extend(chunks.iter().cloned());
                from.get_or_insert_with(|| {
                    let name = span.get("name").and_then(Value::as_str).unwrap_or("?");
                    format!("{kind}[name={name}].retrievalContext")
                });
            }
        }
        if !found.is_empty() {
            return Some((Value::Array(found), from.unwrap_or_default()));
        }
    }
    None
}

/// The answer text of a trace's or span's output: a string, or its `answer` /
/// `response` / `output` text.
fn output_text(output: &Value) -> Option<String> {
    match output {
        Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
        Value::Object(o) => ["answer", "response", "output", "text", "content"]
            .iter()
            .find_map(|k| o.get(*k).and_then(output_text)),
        Value::Array(items) => items.iter().find_map(output_text),
        _ => None,
    }
}

fn span_metrics(trace: &Map<String, Value>, record: &mut Map<String, Value>, notes: &mut Notes) {
    for kind in SPAN_KINDS {
        for span in trace
            .get(kind)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let span_name = span.get("name").and_then(Value::as_str).unwrap_or(kind);
            let metrics = span.get("metricsData").and_then(Value::as_array);
            for m in metrics.into_iter().flatten().filter_map(Value::as_object) {
                if let Some((name, score)) = metric_prior(m) {
                    let name = format!("{span_name}/{name}");
                    notes.prior(record, &name, "span metricsData", score);
                }
            }
        }
    }
}

/// A bare DeepEval trace (no test case): the root span's input is the question and its
/// output the answer; contexts as for a traced test case.
pub(super) fn bare_trace(record: &mut Map<String, Value>, notes: &mut Notes) {
    let spans: Vec<&Map<String, Value>> = SPAN_KINDS
        .iter()
        .flat_map(|k| {
            record
                .get(*k)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
        })
        .filter_map(Value::as_object)
        .collect();
    let root = spans
        .iter()
        .find(|s| s.get("parentUuid").is_none_or(Value::is_null));
    let question = root.and_then(|r| r.get("input")).and_then(query_text);
    let answer = root.and_then(|r| r.get("output")).and_then(output_text);
    let name = root
        .and_then(|r| r.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("root")
        .to_string();
    let contexts = trace_contexts(record);
    if let Some(q) = question {
        record.insert("input".into(), Value::String(q));
        notes.source("question", &format!("the root span's ({name}) input"));
    }
    if let Some(a) = answer {
        record.insert("actual_output".into(), Value::String(a));
        notes.source("answer", &format!("the root span's ({name}) output"));
    }
    if let Some((contexts, from)) = contexts {
        record.insert("retrieval_context".into(), contexts);
        notes.source("contexts", &from);
    }
    let mut metrics = Map::new();
    span_metrics(record, &mut metrics, notes);
    for kind in SPAN_KINDS {
        record.remove(kind);
    }
    if let Some(Value::Object(m)) = metrics.remove("metadata") {
        record.insert("metadata".into(), Value::Object(m));
    }
}

/// The query a span was called with: a string, or its `query_str` / `query` /
/// `str_or_query_bundle` / `input` text, however deep.
fn query_text(input: &Value) -> Option<String> {
    match input {
        Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
        Value::Object(o) => [
            "query_str",
            "query",
            "str_or_query_bundle",
            "question",
            "input",
        ]
        .iter()
        .find_map(|k| o.get(*k).and_then(query_text)),
        _ => None,
    }
}

/// DeepEval's cache (`.deepeval/.deepeval-cache.json`): each entry's key is the test
/// case as a JSON string; its cached metric results are prior scores.
pub(super) fn cache_entry(record: &mut Map<String, Value>, notes: &mut Notes) {
    if let Some(Value::String(key)) = record.remove("lookup_key") {
        match serde_json::from_str::<Value>(&key) {
            Ok(Value::Object(case)) => {
                for (k, v) in case {
                    record.entry(k).or_insert(v);
                }
                notes.source(
                    "question",
                    "test_cases_lookup_map key (a JSON string).input",
                );
            }
            _ => {
                record.insert("lookup_key".into(), Value::String(key));
            }
        }
    }
    let cached = record.remove("cached_metrics_data");
    for entry in cached.iter().flat_map(|c| c.as_array()).flatten() {
        let data = entry.get("metric_data").and_then(Value::as_object);
        if let Some((name, score)) = data.and_then(metric_prior) {
            notes.prior(record, &name, "cached_metrics_data", score);
        }
    }
    deepeval(record, false, notes);
}
