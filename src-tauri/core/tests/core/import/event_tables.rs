//! TruLens's event table, written as a user's export would be: span rows grouped into
//! one item per record, as JSON lines and as the CSV pandas writes (dict cells in
//! Python's repr). Parquet files (a columnar table) are read row by row.

use ragnosis_core::dataset::{Format, Schema, PRIOR_SCORES_KEY};
use serde_json::{json, Value};

use super::import;

/// One span row of the event table: `record_attributes` with the record's id.
fn span(record: &str, span: &str, parent: &str, attributes: Value) -> Value {
    let mut attributes = attributes;
    attributes["ai.observability.record_id"] = json!(record);
    json!({
        "event_id": span,
        "record": {"kind": 1, "name": "app.step", "parent_span_id": parent},
        "record_type": "SPAN",
        "start_timestamp": "2025-04-11 10:19:55.99",
        "trace": {"trace_id": format!("t-{record}"), "parent_id": parent, "span_id": span},
        "record_attributes": attributes,
    })
}

/// Two records: each a root, a retrieval beneath it, and an evaluation of it (its own
/// trace, no parent: it must not become the record's root).
fn event_rows() -> Vec<Value> {
    let mut rows = Vec::new();
    for (record, question, answer, score) in [
        (
            "r1",
            "When does the pool open?",
            "At 7 am on weekdays.",
            0.75,
        ),
        ("r2", "Is parking free?", "Yes, for two hours.", 0.25),
    ] {
        let root = format!("{record}-root");
        rows.push(span(
            record,
            &root,
            "",
            json!({
                "ai.observability.span_type": "record_root",
                "ai.observability.record_root.input": question,
                "ai.observability.record_root.output": answer,
                "ai.observability.record_root.ground_truth_output": format!("expected for {record}"),
            }),
        ));
        rows.push(span(
            record,
            &format!("{record}-ret"),
            &root,
            json!({
                "ai.observability.span_type": "retrieval",
                "ai.observability.retrieval.query_text": question,
                "ai.observability.retrieval.retrieved_contexts": [
                    format!("first passage for {record}"),
                    format!("second passage for {record}"),
                ],
            }),
        ));
        let mut eval = span(
            record,
            &format!("{record}-eval"),
            "",
            json!({
                "ai.observability.span_type": "eval_root",
                "ai.observability.eval_root.metric_name": "answer_relevance",
                "ai.observability.eval_root.score": score,
            }),
        );
        eval["trace"]["trace_id"] = json!("");
        rows.push(eval);
    }
    rows
}

fn assert_two_records(got: &super::Imported) {
    assert_eq!(got.report.schema, Some(Schema::TruLens), "{:?}", got.report);
    assert_eq!(
        got.questions(),
        ["When does the pool open?", "Is parking free?"]
    );
    let first = &got.items[0].item;
    assert_eq!(first.answer.as_deref(), Some("At 7 am on weekdays."));
    assert_eq!(first.ground_truth.as_deref(), Some("expected for r1"));
    let contexts: Vec<&str> = first.contexts.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(contexts, ["first passage for r1", "second passage for r1"]);
    let prior = &got.items[1].item.metadata[PRIOR_SCORES_KEY];
    assert_eq!(prior["answer_relevance"]["score"], json!(0.25), "{prior}");
}

#[test]
fn a_trulens_event_table_gives_one_item_per_record_with_its_evaluations() {
    let lines: Vec<String> = event_rows().iter().map(Value::to_string).collect();
    let got = import("events.jsonl", lines.join("\n").as_bytes());
    assert_two_records(&got);
    assert!(
        matches!(
            got.report.format,
            Some(Format::Spans {
                spans: 6,
                traces: 2,
                ..
            })
        ),
        "{:?}",
        got.report.format
    );
}

/// A value in Python's repr, as `str(dict)` writes it (single quotes, `True`, `None`).
fn python_repr(value: &Value) -> String {
    match value {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("'{}'", s.replace('\\', "\\\\").replace('\'', "\\'")),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(python_repr).collect();
            format!("[{}]", items.join(", "))
        }
        Value::Object(map) => {
            let entries: Vec<String> = map
                .iter()
                .map(|(k, v)| format!("'{k}': {}", python_repr(v)))
                .collect();
            format!("{{{}}}", entries.join(", "))
        }
    }
}

fn csv_cell(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

#[test]
fn the_event_table_saved_by_pandas_as_csv_reads_the_same() {
    let columns = [
        "record",
        "event_id",
        "record_attributes",
        "record_type",
        "start_timestamp",
        "trace",
    ];
    let mut csv = format!(",{}\n", columns.join(","));
    for (index, row) in event_rows().iter().enumerate() {
        let cells: Vec<String> = columns
            .iter()
            .map(|c| match &row[*c] {
                Value::String(s) if *c == "record_type" => format!("EventRecordType.{s}"),
                Value::String(s) => csv_cell(s),
                other => csv_cell(&python_repr(other)),
            })
            .collect();
        csv.push_str(&format!("{index},{}\n", cells.join(",")));
    }
    let got = import("events.csv", csv.as_bytes());
    assert_two_records(&got);
}

#[test]
fn an_evaluation_alone_is_no_item_and_says_which_field_holds_the_question() {
    let eval = &event_rows()[2];
    let got = import("eval.json", eval.to_string().as_bytes());
    assert!(got.items.is_empty());
    let reason = &got.report.rejected[0].reason;
    assert!(
        reason.contains("ai.observability.record_root.input"),
        "{reason}"
    );
}

fn real(path: &str) -> Vec<u8> {
    std::fs::read(
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/real")
            .join(path),
    )
    .unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn an_autorag_result_parquet_takes_the_final_passages_not_one_retriever_s() {
    let got = import(
        "best_0.parquet",
        &real("autorag/autorag-result-passage_reranker-best_0.parquet"),
    );
    assert!(
        matches!(
            got.report.format,
            Some(Format::Parquet {
                rows: 10,
                row_groups: 1
            })
        ),
        "{:?}",
        got.report.format
    );
    assert_eq!(got.items.len(), 10);
    assert_eq!(
        got.report.mapping["contexts"][0], "retrieved_contents (by its name)",
        "{:?}",
        got.report.mapping
    );
    let first = &got.items[0].item;
    assert_eq!(first.contexts.len(), 5);
    assert!(
        first.contexts[0]
            .text
            .starts_with("will also make the playoffs as wild-card teams."),
        "the reranker's first passage: {:?}",
        first.contexts[0].text
    );
    assert!(
        first.metadata.contains_key("retrieved_contents_lexical"),
        "the retrievers' own passages stay in metadata"
    );
    assert_eq!(
        first.metadata[PRIOR_SCORES_KEY]["passage_reranker_retrieval_recall"]["score"],
        json!(1.0)
    );
}
