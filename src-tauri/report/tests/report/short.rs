//! The default report is short (issue 24): a 15-item run fits in a few pages, the first
//! answers how good, what is wrong, what to fix first and which items show it, and the
//! rest waits in the full report. And every page lays out: no text under the running
//! header or over the footer, no page holding only a heading.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use ragnosis_core::judge::offline::OfflineJudge;
use ragnosis_core::progress::{CancelToken, NoProgress};
use ragnosis_core::run::{self, Mode, RunRequest};
use ragnosis_core::view::{Detail, ReportOptions, HEADLINE_METRICS};
use ragnosis_report::{markdown, prepare, write, Format};

use crate::fixture::{example, Home, DATE};

/// The hand-written 15-item help-desk set (tests/diagnosis), evaluated as a new user
/// would: agentic mode, offline judge.
fn helpdesk_run(home: &mut Home) -> i64 {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/diagnosis/helpdesk-15.jsonl");
    let dataset = home.import("helpdesk", &std::fs::read_to_string(path).unwrap());
    agentic(home, dataset)
}

fn agentic(home: &mut Home, dataset_id: i64) -> i64 {
    let request = RunRequest {
        dataset_id,
        mode: Mode::Agentic,
        ..Default::default()
    };
    let run_id = run::plan(&mut home.store, &request).unwrap();
    run::execute(
        &mut home.store,
        run_id,
        Arc::new(OfflineJudge::default()),
        Arc::new(NoProgress),
        &CancelToken::new(),
    )
    .unwrap();
    run_id
}

fn options(detail: Detail) -> ReportOptions {
    ReportOptions {
        generated_at: DATE.into(),
        detail,
        ..ReportOptions::default()
    }
}

/// Each line's box on each page, from `pdftotext -bbox-layout`: (xMin, yMin, xMax, yMax)
/// in points. `None` when poppler is missing and not required.
fn line_boxes(pdf: &Path) -> Option<Vec<Vec<[f64; 4]>>> {
    let out = Command::new("pdftotext")
        .args(["-bbox-layout"])
        .arg(pdf)
        .arg("-")
        .output();
    let text = match out {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).into_owned(),
        _ => {
            assert_ne!(
                std::env::var("RAGNOSIS_E2E").as_deref(),
                Ok("required"),
                "pdftotext is needed (poppler-utils, scripts/setup.sh --test)"
            );
            return None;
        }
    };
    let number = |line: &str, key: &str| -> f64 {
        let at = line.find(&format!("{key}=\"")).unwrap() + key.len() + 2;
        line[at..].split('"').next().unwrap().parse().unwrap()
    };
    Some(
        text.split("<page ")
            .skip(1)
            .map(|page| {
                page.lines()
                    .filter(|l| l.trim_start().starts_with("<line "))
                    .map(|l| {
                        [
                            number(l, "xMin"),
                            number(l, "yMin"),
                            number(l, "xMax"),
                            number(l, "yMax"),
                        ]
                    })
                    .collect()
            })
            .collect(),
    )
}

