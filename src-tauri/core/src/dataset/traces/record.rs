//! One trace as one dataset record: the root (or, without a single root, the retriever's
//! input and the last model call that is not a query rewrite) gives the question and
//! answer; documents in rank order (a reranker's output wins); tokens, cost and earlier
//! evaluations as metadata.
//!
//! Owns: the tree (roots, cycles, query rewrites), merging records of one span (a
//! LangSmith patch into its post), and the choice of each field. Must not: read files.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde_json::{json, Map, Value};

use super::text::unwrap_text;
use super::{Document, Role, SpanDialect, SpanFacts, TraceExtras, TraceRecord};

/// The trace as one dataset record, with warnings; or why it cannot be one.
pub(super) fn trace_record(
    dialect: SpanDialect,
    trace_id: &str,
    mut spans: Vec<SpanFacts>,
    extras: TraceExtras,
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
        .or_else(|| nonblank(&extras.input))
        .or_else(|| first_retriever.and_then(|s| nonblank(&s.input)))
        .or_else(|| answering.and_then(|i| nonblank(&spans[i].input)))
        .or_else(|| first_retriever.and_then(|s| nonblank(&s.query)))
        .ok_or_else(|| {
            format!("trace {trace_id}: no span carries the question (the root span has no input)")
        })?;
    let answer = root
        .and_then(|r| nonblank(&spans[r].output))
        .or_else(|| nonblank(&extras.output))
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
        .chain(&extras.scores)
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
