//! The same run gives the same bytes: two reports rendered from two separately loaded
//! views with the same timestamp are identical, Markdown, charts and PDF alike; a
//! different timestamp changes only the date.

use ragnosis_core::view::ReportOptions;
use ragnosis_report::{markdown, pdf, prepare};

use crate::fixture::{example, options, Home, JUDGE_FREE};

#[test]
fn two_renders_of_a_run_are_byte_identical() {
    let mut home = Home::new();
    let dataset = home.import("example", &example());
    let run = home.evaluate(dataset, &["ragvue", "citation", "reference"], "baseline");
    let first = prepare(&home.view(run, &options(5))).unwrap();
    let second = prepare(&home.view(run, &options(5))).unwrap();
    assert_eq!(
        markdown::render(&first.report, "r-"),
        markdown::render(&second.report, "r-"),
        "Markdown"
    );
    assert_eq!(first.charts, second.charts, "chart SVGs");
    let pdf_a = pdf::render(&first.report, &first.charts, &first.ident).unwrap();
    let pdf_b = pdf::render(&second.report, &second.charts, &second.ident).unwrap();
    assert!(
        pdf_a.bytes == pdf_b.bytes,
        "PDF bytes differ ({} vs {} bytes)",
        pdf_a.bytes.len(),
        pdf_b.bytes.len()
    );
    assert!(
        pdf_a.warnings.is_empty(),
        "typst warned: {:?}",
        pdf_a.warnings
    );
}

#[test]
fn the_timestamp_is_the_only_clock() {
    let mut home = Home::new();
    let dataset = home.import("example", &example());
    let run = home.evaluate(dataset, JUDGE_FREE, "baseline");
    let mut at = |date: &str| {
        let options = ReportOptions {
            generated_at: date.into(),
            ..options(3)
        };
        markdown::render(&prepare(&home.view(run, &options)).unwrap().report, "r-")
    };
    let (a, b) = (at("2025-01-01 00:00 UTC"), at("2031-12-31 23:59 UTC"));
    let differing: Vec<(&str, &str)> = a.lines().zip(b.lines()).filter(|(x, y)| x != y).collect();
    assert_eq!(
        differing.len(),
        2,
        "the cover's date row and the closing line: {differing:?}"
    );
    assert!(differing
        .iter()
        .all(|(x, _)| x.contains("2025\\-01\\-01 00:00 UTC")));
}
