//! Batch mode end to end: the `ragnosis` binary with `--batch` against the judge
//! simulator's batch services, a real SQLite file per test. SIGKILLed between submitting
//! a batch and reading its results, the run completes on `ragnosis resume` with nothing
//! lost or sent twice; a batch that expires with 200 of its 1,000 requests missing ends
//! with those 200 asked live and the run complete; the plan shows the batch price; a
//! judge check killed while its batch waits is finished by the next check of that judge.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use ragnosis_core::store::{self, runs::RunStatus, Store};
use ragnosis_judge_sim::{BatchRules, FaultRules, SimConfig, SimHandle, Simulator};

use crate::support::*;

/// Coverage and the answer review need the aspects: two rounds of batches.
const TWO_PHASES: &str =
    "ragvue.retrieval_relevance,ragvue.retrieval_coverage,ragvue.answer_completeness";
/// One request per item.
const ONE_TASK: &str = "ragvue.retrieval_relevance";

fn simulator(rules: BatchRules) -> SimHandle {
    Simulator::start(SimConfig {
        faults: FaultRules {
            batch: rules,
            ..FaultRules::default()
        },
        ..SimConfig::default()
    })
    .expect("simulator starts")
}

/// A priced profile `sim` for the simulator (loopback servers are free otherwise).
fn add_sim_judge(home: &Path, sim: &SimHandle) {
    add_judge(
        home,
        "sim",
        &sim.base_url(),
        &[
            "--timeout",
            "10",
            "--price-input",
            "1",
            "--price-output",
            "2",
        ],
    );
}

/// `ragnosis` polling batches every 20 ms instead of every few seconds.
fn ragnosis_batch(home: &Path) -> Command {
    let mut cmd = ragnosis(home);
    cmd.env("RAGNOSIS_BATCH_POLL_MS", "20");
    cmd
}

fn items(dir: &Path, n: usize) -> PathBuf {
    let lines: String = (0..n)
        .map(|i| {
            serde_json::json!({
                "question": format!("Which port did shipment {i} leave from, and when?"),
                "answer": format!("Shipment {i} left Rotterdam on Monday."),
                "contexts": [format!("Shipment {i} left Rotterdam on Monday and reached Oslo on Friday."),
                             "The warehouse in Hamburg closed in 2019."],
                "ground_truth": "It left Rotterdam on Monday.",
            })
            .to_string()
                + "\n"
        })
        .collect();
    let path = dir.join(format!("shipments-{n}.jsonl"));
    std::fs::write(&path, lines).unwrap();
    path
}

/// (cells the run must have, results stored, distinct (item, metric) pairs, ok results).
fn cells(home: &Path, run_id: i64) -> (i64, i64, i64, i64) {
    let store = Store::open(home).unwrap();
    let row = store::runs::get(store.conn(), run_id).unwrap();
    let counts = store::results::status_counts(store.conn(), run_id).unwrap();
    let pairs = store::results::done_pairs(store.conn(), run_id)
        .unwrap()
        .len() as i64;
    (
        row.item_count * row.metrics.len() as i64,
        counts.values().sum(),
        pairs,
        counts.get("ok").copied().unwrap_or(0),
    )
}

fn only_run(home: &Path) -> i64 {
    let store = Store::open(home).unwrap();
    let runs = store::runs::list(store.conn()).unwrap();
    assert_eq!(runs.len(), 1, "one run");
    runs[0].id
}

/// SIGKILLs `child` once it has polled its held batch twice: between submit and results.
fn kill_while_its_batch_waits(sim: &SimHandle, child: &mut std::process::Child) {
    kill_when(
        child,
        Duration::from_secs(120),
        "the CLI polling its batch twice",
        || sim.stats().batch_polls >= 2,
    );
}

/// Live judge calls other than the run's one insights call.
fn live_judged(sim: &SimHandle) -> u64 {
    let stats = sim.stats();
    stats.calls - stats.by_task.get("insights").copied().unwrap_or(0)
}

