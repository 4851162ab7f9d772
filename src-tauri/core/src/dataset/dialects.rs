//! Files written by other evaluators, recognised by their field names and reshaped into
//! the canonical record the mapper reads, with their scores kept as prior scores:
//! - RAGAS: `EvaluationDataset` JSONL (the aliases already read it) and result CSVs,
//!   whose metric columns are earlier scores and whose pandas index column is not data;
//! - DeepEval: test cases / goldens (`context` is the *ideal* context, so it becomes
//!   reference contexts, never retrieved ones; CSV lists are joined by `|`) and test runs
//!   (`testCases[]` in camelCase, `metricsData[]` → prior scores);
//! - promptfoo results (`vars` → question, contexts, reference; `response.output` →
//!   answer; `namedScores` and `gradingResult` → prior scores);
//! - LlamaIndex `rag_dataset.json` examples (the aliases read them; only the schema is
//!   named here).
//!
//! Owns: recognition and reshaping, and saying which choice it made and why (`Notes`).
//! Must not: validate values (the mapper does) or drop a field: anything not reshaped
//! stays in the record and ends up in metadata.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

use super::aliases::{classify, Canon};
use super::values::number;
use super::{MappingChoice, Schema};

/// Metadata key holding the source tool's own scores, `{name: {score, label,
/// explanation, error}}` (the span reader writes the same shape).
pub const PRIOR_SCORES_KEY: &str = "prior_scores";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    Plain,
    Ragas,
    DeepEval,
    DeepEvalRun,
    Promptfoo,
    LlamaIndex,
}

/// Metric names RAGAS writes as result columns (any numeric column of a RAGAS file is
/// read as a prior score; these names also identify a RAGAS 0.1 file).
const RAGAS_METRICS: [&str; 12] = [
    "faithfulness",
    "answer_relevancy",
    "response_relevancy",
    "context_precision",
    "context_recall",
    "context_entity_recall",
    "answer_correctness",
    "answer_similarity",
    "semantic_similarity",
    "factual_correctness",
    "llm_context_precision_with_reference",
    "llm_context_precision_without_reference",
];

impl Dialect {
    /// The dialect of a file whose first record (or CSV header) has these keys.
    pub(crate) fn detect<'k>(keys: impl IntoIterator<Item = &'k str>) -> Dialect {
        let keys: BTreeSet<&str> = keys.into_iter().collect();
        let has = |k: &str| keys.contains(k);
        if has("metricsData")
            || has("metricsMetadata")
            || has("actualOutput")
            || has("retrievalContext")
        {
            Dialect::DeepEvalRun
        } else if has("actual_output") || has("retrieval_context") {
            Dialect::DeepEval
        } else if has("vars") && (has("response") || has("gradingResult") || has("promptIdx")) {
            Dialect::Promptfoo
        } else if has("query")
            && has("reference_answer")
            && (has("query_by") || has("reference_answer_by"))
        {
            Dialect::LlamaIndex
        } else if has("user_input")
            || (has("retrieved_contexts") && (has("response") || has("reference")))
            || RAGAS_METRICS.iter().any(|m| has(m))
        {
            Dialect::Ragas
        } else {
            Dialect::Plain
        }
    }

    /// The schema to report, when the dialect decides it (else the field names do).
    pub(crate) fn schema(self) -> Option<Schema> {
        match self {
            Dialect::Plain => None,
            Dialect::Ragas => Some(Schema::Ragas),
            Dialect::DeepEval | Dialect::DeepEvalRun => Some(Schema::DeepEval),
            Dialect::Promptfoo => Some(Schema::Promptfoo),
            Dialect::LlamaIndex => Some(Schema::LlamaIndex),
        }
    }

    /// The record in canonical names; prior scores under `metadata.prior_scores`.
    pub(crate) fn reshape(
        self,
        mut record: Map<String, Value>,
        csv: bool,
        notes: &mut Notes,
    ) -> Map<String, Value> {
        match self {
            Dialect::Plain | Dialect::LlamaIndex => {}
            Dialect::Ragas => ragas(&mut record, notes),
            Dialect::DeepEval => deepeval(&mut record, csv, notes),
            Dialect::DeepEvalRun => {
                for (from, to) in [
                    ("actualOutput", "actual_output"),
                    ("expectedOutput", "expected_output"),
                    ("retrievalContext", "retrieval_context"),
                    ("name", "id"),
                ] {
                    if let Some(v) = record.remove(from) {
                        record.insert(to.into(), v);
                        notes.source(canon_name(to), &format!("testCases[].{from}"));
                    }
                }
                notes.source("question", "testCases[].input");
                deepeval(&mut record, false, notes);
                deepeval_metrics(&mut record, notes);
            }
            Dialect::Promptfoo => promptfoo(&mut record, notes),
        }
        record
    }
}

fn canon_name(key: &str) -> &'static str {
    classify(key).map_or("metadata", |a| a.canon.name())
}

