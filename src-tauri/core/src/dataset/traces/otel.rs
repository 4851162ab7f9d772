//! OpenInference and OpenTelemetry GenAI spans (Phoenix's REST and JSONL shapes, OTLP
//! camelCase with attribute lists, console exporters, JS `ReadableSpan`s).
//!
//! Owns: ids, attributes in any of their shapes, and the facts of one span. Must not:
//! group spans (the parent module does).

use serde_json::{json, Map, Value};

use super::super::values::number;
use super::text::{as_text, documents_at, first_text};
use super::turns::{answer_in, question_in};
use super::{Role, SpanFacts};

/// OpenInference and OpenTelemetry GenAI spans (Phoenix or OTLP shape).
pub(super) fn otel_facts(record: &Map<String, Value>) -> Result<(String, SpanFacts), String> {
    let (Some(trace_id), Some(span_id)) = ids_of(record) else {
        return Err("span has no trace id or span id".into());
    };
    let attributes = flatten_attributes(record);
    let text = |key: &str| attributes.get(key).and_then(as_text);
    let number_at = |key: &str| attributes.get(key).and_then(number);
    // promptflow says `span_type` (LLM, Function) where OpenInference says its kind.
    let kind = openinference_kind(record, &attributes).or_else(|| {
        attributes
            .get("span_type")
            .and_then(as_text)
            .map(|k| k.to_ascii_uppercase())
    });
    let span_type = text(&format!("{TRULENS_PREFIX}span_type")).unwrap_or_default();
    let operation = text("gen_ai.operation.name").unwrap_or_default();
    let role = match (kind.as_deref(), operation.as_str()) {
        (Some("RETRIEVER"), _) => Role::Retriever,
        (Some("RERANKER"), _) => Role::Reranker,
        (Some("LLM"), _) => Role::Model,
        (Some(_), _) => Role::Other,
        (None, "retrieval") => Role::Retriever,
        (None, _) if span_type == "retrieval" => Role::Retriever,
        (None, _) if span_type == "generation" => Role::Model,
        (None, "chat" | "text_completion" | "generate_content") => Role::Model,
        (None, _) if attributes.contains_key("gen_ai.retrieval.documents") => Role::Retriever,
        _ => Role::Other,
    };
    let documents = match role {
        Role::Reranker => documents_at(&attributes, "reranker.output_documents"),
        Role::Retriever => {
            let mut docs = documents_at(&attributes, "retrieval.documents");
            for key in [
                "gen_ai.retrieval.documents",
                "ai.observability.retrieval.retrieved_contexts",
            ] {
                if docs.is_empty() {
                    docs = documents_at(&attributes, key);
                }
            }
            docs
        }
        _ => Vec::new(),
    };
    let tokens = super::token_pair(
        number_at("llm.token_count.prompt").or(number_at("gen_ai.usage.input_tokens")),
        number_at("llm.token_count.completion").or(number_at("gen_ai.usage.output_tokens")),
    );
    let mut evaluations = openinference_evaluations(&attributes);
    evaluations.extend(genai_evaluation_events(record));
    evaluations.extend(trulens_evaluation(&attributes));
    let raw = |keys: &[&str]| keys.iter().find_map(|k| attributes.get(*k)).cloned();
    let raw_input = raw(&INPUT_KEYS);
    let raw_output = raw(&OUTPUT_KEYS);
    let input = raw_input.as_ref().and_then(question_in);
    let output = raw_output.as_ref().and_then(answer_in);
    let facts = SpanFacts {
        span_id,
        parent_id: parent_of(record, &span_type),
        role,
        start: first_text(record, &["start_time", "startTimeUnixNano", "startTime"])
            .unwrap_or_default(),
        input: input.as_ref().map(|(t, _)| t.clone()),
        input_rule: input.map(|(_, r)| r.to_string()),
        output: output.as_ref().map(|(t, _)| t.clone()),
        output_rule: output.map(|(_, r)| r.to_string()),
        raw_input,
        raw_output,
        query: text("gen_ai.retrieval.query.text")
            .or_else(|| text("ai.observability.retrieval.query_text")),
        reference: text("ai.observability.record_root.ground_truth_output"),
        documents,
        tokens,
        cost: number_at("llm.cost.total"),
        evaluations,
        ..SpanFacts::default()
    };
    Ok((trace_id, facts))
}

/// OpenInference's evaluations (`evaluations.<n>.evaluation.name`, with its score,
/// label and explanation), in order, up to the first index without a name.
fn openinference_evaluations(attributes: &Map<String, Value>) -> Vec<(String, Value)> {
    let text = |key: &str| attributes.get(key).and_then(as_text);
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
    evaluations
}

/// Attributes holding a span's input, most specific first: OpenInference, TruLens's
/// record root, OTel GenAI (current and deprecated), Vercel AI SDK (`ai.prompt.messages`
/// on `do*` spans, `ai.prompt` on outer ones), promptflow.
const INPUT_KEYS: [&str; 7] = [
    "input.value",
    "ai.observability.record_root.input",
    "gen_ai.input.messages",
    "gen_ai.prompt",
    "ai.prompt.messages",
    "ai.prompt",
    "inputs",
];

const OUTPUT_KEYS: [&str; 7] = [
    "output.value",
    "ai.observability.record_root.output",
    "gen_ai.output.messages",
    "gen_ai.completion",
    "ai.response.text",
    "ai.response.object",
    "output",
];

/// The attribute keys TruLens writes on every span of its event table.
pub(super) const TRULENS_PREFIX: &str = "ai.observability.";

