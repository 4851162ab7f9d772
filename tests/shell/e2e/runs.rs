//! Runs in the real window: one an app closed mid-way resumed, two compared item first,
//! and one through a failing judge that leaves the window responsive until Cancel.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ragnosis_core::store::Store;
use ragnosis_judge_sim::{Fault, FaultRules, SimConfig, SimHandle, Simulator};
use serde_json::json;

use super::common::{
    asset, before_and_after_a_broken_answer, import, shot, start, Sandbox, Start, LONG, SHORT,
};
use super::desktop::launch_and_drop;
use crate::shell::webdriver::Session;

#[test]
fn a_run_interrupted_by_closing_the_app_can_be_resumed() {
    let Some(Start {
        tauri_driver,
        _display,
        sandbox,
    }) = start()
    else {
        return;
    };
    {
        // What closing the app mid-run leaves: a run marked running with nothing executing it.
        let dataset_id = import(&sandbox.home(), &asset("ragvue/agentic.jsonl"), None);
        let mut store = Store::open(&sandbox.home()).unwrap();
        let request = ragnosis_core::run::RunRequest {
            dataset_id,
            mode: ragnosis_core::run::Mode::Agentic,
            label: Some("interrupted".into()),
            ..Default::default()
        };
        let run_id = ragnosis_core::run::plan(&mut store, &request).unwrap();
        ragnosis_core::store::runs::mark_started(store.conn(), run_id).unwrap();
    }
    let (_driver, session) = sandbox.launch(&tauri_driver);
    session.wait_for_text(
        "[data-testid=interrupted]",
        "interrupted",
        Duration::from_secs(30),
    );
    shot(&session, "resume-home.png");
    session.click_on("[data-testid=resume-interrupted]", SHORT);
    session.wait_for("[data-testid=run-progress]", 1, SHORT);
    session.wait_for("[data-testid=see-results]", 1, LONG);
    shot(&session, "resume-finished.png");
    session.click_on("[data-testid=see-results]", SHORT);
    session.wait_for("[data-testid=summary-cards]", 1, SHORT);
    let store = Store::open(&sandbox.home()).unwrap();
    let runs = ragnosis_core::store::runs::list(store.conn()).unwrap();
    assert_eq!(
        runs[0].status,
        ragnosis_core::store::runs::RunStatus::Done,
        "the resumed run finished"
    );
}

#[test]
fn a_pipeline_change_is_compared_item_first_in_the_runs_screen() {
    let Some(Start {
        tauri_driver,
        _display,
        sandbox,
    }) = start()
    else {
        return;
    };
    let runs = before_and_after_a_broken_answer(&sandbox);
    let (_driver, session) = sandbox.launch(&tauri_driver);
    session.wait_for("[data-testid=try-example]", 1, Duration::from_secs(30));
    session.click_on("[data-testid=nav-runs]", SHORT);
    for id in &runs {
        session.click_on(
            &format!("[data-testid=run-row][data-run-id=\"{id}\"] input[type=checkbox]"),
            SHORT,
        );
    }
    let table = session.wait_for_text("[data-testid=compare]", "24 items matched", SHORT);
    assert!(
        table.contains("before") && table.contains("after"),
        "both runs are named: {table}"
    );
    // The first thing said is what the change did to the items, the broken one named.
    let verdict = session.wait_for_text(
        "[data-testid=compare-verdict]",
        "1 item got worse (nw-001)",
        SHORT,
    );
    assert!(verdict.contains("23 kept the same output"), "{verdict}");
    let worse = session.wait_for_text("[data-testid=compare-worse]", "nw-001", SHORT);
    assert!(worse.contains("no problem found →"), "{worse}");
    let headline = session.wait_for_text(
        "[data-testid=compare-headline]",
        "1 of 24 matched items have another output",
        SHORT,
    );
    assert!(headline.contains("kept every score"), "{headline}");
    // The metrics that moved come first; those that did not are folded below them.
    let moved = session.wait_for("[data-testid=compare-table] tbody tr", 1, SHORT);
    assert!(
        moved
            .iter()
            .all(|row| !session.text(row).contains("no change")),
        "only metrics that moved are listed first"
    );
    session.click_on("[data-testid=compare-still] summary", SHORT);
    let still = session.wait_for("[data-testid=compare-still-table] tbody tr", 1, SHORT);
    let first = session.text(&still[0]);
    // Retrieval did not change: its scores stay, in those words (not "+0.000 within noise").
    assert!(
        first.contains("no change") && !first.contains("within noise"),
        "unchanged contexts show no change: {first}"
    );
    session.wait_for("[data-testid=compare] img", 1, SHORT);
    shot(&session, "runs-compare.png");
}

/// The leading count of a "12 of 120 items" progress line.
fn items_done(progress: &str) -> u64 {
    progress
        .split_whitespace()
        .next()
        .and_then(|n| n.replace(',', "").parse().ok())
        .unwrap_or(0)
}

