//! Files written by other evaluators, recognised by their field names and reshaped into
//! the canonical record the mapper reads, with their scores kept as prior scores:
//! - RAGAS: `EvaluationDataset` JSONL (the aliases already read it) and result CSVs,
//!   whose metric columns are earlier scores and whose pandas index column is not data;
//! - DeepEval: test cases / goldens (`context` is the *ideal* context, so it becomes
//!   reference contexts, never retrieved ones; CSV lists are joined by `|`) and test runs
//!   (`testCases[]` in camelCase, `metricsData[]` → prior scores);
//! - promptfoo results (`vars` → question, contexts, reference; `response.output` →
//!   answer; `namedScores` and `gradingResult` → prior scores);
//! - ALCE / Citekit (`docs` cited as `[n]`, `output` vs `answer`), DSPy demos, RAGalyst
//!   files, RAGAS annotation exports (`citations`, `examples`); RAGChecker results'
//!   per-result `metrics` → prior scores;
//! - LlamaIndex `rag_dataset.json` examples (the aliases read them; only the schema is
//!   named here);
//! - InspectorRAGet analytics files (tasks and model results joined by `task_id`);
//! - TruLens feedback results (the arguments of their calls, the result a prior score).
//!
//! Owns: recognition and reshaping, and saying which choice it made and why (`Notes`).
//! Must not: validate values (the mapper does) or drop a field: anything not reshaped
//! stays in the record and ends up in metadata.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

pub(crate) mod chat;
mod citations;
mod deepeval;
mod examples;
mod flow;
pub(crate) mod inspectorraget;
mod openai_evals;
mod promptfoo;
mod ragas;
mod scores;
mod trulens;

use super::aliases::{field_of, Canon};
use super::{MappingChoice, Schema};
use citations::citations;
use deepeval::{bare_trace, cache_entry, deepeval, deepeval_metrics, traced};
use examples::{answerability, dspy, ragas_annotation};
use promptfoo::promptfoo;
use ragas::{ragas, RAGAS_METRICS};

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
    /// ALCE-style `docs` cited as `[n]`.
    Citations,
    Dspy,
    /// RAGalyst's few-shot demos: refused, they are judge examples.
    FewShot,
    Ragalyst,
    RagasAnnotation,
    RagChecker,
    DeepEvalCache,
    DeepEvalTrace,
    /// An OpenAI Evals run log: one event per line.
    OpenAiEvals,
    /// InspectorRAGet's analytics file, its tasks and results already joined.
    InspectorRagEt,
    /// TruLens's feedback results, each read as the record it judged.
    TruLensFeedback,
}

