//! OpenInference span exports (Phoenix's span JSONL, in its nested snake_case shape or
//! OTLP's camelCase one): spans grouped by trace into one record per trace.
//!
//! Owns: recognising a span, flattening its attributes (nested objects, dotted keys or
//! OTLP `[{key, value: {stringValue…}}]` lists) and reading a trace: the question and
//! answer from the root span's `input.value` / `output.value` (JSON-wrapped values
//! unwrapped), the contexts from RETRIEVER spans' `retrieval.documents.N.document.*` in
//! rank order — a RERANKER's `reranker.output_documents` win when present — LLM token
//! counts as metadata, and `evaluations.N.evaluation.*` as the source tool's prior scores.
//!
//! Streams: each line is parsed and reduced at once to what the trace needs, so memory
//! grows with the traces' text, never with the spans' raw JSON. A trace that cannot be
//! read (no root because parent ids form a cycle, no question) is rejected at the line of
//! its first span with the reason; a missing root (its parent not exported) is read from
//! the topmost span present, with a warning.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use serde_json::{json, Map, Value};

use super::jsonl::for_each_object;
use super::lines::{open_after_bom, LineReader};
use super::report::Collector;
use super::{DatasetError, Format, Schema, ValidationReport};

/// Whether a JSON object is a span rather than a dataset record: it names a trace and a
/// span id, and an OpenInference span kind.
pub(crate) fn looks_like_span(record: &Map<String, Value>) -> bool {
    let ids = ids_of(record);
    ids.0.is_some() && ids.1.is_some() && kind_of(record, &flatten_attributes(record)).is_some()
}

/// Names the schema and, for each field, the span attribute it was read from, so the
/// report says where a trace's question, answer and contexts came from.
pub(crate) fn describe(report: &mut ValidationReport) {
    report.schema = Some(Schema::OpenInference);
    let from = |field: &str| -> Option<&'static str> {
        Some(match field {
            "id" => "trace id",
            "question" => "root span input.value",
            "answer" => "root span output.value",
            "contexts" => {
                "RETRIEVER retrieval.documents.N.document.content (RERANKER output_documents when present)"
            }
            "retrieved_ids" => "the same documents' document.id, in rank order",
            "metadata" => "trace id, span count, LLM token counts, evaluations.N.evaluation (prior scores)",
            _ => return None,
        })
    };
    for (field, sources) in report.mapping.iter_mut() {
        if let Some(path) = from(field) {
            *sources = vec![path.to_string()];
        }
    }
}

/// Whether the file's first non-blank line is a span (then the file is a span export).
pub(crate) fn starts_with_span(path: &Path, max_line: usize) -> std::io::Result<bool> {
    let (reader, start) = open_after_bom(path)?;
    let mut lines = LineReader::new(reader, start, max_line);
    let mut buf = Vec::new();
    while let Some(line) = lines.next_line(&mut buf)? {
        if line.too_long.is_some() {
            return Ok(false);
        }
        if buf.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        return Ok(matches!(
            serde_json::from_slice::<Value>(&buf),
            Ok(Value::Object(record)) if looks_like_span(&record)
        ));
    }
    Ok(false)
}

/// One span reduced to what a trace record needs.
#[derive(Debug, Default)]
struct SpanFacts {
    line: u64,
    offset: u64,
    span_id: String,
    parent_id: Option<String>,
    kind: String,
    start: String,
    input: Option<String>,
    output: Option<String>,
    /// (id, content, score) in the span's own order.
    documents: Vec<(Option<String>, Option<String>, Option<f64>)>,
    tokens: Option<(u64, u64)>,
    evaluations: Vec<(String, Value)>,
}