/// A judged run through a judge that fails about 30 % of its calls in mixed ways (429s,
/// 500, 503, hangs cut by the timeout, broken and empty replies): while it works, the
/// window answers, its progress moves, another screen opens and shows the run, and
/// Cancel stops it with what was scored kept.
#[test]
fn the_window_stays_responsive_through_a_fault_storm_and_cancel_stops_the_run() {
    let Some(Start {
        tauri_driver,
        _display,
        sandbox,
    }) = start()
    else {
        return;
    };
    let sim = a_judge_in_a_fault_storm();
    save_the_stormy_judge(&sandbox.home(), &sim.base_url());
    let file = the_example_five_times_over(&sandbox);

    let (_driver, session) = launch_and_drop(&sandbox, &tauri_driver, &file);
    session.wait_for_text(
        "[data-testid=report-accepted]",
        "120",
        Duration::from_secs(30),
    );
    session.click_on("[data-testid=to-evaluate]", SHORT);
    session.click_on("[data-testid=judge-select] option[value=stormy]", SHORT);
    session.wait_for_text("[data-testid=plan-items]", "120", SHORT);
    // A model judge's plan recommends the offline judge in front of it.
    session.wait_for_text("[data-testid=plan-cascade-offer]", "stormy", SHORT);
    shot(&session, "storm-0-cascade-offer.png");
    session.click_on("[data-testid=run]:not([disabled])", SHORT);
    session.wait_for("[data-testid=run-progress]", 1, SHORT);

    assert_the_progress_moves_and_the_page_answers(&session);
    shot(&session, "storm-1-progress.png");

    // A second process (this test, as a terminal would) imports into the same database
    // while the window's run writes: it waits its turn, and neither loses a write.
    let beside = import(
        &sandbox.home(),
        &asset("ragvue/agentic.jsonl"),
        Some("beside"),
    );

    // Another screen opens while the run works, and lists it as running.
    session.click_on("[data-testid=nav-runs]", SHORT);
    session.wait_for_text("table", "running", SHORT);
    session.click_on("[data-testid=nav-evaluate]", SHORT);
    session.wait_for("[data-testid=run-progress]", 1, SHORT);

    session.click_on("[data-testid=cancel-run]", SHORT);
    session.wait_for_text("#progress-heading", "cancelled", Duration::from_secs(30));
    shot(&session, "storm-2-cancelled.png");
    assert_cancelled_with_every_write_kept(&sandbox.home(), beside);
    assert!(sim.stats().calls > 0, "the run went to the stormy judge");
}

/// The judge simulator failing about 30 % of its calls in mixed ways, each call slow.
fn a_judge_in_a_fault_storm() -> SimHandle {
    let status = |status: u16, retry_after: Option<&str>| Fault::Status {
        status,
        retry_after: retry_after.map(str::to_string),
        body: None,
    };
    Simulator::start(SimConfig {
        faults: FaultRules {
            latency_range_ms: Some((80, 200)),
            storm_rate: 0.3,
            storm: vec![
                status(429, Some("0")),
                status(429, None),
                status(500, None),
                status(503, Some("1")),
                Fault::Hang,
                Fault::MalformedJson,
                Fault::TruncatedJson,
                Fault::EmptyBody,
            ],
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap()
}

/// A judge profile "stormy" on the simulator at `base_url`, saved in the store at `home`
/// before launch: four calls at a time, each cut after two seconds.
fn save_the_stormy_judge(home: &Path, base_url: &str) {
    let store = Store::open(home).unwrap();
    let mut profile = ragnosis_core::judge::open::offline_profile();
    profile.name = "stormy".into();
    profile.kind = ragnosis_core::judge::ProviderKind::OpenAi;
    profile.base_url = base_url.to_string();
    profile.model = "sim-judge-small".into();
    profile.concurrency = 4;
    profile.timeout_secs = 2;
    ragnosis_core::store::judge_profiles::upsert(store.conn(), &profile).unwrap();
}

/// 120 items: the bundled example five times over, each copy with its own ids.
fn the_example_five_times_over(sandbox: &Sandbox) -> PathBuf {
    let example = std::fs::read_to_string(asset("ragnosis-example.jsonl")).unwrap();
    let mut lines = String::new();
    for copy in 0..5 {
        for line in example.lines().filter(|l| !l.trim().is_empty()) {
            let mut item: serde_json::Value = serde_json::from_str(line).unwrap();
            let id = item["id"].as_str().unwrap_or("item").to_string();
            item["id"] = json!(format!("{id}-copy{copy}"));
            lines.push_str(&item.to_string());
            lines.push('\n');
        }
    }
    let file = sandbox.path("stormy-help-desk.jsonl");
    std::fs::write(&file, lines).unwrap();
    file
}

/// Progress moves, and every question put to the page while the run works is
/// answered; the slowest answer is printed (a figure, not a pass line).
fn assert_the_progress_moves_and_the_page_answers(session: &Session) {
    let mut seen = Vec::new();
    let mut slowest = Duration::ZERO;
    let began = Instant::now();
    while seen.len() < 3 && began.elapsed() < LONG {
        let asked = Instant::now();
        let text = session.wait_for_text("[data-testid=progress-items]", "of", SHORT);
        slowest = slowest.max(asked.elapsed());
        let done = items_done(&text);
        if seen.last().is_none_or(|&last| done > last) && done < 120 {
            seen.push(done);
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    eprintln!("fault storm: progress seen at {seen:?}; slowest page answer {slowest:?}");
    assert!(
        seen.len() >= 3,
        "the progress moved while the judge failed around it: {seen:?}"
    );
}

/// The store at `home` after Cancel: the run is cancelled with what was scored before
/// it kept, and the import made beside the run (dataset `beside`) is whole.
fn assert_cancelled_with_every_write_kept(home: &Path, beside: i64) {
    let store = Store::open(home).unwrap();
    let runs = ragnosis_core::store::runs::list(store.conn()).unwrap();
    assert_eq!(
        runs[0].status,
        ragnosis_core::store::runs::RunStatus::Cancelled
    );
    let done = ragnosis_core::store::results::done_pairs(store.conn(), runs[0].id).unwrap();
    assert!(!done.is_empty(), "what was scored before Cancel is kept");
    let beside = ragnosis_core::store::datasets::get(store.conn(), beside).unwrap();
    assert_eq!(beside.item_count, 8, "the other process's import is whole");
}
