//! One trace as one dataset record: the root (or, without a single root, the retriever's
//! input and the last model call that is not a query rewrite) gives the question and
//! answer; documents in rank order (a reranker's output wins); tokens, cost and earlier
//! evaluations as metadata.
//!
//! Owns: the tree (roots, cycles, query rewrites), merging records of one span (a
//! LangSmith patch into its post), and the choice of each field. Must not: read files.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{json, Map, Value};

use super::{Document, Role, SpanDialect, SpanFacts, TraceExtras, TraceRecord};

/// The trace as one dataset record, with warnings; or why it cannot be one.
/// Keys of a trace record the collector takes out before mapping: which rule found the
/// question and answer, and the root span's raw input and output (for `--map
/// answer=root.output.…`).
pub(crate) const RULES_KEY: &str = "__rules";
pub(crate) const RAW_KEY: &str = "__raw";
/// Why the trace has no question, when it has none (unless the user's mapping finds one).
pub(crate) const MISSING_KEY: &str = "__missing_question";

/// The reason a trace without a question is rejected: the fields looked for, and the
/// mapping that would read another.
fn missing_question(dialect: SpanDialect, trace_id: &str) -> String {
    let looked = match dialect {
        SpanDialect::LangSmith => "`inputs` on the root run (or a retriever or model run)",
        SpanDialect::Langfuse => "`input` on the root observation or the trace",
        SpanDialect::OpenInference => "`attributes.input.value` on the root span",
        SpanDialect::TruLens => {
            "`ai.observability.record_root.input` on the record_root span (or a retrieval span's `ai.observability.retrieval.query_text`)"
        }
        SpanDialect::GenAi => {
            "`attributes.gen_ai.input.messages` (or `gen_ai.prompt`, `input.value`, `ai.prompt.messages`, `ai.prompt`, `inputs`) on the root span"
        }
    };
    format!(
        "trace {trace_id}: no prompt text: no span has {looked}; the export holds no question to evaluate (record the prompt's content when tracing, or name the field that holds it with --map question=root.input.PATH)"
    )
}

/// Several records of one span (a LangSmith post and its patch) as one: later records
/// add what the earlier ones lacked, and their outputs, counts and end win.
fn merge_updates(spans: Vec<SpanFacts>) -> Vec<SpanFacts> {
    let mut out: Vec<SpanFacts> = Vec::with_capacity(spans.len());
    let mut at: HashMap<String, usize> = HashMap::new();
    for span in spans {
        let Some(&i) = at.get(&span.span_id) else {
            at.insert(span.span_id.clone(), out.len());
            out.push(span);
            continue;
        };
        let held = &mut out[i];
        if held.role == Role::Other {
            held.role = span.role;
        }
        held.parent_id = held.parent_id.take().or(span.parent_id);
        if held.start.is_empty() {
            held.start = span.start;
        }
        if held.input.is_none() {
            held.input = span.input;
            held.input_rule = span.input_rule;
            held.raw_input = span.raw_input;
        }
        if span.output.is_some() || held.raw_output.is_none() {
            held.output = span.output.or(held.output.take());
            held.output_rule = span.output_rule.or(held.output_rule.take());
            held.raw_output = span.raw_output.or(held.raw_output.take());
        }
        if !span.documents.is_empty() {
            held.documents = span.documents;
        }
        held.reference = held.reference.take().or(span.reference);
        held.tokens = span.tokens.or(held.tokens);
        held.cost = span.cost.or(held.cost);
        held.evaluations.extend(span.evaluations);
    }
    out
}

/// Whether any ancestor of `span` satisfies `test`.
fn ancestor_has(
    spans: &[SpanFacts],
    index: &HashMap<&str, usize>,
    span: &SpanFacts,
    test: impl Fn(&SpanFacts) -> bool,
) -> bool {
    let mut seen = HashSet::new();
    let mut at = span.parent_id.as_deref();
    while let Some(p) = at {
        let Some(&j) = index.get(p) else { break };
        if !seen.insert(j) {
            break;
        }
        if test(&spans[j]) {
            return true;
        }
        at = spans[j].parent_id.as_deref();
    }
    false
}

/// The text of a field, unless it is missing or blank.
fn nonblank(t: &Option<String>) -> Option<String> {
    t.clone().filter(|t| !t.trim().is_empty())
}

/// The spans whose parent is not in the trace (or who have none), in start order; an
/// error when there is none (the parent ids form a cycle).
fn top_spans(
    trace_id: &str,
    spans: &[SpanFacts],
    index: &HashMap<&str, usize>,
) -> Result<Vec<usize>, String> {
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
    Ok(tops)
}