impl Dialect {
    /// The dialect of a file whose first record (or CSV header) has these keys.
    pub(crate) fn detect<'k>(keys: impl IntoIterator<Item = &'k str>) -> Dialect {
        let keys: BTreeSet<&str> = keys.into_iter().collect();
        let has = |k: &str| keys.contains(k);
        if openai_evals::is_log(&keys) {
            Dialect::OpenAiEvals
        } else if trulens::is_feedback(&keys) {
            Dialect::TruLensFeedback
        } else if has("task_id") && has("model_id") {
            Dialect::InspectorRagEt
        } else if has("lookup_key") && has("cached_metrics_data") {
            Dialect::DeepEvalCache
        } else if (has("baseSpans") || has("llmSpans")) && !has("input") {
            Dialect::DeepEvalTrace
        } else if has("metric_input") {
            Dialect::RagasAnnotation
        } else if has("correctness_score") && has("reference") && !has("question") {
            Dialect::FewShot
        } else if has("answerability") && (has("question") || has("context")) {
            Dialect::Ragalyst
        } else if has("docs") && (has("question") || has("query")) {
            Dialect::Citations
        } else if has("augmented") || has("dspy_uuid") || has("dspy_split") {
            Dialect::Dspy
        } else if has("metrics") && (has("gt_answer") || has("response_claims")) {
            Dialect::RagChecker
        } else if has("metricsData")
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
            Dialect::Citations => Some(Schema::RagCitations),
            Dialect::Plain | Dialect::Dspy | Dialect::FewShot | Dialect::OpenAiEvals => None,
            Dialect::Ragalyst => None,
            Dialect::RagasAnnotation => Some(Schema::Ragas),
            Dialect::RagChecker => Some(Schema::RagChecker),
            Dialect::Ragas => Some(Schema::Ragas),
            Dialect::DeepEval | Dialect::DeepEvalRun => Some(Schema::DeepEval),
            Dialect::DeepEvalCache | Dialect::DeepEvalTrace => Some(Schema::DeepEval),
            Dialect::Promptfoo => Some(Schema::Promptfoo),
            Dialect::LlamaIndex => Some(Schema::LlamaIndex),
            Dialect::InspectorRagEt => Some(Schema::InspectorRagEt),
            Dialect::TruLensFeedback => Some(Schema::TruLens),
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
            Dialect::Plain => {
                if flow::is_row(&record) {
                    flow::unprefix(&mut record, notes);
                }
                chat::unfold(&mut record, notes);
                scores::beside(&mut record, notes);
            }
            Dialect::LlamaIndex => {}
            Dialect::Ragas => {
                chat::unfold(&mut record, notes);
                ragas(&mut record, notes)
            }
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
                traced(&mut record, notes);
                deepeval(&mut record, false, notes);
                deepeval_metrics(&mut record, notes);
            }
            Dialect::Promptfoo => promptfoo(&mut record, notes),
            Dialect::Citations => citations(&mut record, notes),
            Dialect::Dspy => dspy(&mut record, notes),
            Dialect::FewShot => {}
            Dialect::Ragalyst => answerability(&mut record, notes),
            Dialect::RagasAnnotation => ragas_annotation(&mut record, notes),
            Dialect::RagChecker => ragchecker_metrics(&mut record, notes),
            Dialect::DeepEvalCache => cache_entry(&mut record, notes),
            Dialect::DeepEvalTrace => {
                bare_trace(&mut record, notes);
                deepeval(&mut record, false, notes);
            }
            Dialect::InspectorRagEt => inspectorraget::describe(&mut record, notes),
            Dialect::TruLensFeedback => trulens::feedback(&mut record, notes),
            Dialect::OpenAiEvals => {
                openai_evals::sampling(&mut record, notes);
                chat::unfold(&mut record, notes);
            }
        }
        record
    }

    /// Why this line is no item though the file's others are (a log's spec line), said
    /// as a note on the line rather than a rejection.
    pub(crate) fn not_an_item(self, record: &Map<String, Value>) -> Option<String> {
        match self {
            Dialect::OpenAiEvals => openai_evals::not_an_item(record),
            _ => None,
        }
    }

    /// Why every record of this dialect is refused, when it cannot be an item at all.
    pub(crate) fn refusal(self) -> Option<&'static str> {
        (self == Dialect::FewShot).then_some(examples::FEW_SHOT_REFUSAL)
    }
}

/// RAGChecker's per-result `metrics` (0–1) as prior scores; the file's summary
/// `metrics` (in percent) is not an item's and is never read here.
fn ragchecker_metrics(record: &mut Map<String, Value>, notes: &mut Notes) {
    let Some(Value::Object(metrics)) = record.remove("metrics") else {
        return;
    };
    for (name, value) in metrics {
        if let Some(score) = super::values::number(&value) {
            notes.prior(
                record,
                &name,
                "results[].metrics",
                json!({ "score": score }),
            );
        }
    }
}

/// The canonical field a key reshaped into the record will be read as.
fn canon_name(key: &str) -> &'static str {
    field_of(key).map_or("metadata", Canon::name)
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

    pub(super) fn prior(
        &mut self,
        record: &mut Map<String, Value>,
        name: &str,
        from: &str,
        score: Value,
    ) {
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