#[test]
fn a_batch_run_killed_between_submit_and_results_completes_on_resume_with_nothing_lost_or_sent_twice(
) {
    // Held: every status poll answers "in progress" until the test lets it go.
    let sim = simulator(BatchRules {
        polls_in_progress: 1_000_000,
        ..BatchRules::default()
    });
    let home_dir = tempfile::tempdir().unwrap();
    let home = home_dir.path();
    add_sim_judge(home, &sim);
    let file = items(home, 8);
    let mut child = ragnosis_batch(home)
        .args([
            "eval",
            file.to_str().unwrap(),
            "--metrics",
            TWO_PHASES,
            "--judge",
            "sim",
            "--batch",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    kill_while_its_batch_waits(&sim, &mut child);

    let run_id = only_run(home);
    assert_the_batch_id_is_stored_and_nothing_judged(home, run_id);
    let before = sim.stats();
    assert_eq!(
        (before.batches_created, before.calls),
        (1, 0),
        "killed while the first batch waited"
    );

    sim.set_faults(FaultRules::default());
    let o = ragnosis_batch(home)
        .args(["resume", &run_id.to_string()])
        .output()
        .unwrap();
    assert!(o.status.success(), "resume: {}", stderr(&o));

    assert_done_with_every_request_answered_once_in_a_batch(home, run_id, &sim);
}

/// The run killed while its batch waited: the batch's id was stored before the wait and
/// no result is.
fn assert_the_batch_id_is_stored_and_nothing_judged(home: &Path, run_id: i64) {
    let store = Store::open(home).unwrap();
    let waiting =
        store::judge_batches::waiting(store.conn(), &store::judge_batches::BatchOwner::Run(run_id))
            .unwrap();
    assert_eq!(waiting.len(), 1, "the batch id was stored before the wait");
    assert!(
        waiting[0].batch_id.starts_with("batch_"),
        "{:?}",
        waiting[0]
    );
    assert!(store::results::done_pairs(store.conn(), run_id)
        .unwrap()
        .is_empty());
}

/// The resumed run is done with one result per cell: the waiting batch was picked up,
/// phase 2 sent in a second one, no request sent twice or live, both batches read back.
fn assert_done_with_every_request_answered_once_in_a_batch(
    home: &Path,
    run_id: i64,
    sim: &SimHandle,
) {
    let store = Store::open(home).unwrap();
    assert_eq!(
        store::runs::get(store.conn(), run_id).unwrap().status,
        RunStatus::Done
    );
    let (want, stored, pairs, _) = cells(home, run_id);
    assert_eq!((stored, pairs), (want, want), "exactly one result per cell");
    let stats = sim.stats();
    assert_eq!(
        stats.batch_repeats, 0,
        "no request was sent in a batch twice"
    );
    assert_eq!(
        stats.batches_created, 2,
        "the waiting batch was picked up, then phase 2 sent"
    );
    assert_eq!(live_judged(sim), 0, "nothing was judged live");
    let judged: u64 = stats
        .by_task
        .iter()
        .filter(|(task, _)| *task != "insights")
        .map(|(_, n)| n)
        .sum();
    assert_eq!(
        stats.batch_requests, judged,
        "each request answered once, in a batch"
    );
    assert!(
        store::judge_batches::for_run(store.conn(), run_id)
            .unwrap()
            .iter()
            .all(|b| b.ingested_at.is_some() && b.status == "completed"),
        "both batches read back"
    );
}

#[test]
fn an_expired_batch_with_200_of_1000_requests_missing_ends_with_those_200_asked_live() {
    let sim = simulator(BatchRules {
        expire_last: 200,
        omit_expired: true,
        ..BatchRules::default()
    });
    let home_dir = tempfile::tempdir().unwrap();
    let home = home_dir.path();
    add_sim_judge(home, &sim);
    let file = items(home, 1_000);
    let o = ragnosis_batch(home)
        .args([
            "eval",
            file.to_str().unwrap(),
            "--metrics",
            ONE_TASK,
            "--judge",
            "sim",
            "--batch",
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let run_id = only_run(home);
    let (want, stored, pairs, scored) = cells(home, run_id);
    assert_eq!(
        (want, stored, pairs, scored),
        (1_000, 1_000, 1_000, 1_000),
        "every cell scored, once"
    );
    let stats = sim.stats();
    assert_eq!((stats.batches_created, stats.batch_requests), (1, 1_000));
    assert_eq!(
        live_judged(&sim),
        200,
        "the 200 requests the batch lost, asked live"
    );
    let store = Store::open(home).unwrap();
    let batch = &store::judge_batches::for_run(store.conn(), run_id).unwrap()[0];
    assert_eq!(
        (batch.status.as_str(), batch.completed, batch.entries),
        ("expired", 800, 1_000)
    );
    assert_eq!(
        store::judge_batches::miss_count(store.conn(), batch.id).unwrap(),
        200
    );
    assert_eq!(
        store::runs::get(store.conn(), run_id).unwrap().status,
        RunStatus::Done
    );
}

/// The cost range of a printed plan.
fn planned_cost(stdout: &str) -> (f64, f64) {
    let line = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("cost:"))
        .unwrap_or_else(|| panic!("a cost line: {stdout}"));
    let amounts: Vec<f64> = line
        .split('$')
        .skip(1)
        .map(|a| a.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    (amounts[0], amounts[1])
}

#[test]
fn the_plan_shows_the_batch_price_and_batch_mode_refuses_to_skip_the_cache() {
    let sim = simulator(BatchRules::default());
    let home_dir = tempfile::tempdir().unwrap();
    let home = home_dir.path();
    add_sim_judge(home, &sim);
    let file = items(home, 20);
    let live = ok(
        home,
        &[
            "eval",
            file.to_str().unwrap(),
            "--metrics",
            TWO_PHASES,
            "--judge",
            "sim",
            "--plan",
        ],
    );
    let batch = ok(
        home,
        &[
            "eval",
            "--dataset",
            "1",
            "--metrics",
            TWO_PHASES,
            "--judge",
            "sim",
            "--plan",
            "--batch",
        ],
    );
    let ((live_low, live_high), (low, high)) = (planned_cost(&live), planned_cost(&batch));
    assert!(live_low > 0.0, "{live}");
    assert!(
        (low - live_low / 2.0).abs() < 1e-4 && (high - live_high / 2.0).abs() < 1e-4,
        "{batch}"
    );
    assert!(
        batch.contains("batch price") && batch.contains("24 h"),
        "{batch}"
    );
    assert_eq!(
        sim.stats().batches_created + sim.stats().calls,
        0,
        "a plan sends nothing"
    );

    let refused = run(
        home,
        &[
            "eval",
            "--dataset",
            "1",
            "--metrics",
            ONE_TASK,
            "--judge",
            "sim",
            "--batch",
            "--no-cache",
        ],
    );
    assert_eq!(refused.status.code(), Some(2), "{}", stderr(&refused));
    assert!(
        stderr(&refused).contains("--no-cache"),
        "{}",
        stderr(&refused)
    );
}

#[test]
fn a_batch_judge_check_killed_while_its_batch_waits_is_picked_up_by_the_next_check() {
    let sim = simulator(BatchRules {
        polls_in_progress: 1_000_000,
        ..BatchRules::default()
    });
    let home_dir = tempfile::tempdir().unwrap();
    let home = home_dir.path();
    add_sim_judge(home, &sim);
    let mut child = ragnosis_batch(home)
        .args(["judge-check", "sim", "--batch"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    kill_while_its_batch_waits(&sim, &mut child);
    assert_eq!((sim.stats().batches_created, sim.stats().calls), (1, 0));

    sim.set_faults(FaultRules::default());
    let o = ragnosis_batch(home)
        .args(["judge-check", "sim", "--batch", "--json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "judge-check: {}", stderr(&o));
    let check: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let tasks = check["tasks"].as_array().unwrap();
    assert!(
        tasks
            .iter()
            .all(|t| t["n"].as_u64() > Some(0) && t["errors"] == 0),
        "{tasks:?}"
    );
    let stats = sim.stats();
    assert_eq!(
        stats.batch_repeats, 0,
        "the waiting batch was not sent again"
    );
    assert!(
        stats.batches_created >= 2,
        "the waiting batch, then the labels' round"
    );
    assert!(
        stats.calls * 10 < stats.batch_requests,
        "live only for the repeat probe: {stats:?}"
    );
    let store = Store::open(home).unwrap();
    assert!(
        ragnosis_core::judge_check::latest_for_profile(store.conn(), "sim")
            .unwrap()
            .is_some(),
        "the figures are kept with the profile"
    );
}