/// The one root that holds the question and answer: the single parentless span, or the
/// first top span when the root is missing from the export (with a warning), or none when
/// several spans are parentless.
fn root_span(
    trace_id: &str,
    spans: &[SpanFacts],
    tops: &[usize],
    warnings: &mut Vec<String>,
) -> Option<usize> {
    let parentless: Vec<usize> = tops
        .iter()
        .copied()
        .filter(|&i| spans[i].parent_id.is_none())
        .collect();
    // One root holds the question and answer. Several parentless spans (Langfuse and
    // LangSmith attach observations to the trace itself) mean there is no single root.
    match parentless.as_slice() {
        [one] => Some(*one),
        [] => {
            warnings.push(format!(
                "trace {trace_id}: the root span is missing from the export; read from span {} instead",
                spans[tops[0]].span_id
            ));
            Some(tops[0])
        }
        _ => None,
    }
}

/// The model calls beneath a retrieval span: they rewrite the query, they are not the
/// answer.
fn query_rewrites(spans: &[SpanFacts], index: &HashMap<&str, usize>) -> Vec<usize> {
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
    (0..spans.len())
        .filter(|&i| spans[i].role == Role::Model && under_retriever(i))
        .collect()
}

/// The question: the root's input, else the trace's, the first retrieval's input, the
/// answering model call's input, or the first retrieval's query.
fn question_of(
    spans: &[SpanFacts],
    root: Option<usize>,
    answering: Option<usize>,
    first_retriever: Option<&SpanFacts>,
    extras: &TraceExtras,
) -> Option<String> {
    root.and_then(|r| nonblank(&spans[r].input))
        .or_else(|| nonblank(&extras.input))
        .or_else(|| first_retriever.and_then(|s| nonblank(&s.input)))
        .or_else(|| answering.and_then(|i| nonblank(&spans[i].input)))
        .or_else(|| first_retriever.and_then(|s| nonblank(&s.query)))
}

/// What the retrieval returned, in rank order: the passages' texts, their ids (only when
/// every document has one) and how many documents carry only an id.
struct Retrieved {
    contexts: Vec<Value>,
    ids: Vec<Value>,
    without_text: usize,
}

/// The documents of the reranker, or else of the outermost retrievals that returned
/// documents, warning about those without text.
fn retrieved(
    trace_id: &str,
    spans: &[SpanFacts],
    index: &HashMap<&str, usize>,
    warnings: &mut Vec<String>,
) -> Retrieved {
    let reranked: Vec<&SpanFacts> = spans
        .iter()
        .filter(|s| s.role == Role::Reranker && !s.documents.is_empty())
        .collect();
    // A retrieval inside another that returned documents is a step of it (LlamaIndex's
    // query engine, its retriever and the retriever's `_retrieve` each report the same
    // passages): only the outermost one with documents counts.
    let retrieves_within = |s: &SpanFacts| {
        ancestor_has(spans, index, s, |a| {
            a.role == Role::Retriever && !a.documents.is_empty()
        })
    };
    let sources: Vec<&SpanFacts> = if reranked.is_empty() {
        spans
            .iter()
            .filter(|s| s.role == Role::Retriever && !retrieves_within(s))
            .collect()
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
    let ids: Vec<Value> = if documents.iter().all(|(id, _, _)| id.is_some()) {
        documents
            .iter()
            .filter_map(|(id, _, _)| id.clone().map(Value::String))
            .collect()
    } else {
        Vec::new()
    };
    Retrieved {
        contexts,
        ids,
        without_text,
    }
}

/// The trace's prompt and completion tokens and its cost, each span counted once.
fn usage(
    dialect: SpanDialect,
    spans: &[SpanFacts],
    index: &HashMap<&str, usize>,
) -> (u64, u64, f64) {
    // LangSmith's counts on a run include its children's: only the topmost runs that
    // carry counts are added up, or a root's total would be counted twice.
    let counted: Vec<&SpanFacts> = spans
        .iter()
        .filter(|s| {
            dialect != SpanDialect::LangSmith
                || !ancestor_has(spans, index, s, |a| a.tokens.is_some() || a.cost.is_some())
        })
        .collect();
    let (prompt, completion) = counted
        .iter()
        .filter_map(|s| s.tokens)
        .fold((0u64, 0u64), |(p, c), (a, b)| {
            (p.saturating_add(a), c.saturating_add(b))
        });
    let cost: f64 = counted.iter().filter_map(|s| s.cost).sum();
    (prompt, completion, cost)
}

/// Earlier evaluations on the spans and the trace, by name (a later one wins).
fn prior_scores(spans: &[SpanFacts], extras: &TraceExtras) -> BTreeMap<String, Value> {
    let mut prior: BTreeMap<String, Value> = BTreeMap::new();
    for (name, value) in spans
        .iter()
        .flat_map(|s| &s.evaluations)
        .chain(&extras.scores)
    {
        prior.insert(name.clone(), value.clone());
    }
    prior
}

/// Which rule found the root's question and answer, and the root's raw input and output,
/// under the keys the collector takes out before mapping.
fn insert_root_readings(record: &mut Map<String, Value>, reader: Option<&SpanFacts>) {
    let rules: Map<String, Value> = [
        ("question", reader.and_then(|r| r.input_rule.clone())),
        ("answer", reader.and_then(|r| r.output_rule.clone())),
    ]
    .into_iter()
    .filter_map(|(f, r)| r.map(|r| (f.to_string(), Value::String(r))))
    .collect();
    record.insert(RULES_KEY.into(), Value::Object(rules));
    let raw = json!({ "root": {
        "input": reader.and_then(|r| r.raw_input.clone()),
        "output": reader.and_then(|r| r.raw_output.clone()),
    }});
    record.insert(RAW_KEY.into(), raw);
}

/// What the record's metadata gathers beside the span count: tokens, cost, rewritten
/// queries, the retrieval's own query, documents without text and earlier scores.
struct TraceFacts<'a> {
    usage: (u64, u64, f64),
    rewritten: Vec<String>,
    retrieval_query: Option<String>,
    question: Option<&'a String>,
    without_text: usize,
    prior: BTreeMap<String, Value>,
}

