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
