//! Reports and comparisons: one rule for a chosen file name, two runs that differ.

use ragnosis_api::reports::{self, ReportFormat};
use ragnosis_api::runs::{self, RunRequest};
use ragnosis_api::{CancelToken, ErrorCode, NoProgress};

use crate::{datasets_example, home, refusal};

#[test]
fn a_run_is_compared_only_with_another_run() {
    let h = home();
    let (code, message) = refusal(reports::compare(&h.ctx, 3, 3, 0.05, false));
    assert_eq!(code, ErrorCode::Invalid);
    assert!(message.contains("two different runs"), "{message}");
}

#[test]
fn an_export_keeps_the_chosen_name_and_writes_every_format() {
    let h = home();
    let request = RunRequest {
        dataset_id: datasets_example(&h),
        mode: "manual".into(),
        metrics: vec!["ragvue.clarity".into()],
        judge: "offline".into(),
        ..RunRequest::default()
    };
    let planned = runs::plan(&h.ctx, &request).unwrap();
    let run_id = planned.run_id;
    let progress = std::sync::Arc::new(NoProgress);
    runs::execute(&h.ctx, planned, progress, &CancelToken::new()).unwrap();
    let base = h.dir.path().join("out/report.md");
    let formats = ReportFormat::parse_list(
        "json,md,csv",
        &[
            ReportFormat::Json,
            ReportFormat::Markdown,
            ReportFormat::Csv,
        ],
    )
    .unwrap();
    let date = "27 November 2026, before the review";
    let written = reports::export(&h.ctx, run_id, &base, &formats, Some(date.into())).unwrap();
    let names: Vec<String> = written
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names[..3],
        ["report.json", "report.csv", "report.md"],
        "data first, then the report (its charts beside it)"
    );
    let report = std::fs::read_to_string(&written[2]).unwrap();
    assert!(
        report.contains(date),
        "the report's date line is the one asked for"
    );
    let (code, message) = refusal(ReportFormat::parse_list("docx", &[ReportFormat::Pdf]));
    assert_eq!(code, ErrorCode::Invalid);
    assert!(
        message.contains("unknown report format 'docx' (use pdf)"),
        "{message}"
    );
}

#[test]
fn an_empty_retriever_list_is_refused() {
    let h = home();
    let request = ragnosis_api::retrieval::RetrievalRequest {
        dataset_id: 1,
        corpus_id: 1,
        retrievers: vec![" ".into()],
        k: 5,
    };
    let (code, message) =
        refusal(ragnosis_api::retrieval::evaluate(&h.ctx, &request, &NoProgress).map(|v| v.eval));
    assert_eq!(code, ErrorCode::Invalid);
    assert!(message.contains("at least one retriever"), "{message}");
}
