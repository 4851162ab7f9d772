//! Files from tools the importer does not know by name, read by their shape: chat
//! messages, parallel lists, flow rows, other names for the fields; and the cases where
//! it must say what it did not take rather than import half a file in silence.

use ragnosis_core::dataset::{FieldMap, Format, ImportLimits, PRIOR_SCORES_KEY};

use super::{import, try_import_mapped};

#[test]
fn answer_like_text_the_mapping_did_not_take_is_named_with_the_map_that_takes_it() {
    // RAGChecker's meta-evaluation keeps two models' answers beside the question.
    let jsonl = concat!(
        r#"{"query": "Who wrote it?", "model1": {"response": "Ann wrote it."}, "model2": {"response": "Bob."}}"#,
        "\n",
        r#"{"query": "When?", "model1": {"response": "In 1990."}, "model2": {"response": "1991."}}"#,
        "\n"
    );
    let got = import("meta.jsonl", jsonl.as_bytes());
    assert_eq!(got.report.coverage.answer, 0);
    let warning = got
        .report
        .warnings
        .iter()
        .find(|w| w.message.contains("answer-like text"))
        .unwrap_or_else(|| panic!("no warning: {:?}", got.report.warnings));
    assert!(
        warning.message.starts_with("2 of 2 items have no answer")
            && warning.message.contains("`model1.response` (2 items)")
            && warning.message.contains("`--map answer=model1.response`"),
        "{}",
        warning.message
    );
    // The map the warning names takes the answers.
    let map = FieldMap::parse(&["answer=model1.response"]).unwrap();
    let mapped = try_import_mapped(
        "meta.jsonl",
        jsonl.as_bytes(),
        &ImportLimits::default(),
        &map,
    )
    .unwrap();
    assert_eq!(mapped.report.coverage.answer, 2);
    assert_eq!(
        mapped.items[0].item.answer.as_deref(),
        Some("Ann wrote it.")
    );
    assert!(
        !mapped
            .report
            .warnings
            .iter()
            .any(|w| w.message.contains("answer-like text")),
        "{:?}",
        mapped.report.warnings
    );
}

#[test]
fn parallel_lists_become_one_item_per_entry_with_each_metric_s_score() {
    let doc = r#"{
      "run_name": "top_k 3",
      "inputs": {
        "questions": ["Who wrote it?", "When?"],
        "contexts": [["Ann wrote it in 1990."], ["It came out in 1990."]],
        "predicted_answers": ["Ann.", "1991."],
        "ground_truth_answers": ["Ann", "1990"]
      },
      "results": {"faithfulness": {"score": 0.5, "individual_scores": [1.0, 0.0]}}
    }"#;
    let got = import("haystack.json", doc.as_bytes());
    assert_eq!(
        got.report.format,
        Some(Format::JsonColumns {
            key: "inputs".into()
        })
    );
    assert_eq!(got.questions(), ["Who wrote it?", "When?"]);
    let second = &got.items[1].item;
    assert_eq!(second.answer.as_deref(), Some("1991."));
    assert_eq!(second.ground_truth.as_deref(), Some("1990"));
    assert_eq!(second.contexts.len(), 1);
    assert_eq!(
        second.metadata[PRIOR_SCORES_KEY]["faithfulness"]["score"],
        0.0
    );
    assert_eq!(second.metadata["run_name"], "top_k 3");
}

#[test]
fn parallel_lists_over_the_record_size_are_refused_saying_how_to_write_them() {
    let doc =
        r#"{"questions": ["Who wrote it?", "When?"], "predicted_answers": ["Ann.", "1991."]}"#;
    let limits = ImportLimits {
        max_line_bytes: 40,
        ..ImportLimits::default()
    };
    let err = try_import_mapped("cols.json", doc.as_bytes(), &limits, &FieldMap::default())
        .err()
        .expect("refused");
    assert_eq!(err.code(), "unsupported_shape");
    assert!(
        err.to_string().contains("parallel lists is read whole")
            && err.to_string().contains("JSONL"),
        "{err}"
    );
}

#[test]
fn a_record_without_a_question_suggests_the_map_for_the_field_that_reads_like_one() {
    let jsonl = "{\"ask\": \"Where is the office?\", \"reply\": \"On Main Street.\"}\n";
    let got = import("odd.jsonl", jsonl.as_bytes());
    let reason = &got.report.rejected[0].reason;
    assert!(
        reason.contains("`--map question=ask`") && !reason.contains("a JSON file needs"),
        "{reason}"
    );
}

