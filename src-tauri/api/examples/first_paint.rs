//! Benchmark: what the Results screen asks for before its first paint (the run's detail,
//! its charts, the first page of cases), the next pages, and the PDF report, on a
//! database another benchmark left behind — e.g. the throughput bench's million items,
//! kept with `RAGNOSIS_BENCH_HOME=DIR` (the home is `DIR/home`).
//!
//! `cargo run --release -p ragnosis-api --example first_paint -- HOME [RUN]`
//!
//! Times the api's own calls, the ones the window's commands make, each on a cold
//! connection as the window has after opening. Prints figures; asserts nothing.

use std::path::Path;
use std::time::Instant;

use ragnosis_api::cases::{self, CaseQueryInput};
use ragnosis_api::reports::{self, ReportFormat};
use ragnosis_api::{runs, Ctx};
use ragnosis_core::view::ReportOptions;

fn timed<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let value = f();
    println!("{what:<44} {:>8.1} ms", t.elapsed().as_secs_f64() * 1000.0);
    value
}

fn query(order: &str, text: Option<&str>) -> CaseQueryInput {
    serde_json::from_value(serde_json::json!({
        "order": order, "offset": 0, "limit": 50, "text": text,
    }))
    .expect("a case query")
}

fn main() {
    let home = std::env::args()
        .nth(1)
        .expect("usage: first_paint HOME [RUN]");
    let ctx = Ctx::new(Some(Path::new(&home)));
    // The newest run unless one is named.
    let run_id = match std::env::args().nth(2) {
        Some(run) => run.parse().expect("RUN is a run's number"),
        None => {
            ragnosis_core::store::Store::open(Path::new(&home))
                .and_then(|s| ragnosis_core::store::runs::list(s.conn()))
                .expect("a database with a run")[0]
                .id
        }
    };
    println!("run {run_id}");

    let detail = timed("run detail (statistics, insights, trust)", || {
        runs::detail(&ctx, run_id).expect("detail")
    });
    println!("  items: {}", detail.run.run.item_count);
    timed("charts (SVG)", || {
        reports::charts(&ctx, run_id).expect("charts")
    });
    let first = timed("cases, first page, worst first", || {
        cases::list(&ctx, run_id, query("worst", None)).expect("page")
    });
    let mut next = query("worst", None);
    next.after = first.next;
    next.offset = 50;
    timed("cases, second page after the cursor", || {
        cases::list(&ctx, run_id, next).expect("page")
    });
    timed("cases, first page in run order", || {
        cases::list(&ctx, run_id, query("position", None)).expect("page")
    });
    timed("cases, full-text search \"warranty\"", || {
        cases::list(&ctx, run_id, query("position", Some("warranty"))).expect("page")
    });

    let out = tempfile::tempdir().expect("temp dir");
    let options = ReportOptions {
        generated_at: "2026-11-27 12:00 UTC".into(),
        ..ReportOptions::default()
    };
    let written = timed("PDF report (view, charts, typesetting)", || {
        reports::write_report(
            &ctx,
            run_id,
            &options,
            &[ReportFormat::Pdf],
            &out.path().join("report"),
        )
        .expect("report")
    });
    let bytes = std::fs::metadata(&written[0]).map(|m| m.len()).unwrap_or(0);
    println!("  {} ({bytes} bytes)", written[0].display());
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let peak = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
        .unwrap_or(0.0);
    println!("peak RSS: {:.0} MB", peak / 1024.0);
    println!(
        "load average: {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
}