pub(crate) fn read(path: &Path, collector: &mut Collector<'_>) -> Result<(), DatasetError> {
    // Traces in the order their first span appears.
    let mut order: Vec<String> = Vec::new();
    let mut traces: HashMap<String, Vec<SpanFacts>> = HashMap::new();
    let mut spans = 0u64;
    for_each_object(path, collector, |collector, line, offset, record| {
        let attributes = flatten_attributes(&record);
        let (Some(trace_id), Some(span_id)) = ids_of(&record) else {
            collector.reject(line, offset, "span has no trace id or span id".into());
            return Ok(());
        };
        spans += 1;
        let facts = facts(&record, &attributes, line, offset, span_id);
        if !traces.contains_key(&trace_id) {
            order.push(trace_id.clone());
        }
        traces.entry(trace_id).or_default().push(facts);
        Ok(())
    })?;
    collector.set_format(Format::Spans {
        dialect: "OpenInference".into(),
        spans,
        traces: order.len() as u64,
    });
    for trace_id in order {
        let spans = traces.remove(&trace_id).unwrap_or_default();
        let (line, offset) = (spans[0].line, spans[0].offset);
        match trace_record(&trace_id, spans) {
            Ok((record, warnings)) => {
                for w in warnings {
                    collector.warn(line, w);
                }
                collector.record(line, offset, record)?;
            }
            Err(reason) => collector.reject(line, offset, reason),
        }
    }
    Ok(())
}

/// The trace as one dataset record, with warnings; or why it cannot be one.
fn trace_record(
    trace_id: &str,
    mut spans: Vec<SpanFacts>,
) -> Result<(Map<String, Value>, Vec<String>), String> {
    let mut warnings = Vec::new();
    let ids: HashSet<&str> = spans.iter().map(|s| s.span_id.as_str()).collect();
    let tops: Vec<usize> = (0..spans.len())
        .filter(|&i| {
            spans[i]
                .parent_id
                .as_deref()
                .is_none_or(|p| !ids.contains(p))
        })
        .collect();
    let Some(&root) = tops
        .iter()
        .find(|&&i| spans[i].parent_id.is_none())
        .or(tops.first())
    else {
        return Err(format!(
            "trace {trace_id} has no root span: every span's parent is another span of the trace (the parent ids form a cycle)"
        ));
    };
    if spans[root].parent_id.is_some() {
        warnings.push(format!(
            "trace {trace_id}: the root span is missing from the export; read from span {} instead",
            spans[root].span_id
        ));
    }
    let question = spans[root]
        .input
        .as_deref()
        .map(unwrap_text)
        .filter(|q| !q.trim().is_empty())
        .ok_or_else(|| {
            format!("trace {trace_id}: the root span has no input.value (the question)")
        })?;
    let answer = spans[root].output.as_deref().map(unwrap_text);
    // Rank order across spans: retrievers in start order; a reranker's output replaces
    // what the retrievers found.
    spans.sort_by(|a, b| a.start.cmp(&b.start));
    let reranked: Vec<&SpanFacts> = spans
        .iter()
        .filter(|s| s.kind == "RERANKER" && !s.documents.is_empty())
        .collect();
    let sources: Vec<&SpanFacts> = if reranked.is_empty() {
        spans.iter().filter(|s| s.kind == "RETRIEVER").collect()
    } else {
        reranked
    };
    let documents: Vec<&(Option<String>, Option<String>, Option<f64>)> =
        sources.iter().flat_map(|s| &s.documents).collect();
    let contexts: Vec<Value> = documents
        .iter()
        .filter_map(|(_, content, _)| content.clone().map(Value::String))
        .collect();
    let without_text = documents.iter().filter(|(_, c, _)| c.is_none()).count();
    if without_text > 0 {
        warnings.push(format!(
            "trace {trace_id}: {without_text} retrieved documents carry an id but no text; they count for ranking only"
        ));
    }
    let retrieved_ids: Vec<Value> = if documents.iter().all(|(id, _, _)| id.is_some()) {
        documents
            .iter()
            .filter_map(|(id, _, _)| id.clone().map(Value::String))
            .collect()
    } else {
        Vec::new()
    };
    let (prompt, completion) = spans
        .iter()
        .filter_map(|s| s.tokens)
        .fold((0, 0), |(p, c), (a, b)| (p + a, c + b));
    let mut prior: BTreeMap<String, Value> = BTreeMap::new();
    for s in &spans {
        for (name, value) in &s.evaluations {
            prior.insert(name.clone(), value.clone());
        }
    }
    let mut record = Map::new();
    record.insert("id".into(), json!(trace_id));
    record.insert("question".into(), json!(question));
    if let Some(answer) = answer {
        record.insert("answer".into(), json!(answer));
    }
    if !contexts.is_empty() {
        record.insert("retrieved_contexts".into(), Value::Array(contexts));
    }
    if !retrieved_ids.is_empty() {
        record.insert("retrieved_context_ids".into(), Value::Array(retrieved_ids));
    }
    let mut metadata =
        json!({ "source": "openinference", "trace_id": trace_id, "spans": spans.len() });
    if prompt + completion > 0 {
        metadata["llm_tokens"] = json!({ "prompt": prompt, "completion": completion });
    }
    if !prior.is_empty() {
        metadata["prior_scores"] = json!(prior);
    }
    record.insert("metadata".into(), metadata);
    Ok((record, warnings))
}

