//! A comparison report: the example evaluated with k = 10 (A) and again with k = 1 (B),
//! so recall@k and MRR@k drop on every item whose gold document is ranked 2nd to 10th.
//! The report of B gains a comparison section with the deltas, the flips and the deltas
//! chart; the PDF prints them.

use ragnosis_core::analysis::compare::Flag;
use ragnosis_core::export::escape_markdown as esc;
use ragnosis_core::metrics::MetricConfig;
use ragnosis_core::view::ReportOptions;
use ragnosis_report::{write, Format};

use crate::fixture::{example, pdf_text, squeeze, Home, DATE};

const METRICS: &[&str] = &["reference", "citation"];

fn compared(home: &mut Home) -> ragnosis_core::view::ReportView {
    let dataset = home.import("example", &example());
    let a = home.evaluate(dataset, METRICS, "k=10");
    let b = home.evaluate_with(
        dataset,
        METRICS,
        "k=1",
        MetricConfig {
            k: 1,
            ..MetricConfig::default()
        },
    );
    home.view(
        b,
        &ReportOptions {
            generated_at: DATE.into(),
            worst: 2,
            baseline: Some(a),
            threshold: 0.05,
            detail: ragnosis_core::view::Detail::Full,
            allow_different_judges: false,
        },
    )
}

#[test]
fn comparison_section_lists_deltas_flips_and_regressions() {
    let mut home = Home::new();
    let view = compared(&mut home);
    let c = view.comparison.as_ref().unwrap();
    assert_eq!(c.matched, 24, "the same items, matched by content");
    let recall = c
        .metrics
        .iter()
        .find(|m| m.metric == "reference.recall_at_k")
        .unwrap();
    assert!(
        recall.delta.unwrap() < 0.0 && !recall.to_fail.is_empty(),
        "k = 1 loses hits"
    );
    let citation = c
        .metrics
        .iter()
        .find(|m| m.metric == "citation.strict_accuracy")
        .unwrap();
    assert_eq!(
        (citation.delta, citation.flag),
        (Some(0.0), Flag::Green),
        "citations do not depend on k"
    );

    let written = write(&view, &[Format::Markdown], &home.path("cmp")).unwrap();
    let md = std::fs::read_to_string(&written[0]).unwrap();
    assert!(
        md.starts_with("# k=1 compared with Run 1 \\(k=10\\)\n"),
        "title: {}",
        md.lines().next().unwrap()
    );
    let sections: Vec<&str> = md.lines().filter(|l| l.starts_with("## ")).collect();
    assert_eq!(
        sections,
        [
            // What the change did comes before run B's own report.
            "## Comparison",
            "## Executive summary",
            "## Metrics",
            "## Charts",
            "## Diagnosis",
            "## Insights",
            "## Action items",
            "## Methodology",
            "## Appendix: the 2 worst items"
        ]
    );
    assert!(md.contains(
        "| Metric | Mean A | Mean B | Δ (B − A) | 95% CI | Pairs | Pass → fail | Fail → pass | Flag |\n|---|---:|---:|---:|---|---:|---:|---:|---|\n"
    ));
    let row_start = format!(
        "| reference.recall\\_at\\_k | {:.3} | {:.3} | \u{2212}{:.3} | ",
        recall.mean_a.unwrap(),
        recall.mean_b.unwrap(),
        -recall.delta.unwrap()
    );
    assert!(md.contains(&row_start), "recall row starts {row_start}");
    assert!(
        md.contains(&format!("| 24 | {} | 0 | ", recall.to_fail.len())),
        "pairs and flip counts"
    );
    assert!(md.contains("### Change per metric"), "the deltas chart");
    assert!(md.contains(&format!(
        "**reference.recall\\_at\\_k: pass → fail \\({}\\)**",
        recall.to_fail.len()
    )));
    let first = &recall.to_fail[0];
    assert!(
        md.contains(&format!("- {}: 1.000 → 0.000", esc(&first.label))),
        "flipped items are listed by id"
    );
    assert!(written
        .iter()
        .any(|p| p.to_string_lossy().ends_with("cmp-deltas.svg")));
}

#[test]
fn comparison_prints_in_the_pdf() {
    let mut home = Home::new();
    let view = compared(&mut home);
    let written = write(&view, &[Format::Pdf], &home.path("cmp")).unwrap();
    let Some(text) = pdf_text(&written[0]) else {
        return;
    };
    let text = squeeze(&text);
    let recall = view
        .comparison
        .as_ref()
        .unwrap()
        .metrics
        .iter()
        .find(|m| m.metric == "reference.recall_at_k")
        .unwrap();
    assert!(text.contains("Comparison") && text.contains("Flipped items"));
    assert!(
        text.find("Comparison") < text.find("Executive summary"),
        "the comparison opens the report"
    );
    assert!(
        text.contains(&format!("\u{2212}{:.3}", -recall.delta.unwrap())),
        "the delta is printed"
    );
}
