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

mod langfuse;
mod langsmith;
mod otel;
mod record;
mod text;
mod turns;

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Read, Seek, SeekFrom, Write};

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::values::number;
use super::{Format, Schema, ValidationReport};
use langfuse::langfuse_facts;
use langsmith::langsmith_facts;
use otel::{flatten_attributes, ids_of, openinference_kind, otel_facts, TRULENS_PREFIX};
use record::trace_record;
pub(crate) use record::{MISSING_KEY, RAW_KEY, RULES_KEY};
use text::first_text;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SpanDialect {
    OpenInference,
    GenAi,
    LangSmith,
    Langfuse,
    /// TruLens's OpenTelemetry event table (`record_attributes` with
    /// `ai.observability.*` keys), read by the same span reader as GenAI.
    TruLens,
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
        } else if attributes.keys().any(|k| k.starts_with(TRULENS_PREFIX)) {
            Some(SpanDialect::TruLens)
        } else if attributes.keys().any(|k| {
            ["gen_ai.", "ai.", "llm."].iter().any(|p| k.starts_with(p))
                || k == "span_type"
                || k == "input.value"
        }) {
            // OTel GenAI, and the shapes read the same way: Vercel AI SDK (`ai.*`),
            // promptflow (`span_type`, `inputs`, `output`), attribute maps.
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
            SpanDialect::TruLens => "TruLens",
        }
    }

    fn schema(self) -> Schema {
        match self {
            SpanDialect::OpenInference => Schema::OpenInference,
            SpanDialect::GenAi => Schema::GenAi,
            SpanDialect::LangSmith => Schema::LangSmith,
            SpanDialect::Langfuse => Schema::Langfuse,
            SpanDialect::TruLens => Schema::TruLens,
        }
    }

    /// Where each field of a trace's record came from, in the dialect's own names.
    fn sources(self, field: &str) -> Option<&'static str> {
        use SpanDialect::*;
        Some(match (self, field) {
            (TruLens, "id") => "ai.observability.record_id",
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
            (TruLens, "question") => {
                "record_root span ai.observability.record_root.input (else a retrieval span's ai.observability.retrieval.query_text)"
            }
            (TruLens, "answer") => "record_root span ai.observability.record_root.output",
            (TruLens, "contexts") => {
                "retrieval spans' ai.observability.retrieval.retrieved_contexts, in order"
            }
            (TruLens, "ground_truth") => "ai.observability.record_root.ground_truth_output",
            (TruLens, "metadata") => {
                "record id, span count, cost, prior scores (eval_root spans: metric name and score)"
            }
            (_, "retrieved_ids") => "the same documents' ids, in rank order",
            (_, "metadata") => {
                "trace id, span count, token counts, cost, query rewrites, prior scores (earlier evaluations)"
            }
            _ => return None,
        })
    }
}

/// Whether a CSV header is that of a span table: TruLens's event table as pandas saves
/// it (`trace` and `record_attributes` columns holding dicts).
pub(crate) fn header_names_spans(columns: &[String]) -> bool {
    let has = |name: &str| columns.iter().any(|c| c == name);
    has("trace") && has("record_attributes")
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
    /// Which rule of `turns` found the input and the output text.
    input_rule: Option<String>,
    output_rule: Option<String>,
    /// The input and output as the span had them, for the user's `--map root.input…`.
    raw_input: Option<Value>,
    raw_output: Option<Value>,
    /// The query a retrieval span sent (GenAI), when it says so apart from its input.
    query: Option<String>,
    /// The expected answer, when the trace recorded one (TruLens's ground truth).
    reference: Option<String>,
    documents: Vec<Document>,
    tokens: Option<(u64, u64)>,
    cost: Option<f64>,
    evaluations: Vec<(String, Value)>,
}

/// What the file says of a trace apart from its spans.
#[derive(Debug, Default)]
pub(crate) struct TraceExtras {
    pub scores: Vec<(String, Value)>,
    /// The trace's own input and output (Langfuse), as text: read when the root span
    /// has none.
    pub input: Option<String>,
    pub output: Option<String>,
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
    /// What the file says of a trace apart from its spans (Langfuse scores, a trace
    /// download's own input and output), by trace.
    extras: HashMap<String, TraceExtras>,
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
            extras: HashMap::new(),
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