fn facts(
    record: &Map<String, Value>,
    attributes: &Map<String, Value>,
    line: u64,
    offset: u64,
    span_id: String,
) -> SpanFacts {
    let text = |key: &str| attributes.get(key).and_then(as_text);
    let number = |key: &str| attributes.get(key).and_then(as_number);
    let documents = |prefix: &str| {
        let mut docs = Vec::new();
        for n in 0.. {
            let at = |field: &str| format!("{prefix}.{n}.document.{field}");
            let (id, content, score) =
                (text(&at("id")), text(&at("content")), number(&at("score")));
            if id.is_none() && content.is_none() && score.is_none() {
                break;
            }
            docs.push((id, content, score));
        }
        docs
    };
    let kind = kind_of(record, attributes).unwrap_or_default();
    let docs = match kind.as_str() {
        "RERANKER" => documents("reranker.output_documents"),
        _ => documents("retrieval.documents"),
    };
    let tokens = match (
        number("llm.token_count.prompt"),
        number("llm.token_count.completion"),
    ) {
        (None, None) => None,
        (p, c) => Some((p.unwrap_or(0.0) as u64, c.unwrap_or(0.0) as u64)),
    };
    let mut evaluations = Vec::new();
    for n in 0.. {
        let at = |field: &str| format!("evaluations.{n}.evaluation.{field}");
        let Some(name) = text(&at("name")) else { break };
        let mut value = json!({});
        for field in ["score", "label", "explanation"] {
            if let Some(v) = attributes.get(&at(field)) {
                value[field] = v.clone();
            }
        }
        evaluations.push((name, value));
    }
    SpanFacts {
        line,
        offset,
        span_id,
        parent_id: parent_of(record),
        kind,
        start: first_text(record, &["start_time", "startTimeUnixNano", "startTime"])
            .unwrap_or_default(),
        input: text("input.value"),
        output: text("output.value"),
        documents: docs,
        tokens,
        evaluations,
    }
}

/// (trace id, span id) from Phoenix's `context.{trace_id, span_id}` or OTLP's
/// `traceId` / `spanId`.
fn ids_of(record: &Map<String, Value>) -> (Option<String>, Option<String>) {
    let context = record.get("context").and_then(Value::as_object);
    let pick = |keys: &[&str]| {
        context
            .and_then(|c| first_text(c, keys))
            .or_else(|| first_text(record, keys))
    };
    (pick(&["trace_id", "traceId"]), pick(&["span_id", "spanId"]))
}

fn parent_of(record: &Map<String, Value>) -> Option<String> {
    first_text(
        record,
        &["parent_id", "parentSpanId", "parent_span_id", "parentId"],
    )
    .filter(|p| !p.is_empty())
}

fn kind_of(record: &Map<String, Value>, attributes: &Map<String, Value>) -> Option<String> {
    attributes
        .get("openinference.span.kind")
        .and_then(as_text)
        .or_else(|| first_text(record, &["span_kind"]))
        .map(|k| k.to_ascii_uppercase())
}

