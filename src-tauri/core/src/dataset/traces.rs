//! Trace exports: spans (or runs, or observations) grouped by trace into one record per
//! trace. Four dialects, recognised by the first span's fields:
//! - OpenInference (Phoenix's span JSONL, nested snake_case, or OTLP camelCase with
//!   attribute lists): `input.value` / `output.value`, `retrieval.documents.N.document.*`,
//!   `reranker.output_documents`, `evaluations.N.evaluation.*`;
//! - OpenTelemetry GenAI (OTLP JSON, `resourceSpans` envelopes or one span per line):
//!   `gen_ai.input.messages` / `gen_ai.output.messages`, `gen_ai.retrieval.query.text`,
//!   `gen_ai.retrieval.documents`, `gen_ai.evaluation.result` events;
//! - LangSmith runs (`run_type`, `inputs`, `outputs`, `trace_id`, `parent_run_id`,
//!   `feedback_stats`);
//! - Langfuse observations (`type`, `input`, `output`, `traceId`, `parentObservationId`),
//!   with score records (`traceId`, `name`, `value`) as prior scores.
//!
//! Owns: recognising spans, reducing each to the few facts a trace needs (`SpanFacts`)
//! and turning a trace into one dataset record: the question and answer from the root
//! (or, without a single root, from the retriever's input and the last model call that
//! is not a query rewrite), contexts in rank order (a reranker's output wins), ids for
//! ranking, token counts and cost as metadata, earlier evaluations as prior scores.
//!
//! Streams in bounded memory: each span is reduced as it is read and written to an
//! anonymous temp file; memory holds only each trace's id and where its spans are (about
//! 12 bytes per span), and each trace is read back whole when the file ends. A trace that cannot be read (parent ids in a cycle,
//! no question) is rejected at the line of its first span with the reason; a missing
//! root is read from the topmost span present, with a warning.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::values::number;
use super::{Format, Schema, ValidationReport};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SpanDialect {
    OpenInference,
    GenAi,
    LangSmith,
    Langfuse,
}

impl SpanDialect {
    /// The dialect of a span record, or `None` when the record is not a span.
    pub(crate) fn of(record: &Map<String, Value>) -> Option<SpanDialect> {
        if record.contains_key("run_type")
            && (record.contains_key("trace_id") || record.contains_key("parent_run_id"))
        {
            return Some(SpanDialect::LangSmith);
        }
        if record.contains_key("traceId")
            && (record.contains_key("parentObservationId")
                || is_langfuse_type(record)
                || is_langfuse_score(record))
        {
            return Some(SpanDialect::Langfuse);
        }
        let (trace, span) = ids_of(record);
        if trace.is_none() || span.is_none() {
            return None;
        }
        let attributes = flatten_attributes(record);
        if openinference_kind(record, &attributes).is_some() {
            Some(SpanDialect::OpenInference)
        } else if attributes.keys().any(|k| k.starts_with("gen_ai.")) {
            Some(SpanDialect::GenAi)
        } else {
            None
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            SpanDialect::OpenInference => "OpenInference",
            SpanDialect::GenAi => "OpenTelemetry GenAI",
            SpanDialect::LangSmith => "LangSmith",
            SpanDialect::Langfuse => "Langfuse",
        }
    }

    fn schema(self) -> Schema {
        match self {
            SpanDialect::OpenInference => Schema::OpenInference,
            SpanDialect::GenAi => Schema::GenAi,
            SpanDialect::LangSmith => Schema::LangSmith,
            SpanDialect::Langfuse => Schema::Langfuse,
        }
    }

    /// Where each field of a trace's record came from, in the dialect's own names.
    fn sources(self, field: &str) -> Option<&'static str> {
        use SpanDialect::*;
        Some(match (self, field) {
            (_, "id") => "trace id",
            (OpenInference, "question") => "root span input.value",
            (OpenInference, "answer") => "root span output.value",
            (OpenInference, "contexts") => {
                "RETRIEVER retrieval.documents.N.document.content (RERANKER output_documents when present)"
            }
            (GenAi, "question") => {
                "root span gen_ai.input.messages (last user message), else the retrieval span's gen_ai.retrieval.query.text"
            }
            (GenAi, "answer") => {
                "gen_ai.output.messages of the last model call outside a retrieval span (one inside is a query rewrite)"
            }
            (GenAi, "contexts") => "retrieval span gen_ai.retrieval.documents (content), in rank order",
            (LangSmith, "question") => "root run inputs (question / input / query)",
            (LangSmith, "answer") => "root run outputs (answer / output)",
            (LangSmith, "contexts") => "retriever runs' outputs.documents[].page_content",
            (Langfuse, "question") => {
                "root observation input, else the retriever observation's input"
            }
            (Langfuse, "answer") => {
                "root observation output, else the last GENERATION's output"
            }
            (Langfuse, "contexts") => "RETRIEVER observations' output documents",
            (_, "retrieved_ids") => "the same documents' ids, in rank order",
            (_, "metadata") => {
                "trace id, span count, token counts, cost, query rewrites, prior scores (earlier evaluations)"
            }
            _ => return None,
        })
    }
}

