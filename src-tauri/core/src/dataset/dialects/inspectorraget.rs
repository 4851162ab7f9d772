//! InspectorRAGet's analytics file: the tasks (the conversation's turns, the contexts,
//! the targets), the models' results on them (`results`, `evaluations` before schema
//! version 2: each model's output and, per metric, each annotator's value), and the documents and metrics they refer to,
//! as separate lists of one JSON document joined by `task_id`.
//!
//! Owns: the join (one record per model result; a task's target, else the reference
//! model's output, as its ground truth) and one prior score per metric from its
//! annotators (a categorical value through the metric's `numeric_value`; the mean over
//! annotators as the score, the most given value as the label, the `<metric>_reason`
//! texts as the explanation). Must not: map fields (the mapper does) or read files.

use std::collections::{BTreeMap, HashMap};

use serde_json::{json, Map, Value};

use super::super::values::number;
use super::chat::content_text;
use super::Notes;

/// Whether an object's lists are an analytics file's: tasks and the results on them.
pub(crate) fn holds_tasks_and_results(keys: &[&str]) -> bool {
    keys.contains(&"tasks") && RESULTS.iter().any(|k| keys.contains(k))
}

/// Where the results are: `results` since schema version 2, `evaluations` before.
const RESULTS: [&str; 2] = ["results", "evaluations"];

/// The file's results as records (in the file's order), or why a result is none.
pub(crate) fn records(document: &Value) -> Vec<Result<Map<String, Value>, String>> {
    let tables = Tables::of(document);
    tables
        .results
        .iter()
        .filter_map(|result| tables.record(result))
        .collect()
}

/// The file's lists, by their ids.
struct Tables<'d> {
    results: &'d [Value],
    documents: HashMap<&'d str, &'d Value>,
    metrics: HashMap<&'d str, &'d Value>,
    models: HashMap<&'d str, &'d Value>,
    tasks: HashMap<&'d str, &'d Value>,
    /// The reference model's output per task.
    references: HashMap<&'d str, String>,
}

impl<'d> Tables<'d> {
    fn of(document: &'d Value) -> Self {
        let list = |key: &str| {
            document
                .get(key)
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default()
        };
        let by = |key: &str, id: &'static str| -> HashMap<&'d str, &'d Value> {
            list(key)
                .iter()
                .filter_map(|v| Some((v.get(id)?.as_str()?, v)))
                .collect()
        };
        let mut tables = Tables {
            results: RESULTS
                .iter()
                .map(|k| list(k))
                .find(|l| !l.is_empty())
                .unwrap_or_default(),
            documents: by("documents", "document_id"),
            metrics: by("metrics", "name"),
            models: by("models", "model_id"),
            tasks: by("tasks", "task_id"),
            references: HashMap::new(),
        };
        tables.references = tables
            .results
            .iter()
            .filter(|r| tables.is_reference(r))
            .filter_map(|r| Some((r.get("task_id")?.as_str()?, output_text(r)?)))
            .collect();
        tables
    }

    /// Whether a result is the reference model's (the file's author wrote it).
    fn is_reference(&self, result: &Value) -> bool {
        let model = result.get("model_id").and_then(Value::as_str);
        model.and_then(|m| self.models.get(m)).is_some_and(|m| {
            m.get("owner").and_then(Value::as_str) == Some("author")
                || m.get("name").and_then(Value::as_str) == Some("Reference")
        })
    }

    /// One result joined to its task; `None` for the reference model's.
    fn record(&self, result: &Value) -> Option<Result<Map<String, Value>, String>> {
        if self.is_reference(result) {
            return None;
        }
        let text_of = |key: &str| result.get(key).and_then(Value::as_str).unwrap_or_default();
        let (task_id, model) = (text_of("task_id"), text_of("model_id"));
        let Some(task) = self.tasks.get(task_id) else {
            return Some(Err(format!(
                "the result of model `{model}` is for task `{task_id}`, which is not among the file's tasks"
            )));
        };
        let mut record = task_fields(task, &self.documents);
        record.insert("id".into(), json!(format!("{task_id}::{model}")));
        record.insert("task_id".into(), json!(task_id));
        record.insert("model_id".into(), json!(model));
        if let Some(answer) = output_text(result) {
            record.insert("answer".into(), json!(answer));
        }
        let target = task
            .get("targets")
            .and_then(Value::as_array)
            .and_then(|t| t.iter().find_map(|t| t.get("value").or(t.get("text"))))
            .and_then(Value::as_str)
            .map(str::to_string)
            .filter(|t| !t.trim().is_empty())
            .or_else(|| self.references.get(task_id).cloned())
            .filter(|t| !t.trim().is_empty());
        if let Some(target) = target {
            record.insert("ground_truth".into(), json!(target));
        }
        let mut metadata = Map::new();
        if let Some(name) = self.models.get(model).and_then(|m| m.get("name")) {
            metadata.insert("model".into(), name.clone());
        }
        if let Some(history) = record.remove("history") {
            metadata.insert("history".into(), history);
        }
        let priors = prior_scores(result, &self.metrics);
        if !priors.is_empty() {
            metadata.insert(super::PRIOR_SCORES_KEY.into(), Value::Object(priors));
        }
        record.insert("metadata".into(), Value::Object(metadata));
        Some(Ok(record))
    }
}