/// An InspectorRAGet analytics file as the tool writes it: models, metrics (one of them
/// categorical, one the annotators' reasons), documents, tasks, and the results on them
/// in a list of their own, joined by `task_id`.
const ANALYTICS: &str = r#"{
  "name": "Help desk (two models)",
  "models": [
    {"model_id": "small", "name": "Small model", "owner": "us"},
    {"model_id": "target", "name": "Reference", "owner": "author"}
  ],
  "metrics": [
    {"name": "faithfulness", "type": "categorical", "author": "human",
     "values": [{"value": "1", "numeric_value": 1}, {"value": "4", "numeric_value": 4}]},
    {"name": "faithfulness_reason", "type": "text", "author": "human"},
    {"name": "RougeL", "type": "numerical", "author": "algorithm"}
  ],
  "documents": [
    {"document_id": "d1", "title": "Hours", "text": "The desk is open from 8 am to 6 pm."}
  ],
  "tasks": [
    {"task_id": "t1", "task_type": "rag",
     "input": [{"speaker": "user", "text": "Hi"}, {"speaker": "agent", "text": "Hello!"},
               {"speaker": "user", "text": "When does the desk open?"}],
     "contexts": [{"document_id": "d1"}],
     "targets": [{"type": "text", "value": ""}]},
    {"task_id": "t2", "task_type": "rag",
     "input": [{"speaker": "user", "text": "Is there parking?"}],
     "contexts": [{"document_id": "d9", "text": "Parking is free for two hours."}],
     "targets": [{"type": "text", "value": "Yes, two hours free."}]}
  ],
  "evaluations": [
    {"task_id": "t1", "model_id": "target", "scores": {},
     "output": [{"role": "assistant", "content": "At 8 am."}]},
    {"task_id": "t1", "model_id": "small",
     "scores": {"faithfulness": {"a1": {"value": "4"}, "a2": {"value": "1"}, "a3": {"value": "4"}},
                "faithfulness_reason": {"a1": {"value": ""}, "a2": {"value": "Invented hours"}},
                "RougeL": {"system": {"value": 0.5}}},
     "output": [{"role": "assistant", "content": "It opens at 8 am."}]},
    {"task_id": "t2", "model_id": "small", "scores": {},
     "output": [{"role": "assistant", "content": "Yes."}]},
    {"task_id": "t3", "model_id": "small", "scores": {},
     "output": [{"role": "assistant", "content": "A result without its task."}]}
  ]
}"#;

#[test]
fn an_inspectorraget_file_joins_each_model_result_to_its_task() {
    let got = import("analytics.json", ANALYTICS.as_bytes());
    assert_eq!(
        got.report.schema,
        Some(ragnosis_core::dataset::Schema::InspectorRagEt)
    );
    // The reference model's outputs are ground truth, not items; the result without a
    // task is rejected with the reason.
    assert_eq!(
        got.questions(),
        ["When does the desk open?", "Is there parking?"]
    );
    assert_eq!(got.report.rejected_count, 1);
    assert!(
        got.report.rejected[0].reason.contains("`t3`"),
        "{:?}",
        got.report.rejected
    );
    let first = &got.items[0].item;
    assert_eq!(first.id.as_deref(), Some("t1::small"));
    assert_eq!(first.answer.as_deref(), Some("It opens at 8 am."));
    assert_eq!(
        first.ground_truth.as_deref(),
        Some("At 8 am."),
        "an empty target: the reference model's output"
    );
    assert_eq!(
        first.contexts[0].text,
        "The desk is open from 8 am to 6 pm."
    );
    assert_eq!(first.metadata["history"].as_array().map(Vec::len), Some(2));
    let faithfulness = &first.metadata[PRIOR_SCORES_KEY]["faithfulness"];
    assert_eq!(
        faithfulness["score"],
        serde_json::json!(3.0),
        "{faithfulness}"
    );
    assert_eq!(faithfulness["label"], "4", "the value most annotators gave");
    assert_eq!(faithfulness["explanation"], "Invented hours");
    assert_eq!(
        first.metadata[PRIOR_SCORES_KEY]["RougeL"]["score"],
        serde_json::json!(0.5)
    );
    let second = &got.items[1].item;
    assert_eq!(second.ground_truth.as_deref(), Some("Yes, two hours free."));
    assert_eq!(second.contexts[0].text, "Parking is free for two hours.");
    assert_eq!(
        got.report.mapping["answer"],
        ["results[].output (joined by task_id)"]
    );
    // Since schema version 2 the list is called `results`.
    let v2 = ANALYTICS.replace("\"evaluations\"", "\"results\"");
    let got = import("analytics-v2.json", v2.as_bytes());
    assert_eq!(got.items.len(), 2);
    assert_eq!(got.items[1].item.answer.as_deref(), Some("Yes."));
}
