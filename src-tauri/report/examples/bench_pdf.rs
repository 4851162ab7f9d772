//! Benchmark: the PDF report of a 10 000-item run.
//!
//! `cargo run --release -p ragnosis-report --example bench_pdf [-- ITEMS]`
//!
//! Builds a synthetic dataset (deterministic), evaluates it with judge-free metrics into
//! a store in a temp dir, then re-runs itself in a fresh process that only loads the
//! report view, draws the charts and typesets the PDF, so the printed peak RSS (VmHWM
//! from /proc/self/status) is the report's own. Prints figures; asserts nothing.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use ragnosis_core::dataset::ImportLimits;
use ragnosis_core::judge::offline::OfflineJudge;
use ragnosis_core::progress::{CancelToken, NoProgress};
use ragnosis_core::run::{self, RunRequest};
use ragnosis_core::store::Store;
use ragnosis_core::view::{ReportOptions, ReportView};

const METRICS: &[&str] = &[
    "citation",
    "reference",
    "ragvue.answer_length",
    "ragvue.readability",
    "ragvue.token_overlap",
    "ragvue.context_similarity",
];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("render") {
        render(Path::new(&args[2]));
        return;
    }
    let items: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10_000);
    let dir = tempfile::tempdir().expect("temp dir");
    let home = dir.path().join("home");
    let file = dir.path().join("synthetic.jsonl");
    std::fs::write(&file, synthetic(items)).expect("write dataset");
    let mut store = Store::open(&home).expect("store");
    let started = Instant::now();
    let dataset = ragnosis_core::import::import_file(
        &mut store,
        &file,
        Some("synthetic"),
        &ImportLimits::default(),
        &NoProgress,
    )
    .expect("import")
    .dataset
    .id;
    let request = RunRequest {
        dataset_id: dataset,
        metrics: METRICS.iter().map(|m| m.to_string()).collect(),
        label: Some(format!("synthetic {items}")),
        ..Default::default()
    };
    run::evaluate(
        &mut store,
        &request,
        Arc::new(OfflineJudge::default()),
        Arc::new(NoProgress),
        &CancelToken::new(),
    )
    .expect("evaluate");
    println!(
        "setup: {items} items imported and evaluated in {:.1} s (not part of the figures below)",
        started.elapsed().as_secs_f64()
    );
    drop(store);
    let status = Command::new(std::env::current_exe().expect("own path"))
        .arg("render")
        .arg(&home)
        .status()
        .expect("re-run for the render");
    assert!(status.success(), "the render process failed");
}

/// Loads the view, draws, typesets and writes the PDF; prints the figures.
fn render(home: &Path) {
    let started = Instant::now();
    let store = Store::open(home).expect("store");
    let run_id = ragnosis_core::store::runs::list(store.conn()).expect("runs")[0].id;
    let options = ReportOptions {
        generated_at: "2025-06-01 12:00 UTC".into(),
        worst: 10,
        ..ReportOptions::default()
    };
    let view = ReportView::load(&store, run_id, &options).expect("view");
    let loaded = started.elapsed();
    let prepared = ragnosis_report::prepare(&view).expect("charts and text");
    let drawn = started.elapsed();
    let pdf = ragnosis_report::pdf::render(&prepared.report, &prepared.charts, &prepared.ident)
        .expect("typeset");
    let typeset = started.elapsed();
    let out = home.join("report.pdf");
    std::fs::write(&out, &pdf.bytes).expect("write pdf");
    let total = started.elapsed();
    println!("items:        {}", view.run.run.item_count);
    println!(
        "view load:    {:.3} s (store, statistics, histograms, worst items)",
        loaded.as_secs_f64()
    );
    println!("charts+text:  {:.3} s", (drawn - loaded).as_secs_f64());
    println!("typeset+pdf:  {:.3} s", (typeset - drawn).as_secs_f64());
    println!("total:        {:.3} s", total.as_secs_f64());
    println!("pages:        {}", pdf.pages);
    println!(
        "size:         {} bytes ({:.0} KiB)",
        pdf.bytes.len(),
        pdf.bytes.len() as f64 / 1024.0
    );
    println!(
        "peak RSS:     {}",
        peak_rss().unwrap_or_else(|| "unknown (no /proc/self/status)".into())
    );
    if !pdf.warnings.is_empty() {
        println!("typst warnings: {:?}", pdf.warnings);
    }
}

fn peak_rss() -> Option<String> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    Some(line.trim_start_matches("VmHWM:").trim().to_string())
}

/// A deterministic dataset: varied answers, citations right and wrong, gold documents
/// ranked anywhere from first to absent, so every metric spreads over its range.
fn synthetic(items: usize) -> String {
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut next = |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let topics = [
        "battery", "warranty", "shipping", "returns", "firmware", "brakes", "tyres", "motor",
    ];
    let mut out = String::with_capacity(items * 900);
    for i in 0..items {
        let topic = topics[i % topics.len()];
        let gold = format!("D{}", i % 400);
        let cited = if next(5) == 0 {
            format!("D{}", next(400))
        } else {
            gold.clone()
        };
        let rank = next(14) as usize;
        let mut retrieved: Vec<String> = (0..12)
            .map(|k| format!("D{}", (i * 7 + k * 13 + 1) % 400))
            .collect();
        retrieved.retain(|d| *d != gold);
        if rank < 12 {
            retrieved.insert(rank, gold.clone());
        }
        let words = 5 + next(60) as usize;
        let answer_body: Vec<&str> = (0..words)
            .map(|w| {
                [
                    "the", topic, "lasts", "two", "years", "after", "purchase", "and",
                ][w % 8]
            })
            .collect();
        let citation = if next(10) == 0 {
            String::new()
        } else {
            format!(" [ID: {cited}]")
        };
        let item = serde_json::json!({
            "id": format!("syn-{i:05}"),
            "question": format!("What should I know about the {topic} of model {}?", i % 37),
            "answer": format!("{}.{}", answer_body.join(" "), citation),
            "contexts": [
                { "doc_id": retrieved[0], "text": format!("The {topic} of every model is covered for two years after purchase.") },
                { "doc_id": retrieved[1], "text": "Deliveries leave the warehouse within two business days." },
                { "doc_id": retrieved[2], "text": format!("Model {} uses the standard {topic} described in the manual.", i % 37) }
            ],
            "ground_truth": format!("The {topic} is covered for two years after purchase."),
            "gold_id": gold,
            "retrieved_ids": retrieved,
            "gold_context_ids": [gold],
        });
        out.push_str(&item.to_string());
        out.push('\n');
    }
    out
}