fn first_text(map: &Map<String, Value>, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| map.get(*k).and_then(as_text))
}

fn as_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn as_number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The span's attributes as dotted keys, whichever shape the export used.
fn flatten_attributes(record: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    match record.get("attributes") {
        Some(Value::Object(nested)) => flatten_into("", nested, &mut out),
        Some(Value::Array(list)) => {
            // OTLP: [{ "key": "input.value", "value": { "stringValue": "…" } }, …]
            for entry in list {
                let (Some(key), Some(value)) =
                    (entry.get("key").and_then(Value::as_str), entry.get("value"))
                else {
                    continue;
                };
                let value = otlp_value(value);
                match value {
                    Value::Object(ref nested) => flatten_into(key, nested, &mut out),
                    other => {
                        out.insert(key.to_string(), other);
                    }
                }
            }
        }
        _ => {}
    }
    // Some exports flatten the attributes onto the span itself ("attributes.input.value").
    for (key, value) in record {
        if let Some(rest) = key.strip_prefix("attributes.") {
            out.entry(rest.to_string()).or_insert_with(|| value.clone());
        }
    }
    out
}

fn flatten_into(prefix: &str, map: &Map<String, Value>, out: &mut Map<String, Value>) {
    for (key, value) in map {
        let path = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        match value {
            Value::Object(nested) => flatten_into(&path, nested, out),
            Value::Array(items) if items.iter().any(Value::is_object) => {
                for (i, item) in items.iter().enumerate() {
                    if let Value::Object(nested) = item {
                        flatten_into(&format!("{path}.{i}"), nested, out);
                    }
                }
            }
            other => {
                out.insert(path, other.clone());
            }
        }
    }
}

/// An OTLP `AnyValue` as plain JSON.
fn otlp_value(value: &Value) -> Value {
    let Some(obj) = value.as_object() else {
        return value.clone();
    };
    if let Some(v) = obj.get("stringValue") {
        return v.clone();
    }
    if let Some(v) = obj.get("intValue") {
        return as_number(v).map_or(v.clone(), |n| json!(n as i64));
    }
    if let Some(v) = obj.get("doubleValue").or_else(|| obj.get("boolValue")) {
        return v.clone();
    }
    if let Some(values) = obj
        .get("arrayValue")
        .and_then(|a| a.get("values"))
        .and_then(Value::as_array)
    {
        return Value::Array(values.iter().map(otlp_value).collect());
    }
    if let Some(values) = obj
        .get("kvlistValue")
        .and_then(|a| a.get("values"))
        .and_then(Value::as_array)
    {
        let mut map = Map::new();
        for entry in values {
            if let (Some(k), Some(v)) =
                (entry.get("key").and_then(Value::as_str), entry.get("value"))
            {
                map.insert(k.to_string(), otlp_value(v));
            }
        }
        return Value::Object(map);
    }
    value.clone()
}

/// A span's input or output value as text: JSON-wrapped values (`{"query": "…"}`, chat
/// messages) unwrapped to the text a person typed or read.
fn unwrap_text(raw: &str) -> String {
    let trimmed = raw.trim();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return raw.to_string();
    }
    let Ok(value) = serde_json::from_str::<Value>(trimmed) else {
        return raw.to_string();
    };
    text_in(&value).unwrap_or_else(|| raw.to_string())
}

fn text_in(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Object(map) => {
            for key in [
                "query",
                "question",
                "input",
                "query_str",
                "output",
                "answer",
                "response",
                "content",
                "text",
            ] {
                if let Some(found) = map.get(key).and_then(text_in) {
                    return Some(found);
                }
            }
            // Chat messages: the last user message (input) or the last message (output).
            map.get("messages").and_then(text_in)
        }
        Value::Array(items) => {
            let user = items
                .iter()
                .rev()
                .find(|m| m.get("role").and_then(Value::as_str) == Some("user"));
            user.or(items.last()).and_then(text_in)
        }
        _ => None,
    }
}