/// The question (the last user turn), earlier turns, and the contexts of a task (their
/// text, or the text of the document they name).
fn task_fields(task: &Value, documents: &HashMap<&str, &Value>) -> Map<String, Value> {
    let mut record = Map::new();
    match task.get("input") {
        Some(Value::String(question)) => {
            record.insert("question".into(), json!(question));
        }
        Some(Value::Array(turns)) => {
            let is_user = |t: &Value| {
                t.get("speaker")
                    .or(t.get("role"))
                    .and_then(Value::as_str)
                    .is_some_and(|s| s == "user")
            };
            if let Some(at) = turns.iter().rposition(is_user) {
                let text = turns[at].get("text").or(turns[at].get("content"));
                if let Some(question) = text.and_then(content_text) {
                    record.insert("question".into(), json!(question));
                }
                if at > 0 {
                    record.insert("history".into(), Value::Array(turns[..at].to_vec()));
                }
            }
        }
        _ => {}
    }
    let contexts: Vec<Value> = task
        .get("contexts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| {
            let id = c.get("document_id").and_then(Value::as_str);
            let text = c
                .get("text")
                .and_then(Value::as_str)
                .or_else(|| documents.get(id?)?.get("text")?.as_str())?;
            Some(match id {
                Some(id) => json!({ "id": id, "text": text }),
                None => json!(text),
            })
        })
        .collect();
    if !contexts.is_empty() {
        record.insert("retrieved_contexts".into(), Value::Array(contexts));
    }
    record
}

/// A result's output: its text, or the last assistant message's content.
fn output_text(result: &Value) -> Option<String> {
    let output = result.get("output").or(result.get("model_response"))?;
    match output {
        Value::String(text) => Some(text.clone()),
        Value::Array(messages) => messages.iter().rev().find_map(|m| {
            m.get("content")
                .or(m.get("text"))
                .or(m.get("value"))
                .and_then(content_text)
        }),
        other => other
            .get("text")
            .or(other.get("content"))
            .and_then(content_text),
    }
}

/// One prior score per metric: the mean of its annotators' values as numbers, the most
/// given value as the label, the reasons as the explanation.
fn prior_scores(result: &Value, metrics: &HashMap<&str, &Value>) -> Map<String, Value> {
    let Some(Value::Object(scores)) = result.get("scores").or(result.get("annotations")) else {
        return Map::new();
    };
    let values_of = |by_annotator: &Value| -> Vec<Value> {
        by_annotator
            .as_object()
            .into_iter()
            .flat_map(|a| a.values())
            .filter_map(|v| v.get("value").cloned())
            .collect()
    };
    let mut out = Map::new();
    for (metric, by_annotator) in scores {
        let definition = metrics.get(metric.as_str());
        let kind = definition
            .and_then(|d| d.get("type"))
            .and_then(Value::as_str);
        if kind == Some("text") || metric.ends_with("_reason") {
            continue;
        }
        let values = values_of(by_annotator);
        let numeric: Vec<f64> = values
            .iter()
            .filter_map(|v| numeric_value(v, definition.copied()))
            .collect();
        if numeric.is_empty() {
            continue;
        }
        let mut score = json!({
            "score": numeric.iter().sum::<f64>() / numeric.len() as f64,
            "annotators": values.len(),
        });
        if kind == Some("categorical") {
            if let Some(label) = most_given(&values) {
                score["label"] = json!(label);
            }
        }
        let reasons: Vec<String> = scores
            .get(&format!("{metric}_reason"))
            .map(values_of)
            .unwrap_or_default()
            .iter()
            .filter_map(Value::as_str)
            .filter(|r| !r.trim().is_empty())
            .map(str::to_string)
            .collect();
        if !reasons.is_empty() {
            score["explanation"] = json!(reasons.join("; "));
        }
        out.insert(metric.clone(), score);
    }
    out
}

/// An annotator's value as a number: a categorical value through its metric's
/// `numeric_value`, else the number it is (or that its text spells).
fn numeric_value(value: &Value, metric: Option<&Value>) -> Option<f64> {
    let listed = metric
        .and_then(|m| m.get("values"))
        .and_then(Value::as_array)
        .and_then(|values| {
            values
                .iter()
                .find(|v| v.get("value") == Some(value))
                .and_then(|v| v.get("numeric_value"))
                .and_then(number)
        });
    listed.or_else(|| number(value))
}

/// The value most annotators gave (the first of a tie), as text.
fn most_given(values: &[Value]) -> Option<String> {
    let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (at, value) in values.iter().enumerate() {
        let text = value
            .as_str()
            .map_or_else(|| value.to_string(), str::to_string);
        counts.entry(text).or_insert((0, at)).0 += 1;
    }
    counts
        .into_iter()
        .max_by(|a, b| a.1 .0.cmp(&b.1 .0).then(b.1 .1.cmp(&a.1 .1)))
        .map(|(text, _)| text)
}

/// Says where each field of a joined record came from, once per file, and names the
/// prior scores.
pub(crate) fn describe(record: &mut Map<String, Value>, notes: &mut Notes) {
    for (field, from) in [
        ("id", "tasks[].task_id :: results[].model_id"),
        ("question", "tasks[].input (the last user turn)"),
        ("answer", "results[].output (joined by task_id)"),
        (
            "contexts",
            "tasks[].contexts (their text, or documents[] by document_id)",
        ),
        (
            "ground_truth",
            "tasks[].targets, else the reference model's output",
        ),
    ] {
        notes.source(field, from);
    }
    record.remove("task_id");
    record.remove("model_id");
    let names: Vec<String> = record
        .get("metadata")
        .and_then(|m| m.get(super::PRIOR_SCORES_KEY))
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    for name in names {
        notes
            .prior_scores
            .insert(format!("{name} (results[].scores, by annotator)"));
    }
}
