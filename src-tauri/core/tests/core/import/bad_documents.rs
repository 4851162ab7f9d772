//! Bad JSON documents and CSV files: the reason names the line (or the columns), and
//! what could be read around the problem is still imported.

use ragnosis_core::dataset::{DatasetError, ImportLimits};

use super::{import, try_import};

#[test]
fn a_json_object_that_is_not_a_list_or_wrapper_is_unsupported() {
    let doc = b"{\n  \"question\": \"one pretty item\",\n  \"pages\": [1, 2]\n}\n";
    let err = try_import("one.json", doc, &ImportLimits::default())
        .err()
        .unwrap();
    assert_eq!(err.code(), "unsupported_shape");
    let message = err.to_string();
    assert!(
        message.contains("not an item list or a known wrapper (results/data/items/examples"),
        "{message}"
    );
    assert!(
        message.contains("question, pages"),
        "the message lists the keys found: {message}"
    );
}

#[test]
fn a_csv_short_row_is_rejected_with_its_line() {
    let csv = "question,answer,contexts\nWhat is 2+2?,4,math facts\nonly a question\nCapital of Peru?,Lima,geo || capitals\n";
    let got = import("rows.csv", csv.as_bytes());
    assert_eq!(got.lines(), [2, 4]);
    assert_eq!(got.report.rejected[0].line, 3);
    assert!(
        got.report.rejected[0]
            .reason
            .contains("1 fields but the header has 3"),
        "{:?}",
        got.report.rejected
    );
    assert_eq!(
        got.items[1].item.contexts.len(),
        2,
        "` || ` splits the list cell"
    );
}

#[test]
fn a_csv_without_a_question_column_names_its_columns() {
    let err = try_import("t.csv", b"name,text\nx,y\n", &ImportLimits::default())
        .err()
        .unwrap();
    let DatasetError::UnsupportedShape { message, .. } = &err else {
        panic!("{err:?}")
    };
    assert!(message.contains("no question column"), "{message}");
    assert!(message.contains("its columns are: name, text"), "{message}");
}

#[test]
fn a_json_array_syntax_error_keeps_the_items_before_it() {
    let doc = "[\n  {\"question\": \"first\"},\n  {\"question\": \"second\"},\n  {\"question\": \"third\" \"oops\"}\n]";
    let got = import("broken.json", doc.as_bytes());
    assert_eq!(got.questions(), ["first", "second"]);
    assert_eq!(got.lines(), [2, 3], "each element's starting line");
    let rejected = &got.report.rejected[0];
    assert_eq!(rejected.line, 4);
    assert!(
        rejected.reason.starts_with("invalid JSON at line 4 column"),
        "{}",
        rejected.reason
    );
    assert!(rejected
        .reason
        .ends_with("the rest of the file was not read"));
}

#[test]
fn a_json_array_element_that_is_not_an_object_is_rejected_with_its_line() {
    let doc = "[\n{\"question\": \"a\"},\n\"just text\",\n{\"question\": \"b\"}\n]";
    let got = import("mixed.json", doc.as_bytes());
    assert_eq!(got.lines(), [2, 4]);
    assert_eq!(got.report.rejected[0].line, 3);
    assert_eq!(
        got.report.rejected[0].reason,
        "element holds a string, not a JSON object"
    );
}

#[test]
fn a_json_element_over_the_size_limit_ends_the_read_with_a_reason() {
    let big = format!("{{\"question\": \"{}\"}}", "y".repeat(400));
    let doc = format!("[\n{{\"question\": \"a\"}},\n{big},\n{{\"question\": \"b\"}}\n]");
    let limits = ImportLimits {
        max_line_bytes: 100,
        ..ImportLimits::default()
    };
    let got = try_import("big.json", doc.as_bytes(), &limits).unwrap();
    assert_eq!(got.questions(), ["a"]);
    assert_eq!(got.report.rejected[0].line, 3);
    assert!(
        got.report.rejected[0]
            .reason
            .contains("over the 100 bytes size limit"),
        "{:?}",
        got.report.rejected
    );
}

#[test]
fn a_crlf_csv_with_blank_lines_reports_true_line_numbers() {
    // Excel writes CRLF; the blank line 4 and the quoted newline still count as lines.
    let csv =
        "\u{feff}question,answer\r\nq1,a1\r\n\"q2 with\r\ntwo lines\",a2\r\n\r\nq3\r\nq4,a4\r\n";
    let got = import("excel.csv", csv.as_bytes());
    assert_eq!(got.lines(), [2, 3, 7]);
    assert_eq!(got.items[1].item.question, "q2 with\ntwo lines");
    assert_eq!(got.report.rejected[0].line, 6, "the short row `q3`");
    assert_eq!(got.report.rejected[0].byte_offset, 3 + 17 + 7 + 10 + 15 + 2);
}

/// A file with no valid item is refused with `dataset.no_items` and leaves no dataset,
/// also when an earlier version stored it as an empty dataset (the same bytes are then
/// "imported before": that empty dataset is removed and the file refused, not opened).
#[test]
fn a_file_with_no_valid_item_is_refused_and_an_old_empty_dataset_of_it_removed() {
    use ragnosis_core::import;
    use ragnosis_core::progress::NoProgress;
    use ragnosis_core::store::{datasets, Store};
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("log.jsonl");
    std::fs::write(&file, "{\"ask\": \"a?\"}\nnot json\n").unwrap();
    let mut store = Store::open(&dir.path().join("home")).unwrap();
    let limits = ragnosis_core::dataset::ImportLimits::default();
    // What an older version left: the import stored, with no item.
    let old = import::import_file(&mut store, &file, None, &limits, &NoProgress).unwrap();
    assert_eq!(old.dataset.item_count, 0);
    for attempt in ["the first import since", "the next one"] {
        let again = import::import_file(&mut store, &file, None, &limits, &NoProgress).unwrap();
        let Err(refused) = import::refuse_empty(&store, &file, again) else {
            panic!("{attempt}: a file with no valid item was accepted");
        };
        assert_eq!(refused.code().as_str(), "dataset.no_items", "{attempt}");
        let message = refused.to_string();
        assert!(
            message.contains("none of its 2 records") && message.contains("nothing was stored"),
            "{attempt}: {message}"
        );
        assert!(
            datasets::list(store.conn()).unwrap().is_empty(),
            "{attempt}: no dataset is left"
        );
    }
}

#[test]
fn records_of_a_one_line_document_are_told_apart_by_their_number() {
    let doc = r#"[{"question": "Fine?", "answer": "Yes."}, {"q": "No question field"}, 7]"#;
    let got = import("minified.json", doc.as_bytes());
    assert_eq!(got.items.len(), 1);
    let reasons: Vec<&str> = got
        .report
        .rejected
        .iter()
        .map(|r| r.reason.as_str())
        .collect();
    assert!(
        reasons[0].starts_with("record 2: missing question"),
        "{reasons:?}"
    );
    assert!(
        reasons[1].starts_with("record 3: element holds"),
        "{reasons:?}"
    );
    // Records on lines of their own are named by their line alone.
    let pretty = "[\n{\"q\": \"a\"},\n{\"q\": \"b\"}\n]";
    let got = import("pretty.json", pretty.as_bytes());
    assert!(
        got.report
            .rejected
            .iter()
            .all(|r| r.reason.starts_with("missing question")),
        "{:?}",
        got.report.rejected
    );
}
