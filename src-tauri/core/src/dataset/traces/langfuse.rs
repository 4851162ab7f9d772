//! Langfuse observations.
//!
//! Owns: the facts of one observation. Must not: group observations.

use serde_json::{Map, Value};

use super::super::values::number;
use super::text::{documents_in, first_text};
use super::turns::{answer_in, question_in};
use super::{Role, SpanFacts, TraceExtras};

/// A Langfuse observation.
pub(super) fn langfuse_facts(record: &Map<String, Value>) -> Result<(String, SpanFacts), String> {
    let span_id = first_text(record, &["id"]).ok_or("observation has no id")?;
    let trace_id = first_text(record, &["traceId"]).ok_or("observation has no traceId")?;
    let kind = first_text(record, &["type"]).unwrap_or_default();
    let name = first_text(record, &["name"])
        .unwrap_or_default()
        .to_ascii_lowercase();
    let output = record.get("output").filter(|v| !v.is_null());
    let role = match kind.as_str() {
        "RETRIEVER" => Role::Retriever,
        "GENERATION" => Role::Model,
        // Older SDKs wrap a retriever in a plain span: its name and document output say so.
        "SPAN"
            if name.contains("retriev") && output.is_some_and(|o| !documents_in(o).is_empty()) =>
        {
            Role::Retriever
        }
        _ => Role::Other,
    };
    let input = record.get("input").and_then(question_in);
    let answer = match role {
        Role::Retriever => None,
        _ => output.and_then(answer_in),
    };
    let usage = record
        .get("usageDetails")
        .or_else(|| record.get("usage"))
        .and_then(Value::as_object);
    let tokens = usage.and_then(|u| {
        let get = |keys: &[&str]| keys.iter().find_map(|k| u.get(*k).and_then(number));
        super::token_pair(
            get(&["input", "promptTokens"]),
            get(&["output", "completionTokens"]),
        )
    });
    let facts = SpanFacts {
        span_id,
        parent_id: first_text(record, &["parentObservationId"]).filter(|p| !p.is_empty()),
        role,
        start: first_text(record, &["startTime"]).unwrap_or_default(),
        input: input.as_ref().map(|(t, _)| t.clone()),
        input_rule: input.map(|(_, r)| r.to_string()),
        output: answer.as_ref().map(|(t, _)| t.clone()),
        output_rule: answer.map(|(_, r)| r.to_string()),
        raw_input: record.get("input").cloned(),
        raw_output: output.cloned(),
        documents: match role {
            Role::Retriever => output.map(documents_in).unwrap_or_default(),
            _ => Vec::new(),
        },
        tokens,
        cost: record
            .get("calculatedTotalCost")
            .or_else(|| record.get("costDetails").and_then(|c| c.get("total")))
            .and_then(number),
        ..SpanFacts::default()
    };
    Ok((trace_id, facts))
}

/// A trace download (`{"trace": {…}, "observations": […]}`)'s `trace`: its id, its
/// input and output as text, and its scores (plus, unless `spans_elsewhere`, its
/// observations) as records for the span reader. The `trace.observations` beside a
/// top-level list are stripped copies (input and output null), so they are not read.
pub(super) fn trace_download(
    trace: Value,
    spans_elsewhere: bool,
) -> (Option<String>, TraceExtras, Vec<Map<String, Value>>) {
    let Value::Object(mut trace) = trace else {
        return (None, TraceExtras::default(), Vec::new());
    };
    let id = first_text(&trace, &["id"]);
    let extras = TraceExtras {
        input: trace.get("input").and_then(question_in).map(|(t, _)| t),
        output: trace.get("output").and_then(answer_in).map(|(t, _)| t),
        ..TraceExtras::default()
    };
    let mut records = Vec::new();
    if let Some(Value::Array(scores)) = trace.remove("scores") {
        for score in scores {
            let Value::Object(mut score) = score else {
                continue;
            };
            if let Some(id) = &id {
                score
                    .entry("traceId")
                    .or_insert_with(|| Value::String(id.clone()));
            }
            score.remove("type");
            records.push(score);
        }
    }
    if !spans_elsewhere {
        if let Some(Value::Array(observations)) = trace.remove("observations") {
            records.extend(observations.into_iter().filter_map(|o| match o {
                Value::Object(o) => Some(o),
                _ => None,
            }));
        }
    }
    (id, extras, records)
}