/// Names the schema and, for each field, where in the spans it was read from.
pub(crate) fn describe(report: &mut ValidationReport, dialect: SpanDialect) {
    report.schema = Some(dialect.schema());
    for (field, sources) in report.mapping.iter_mut() {
        if let Some(path) = dialect.sources(field) {
            *sources = vec![path.to_string()];
        }
    }
}

/// The spans inside an OTLP envelope (`{"resourceSpans": [{"scopeSpans": [{"spans":
/// [...]}]}]}`, or one of its inner levels), or `None` when `record` is not one.
pub(crate) fn unpack_envelope(record: &mut Map<String, Value>) -> Option<Vec<Map<String, Value>>> {
    let mut spans = Vec::new();
    let found = collect_spans(record, &mut spans);
    found.then_some(spans)
}

fn collect_spans(record: &mut Map<String, Value>, out: &mut Vec<Map<String, Value>>) -> bool {
    for key in [
        "resourceSpans",
        "resource_spans",
        "scopeSpans",
        "scope_spans",
    ] {
        if let Some(Value::Array(levels)) = record.remove(key) {
            for level in levels {
                if let Value::Object(mut level) = level {
                    collect_spans(&mut level, out);
                }
            }
            return true;
        }
    }
    if let Some(Value::Array(spans)) = record.get_mut("spans") {
        out.extend(spans.drain(..).filter_map(|s| match s {
            Value::Object(o) => Some(o),
            _ => None,
        }));
        return true;
    }
    false
}

/// A Langfuse observation's `type`.
fn is_langfuse_type(record: &Map<String, Value>) -> bool {
    record.get("type").and_then(Value::as_str).is_some_and(|t| {
        matches!(
            t,
            "SPAN"
                | "GENERATION"
                | "EVENT"
                | "RETRIEVER"
                | "AGENT"
                | "TOOL"
                | "CHAIN"
                | "EMBEDDING"
                | "EVALUATOR"
                | "GUARDRAIL"
        )
    })
}

