//! LangSmith runs (exports, `{"runs": [...]}`, the SDK's `{post, patch}` upload).
//!
//! Owns: the facts of one run. Must not: group runs.

use serde_json::{json, Map, Value};

use super::super::values::is_absent;
use super::super::values::number;
use super::text::{documents_in, first_text};
use super::turns::{answer_in, question_in};
use super::{Role, SpanFacts};

/// A LangSmith run.
pub(super) fn langsmith_facts(record: &Map<String, Value>) -> Result<(String, SpanFacts), String> {
    let dotted = first_text(record, &["dotted_order"]);
    // The JS SDK's patch rows have no id: the dotted order's last segment names the run.
    let span_id = first_text(record, &["id"])
        .or_else(|| {
            dotted
                .as_deref()
                .and_then(|d| run_of(d.rsplit('.').next()?))
        })
        .ok_or("run has no id and no dotted_order")?;
    let trace_id = first_text(record, &["trace_id"])
        .or_else(|| {
            dotted
                .as_deref()
                .and_then(|d| d.split('.').next())
                .map(trace_of)
        })
        .unwrap_or_else(|| span_id.clone());
    let run_type = first_text(record, &["run_type"]).unwrap_or_default();
    let role = match run_type.as_str() {
        "retriever" => Role::Retriever,
        "llm" => Role::Model,
        _ => Role::Other,
    };
    let outputs = record.get("outputs").filter(|o| !is_absent(o));
    let input = record.get("inputs").and_then(question_in);
    let output = match role {
        Role::Retriever => None,
        _ => outputs.and_then(answer_in),
    };
    let number_at = |key: &str| record.get(key).and_then(number);
    let usage = |key: &str| {
        outputs
            .and_then(|o| o.get("usage_metadata"))
            .and_then(|u| u.get(key))
            .and_then(number)
    };
    let prompt = number_at("prompt_tokens").or_else(|| usage("input_tokens"));
    let completion = number_at("completion_tokens").or_else(|| usage("output_tokens"));
    let tokens = super::token_pair(prompt, completion);
    let mut evaluations = Vec::new();
    if let Some(stats) = record.get("feedback_stats").and_then(Value::as_object) {
        for (name, stat) in stats {
            if let Some(avg) = stat.get("avg").and_then(number) {
                evaluations.push((name.clone(), json!({ "score": avg })));
            }
        }
    }
    let facts = SpanFacts {
        span_id,
        parent_id: first_text(record, &["parent_run_id"]).filter(|p| !p.is_empty()),
        role,
        start: first_text(record, &["start_time"]).unwrap_or_default(),
        input: input.as_ref().map(|(t, _)| t.clone()),
        input_rule: input.map(|(_, r)| r.to_string()),
        output: output.as_ref().map(|(t, _)| t.clone()),
        output_rule: output.map(|(_, r)| r.to_string()),
        raw_input: record.get("inputs").cloned(),
        raw_output: outputs.cloned(),
        documents: match role {
            Role::Retriever => outputs.map(documents_in).unwrap_or_default(),
            _ => Vec::new(),
        },
        tokens,
        cost: number_at("total_cost"),
        evaluations,
        ..SpanFacts::default()
    };
    Ok((trace_id, facts))
}

/// The run id in one dotted-order segment (`20241013T070537170001Z<run id>`).
fn run_of(segment: &str) -> Option<String> {
    let (_, id) = segment.split_once('Z')?;
    (!id.is_empty()).then(|| id.to_string())
}

/// The trace a dotted order's first segment names: its run id (the root's), or the whole
/// segment when it has no id after the time.
fn trace_of(segment: &str) -> String {
    run_of(segment).unwrap_or_else(|| segment.to_string())
}
