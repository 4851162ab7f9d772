//! Other tools' files (tests/exports, shaped like each tool's real output): RAGAS,
//! DeepEval, promptfoo, LlamaIndex, OpenTelemetry GenAI, LangSmith and Langfuse. Each
//! imports with its mapping, choices, flags and prior scores in the validation report;
//! the user's mapping overrides win.

use std::path::PathBuf;

use ragnosis_core::dataset::{FieldMap, Format, ImportLimits, Schema, PRIOR_SCORES_KEY};
use ragnosis_core::item::Item;
use serde_json::{json, Value};

use super::{import, try_import_mapped, Imported};

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/exports")
            .join(name),
    )
    .expect("fixture present")
}

fn imported(name: &str) -> Imported {
    let got = import(name, &fixture(name));
    assert_eq!(got.report.rejected_count, 0, "{:?}", got.report.rejected);
    got
}

fn item<'a>(got: &'a Imported, question: &str) -> &'a Item {
    got.items
        .iter()
        .map(|i| &i.item)
        .find(|i| i.question == question)
        .unwrap_or_else(|| panic!("{question:?} imported; got {:?}", got.questions()))
}

fn prior<'a>(item: &'a Item, name: &str) -> &'a Value {
    &item.metadata[PRIOR_SCORES_KEY][name]
}

fn mapped_from(got: &Imported, field: &str) -> Vec<String> {
    got.report.mapping.get(field).cloned().unwrap_or_default()
}

#[test]
fn a_ragas_evaluation_dataset_keeps_retrieved_and_reference_contexts_apart() {
    let got = imported("ragas-evaluation-dataset.jsonl");
    assert_eq!(got.report.schema, Some(Schema::Ragas));
    let first = item(&got, "How long is the frame warranty?");
    assert_eq!(
        first.contexts.len(),
        2,
        "retrieved_contexts are the contexts"
    );
    assert_eq!(first.reference_contexts.len(), 1);
    assert_eq!(first.retrieved_ids, ["warranty.md#0", "faq.txt#2"]);
    assert_eq!(first.gold_context_ids, ["warranty.md#0"]);
    assert_eq!(
        first.ground_truth.as_deref(),
        Some("Ten years from purchase.")
    );
}

#[test]
fn a_ragas_result_csv_reads_python_lists_and_its_metric_columns_as_prior_scores() {
    let got = imported("ragas-result.csv");
    assert_eq!(got.report.schema, Some(Schema::Ragas));
    let first = item(&got, "How long is the frame warranty?");
    // `['…', "It's …"]`: two contexts, the apostrophe kept.
    assert_eq!(first.contexts.len(), 2);
    assert_eq!(
        first.contexts[1].text,
        "It's ten years for the frame and fork."
    );
    assert_eq!(
        first.reference_contexts.len(),
        1,
        "never merged into the retrieved ones"
    );
    assert_eq!(prior(first, "faithfulness")["score"], json!(1.0));
    assert_eq!(prior(first, "answer_relevancy")["score"], json!(0.9812));
    assert!(
        first.metadata.get("").is_none() && first.metadata["row_index"] == json!("0"),
        "the pandas index is metadata, not a score"
    );
    // An empty metric cell (RAGAS's NaN) is no score at all, never a 0.
    let second = item(&got, "Does the warranty cover water damage?");
    assert!(second.metadata[PRIOR_SCORES_KEY]
        .get("context_precision")
        .is_none());
    assert_eq!(prior(second, "context_recall")["score"], json!(0.5));
    let priors = mapped_from(&got, "prior_scores");
    assert!(
        priors.contains(&"faithfulness (column)".to_string()),
        "{priors:?}"
    );
    assert!(
        got.report
            .choices
            .iter()
            .any(|c| c.field == "metadata" && c.chosen == "row_index"),
        "{:?}",
        got.report.choices
    );
}

