//! LangSmith runs (exports, `{"runs": [...]}`, the SDK's `{post, patch}` upload).
//!
//! Owns: the facts of one run. Must not: group runs.

use serde_json::{json, Map, Value};

use super::super::values::number;
use super::text::{documents_in, first_text, text_in};
use super::{Role, SpanFacts};

/// A LangSmith run.
pub(super) fn langsmith_facts(record: &Map<String, Value>) -> Result<(String, SpanFacts), String> {
    let span_id = first_text(record, &["id"]).ok_or("run has no id")?;
    let trace_id = first_text(record, &["trace_id"]).unwrap_or_else(|| span_id.clone());
    let run_type = first_text(record, &["run_type"]).unwrap_or_default();
    let role = match run_type.as_str() {
        "retriever" => Role::Retriever,
        "llm" => Role::Model,
        _ => Role::Other,
    };
    let outputs = record.get("outputs");
    let number_at = |key: &str| record.get(key).and_then(number);
    let tokens = match (number_at("prompt_tokens"), number_at("completion_tokens")) {
        (None, None) => None,
        (p, c) => Some((p.unwrap_or(0.0) as u64, c.unwrap_or(0.0) as u64)),
    };
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
        input: record.get("inputs").and_then(text_in),
        output: (role != Role::Retriever)
            .then(|| outputs.and_then(text_in))
            .flatten(),
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