/// The record's metadata: where it came from, then each fact that is present.
fn trace_metadata(dialect: SpanDialect, trace_id: &str, spans: usize, facts: TraceFacts) -> Value {
    let source = dialect.name().to_ascii_lowercase().replace(' ', "_");
    let mut metadata = json!({ "source": source, "trace_id": trace_id, "spans": spans });
    let (prompt, completion, cost) = facts.usage;
    if prompt + completion > 0 {
        metadata["llm_tokens"] = json!({ "prompt": prompt, "completion": completion });
    }
    if cost > 0.0 {
        metadata["llm_cost"] = json!(cost);
    }
    if !facts.rewritten.is_empty() {
        metadata["query_rewrites"] = json!(facts.rewritten);
    }
    if let Some(query) = facts.retrieval_query {
        if Some(&query) != facts.question {
            metadata["retrieval_query"] = json!(query);
        }
    }
    if facts.without_text > 0 {
        metadata["documents_without_text"] = json!(facts.without_text);
    }
    if !facts.prior.is_empty() {
        metadata["prior_scores"] = json!(facts.prior);
    }
    metadata
}

/// Assembles one trace in order: merge, sort, find the top span, then each field (each
/// step reads what the previous one found).
pub(super) fn trace_record(
    dialect: SpanDialect,
    trace_id: &str,
    spans: Vec<SpanFacts>,
    extras: TraceExtras,
) -> TraceRecord {
    let mut warnings = Vec::new();
    let mut spans = merge_updates(spans);
    spans.sort_by(|a, b| a.start.cmp(&b.start));
    let index: HashMap<&str, usize> = spans
        .iter()
        .enumerate()
        .map(|(i, s)| (s.span_id.as_str(), i))
        .collect();
    let tops = top_spans(trace_id, &spans, &index)?;
    let root = root_span(trace_id, &spans, &tops, &mut warnings);
    let rewrites = query_rewrites(&spans, &index);
    let answering = (0..spans.len())
        .rev()
        .find(|&i| spans[i].role == Role::Model && !rewrites.contains(&i));
    let first_retriever = spans.iter().find(|s| s.role == Role::Retriever);

    let question = question_of(&spans, root, answering, first_retriever, &extras);
    let answer = root
        .and_then(|r| nonblank(&spans[r].output))
        .or_else(|| nonblank(&extras.output))
        .or_else(|| answering.and_then(|i| nonblank(&spans[i].output)));
    let retrieved = retrieved(trace_id, &spans, &index, &mut warnings);
    let usage = usage(dialect, &spans, &index);
    let prior = prior_scores(&spans, &extras);

    let mut record = Map::new();
    record.insert("id".into(), json!(trace_id));
    match &question {
        Some(question) => {
            record.insert("question".into(), json!(question));
        }
        None => {
            record.insert(
                MISSING_KEY.into(),
                json!(missing_question(dialect, trace_id)),
            );
        }
    }
    if let Some(answer) = answer {
        record.insert("answer".into(), json!(answer));
    }
    let reference = root
        .and_then(|r| nonblank(&spans[r].reference))
        .or_else(|| spans.iter().find_map(|s| nonblank(&s.reference)));
    if let Some(reference) = reference {
        record.insert("ground_truth".into(), json!(reference));
    }
    if !retrieved.contexts.is_empty() {
        record.insert(
            "retrieved_contexts".into(),
            Value::Array(retrieved.contexts),
        );
    }
    if !retrieved.ids.is_empty() {
        record.insert("retrieved_context_ids".into(), Value::Array(retrieved.ids));
    }
    insert_root_readings(&mut record, root.map(|r| &spans[r]));
    let facts = TraceFacts {
        usage,
        rewritten: rewrites
            .iter()
            .filter_map(|&i| nonblank(&spans[i].output))
            .collect(),
        retrieval_query: first_retriever.and_then(|s| nonblank(&s.query)),
        question: question.as_ref(),
        without_text: retrieved.without_text,
        prior,
    };
    record.insert(
        "metadata".into(),
        trace_metadata(dialect, trace_id, spans.len(), facts),
    );
    Ok((record, warnings))
}
