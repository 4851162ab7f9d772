//! The importer against bad input: every broken line is reported with its line number
//! and the good lines around it are still imported. Files are real files in a temp dir.
//! Positive cases (example files, each format) live in `import/good_input.rs`.

mod bad_documents;
mod by_shape;
mod event_tables;
mod exports;
mod good_input;
mod real_files;
mod stored;
mod traces;

use std::path::PathBuf;

use ragnosis_core::dataset::{
    read_items, read_items_mapped, AcceptedItem, DatasetError, FieldMap, ImportLimits,
    ValidationReport,
};
use tempfile::TempDir;

pub struct Imported {
    pub report: ValidationReport,
    pub items: Vec<AcceptedItem>,
    _dir: TempDir,
}

impl Imported {
    pub fn lines(&self) -> Vec<u64> {
        self.items.iter().map(|i| i.line).collect()
    }
    pub fn questions(&self) -> Vec<&str> {
        self.items
            .iter()
            .map(|i| i.item.question.as_str())
            .collect()
    }
}

pub fn write(dir: &TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

pub fn try_import(
    name: &str,
    bytes: &[u8],
    limits: &ImportLimits,
) -> Result<Imported, DatasetError> {
    try_import_mapped(name, bytes, limits, &FieldMap::default())
}

pub fn try_import_mapped(
    name: &str,
    bytes: &[u8],
    limits: &ImportLimits,
    map: &FieldMap,
) -> Result<Imported, DatasetError> {
    let dir = TempDir::new().unwrap();
    let path = write(&dir, name, bytes);
    let mut items = Vec::new();
    let report = read_items_mapped(&path, limits, map, |item| {
        items.push(item);
        Ok(())
    })?;
    assert_eq!(
        report.items_read,
        report.items_accepted + report.rejected_count,
        "every record read is either accepted or rejected"
    );
    assert_eq!(
        report.items_accepted,
        items.len() as u64,
        "every accepted item reached the callback"
    );
    Ok(Imported {
        report,
        items,
        _dir: dir,
    })
}

pub fn import(name: &str, bytes: &[u8]) -> Imported {
    try_import(name, bytes, &ImportLimits::default()).expect("the file imports")
}

const GOOD_1: &str = r#"{"question": "What is the capital of France?", "answer": "Paris"}"#;
const GOOD_3: &str = r#"{"question": "Who wrote Hamlet?", "answer": "Shakespeare"}"#;

fn jsonl(lines: &[&str]) -> Vec<u8> {
    lines.join("\n").into_bytes()
}

#[test]
fn invalid_json_line_is_rejected_with_line_and_column_and_the_others_import() {
    let bad = r#"{"question": "broken", oops}"#;
    let got = import("bad.jsonl", &jsonl(&[GOOD_1, bad, GOOD_3]));
    assert_eq!(
        got.lines(),
        [1, 3],
        "the lines around the bad one are imported"
    );
    let rejected = &got.report.rejected[0];
    assert_eq!(rejected.line, 2);
    assert_eq!(
        rejected.byte_offset,
        GOOD_1.len() as u64 + 1,
        "offset of line 2's first byte"
    );
    assert!(
        rejected.reason.starts_with("invalid JSON at column 24: "),
        "{}",
        rejected.reason
    );
    assert!(
        !rejected.reason.contains(" at line "),
        "serde's own position is not repeated"
    );
}

#[test]
fn a_line_without_a_question_is_rejected_and_the_others_import() {
    let got = import(
        "q.jsonl",
        &jsonl(&[GOOD_1, r#"{"answer": "orphan", "question": "   "}"#, GOOD_3]),
    );
    assert_eq!(
        got.questions(),
        ["What is the capital of France?", "Who wrote Hamlet?"]
    );
    assert_eq!(
        (
            got.report.rejected[0].line,
            got.report.rejected[0].reason.as_str()
        ),
        (2, "missing question")
    );
}

#[test]
fn a_number_where_text_is_expected_becomes_text_with_a_warning() {
    let got = import(
        "n.jsonl",
        &jsonl(&[GOOD_1, r#"{"question": "6 x 7?", "answer": 42}"#, GOOD_3]),
    );
    assert_eq!(got.items.len(), 3, "the item is kept");
    assert_eq!(got.items[1].item.answer.as_deref(), Some("42"));
    let warning = &got.report.warnings[0];
    assert_eq!(warning.line, 2);
    assert!(
        warning.message.contains("`answer` is a number"),
        "{}",
        warning.message
    );
}

#[test]
fn an_object_where_text_is_expected_is_rejected_naming_field_and_type() {
    let got = import(
        "o.jsonl",
        &jsonl(&[
            GOOD_1,
            r#"{"question": "q", "response": {"text": "x"}}"#,
            GOOD_3,
        ]),
    );
    assert_eq!(got.lines(), [1, 3]);
    assert_eq!(got.report.rejected[0].line, 2);
    assert_eq!(
        got.report.rejected[0].reason,
        "`response` is an object; expected text"
    );
}

#[test]
fn empty_contexts_count_as_absent() {
    let lines = [
        r#"{"question": "a", "contexts": []}"#,
        r#"{"question": "b", "contexts": ""}"#,
        r#"{"question": "c", "contexts": ["real chunk"]}"#,
    ];
    let got = import("c.jsonl", &jsonl(&lines));
    assert_eq!(got.items.len(), 3);
    assert!(got.items[0].item.contexts.is_empty() && got.items[1].item.contexts.is_empty());
    assert_eq!(
        got.report.coverage.contexts, 1,
        "only the item with a real chunk has contexts"
    );
    assert_eq!(got.report.coverage.question, 3);
}

#[test]
fn bom_and_crlf_are_invisible_in_the_items() {
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend_from_slice(format!("{GOOD_1}\r\n\r\n{{bad\r\n{GOOD_3}\r\n").as_bytes());
    let got = import("bom.jsonl", &bytes);
    assert_eq!(
        got.questions(),
        ["What is the capital of France?", "Who wrote Hamlet?"]
    );
    assert_eq!(
        got.lines(),
        [1, 4],
        "the blank line 2 is skipped but still counted"
    );
    assert_eq!(got.report.rejected[0].line, 3);
    assert_eq!(
        got.report.rejected[0].byte_offset,
        3 + GOOD_1.len() as u64 + 4,
        "BOM + line 1 + two CRLFs"
    );
    assert_eq!(
        got.items[1].item.answer.as_deref(),
        Some("Shakespeare"),
        "no stray \\r"
    );
}

#[test]
fn an_empty_or_blank_file_is_an_error() {
    for bytes in [&b""[..], b"  \n\r\n\t", b"\xEF\xBB\xBF\n"] {
        let err = try_import("empty.jsonl", bytes, &ImportLimits::default())
            .err()
            .unwrap();
        assert_eq!(err.code(), "empty_file", "{bytes:?}");
    }
}

#[test]
fn a_binary_file_is_an_error_naming_what_it_is() {
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
    let err = try_import("pic.jsonl", png, &ImportLimits::default())
        .err()
        .unwrap();
    assert!(matches!(err, DatasetError::BinaryFile { .. }), "{err:?}");
    assert!(err
        .to_string()
        .contains("looks like a binary file (a PNG image)"));
}

#[test]
fn a_line_over_the_length_limit_is_rejected_and_reading_continues() {
    let long = format!(r#"{{"question": "{}"}}"#, "x".repeat(500));
    let limits = ImportLimits {
        max_line_bytes: 200,
        ..ImportLimits::default()
    };
    let got = try_import("long.jsonl", &jsonl(&[GOOD_1, &long, GOOD_3]), &limits).unwrap();
    assert_eq!(got.lines(), [1, 3]);
    assert_eq!(got.report.rejected[0].line, 2);
    assert_eq!(
        got.report.rejected[0].reason,
        "line 2 is 516 bytes, over the 200 bytes line limit"
    );
}

#[test]
fn duplicate_items_are_reported_with_the_first_line() {
    let repeat = r#"{"question": "What is the capital of France?", "answer": "Paris", "run": 2}"#;
    let got = import("dup.jsonl", &jsonl(&[GOOD_1, GOOD_3, repeat]));
    assert_eq!(
        got.items.len(),
        3,
        "duplicates are still passed on; the caller decides"
    );
    assert_eq!(
        got.items[2].duplicate_of,
        Some(1),
        "metadata does not change the content hash"
    );
    let dup = &got.report.duplicates[0];
    assert_eq!((dup.line, dup.first_line), (3, 1));
    assert_eq!(dup.content_hash, got.items[0].content_hash);
}

#[test]
fn an_unknown_ragchecker_label_rejects_the_line_naming_the_field() {
    let bad = r#"{"query": "q", "answer2response": ["Entailment", "Perhaps"]}"#;
    let got = import("labels.jsonl", &jsonl(&[GOOD_1, bad, GOOD_3]));
    assert_eq!(got.lines(), [1, 3]);
    assert!(got.report.rejected[0]
        .reason
        .contains("`answer2response[1]` has an unknown label \"Perhaps\""));
}

#[test]
fn too_many_contexts_is_rejected_with_the_count() {
    let limits = ImportLimits {
        max_contexts: 3,
        ..ImportLimits::default()
    };
    let bad = r#"{"question": "q", "passages": ["a", "b", "c", "d", "e"]}"#;
    let got = try_import("many.jsonl", &jsonl(&[GOOD_1, bad]), &limits).unwrap();
    assert_eq!(got.lines(), [1]);
    assert_eq!(
        got.report.rejected[0].reason,
        "`passages` holds 5 contexts, over the limit of 3 per item"
    );
}

#[test]
fn two_aliases_for_one_field_warn_naming_both() {
    let got = import(
        "alias.jsonl",
        br#"{"question": "q", "context": "lone", "contexts": ["x", "y"]}"#,
    );
    assert_eq!(
        got.items[0].item.contexts.len(),
        2,
        "`contexts` is more specific than `context`"
    );
    let message = &got.report.warnings[0].message;
    assert!(
        message.contains("`contexts`") && message.contains("`context`"),
        "{message}"
    );
}

#[test]
fn oversize_contexts_are_counted_not_rejected() {
    let limits = ImportLimits {
        context_token_budget: 5,
        ..ImportLimits::default()
    };
    let line = r#"{"question": "q", "contexts": ["one two three four five six seven", "short"]}"#;
    let got = try_import("o.jsonl", line.as_bytes(), &limits).unwrap();
    assert_eq!(got.items.len(), 1);
    assert_eq!(got.report.oversize_contexts, 1);
}

#[test]
fn a_callback_error_stops_the_import() {
    let dir = TempDir::new().unwrap();
    let path = write(&dir, "stop.jsonl", &jsonl(&[GOOD_1, GOOD_3]));
    let mut seen = 0;
    let err = read_items(&path, &ImportLimits::default(), |_| {
        seen += 1;
        Err("disk full".to_string())
    })
    .unwrap_err();
    assert_eq!(err, DatasetError::Aborted("disk full".into()));
    assert_eq!(seen, 1, "nothing is read after the stop");
}

#[test]
fn a_file_over_the_size_limit_is_refused() {
    let limits = ImportLimits {
        max_file_bytes: 10,
        ..ImportLimits::default()
    };
    let err = try_import("big.jsonl", GOOD_1.as_bytes(), &limits)
        .err()
        .unwrap();
    assert_eq!(err.code(), "too_large");
}

/// One rule wherever the byte sits: text that is not UTF-8 but Windows-1252 (Excel's
/// "CSV" on Windows) is read as such with a warning naming the encoding, on the first
/// line as on the thousandth; bytes that are no text reject their line only.
#[test]
fn a_latin_1_file_is_read_with_a_warning_wherever_its_bytes_sit() {
    let mut csv = b"question,answer\ncaf\xe9 hours?,Open 8\x9617h\n".to_vec();
    for i in 0..500 {
        csv.extend_from_slice(format!("question {i}?,answer {i}\n").as_bytes());
    }
    csv.extend_from_slice(b"na\xefve question?,d\xe9j\xe0 vu\n");
    let got = try_import("excel.csv", &csv, &ImportLimits::default()).unwrap();
    assert_eq!(got.items.len(), 502, "{:?}", got.report.rejected);
    assert_eq!(got.items[0].item.question, "café hours?");
    assert_eq!(got.items[0].item.answer.as_deref(), Some("Open 8–17h"));
    assert_eq!(got.items[501].item.question, "naïve question?");
    let warnings: Vec<&str> = got
        .report
        .warnings
        .iter()
        .map(|w| w.message.as_str())
        .collect();
    assert!(
        warnings.iter().any(|w| w.contains("Windows-1252")),
        "{warnings:?}"
    );

    let jsonl = b"{\"question\": \"caf\xe9?\"}\n{\"question\": \"fine\"}\n{\"question\": \"bad \x81 byte\"}\n";
    let got = try_import("mixed.jsonl", jsonl, &ImportLimits::default()).unwrap();
    assert_eq!(got.items.len(), 2);
    assert_eq!(got.items[0].item.question, "café?");
    assert_eq!(got.report.rejected.len(), 1);
    assert!(got.report.rejected[0]
        .reason
        .contains("re-save the file as UTF-8"));
}

#[test]
fn an_escaped_nul_never_reaches_the_stored_text() {
    let jsonl = b"{\"question\": \"a\\u0000b?\", \"answer\": \"c\"}\n";
    let got = try_import("nul.jsonl", jsonl, &ImportLimits::default()).unwrap();
    assert_eq!(got.items[0].item.question, "ab?");
    assert!(got
        .report
        .warnings
        .iter()
        .any(|w| w.message.contains("NUL")));
}