/// A span's parent. TruLens's evaluations run in traces of their own and name the
/// record they judge: an `eval_root` or `eval` span hangs off that record, never a root
/// beside the record's own.
fn parent_of(record: &Map<String, Value>, trulens_span_type: &str) -> Option<String> {
    if matches!(trulens_span_type, "eval_root" | "eval") {
        return Some("the record it evaluates".to_string());
    }
    let trulens = || {
        let trace = record.get("trace")?.as_object()?;
        first_text(trace, &["parent_id"])
    };
    first_text(
        record,
        &["parent_id", "parentSpanId", "parent_span_id", "parentId"],
    )
    .or_else(|| {
        let parent = record.get("parentSpanContext")?.as_object()?;
        first_text(parent, &["spanId"])
    })
    .or_else(trulens)
    .filter(|p| !p.is_empty())
}

/// A TruLens `eval_root` span's metric and score as a prior score (its `eval` children
/// hold the parts the score was made of, and are not scores of the record).
fn trulens_evaluation(attributes: &Map<String, Value>) -> Option<(String, Value)> {
    let at = |key: &str| attributes.get(&format!("{TRULENS_PREFIX}{key}"));
    if at("span_type").and_then(as_text).as_deref() != Some("eval_root") {
        return None;
    }
    let name = at("eval_root.metric_name")
        .or_else(|| at("eval.metric_name"))
        .and_then(as_text)?;
    let mut value = json!({});
    if let Some(score) = at("eval_root.score") {
        value["score"] = score.clone();
    }
    if let Some(judge) = at("eval.llm_judge_name") {
        value["judge"] = judge.clone();
    }
    Some((name, value))
}

/// `gen_ai.evaluation.result` span events as prior scores.
fn genai_evaluation_events(record: &Map<String, Value>) -> Vec<(String, Value)> {
    let Some(events) = record.get("events").and_then(Value::as_array) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for event in events.iter().filter_map(Value::as_object) {
        if event.get("name").and_then(Value::as_str) != Some("gen_ai.evaluation.result") {
            continue;
        }
        let attributes = flatten_attributes(event);
        let Some(name) = attributes.get("gen_ai.evaluation.name").and_then(as_text) else {
            continue;
        };
        let mut value = json!({});
        for (from, to) in [
            ("gen_ai.evaluation.score.value", "score"),
            ("gen_ai.evaluation.score.label", "label"),
            ("gen_ai.evaluation.explanation", "explanation"),
        ] {
            if let Some(v) = attributes.get(from) {
                value[to] = v.clone();
            }
        }
        out.push((name, value));
    }
    out
}

/// (trace id, span id) from Phoenix's `context.{trace_id, span_id}` or OTLP's
/// `traceId` / `spanId`.
pub(super) fn ids_of(record: &Map<String, Value>) -> (Option<String>, Option<String>) {
    let context = record.get("context").and_then(Value::as_object);
    let pick = |keys: &[&str]| {
        context
            .and_then(|c| first_text(c, keys))
            .or_else(|| first_text(record, keys))
    };
    let ids = (pick(&["trace_id", "traceId"]), pick(&["span_id", "spanId"]));
    if ids.0.is_some() {
        return ids;
    }
    // TruLens's event table: `trace.{trace_id, span_id}`; a record's spans (and the
    // evaluations of it, which run in traces of their own) share its record id.
    if let Some(trace) = record.get("trace").and_then(Value::as_object) {
        let record_id = record
            .get("record_attributes")
            .and_then(Value::as_object)
            .and_then(|a| first_text(a, &["ai.observability.record_id"]));
        let trace_id = first_text(trace, &["trace_id"]).filter(|t| !t.is_empty());
        if record_id.is_some() || trace_id.is_some() {
            return (record_id.or(trace_id), first_text(trace, &["span_id"]));
        }
    }
    // JS `ReadableSpan`s (Vercel AI SDK): `spanContext.{traceId, spanId}`.
    if let Some(c) = record.get("spanContext").and_then(Value::as_object) {
        return (first_text(c, &["traceId"]), first_text(c, &["spanId"]));
    }
    // One span's attributes alone: the file is that span, its trace its own.
    if is_attribute_map(record) {
        let name = first_text(record, &["spanName", "name"]).unwrap_or_else(|| "span".into());
        return (Some(name.clone()), Some(name));
    }
    ids
}

/// A span's attributes without the span: `{spanName, attributes}` or the attribute keys
/// themselves at the top (`llm.*`, `gen_ai.*`, `input.value`, `ai.*`).
pub(super) fn is_attribute_map(record: &Map<String, Value>) -> bool {
    let attribute_key = |k: &String| {
        [
            "llm.",
            "gen_ai.",
            "input.value",
            "output.value",
            "ai.",
            "openinference.",
        ]
        .iter()
        .any(|p| k.starts_with(p))
    };
    (record.get("attributes").is_some_and(Value::is_object)
        && (record.contains_key("spanName") || record.contains_key("scopeName")))
        || (!record.contains_key("attributes") && record.keys().any(attribute_key))
}

pub(super) fn openinference_kind(
    record: &Map<String, Value>,
    attributes: &Map<String, Value>,
) -> Option<String> {
    attributes
        .get("openinference.span.kind")
        .and_then(as_text)
        .or_else(|| first_text(record, &["span_kind"]))
        .map(|k| k.to_ascii_uppercase())
}

/// The span's attributes as dotted keys, whichever shape the export used.
pub(super) fn flatten_attributes(record: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    // TruLens's event table calls them `record_attributes`.
    match record
        .get("attributes")
        .or_else(|| record.get("record_attributes"))
    {
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
    if !record.contains_key("attributes") && is_attribute_map(record) {
        flatten_into("", record, &mut out);
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
        return number(v).map_or(v.clone(), |n| json!(n as i64));
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