/// A Langfuse score: attached to a trace, named, valued, not an observation.
fn is_langfuse_score(record: &Map<String, Value>) -> bool {
    !record.contains_key("type")
        && record.contains_key("name")
        && record.contains_key("value")
        && (record.contains_key("dataType") || record.contains_key("source"))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
enum Role {
    Retriever,
    Reranker,
    Model,
    #[default]
    Other,
}

/// A retrieved document: id, text, score, in the span's own order.
type Document = (Option<String>, Option<String>, Option<f64>);

/// A trace read as a record (with warnings), or why it cannot be one.
pub(crate) type TraceRecord = Result<(Map<String, Value>, Vec<String>), String>;

/// One span reduced to what a trace record needs.
#[derive(Debug, Default, Serialize, Deserialize)]
struct SpanFacts {
    line: u64,
    offset: u64,
    span_id: String,
    parent_id: Option<String>,
    role: Role,
    start: String,
    input: Option<String>,
    output: Option<String>,
    /// The query a retrieval span sent (GenAI), when it says so apart from its input.
    query: Option<String>,
    documents: Vec<Document>,
    tokens: Option<(u64, u64)>,
    cost: Option<f64>,
    evaluations: Vec<(String, Value)>,
}

/// Why a span was not added: the record is not a span of this export (rejected, the
/// import goes on), or the spill file failed (the import stops).
pub(crate) enum SpanError {
    Refused(String),
    Spill(std::io::Error),
}

impl From<String> for SpanError {
    fn from(reason: String) -> Self {
        SpanError::Refused(reason)
    }
}

impl From<&str> for SpanError {
    fn from(reason: &str) -> Self {
        SpanError::Refused(reason.into())
    }
}

/// Spans of one file, grouped by trace in the order each trace first appears. The
/// spans themselves wait in the spill file; `traces` holds where.
pub(crate) struct TraceGroups {
    dialect: SpanDialect,
    order: Vec<String>,
    /// Trace id -> (offset, length) of each of its spans in the spill file.
    traces: HashMap<String, Vec<(u64, u32)>>,
    spill: Option<BufWriter<File>>,
    spilled: u64,
    /// Prior scores given as records of their own (Langfuse scores), by trace.
    scores: HashMap<String, Vec<(String, Value)>>,
    spans: u64,
}

impl TraceGroups {
    pub(crate) fn new(dialect: SpanDialect) -> Self {
        TraceGroups {
            dialect,
            order: Vec::new(),
            traces: HashMap::new(),
            spill: None,
            spilled: 0,
            scores: HashMap::new(),
            spans: 0,
        }
    }

    pub(crate) fn dialect(&self) -> SpanDialect {
        self.dialect
    }

    pub(crate) fn format(&self) -> Format {
        Format::Spans {
            dialect: self.dialect.name().into(),
            spans: self.spans,
            traces: self.order.len() as u64,
        }
    }

    /// Adds one span; `Err` is why the record cannot be a span of this export.
    pub(crate) fn add(
        &mut self,
        line: u64,
        offset: u64,
        record: Map<String, Value>,
    ) -> Result<(), SpanError> {
        if self.dialect == SpanDialect::Langfuse && is_langfuse_score(&record) {
            let trace = first_text(&record, &["traceId"]).ok_or("score has no traceId")?;
            let name = first_text(&record, &["name"]).ok_or("score has no name")?;
            let mut value = json!({});
            if let Some(score) = record.get("value").and_then(number) {
                value["score"] = json!(score);
            } else if let Some(label) = record.get("stringValue").or(record.get("value")) {
                value["label"] = label.clone();
            }
            if let Some(comment) = record.get("comment").filter(|c| !c.is_null()) {
                value["explanation"] = comment.clone();
            }
            self.scores.entry(trace).or_default().push((name, value));
            return Ok(());
        }
        let (trace_id, facts) = match self.dialect {
            SpanDialect::OpenInference | SpanDialect::GenAi => otel_facts(&record),
            SpanDialect::LangSmith => langsmith_facts(&record),
            SpanDialect::Langfuse => langfuse_facts(&record),
        }?;
        let bytes = serde_json::to_vec(&SpanFacts {
            line,
            offset,
            ..facts
        })
        .map_err(|e| SpanError::Spill(e.into()))?;
        let spill = match &mut self.spill {
            Some(spill) => spill,
            None => self.spill.insert(BufWriter::new(
                tempfile::tempfile().map_err(SpanError::Spill)?,
            )),
        };
        spill.write_all(&bytes).map_err(SpanError::Spill)?;
        let at = (self.spilled, bytes.len() as u32);
        self.spilled += bytes.len() as u64;
        self.spans += 1;
        if !self.traces.contains_key(&trace_id) {
            self.order.push(trace_id.clone());
        }
        self.traces.entry(trace_id).or_default().push(at);
        Ok(())
    }

    /// Traces that scores were given for but that have no spans in the file.
    pub(crate) fn scores_without_spans(&self) -> Vec<String> {
        let mut traces: Vec<String> = self
            .scores
            .keys()
            .filter(|t| !self.traces.contains_key(*t))
            .cloned()
            .collect();
        traces.sort();
        traces
    }

    /// Every trace as (line, byte offset of its first span, its record and warnings, or
    /// why it cannot be one), in the order traces first appeared; an error reading the
    /// spill file back ends the import.
    pub(crate) fn into_records(
        mut self,
    ) -> std::io::Result<impl Iterator<Item = std::io::Result<(u64, u64, TraceRecord)>>> {
        let mut spill = match self.spill.take() {
            Some(writer) => Some(writer.into_inner().map_err(|e| e.into_error())?),
            None => None,
        };
        let dialect = self.dialect;
        let order = std::mem::take(&mut self.order);
        Ok(order.into_iter().map(move |trace_id| {
            let places = self.traces.remove(&trace_id).unwrap_or_default();
            let file = spill
                .as_mut()
                .ok_or_else(|| std::io::Error::other("no spill file"))?;
            let mut spans = Vec::with_capacity(places.len());
            let mut buf = Vec::new();
            for (at, len) in places {
                buf.resize(len as usize, 0);
                file.seek(SeekFrom::Start(at))?;
                file.read_exact(&mut buf)?;
                spans.push(
                    serde_json::from_slice::<SpanFacts>(&buf).map_err(std::io::Error::other)?,
                );
            }
            let scores = self.scores.remove(&trace_id).unwrap_or_default();
            let (line, offset) = (spans[0].line, spans[0].offset);
            Ok((
                line,
                offset,
                trace_record(dialect, &trace_id, spans, scores),
            ))
        }))
    }
}

/// The trace as one dataset record, with warnings; or why it cannot be one.
fn trace_record(
    dialect: SpanDialect,
    trace_id: &str,
    mut spans: Vec<SpanFacts>,
    extra_scores: Vec<(String, Value)>,
) -> TraceRecord {
    let mut warnings = Vec::new();
    spans.sort_by(|a, b| a.start.cmp(&b.start));
    let index: HashMap<&str, usize> = spans
        .iter()
        .enumerate()
        .map(|(i, s)| (s.span_id.as_str(), i))
        .collect();
    let tops: Vec<usize> = (0..spans.len())
        .filter(|&i| {
            spans[i]
                .parent_id
                .as_deref()
                .is_none_or(|p| !index.contains_key(p))
        })
        .collect();
    if tops.is_empty() {
        return Err(format!(
            "trace {trace_id} has no root span: every span's parent is another span of the trace (the parent ids form a cycle)"
        ));
    }
    let parentless: Vec<usize> = tops
        .iter()
        .copied()
        .filter(|&i| spans[i].parent_id.is_none())
        .collect();
    // One root holds the question and answer. Several parentless spans (Langfuse and
    // LangSmith attach observations to the trace itself) mean there is no single root.
    let root = match parentless.as_slice() {
        [one] => Some(*one),
        [] => {
            warnings.push(format!(
                "trace {trace_id}: the root span is missing from the export; read from span {} instead",
                spans[tops[0]].span_id
            ));
            Some(tops[0])
        }
        _ => None,
    };
    // A model call beneath a retrieval span rewrites the query; it is not the answer.
    let under_retriever = |i: usize| {
        let mut seen = HashSet::new();
        let mut at = spans[i].parent_id.as_deref();
        while let Some(p) = at {
            let Some(&j) = index.get(p) else { break };
            if !seen.insert(j) {
                break;
            }
            if spans[j].role == Role::Retriever {
                return true;
            }
            at = spans[j].parent_id.as_deref();
        }
        false
    };
    let rewrites: Vec<usize> = (0..spans.len())
        .filter(|&i| spans[i].role == Role::Model && under_retriever(i))
        .collect();
    let answering = (0..spans.len())
        .rev()
        .find(|&i| spans[i].role == Role::Model && !rewrites.contains(&i));
    let first_retriever = spans.iter().find(|s| s.role == Role::Retriever);

    let nonblank = |t: &Option<String>| {
        t.as_deref()
            .map(unwrap_text)
            .filter(|t| !t.trim().is_empty())
    };
    let question = root
        .and_then(|r| nonblank(&spans[r].input))
        .or_else(|| first_retriever.and_then(|s| nonblank(&s.input)))
        .or_else(|| answering.and_then(|i| nonblank(&spans[i].input)))
        .or_else(|| first_retriever.and_then(|s| nonblank(&s.query)))
        .ok_or_else(|| {
            format!("trace {trace_id}: no span carries the question (the root span has no input)")
        })?;
    let answer = root
        .and_then(|r| nonblank(&spans[r].output))
        .or_else(|| answering.and_then(|i| nonblank(&spans[i].output)));

    let reranked: Vec<&SpanFacts> = spans
        .iter()
        .filter(|s| s.role == Role::Reranker && !s.documents.is_empty())
        .collect();
    let sources: Vec<&SpanFacts> = if reranked.is_empty() {
        spans.iter().filter(|s| s.role == Role::Retriever).collect()
    } else {
        reranked
    };
    let documents: Vec<&Document> = sources.iter().flat_map(|s| &s.documents).collect();
    let contexts: Vec<Value> = documents
        .iter()
        .filter_map(|(_, content, _)| content.clone().map(Value::String))
        .collect();
    let without_text = documents.iter().filter(|(_, c, _)| c.is_none()).count();
    if without_text > 0 {
        warnings.push(format!(
            "trace {trace_id}: {without_text} of {} retrieved documents carry only an id, no text: they count for ranking metrics only and are never sent to a judge",
            documents.len()
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
    let cost: f64 = spans.iter().filter_map(|s| s.cost).sum();
    let mut prior: BTreeMap<String, Value> = BTreeMap::new();
    for (name, value) in spans
        .iter()
        .flat_map(|s| &s.evaluations)
        .chain(&extra_scores)
    {
        prior.insert(name.clone(), value.clone());
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
    let source = dialect.name().to_ascii_lowercase().replace(' ', "_");
    let mut metadata = json!({ "source": source, "trace_id": trace_id, "spans": spans.len() });
    if prompt + completion > 0 {
        metadata["llm_tokens"] = json!({ "prompt": prompt, "completion": completion });
    }
    if cost > 0.0 {
        metadata["llm_cost"] = json!(cost);
    }
    let rewritten: Vec<String> = rewrites
        .iter()
        .filter_map(|&i| nonblank(&spans[i].output))
        .collect();
    if !rewritten.is_empty() {
        metadata["query_rewrites"] = json!(rewritten);
    }
    if let Some(query) = first_retriever.and_then(|s| nonblank(&s.query)) {
        if query != question {
            metadata["retrieval_query"] = json!(query);
        }
    }
    if without_text > 0 {
        metadata["documents_without_text"] = json!(without_text);
    }
    if !prior.is_empty() {
        metadata["prior_scores"] = json!(prior);
    }
    record.insert("metadata".into(), metadata);
    Ok((record, warnings))
}

/// OpenInference and OpenTelemetry GenAI spans (Phoenix or OTLP shape).
fn otel_facts(record: &Map<String, Value>) -> Result<(String, SpanFacts), String> {
    let (Some(trace_id), Some(span_id)) = ids_of(record) else {
        return Err("span has no trace id or span id".into());
    };
    let attributes = flatten_attributes(record);
    let text = |key: &str| attributes.get(key).and_then(as_text);
    let number_at = |key: &str| attributes.get(key).and_then(number);
    let kind = openinference_kind(record, &attributes);
    let operation = text("gen_ai.operation.name").unwrap_or_default();
    let role = match (kind.as_deref(), operation.as_str()) {
        (Some("RETRIEVER"), _) => Role::Retriever,
        (Some("RERANKER"), _) => Role::Reranker,
        (Some("LLM"), _) => Role::Model,
        (Some(_), _) => Role::Other,
        (None, "retrieval") => Role::Retriever,
        (None, "chat" | "text_completion" | "generate_content") => Role::Model,
        (None, _) if attributes.contains_key("gen_ai.retrieval.documents") => Role::Retriever,
        _ => Role::Other,
    };
    let documents = match role {
        Role::Reranker => documents_at(&attributes, "reranker.output_documents"),
        Role::Retriever => {
            let mut docs = documents_at(&attributes, "retrieval.documents");
            if docs.is_empty() {
                docs = documents_at(&attributes, "gen_ai.retrieval.documents");
            }
            docs
        }
        _ => Vec::new(),
    };
    let tokens = match (
        number_at("llm.token_count.prompt").or(number_at("gen_ai.usage.input_tokens")),
        number_at("llm.token_count.completion").or(number_at("gen_ai.usage.output_tokens")),
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
    evaluations.extend(genai_evaluation_events(record));
    let message_text = |key: &str| {
        attributes.get(key).map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
    };
    let facts = SpanFacts {
        span_id,
        parent_id: first_text(
            record,
            &["parent_id", "parentSpanId", "parent_span_id", "parentId"],
        )
        .filter(|p| !p.is_empty()),
        role,
        start: first_text(record, &["start_time", "startTimeUnixNano", "startTime"])
            .unwrap_or_default(),
        input: text("input.value")
            .or_else(|| message_text("gen_ai.input.messages"))
            .or_else(|| text("gen_ai.prompt")),
        output: text("output.value")
            .or_else(|| message_text("gen_ai.output.messages"))
            .or_else(|| text("gen_ai.completion")),
        query: text("gen_ai.retrieval.query.text"),
        documents,
        tokens,
        cost: number_at("llm.cost.total"),
        evaluations,
        ..SpanFacts::default()
    };
    Ok((trace_id, facts))
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

/// A LangSmith run.
fn langsmith_facts(record: &Map<String, Value>) -> Result<(String, SpanFacts), String> {
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

/// A Langfuse observation.
fn langfuse_facts(record: &Map<String, Value>) -> Result<(String, SpanFacts), String> {
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
    let usage = record
        .get("usageDetails")
        .or_else(|| record.get("usage"))
        .and_then(Value::as_object);
    let tokens = usage.and_then(|u| {
        let get = |keys: &[&str]| keys.iter().find_map(|k| u.get(*k).and_then(number));
        match (
            get(&["input", "promptTokens"]),
            get(&["output", "completionTokens"]),
        ) {
            (None, None) => None,
            (p, c) => Some((p.unwrap_or(0.0) as u64, c.unwrap_or(0.0) as u64)),
        }
    });
    let facts = SpanFacts {
        span_id,
        parent_id: first_text(record, &["parentObservationId"]).filter(|p| !p.is_empty()),
        role,
        start: first_text(record, &["startTime"]).unwrap_or_default(),
        input: record.get("input").and_then(text_in),
        output: (role != Role::Retriever)
            .then(|| output.and_then(text_in))
            .flatten(),
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

/// Documents under `prefix`: an array value (or a JSON string holding one), or keys
/// exploded as `prefix.N.document.field` / `prefix.N.field`.
fn documents_at(attributes: &Map<String, Value>, prefix: &str) -> Vec<Document> {
    match attributes.get(prefix) {
        Some(Value::Array(_)) => return documents_in(&attributes[prefix]),
        Some(Value::String(s)) => {
            if let Ok(value) = serde_json::from_str::<Value>(s) {
                return documents_in(&value);
            }
        }
        _ => {}
    }
    let mut docs = Vec::new();
    for n in 0.. {
        let get = |field: &str| {
            attributes
                .get(&format!("{prefix}.{n}.document.{field}"))
                .or_else(|| attributes.get(&format!("{prefix}.{n}.{field}")))
        };
        let id = get("id").and_then(as_text);
        let content = get("content").or_else(|| get("text")).and_then(as_text);
        let score = get("score").and_then(number);
        if id.is_none() && content.is_none() && score.is_none() {
            break;
        }
        docs.push((id, content, score));
    }
    docs
}

/// Documents in a JSON value: a list of document objects (or of strings), directly or
/// under `documents`.
fn documents_in(value: &Value) -> Vec<Document> {
    let list = match value {
        Value::Array(list) => list,
        Value::Object(map) => match map.get("documents").or_else(|| map.get("output")) {
            Some(inner) => return documents_in(inner),
            None => return Vec::new(),
        },
        _ => return Vec::new(),
    };
    list.iter()
        .filter_map(|doc| match doc {
            Value::String(s) => Some((None, Some(s.clone()), None)),
            Value::Object(d) => {
                let d = d.get("document").and_then(Value::as_object).unwrap_or(d);
                let meta = d.get("metadata").and_then(Value::as_object);
                fn present<'m>(m: &'m Map<String, Value>, k: &str) -> Option<&'m Value> {
                    m.get(k).filter(|v| !v.is_null())
                }
                let pick = |keys: &[&str]| {
                    keys.iter()
                        .find_map(|k| present(d, k).or_else(|| meta.and_then(|m| present(m, k))))
                };
                let content = first_text(d, &["page_content", "pageContent", "content", "text"]);
                let id = pick(&["id", "doc_id", "document_id"]).and_then(as_text);
                let score = pick(&["score", "relevance_score"]).and_then(number);
                (id.is_some() || content.is_some()).then_some((id, content, score))
            }
            _ => None,
        })
        .collect()
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

fn openinference_kind(
    record: &Map<String, Value>,
    attributes: &Map<String, Value>,
) -> Option<String> {
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

/// The text a person typed or read inside a structured input or output: the first of
/// the usual keys, the last user message of a chat input, the last message of an output.
fn text_in(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(unwrap_text(s)),
        Value::Object(map) => {
            for key in [
                "query",
                "question",
                "input",
                "query_str",
                "user_input",
                "output",
                "answer",
                "response",
                "result",
                "content",
                "text",
                "parts",
                "generations",
                "kwargs",
                "choices",
                "message",
            ] {
                if let Some(found) = map.get(key).and_then(text_in) {
                    return Some(found);
                }
            }
            map.get("messages").and_then(text_in)
        }
        Value::Array(items) => {
            let user = items.iter().rev().find(|m| {
                matches!(
                    m.get("role").and_then(Value::as_str),
                    Some("user" | "human")
                ) || m.get("type").and_then(Value::as_str) == Some("human")
            });
            user.or(items.last()).and_then(text_in)
        }
        _ => None,
    }
}