#[test]
fn deepeval_test_cases_read_context_as_reference_never_as_retrieved() {
    for name in ["deepeval-test-cases.json", "deepeval-test-cases.csv"] {
        let got = imported(name);
        assert_eq!(got.report.schema, Some(Schema::DeepEval), "{name}");
        let first = item(&got, "How long is the frame warranty?");
        assert_eq!(
            first.contexts.len(),
            2,
            "{name}: retrieval_context, split on `|`"
        );
        assert_eq!(first.reference_contexts.len(), 1, "{name}");
        assert_eq!(
            first.answer.as_deref(),
            Some("The frame is covered for ten years.")
        );
        // A golden with only `context`: nothing retrieved, the context a reference.
        let golden = item(&got, "What does Walk Assist do?");
        assert!(golden.contexts.is_empty(), "{name}: {:?}", golden.contexts);
        assert_eq!(golden.reference_contexts.len(), 1);
        let choice = got
            .report
            .choices
            .iter()
            .find(|c| c.field == "reference_contexts")
            .unwrap_or_else(|| panic!("{name}: {:?}", got.report.choices));
        assert!(choice.why.contains("ideal context"), "{}", choice.why);
    }
}

#[test]
fn a_deepeval_test_run_brings_its_metric_scores_and_errors() {
    let got = imported("deepeval-latest-test-run.json");
    assert_eq!(got.report.schema, Some(Schema::DeepEval));
    assert_eq!(
        got.report.format,
        Some(Format::JsonWrapper {
            key: "testRunData.testCases".into()
        })
    );
    let failing = item(&got, "Does the warranty cover water damage?");
    assert_eq!(failing.id.as_deref(), Some("test_case_1"));
    assert_eq!(failing.contexts.len(), 1);
    assert_eq!(prior(failing, "Faithfulness")["score"], json!(0.0));
    assert_eq!(prior(failing, "Faithfulness")["label"], json!("fail"));
    let errored = prior(failing, "Answer Relevancy");
    assert!(
        errored.get("score").is_none(),
        "an error is not a 0: {errored}"
    );
    assert!(errored["error"].as_str().unwrap().contains("timed out"));
    assert_eq!(mapped_from(&got, "answer"), ["testCases[].actualOutput"]);
}

#[test]
fn promptfoo_results_take_the_chosen_vars_and_say_which_they_chose() {
    let got = imported("promptfoo-results.json");
    assert_eq!(got.report.schema, Some(Schema::Promptfoo));
    let first = item(&got, "How long is the frame warranty?");
    assert_eq!(
        first.answer.as_deref(),
        Some("The frame is covered for ten years.")
    );
    assert_eq!(first.contexts.len(), 1);
    assert_eq!(prior(first, "faithfulness")["score"], json!(1.0));
    assert_eq!(prior(first, "assertions")["label"], json!("pass"));
    assert_eq!(mapped_from(&got, "question"), ["vars.question"]);
    // `question` and `query` are both question-like: the choice and why are reported.
    let choice = got
        .report
        .choices
        .iter()
        .find(|c| c.field == "question")
        .expect("the question choice is reported");
    assert_eq!(choice.chosen, "vars.question");
    assert_eq!(choice.alternatives, ["vars.query"]);
    // The user picks the other var instead.
    let map =
        FieldMap::parse(&["question=vars.query", "ground_truth=vars.expected_answer"]).unwrap();
    let remapped = try_import_mapped(
        "promptfoo-results.json",
        &fixture("promptfoo-results.json"),
        &ImportLimits::default(),
        &map,
    )
    .unwrap();
    let first = item(&remapped, "how long is the frame warranty?");
    assert_eq!(first.ground_truth.as_deref(), Some("see policy"));
    assert_eq!(
        first.metadata["question_replaced"],
        json!("How long is the frame warranty?"),
        "the replaced value is kept"
    );
    assert_eq!(
        remapped.report.mapping["question"],
        ["vars.query (your mapping)"]
    );
    assert!(remapped.report.choices[0]
        .why
        .contains("found in 2 records"));
}

#[test]
fn a_llamaindex_rag_dataset_is_a_test_set_of_questions_and_references() {
    let got = imported("llamaindex-rag_dataset.json");
    assert_eq!(got.report.schema, Some(Schema::LlamaIndex));
    assert_eq!(got.items.len(), 2);
    let first = item(&got, "How long is the frame warranty?");
    assert_eq!(
        first.ground_truth.as_deref(),
        Some("Ten years from the original purchase date.")
    );
    assert_eq!(first.reference_contexts.len(), 1);
    assert!(first.contexts.is_empty() && first.answer.is_none());
}