#[test]
fn the_default_report_of_a_fifteen_item_run_is_short_and_names_what_to_fix() {
    let mut home = Home::new();
    let run = helpdesk_run(&mut home);
    let short = home.view(run, &options(Detail::Short));
    let full = home.view(run, &options(Detail::Full));
    let md = markdown::render(&prepare(&short).unwrap().report, "r-");
    let full_md = markdown::render(&prepare(&full).unwrap().report, "r-");
    // At most five headline metrics in the table, each named once.
    let metrics_table = md
        .split("## Metrics")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .unwrap();
    let rows = metrics_table
        .lines()
        .filter(|l| l.starts_with('|') && !l.starts_with("| Metric") && !l.starts_with("|--"))
        .count();
    assert!(
        (1..=HEADLINE_METRICS).contains(&rows),
        "{rows} metric rows:\n{metrics_table}"
    );
    assert!(
        full_md.matches("\n| ").count() > md.matches("\n| ").count(),
        "the full report holds more rows"
    );
    for section in ["## Executive summary", "## Diagnosis", "## Action items"] {
        assert!(md.contains(section), "{section}");
    }
    for left_out in ["## Insights", "## Appendix"] {
        assert!(
            !md.contains(left_out),
            "{left_out} is only in the full report"
        );
        assert!(full_md.contains(left_out), "{left_out} in the full report");
    }
    // Every failing pattern shows the items behind it.
    let diagnosis = short.run.summary.diagnosis.as_ref().unwrap();
    assert!(
        !diagnosis.patterns.is_empty(),
        "the set has designed failures"
    );
    for pattern in &short.patterns {
        assert!(
            !pattern.cases.is_empty(),
            "{} has examples",
            pattern.summary.name
        );
        for case in &pattern.cases {
            assert!(md.contains(&ragnosis_core::export::escape_markdown(&case.label)));
        }
    }
    let written = write(&short, &[Format::Pdf], &home.path("out/short")).unwrap();
    let Some(pages) = line_boxes(&written[0]) else {
        return;
    };
    eprintln!("default PDF of a 15-item run: {} pages", pages.len());
    assert!(pages.len() <= 8, "{} pages", pages.len());
}

/// A4 in points: the running header sits above 45 pt, the footer below 795 pt; body text
/// stays between 50 and 790.
fn layout_faults(pages: &[Vec<[f64; 4]>]) -> Vec<String> {
    let mut faults = Vec::new();
    for (n, lines) in pages.iter().enumerate() {
        let body: Vec<&[f64; 4]> = lines
            .iter()
            .filter(|b| b[1] >= 50.0 && b[3] <= 790.0)
            .collect();
        for b in lines {
            let header = b[3] <= 45.0;
            let footer = b[1] >= 795.0;
            if !(header || footer || (b[1] >= 50.0 && b[3] <= 790.0)) {
                faults.push(format!(
                    "page {}: text at y {:.0}–{:.0} crosses the header or footer",
                    n + 1,
                    b[1],
                    b[3]
                ));
            }
        }
        if body.len() < 2 {
            faults.push(format!(
                "page {} holds {} line(s) of body text",
                n + 1,
                body.len()
            ));
        }
    }
    faults
}

#[test]
fn every_page_of_a_full_report_keeps_clear_of_header_and_footer() {
    let mut home = Home::new();
    let dataset = home.import("example", &example());
    let run = agentic(&mut home, dataset);
    for detail in [Detail::Short, Detail::Full] {
        let view = home.view(run, &options(detail));
        let written = write(
            &view,
            &[Format::Pdf],
            &home.path(&format!("out/{detail:?}")),
        )
        .unwrap();
        let Some(pages) = line_boxes(&written[0]) else {
            return;
        };
        eprintln!(
            "{detail:?} PDF of the bundled example: {} pages",
            pages.len()
        );
        let faults = layout_faults(&pages);
        assert!(faults.is_empty(), "{detail:?}: {faults:#?}");
    }
}

#[test]
fn the_layout_check_sees_text_under_the_header_and_a_heading_alone() {
    // The check itself, on boxes drawn by hand: a chart title at y 40–55 runs under the
    // header rule, and a page with one line of body text holds only a heading.
    let clean = vec![vec![
        [51.0, 30.0, 140.0, 40.0],
        [51.0, 57.0, 300.0, 68.0],
        [51.0, 70.0, 300.0, 81.0],
        [51.0, 804.0, 200.0, 813.0],
    ]];
    assert!(layout_faults(&clean).is_empty());
    let under_header = vec![vec![
        [51.0, 40.0, 300.0, 55.0],
        [51.0, 70.0, 300.0, 81.0],
        [51.0, 90.0, 300.0, 101.0],
    ]];
    assert_eq!(layout_faults(&under_header).len(), 1);
    let heading_alone = vec![vec![[51.0, 57.0, 120.0, 75.0], [51.0, 804.0, 200.0, 813.0]]];
    assert_eq!(layout_faults(&heading_alone).len(), 1);
}
