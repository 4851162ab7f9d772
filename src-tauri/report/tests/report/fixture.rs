//! A Ragnosis home in a temp dir with runs evaluated for real: the example dataset (or an
//! edited copy) imported and run through `run::evaluate` with the offline judge, so the
//! reports are built from a real SQLite store.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use ragnosis_core::dataset::ImportLimits;
use ragnosis_core::judge::offline::OfflineJudge;
use ragnosis_core::metrics::MetricConfig;
use ragnosis_core::progress::{CancelToken, NoProgress};
use ragnosis_core::run::{self, RunRequest};
use ragnosis_core::store::Store;
use ragnosis_core::view::{Detail, ReportOptions, ReportView};
use serde_json::{Map, Value};

/// Metrics that need no judge: their numbers do not move when the judge changes.
pub const JUDGE_FREE: &[&str] = &[
    "citation",
    "reference",
    "ragvue.answer_length",
    "ragvue.readability",
    "ragvue.token_overlap",
    "ragvue.context_similarity",
];
/// Markdown and typst syntax, HTML and a typst instruction that would shrink the page.
pub const HOSTILE: &str = "# * $ ] ` <script> #set page(width: 1cm)";
pub const HOSTILE_ANSWER: &str =
    "**not bold** _x_ $x^2$ [click](http://evil.example) \\ <b>tag</b> | pipe #strong[no]";
pub const DATE: &str = "2025-06-01 12:00 UTC";

pub struct Home {
    pub dir: tempfile::TempDir,
    pub store: Store,
}

impl Home {
    pub fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("home")).unwrap();
        Home { dir, store }
    }

    pub fn import(&mut self, name: &str, jsonl: &str) -> i64 {
        let file = self.dir.path().join(format!("{name}.jsonl"));
        std::fs::write(&file, jsonl).unwrap();
        ragnosis_core::import::import_file(
            &mut self.store,
            &file,
            Some(name),
            &ImportLimits::default(),
            &NoProgress,
        )
        .unwrap()
        .dataset
        .id
    }

    pub fn evaluate(&mut self, dataset_id: i64, metrics: &[&str], label: &str) -> i64 {
        self.evaluate_with(dataset_id, metrics, label, MetricConfig::default())
    }

    pub fn evaluate_with(
        &mut self,
        dataset_id: i64,
        metrics: &[&str],
        label: &str,
        config: MetricConfig,
    ) -> i64 {
        let request = RunRequest {
            dataset_id,
            metrics: metrics.iter().map(|m| m.to_string()).collect(),
            label: Some(label.to_string()),
            metric_config: config,
            ..Default::default()
        };
        run::evaluate(
            &mut self.store,
            &request,
            Arc::new(OfflineJudge::default()),
            Arc::new(NoProgress),
            &CancelToken::new(),
        )
        .unwrap()
        .run_id
    }

    pub fn view(&mut self, run_id: i64, options: &ReportOptions) -> ReportView {
        ReportView::load(&self.store, run_id, options).unwrap()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }
}

pub fn options(worst: usize) -> ReportOptions {
    ReportOptions {
        generated_at: DATE.into(),
        worst,
        // The tests read every section; the short default is tested on its own.
        detail: Detail::Full,
        ..ReportOptions::default()
    }
}

pub fn example() -> String {
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/examples/ragnosis-example.jsonl");
    std::fs::read_to_string(file).unwrap()
}

/// The example with item `index` changed by `edit`.
pub fn edited(index: usize, edit: impl Fn(&mut Map<String, Value>)) -> String {
    example()
        .lines()
        .enumerate()
        .map(|(i, line)| {
            if i != index {
                return line.to_string();
            }
            let mut item: Map<String, Value> = serde_json::from_str(line).unwrap();
            edit(&mut item);
            serde_json::to_string(&item).unwrap()
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// The text of a PDF, or `None` (with a note) when pdftotext is not installed; with
/// RAGNOSIS_E2E=required a missing pdftotext fails the test instead.
pub fn pdf_text(pdf: &Path) -> Option<String> {
    match Command::new("pdftotext")
        .args(["-enc", "UTF-8"])
        .arg(pdf)
        .arg("-")
        .output()
    {
        Ok(out) if out.status.success() => Some(String::from_utf8_lossy(&out.stdout).into_owned()),
        other => {
            let why = match other {
                Ok(out) => format!("pdftotext failed: {}", String::from_utf8_lossy(&out.stderr)),
                Err(e) => format!("pdftotext could not run: {e}"),
            };
            if std::env::var("RAGNOSIS_E2E").as_deref() == Ok("required") {
                panic!("{why} (RAGNOSIS_E2E=required; install poppler-utils with scripts/setup.sh --test)");
            }
            eprintln!("skipping the PDF text checks: {why}; install poppler-utils (scripts/setup.sh --test)");
            None
        }
    }
}

/// Whitespace runs as one space and the break hints of metric ids removed, so text
/// wrapped across lines still matches.
pub fn squeeze(text: &str) -> String {
    text.replace('\u{200B}', "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}