#[test]
fn opentelemetry_genai_spans_tell_a_query_rewrite_from_the_answer() {
    let got = imported("otel-genai-spans.jsonl");
    assert_eq!(got.report.schema, Some(Schema::GenAi));
    assert_eq!(
        got.report.format,
        Some(Format::Spans {
            dialect: "OpenTelemetry GenAI".into(),
            spans: 7,
            traces: 2
        })
    );
    let first = item(&got, "How long is the frame warranty?");
    assert_eq!(
        first.answer.as_deref(),
        Some("The frame and rigid fork are covered for ten years from the purchase date."),
        "the model call inside the retrieval span is a rewrite, not the answer"
    );
    assert_eq!(
        first.metadata["query_rewrites"],
        json!(["frame warranty duration years"])
    );
    assert_eq!(first.retrieved_ids, ["warranty.md#0", "faq.txt#2"]);
    assert_eq!(first.contexts.len(), 2);
    assert_eq!(prior(first, "relevance")["score"], json!(0.9));
    assert_eq!(
        first.metadata["llm_tokens"],
        json!({"prompt": 443, "completion": 37})
    );
    // Documents given only as ids: ranking only, flagged, no text for a judge.
    let second = item(&got, "What does Walk Assist do?");
    assert!(second.contexts.is_empty());
    assert_eq!(second.retrieved_ids, ["manual.pdf#3", "manual.pdf#1"]);
    assert_eq!(
        second.answer.as_deref(),
        Some("It moves the bike at walking pace while you push it.")
    );
    assert!(
        got.report
            .warnings
            .iter()
            .any(|w| w.line == 2 && w.message.contains("ranking metrics only")),
        "{:?}",
        got.report.warnings
    );
}

#[test]
fn langsmith_runs_become_one_item_per_trace_with_feedback_as_prior_scores() {
    let got = imported("langsmith-runs.json");
    assert_eq!(got.report.schema, Some(Schema::LangSmith));
    assert_eq!(got.items.len(), 2);
    let first = item(&got, "How long is the frame warranty?");
    assert_eq!(
        first.answer.as_deref(),
        Some("The frame and rigid fork are covered for ten years from the purchase date.")
    );
    assert_eq!(first.retrieved_ids, ["warranty.md#0", "faq.txt#2"]);
    assert_eq!(prior(first, "helpfulness")["score"], json!(0.75));
    assert_eq!(first.metadata["llm_cost"], json!(0.00135));
    // A @traceable retriever's list, wrapped under `output`.
    let second = item(&got, "What does Walk Assist do?");
    assert_eq!(second.contexts.len(), 1);
    assert_eq!(second.retrieved_ids, ["manual.pdf#3"]);
}

#[test]
fn langfuse_observations_and_scores_read_with_or_without_a_root() {
    let got = imported("langfuse-observations.json");
    assert_eq!(got.report.schema, Some(Schema::Langfuse));
    let first = item(&got, "How long is the frame warranty?");
    assert_eq!(first.contexts.len(), 2);
    assert_eq!(prior(first, "faithfulness")["score"], json!(0.9));
    assert_eq!(
        prior(first, "faithfulness")["explanation"],
        json!("Grounded in the warranty passage.")
    );
    // Trace 2 hangs its observations on the trace itself: question from the
    // retriever's input, answer from the generation.
    let second = item(&got, "What does Walk Assist do?");
    assert_eq!(
        second.answer.as_deref(),
        Some("It moves the bike at walking pace while you push it.")
    );
    assert_eq!(second.retrieved_ids, ["manual.pdf#3"]);
    assert_eq!(prior(second, "user-feedback")["score"], json!(1.0));
    assert!(got.report.warnings.is_empty(), "{:?}", got.report.warnings);
}

#[test]
fn a_mapping_to_a_field_no_record_has_is_reported_not_silently_ignored() {
    let map = FieldMap::parse(&["answer=output.text"]).unwrap();
    let got = try_import_mapped(
        "ragas-evaluation-dataset.jsonl",
        &fixture("ragas-evaluation-dataset.jsonl"),
        &ImportLimits::default(),
        &map,
    )
    .unwrap();
    assert_eq!(got.items.len(), 2, "the file still imports");
    assert!(
        got.report.choices[0].why.contains("matched no record"),
        "{:?}",
        got.report.choices
    );
    assert_eq!(
        item(&got, "What does Walk Assist do?").answer.as_deref(),
        Some("It pushes the bike at walking pace.")
    );
}