    /// Whether scores from a file beside this export can join its traces: only
    /// Langfuse keeps its scores apart.
    pub(crate) fn takes_scores(&self) -> Result<(), String> {
        if self.dialect == SpanDialect::Langfuse {
            Ok(())
        } else {
            Err(format!(
                "a scores file goes beside a Langfuse export, and this file holds {} spans",
                self.dialect.name()
            ))
        }
    }

    /// Adds a score read from a file of scores beside a Langfuse export (`takes_scores`);
    /// `Err` says why the record is no score.
    pub(crate) fn add_score(&mut self, record: Map<String, Value>) -> Result<(), String> {
        if !is_langfuse_score(&record) {
            return Err(
                "not a Langfuse score (it needs traceId, name, value, and dataType or source)"
                    .into(),
            );
        }
        match self.add(0, 0, record) {
            Ok(()) => Ok(()),
            Err(SpanError::Refused(why)) => Err(why),
            Err(SpanError::Spill(e)) => Err(e.to_string()),
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
            // A categorical score's `value` is the category's index; its name is the
            // label a person chose.
            let categorical = record.get("dataType").and_then(Value::as_str) == Some("CATEGORICAL");
            let label = record.get("stringValue").filter(|l| l.is_string());
            if let (true, Some(label)) = (categorical, label) {
                value["label"] = label.clone();
            } else if let Some(score) = record.get("value").and_then(number) {
                value["score"] = json!(score);
            } else if let Some(label) = label.or(record.get("value")) {
                value["label"] = label.clone();
            }
            if let Some(comment) = record.get("comment").filter(|c| !c.is_null()) {
                value["explanation"] = comment.clone();
            }
            self.extras
                .entry(trace)
                .or_default()
                .scores
                .push((name, value));
            return Ok(());
        }
        let (trace_id, facts) = match self.dialect {
            SpanDialect::OpenInference | SpanDialect::GenAi | SpanDialect::TruLens => {
                otel_facts(&record)
            }
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

    /// A Langfuse trace download's `trace` object: keeps its input and output for the
    /// trace, and returns its scores as score records and, unless the file lists the
    /// observations apart (`spans_elsewhere`), its observations.
    pub(crate) fn trace_envelope(
        &mut self,
        line: u64,
        trace: Value,
        spans_elsewhere: bool,
    ) -> Vec<(u64, Map<String, Value>)> {
        let (trace_id, extras, records) = langfuse::trace_download(trace, spans_elsewhere);
        if let Some(id) = trace_id {
            let held = self.extras.entry(id).or_default();
            held.input = extras.input;
            held.output = extras.output;
        }
        records.into_iter().map(|r| (line, r)).collect()
    }

    /// Traces that scores were given for but that have no spans in the file.
    pub(crate) fn scores_without_spans(&self) -> Vec<String> {
        let mut traces: Vec<String> = self
            .extras
            .iter()
            .filter(|(_, e)| !e.scores.is_empty())
            .map(|(t, _)| t)
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
            let extras = self.extras.remove(&trace_id).unwrap_or_default();
            let (line, offset) = (spans[0].line, spans[0].offset);
            Ok((
                line,
                offset,
                trace_record(dialect, &trace_id, spans, extras),
            ))
        }))
    }
}

/// A span's (prompt, completion) token counts from the numbers it states. A count no
/// model could have used (negative, not finite, beyond a trillion) is taken as not
/// stated: a damaged field must neither overflow a trace's total nor become a figure.
fn token_pair(prompt: Option<f64>, completion: Option<f64>) -> Option<(u64, u64)> {
    let count = |v: Option<f64>| {
        v.filter(|v| v.is_finite() && (0.0..=1e12).contains(v))
            .map(|v| v as u64)
    };
    match (count(prompt), count(completion)) {
        (None, None) => None,
        (p, c) => Some((p.unwrap_or(0), c.unwrap_or(0))),
    }
}