/// What reshaping decided across a file: the choices (with why), where fields came
/// from when the dialect moved them, and the names of prior scores.
#[derive(Debug, Default)]
pub(crate) struct Notes {
    pub choices: Vec<MappingChoice>,
    pub sources: BTreeMap<String, BTreeSet<String>>,
    pub prior_scores: BTreeSet<String>,
}

impl Notes {
    /// Records a choice once per file (the first record that needed it).
    pub(crate) fn choose(
        &mut self,
        field: &str,
        chosen: &str,
        alternatives: Vec<String>,
        why: &str,
    ) {
        if self
            .choices
            .iter()
            .any(|c| c.field == field && c.chosen == chosen)
        {
            return;
        }
        self.choices.push(MappingChoice {
            field: field.into(),
            chosen: chosen.into(),
            alternatives,
            why: why.into(),
        });
    }

    pub(crate) fn source(&mut self, field: &str, from: &str) {
        self.sources
            .entry(field.into())
            .or_default()
            .insert(from.into());
    }

    fn prior(&mut self, record: &mut Map<String, Value>, name: &str, from: &str, score: Value) {
        self.prior_scores.insert(format!("{name} ({from})"));
        let metadata = record.entry("metadata").or_insert_with(|| json!({}));
        if !metadata.is_object() {
            let other = metadata.take();
            *metadata = json!({ "metadata": other });
        }
        let priors = metadata
            .as_object_mut()
            .expect("made an object above")
            .entry(PRIOR_SCORES_KEY)
            .or_insert_with(|| json!({}));
        if let Value::Object(priors) = priors {
            priors.insert(name.into(), score);
        }
    }
}

/// RAGAS: numeric columns beyond the sample's fields are the metrics it computed.
fn ragas(record: &mut Map<String, Value>, notes: &mut Notes) {
    // pandas writes its row index as a first column with an empty name.
    if let Some(index) = record.remove("") {
        record.insert("row_index".into(), index);
        notes.choose(
            "metadata",
            "row_index",
            vec!["(unnamed first column)".into()],
            "the unnamed first column is the row index pandas writes; it is kept as metadata, not read as a score",
        );
    }
    let metric_keys: Vec<String> = record
        .iter()
        .filter(|(k, v)| {
            classify(k).is_none()
                && k.as_str() != "row_index"
                && !k.to_ascii_lowercase().starts_with("unnamed")
                && number(v).is_some()
        })
        .map(|(k, _)| k.clone())
        .collect();
    for key in metric_keys {
        let value = record
            .remove(&key)
            .and_then(|v| number(&v))
            .unwrap_or(f64::NAN);
        // RAGAS writes NaN for a metric that failed: an error, not a 0.
        let score = if value.is_finite() {
            json!({ "score": value })
        } else {
            json!({ "error": "RAGAS recorded no score (NaN)" })
        };
        notes.prior(record, &key, "column", score);
    }
}

/// DeepEval test cases: `context` is what the test's author says the answer needs,
/// which is a reference, never what the pipeline retrieved.
fn deepeval(record: &mut Map<String, Value>, csv: bool, notes: &mut Notes) {
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
fn deepeval_metrics(record: &mut Map<String, Value>, notes: &mut Notes) {
    let metrics = record
        .remove("metricsData")
        .or_else(|| record.remove("metricsMetadata"));
    let Some(Value::Array(metrics)) = metrics else {
        return;
    };
    for metric in metrics {
        let Some(m) = metric.as_object() else {
            continue;
        };
        let Some(name) = m
            .get("name")
            .or_else(|| m.get("metric"))
            .and_then(Value::as_str)
        else {
            continue;
        };
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
        notes.prior(record, name, "metricsData", score);
    }
}

/// promptfoo: the question, contexts and reference are test variables whose names the
/// user chose; the answer is the provider's output.
fn promptfoo(record: &mut Map<String, Value>, notes: &mut Notes) {
    let mut vars = match record.remove("vars") {
        Some(Value::Object(vars)) => vars,
        _ => Map::new(),
    };
    for (canon, key) in [
        (Canon::Question, "question"),
        (Canon::Contexts, "retrieved_contexts"),
        (Canon::GroundTruth, "ground_truth"),
    ] {
        let mut candidates: Vec<(usize, String)> = vars
            .keys()
            .filter_map(|k| {
                classify(k)
                    .filter(|a| a.canon == canon)
                    .map(|a| (a.index, k.clone()))
            })
            .collect();
        candidates.sort();
        let chosen = match candidates.first() {
            Some((_, k)) => Some(k.clone()),
            // One text variable and no question-like name: that variable is the question.
            None if canon == Canon::Question => {
                let texts: Vec<&String> = vars
                    .iter()
                    .filter(|(_, v)| v.is_string())
                    .map(|(k, _)| k)
                    .collect();
                (texts.len() == 1).then(|| texts[0].clone())
            }
            None => None,
        };
        let Some(chosen) = chosen else { continue };
        let path = format!("vars.{chosen}");
        notes.source(canon.name(), &path);
        let alternatives: Vec<String> = candidates
            .iter()
            .filter(|(_, k)| *k != chosen)
            .map(|(_, k)| format!("vars.{k}"))
            .collect();
        if candidates.len() != 1 {
            let why = if candidates.is_empty() {
                "no variable is named like a question; it is the only text variable".to_string()
            } else {
                format!(
                    "several variables are named like a {}; the most specific name wins (choose another with the mapping editor or --map {}=vars.NAME)",
                    canon.name(),
                    canon.name()
                )
            };
            notes.choose(canon.name(), &path, alternatives, &why);
        }
        if let Some(v) = vars.remove(&chosen) {
            record.insert(key.into(), v);
        }
    }
    if !vars.is_empty() {
        record.insert("vars".into(), Value::Object(vars));
    }
    match record.remove("response") {
        Some(Value::Object(mut response)) => {
            if let Some(output) = response.remove("output") {
                let text = match output {
                    Value::String(s) => Value::String(s),
                    Value::Null => Value::Null,
                    other => Value::String(other.to_string()),
                };
                record.insert("answer".into(), text);
                notes.source("answer", "response.output");
            }
            if let Some(usage) = response.remove("tokenUsage") {
                record.insert("token_usage".into(), usage);
            }
        }
        Some(other) => {
            record.insert("provider_response".into(), other);
        }
        None => {}
    }
    // `prompt` would read as a question alias: it is the rendered template.
    if let Some(prompt) = record.remove("prompt") {
        let label = prompt.get("label").cloned().unwrap_or(prompt);
        record.insert("prompt_label".into(), label);
    }
    record.remove("testCase");
    if let Some(Value::Object(named)) = record.remove("namedScores") {
        for (name, score) in named {
            if let Some(s) = number(&score) {
                notes.prior(record, &name, "namedScores", json!({ "score": s }));
            }
        }
    }
    let grading = record.remove("gradingResult");
    let score = grading
        .as_ref()
        .and_then(|g| g.get("score"))
        .or_else(|| record.get("score"))
        .and_then(number);
    let pass = grading
        .as_ref()
        .and_then(|g| g.get("pass"))
        .or_else(|| record.get("success"))
        .and_then(Value::as_bool);
    if score.is_some() || pass.is_some() {
        let mut prior = json!({});
        if let Some(s) = score {
            prior["score"] = json!(s);
        }
        if let Some(p) = pass {
            prior["label"] = json!(if p { "pass" } else { "fail" });
        }
        if let Some(reason) = grading
            .as_ref()
            .and_then(|g| g.get("reason"))
            .filter(|r| r.is_string())
        {
            prior["explanation"] = reason.clone();
        }
        notes.prior(record, "assertions", "gradingResult", prior);
    }
    record.remove("score");
    if !record.contains_key("id") {
        if let (Some(t), Some(p)) = (record.get("testIdx"), record.get("promptIdx")) {
            record.insert("id".into(), json!(format!("test {t} prompt {p}")));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_tool_is_told_apart_by_its_field_names() {
        assert_eq!(
            Dialect::detect(["input", "actual_output", "context"]),
            Dialect::DeepEval
        );
        assert_eq!(
            Dialect::detect(["name", "input", "actualOutput", "metricsData"]),
            Dialect::DeepEvalRun
        );
        assert_eq!(
            Dialect::detect(["vars", "response", "gradingResult"]),
            Dialect::Promptfoo
        );
        assert_eq!(
            Dialect::detect(["query", "reference_answer", "query_by"]),
            Dialect::LlamaIndex
        );
        assert_eq!(
            Dialect::detect(["", "question", "contexts", "faithfulness"]),
            Dialect::Ragas
        );
        assert_eq!(
            Dialect::detect(["question", "answer", "contexts"]),
            Dialect::Plain
        );
    }

    #[test]
    fn deepeval_context_is_a_reference_and_csv_pipes_split() {
        let mut notes = Notes::default();
        let Value::Object(r) = json!({"input": "q", "context": "a|b", "retrieval_context": "c|d|"})
        else {
            unreachable!()
        };
        let out = Dialect::DeepEval.reshape(r, true, &mut notes);
        assert_eq!(out["reference_contexts"], json!(["a", "b"]));
        assert_eq!(out["retrieval_context"], json!(["c", "d"]));
        assert!(!out.contains_key("context"));
        assert_eq!(notes.choices[0].field, "reference_contexts");
    }

    #[test]
    fn a_failed_deepeval_metric_stays_an_error() {
        let mut notes = Notes::default();
        let Value::Object(r) = json!({"input": "q", "metricsData": [
            {"name": "Faithfulness", "score": 0.5, "success": true, "reason": "ok"},
            {"name": "Contextual Recall", "error": "timeout", "success": false}]})
        else {
            unreachable!()
        };
        let out = Dialect::DeepEvalRun.reshape(r, false, &mut notes);
        let priors = &out["metadata"][PRIOR_SCORES_KEY];
        assert_eq!(priors["Faithfulness"]["score"], json!(0.5));
        assert!(priors["Contextual Recall"].get("score").is_none());
        assert_eq!(priors["Contextual Recall"]["error"], json!("timeout"));
    }
}
