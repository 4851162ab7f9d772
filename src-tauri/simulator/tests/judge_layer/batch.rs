//! Runs in batch mode against the simulator's batch services: results equal to a live
//! run's at half the price, phase by phase; a batch split at the request limit; failed
//! and expired requests asked live (and an error, never a 0, when live fails too); a run
//! stopped while its batch waits resumes without submitting again; a batch that fails as
//! a whole stops the run until a resume submits it again. The judge check in batches gives
//! the live check's figures, and picks up the batch an interrupted check left waiting.
//! Real SQLite files in temp dirs.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use ragnosis_core::dataset::ImportLimits;
use ragnosis_core::judge::batch::{BatchLimits, PollPolicy};
use ragnosis_core::judge::llm::{JudgeOptions, LlmJudge};
use ragnosis_core::judge::{Judge, ProviderKind};
use ragnosis_core::judge_check::{self, JudgeCheck};
use ragnosis_core::judge_profile::JudgeProfile;
use ragnosis_core::progress::{CancelToken, NoProgress, Progress, ProgressSink};
use ragnosis_core::run::{self, RunOutcome, RunRequest, RunTotals};
use ragnosis_core::store::judge_batches::BatchOwner;
use ragnosis_core::store::{self, runs::RunStatus, Store};
use ragnosis_judge_sim::{
    BatchRules, ContainsRule, Fault, FaultRules, SimConfig, SimHandle, Simulator, Stats as SimStats,
};
use serde_json::Value;

/// Metrics whose tasks come in two phases: coverage and the answer review need the
/// aspects first.
const TWO_PHASES: &[&str] = &[
    "ragvue.retrieval_relevance",
    "ragvue.retrieval_coverage",
    "ragvue.answer_completeness",
    "ragvue.strict_faithfulness",
];
/// One task per item (chunk relevance).
const ONE_TASK: &[&str] = &["ragvue.retrieval_relevance"];

fn sim(rules: BatchRules) -> SimHandle {
    Simulator::start(SimConfig {
        faults: FaultRules {
            batch: rules,
            ..FaultRules::default()
        },
        ..SimConfig::default()
    })
    .unwrap()
}

fn profile(sim: &SimHandle, kind: ProviderKind) -> JudgeProfile {
    let mut p = super::profile(sim);
    p.kind = kind;
    if kind == ProviderKind::Anthropic {
        p.base_url = sim.root_url();
    }
    // Loopback servers cost nothing unless priced: a price shows the batch discount.
    p.price_input = Some(1.0);
    p.price_output = Some(2.0);
    p
}

fn judge(store: &Store, profile: &JudgeProfile, requests: Option<usize>) -> Arc<dyn Judge> {
    let cache = Arc::new(ragnosis_core::judge::shelf::open_cache(store.path()).unwrap());
    let options = JudgeOptions {
        backoff_base: Duration::from_millis(20),
        batch_limits: requests.map(|requests| BatchLimits {
            requests,
            ..BatchLimits::OPENAI
        }),
        batch_poll: Some(PollPolicy {
            first: Duration::from_millis(10),
            max: Duration::from_millis(20),
        }),
        ..JudgeOptions::default()
    };
    Arc::new(LlmJudge::with_options(profile, None, Some(cache), options).unwrap())
}

fn dataset(store: &mut Store, dir: &Path, n: usize, poison: Option<usize>) -> i64 {
    let lines: String = (0..n)
        .map(|i| {
            let mark = if poison == Some(i) { " POISON" } else { "" };
            serde_json::json!({
                "question": format!("Which port did shipment {i} leave from, and when?{mark}"),
                "answer": format!("Shipment {i} left Rotterdam on Monday."),
                "contexts": [format!("Shipment {i} left Rotterdam on Monday and reached Oslo on Friday."),
                             "The warehouse in Hamburg closed in 2019."],
                "ground_truth": format!("It left Rotterdam on Monday."),
            })
            .to_string()
                + "\n"
        })
        .collect();
    let file = dir.join("items.jsonl");
    std::fs::write(&file, lines).unwrap();
    ragnosis_core::import::import_file(
        store,
        &file,
        Some("shipments"),
        &ImportLimits::default(),
        &NoProgress,
    )
    .unwrap()
    .dataset
    .id
}

fn plan(store: &mut Store, dataset_id: i64, metrics: &[&str], batch: bool) -> i64 {
    run::plan(
        store,
        &RunRequest {
            dataset_id,
            metrics: metrics.iter().map(|m| m.to_string()).collect(),
            judge: "sim".into(),
            batch,
            ..RunRequest::default()
        },
    )
    .unwrap()
}

fn execute(
    store: &mut Store,
    run_id: i64,
    judge: Arc<dyn Judge>,
    cancel: &CancelToken,
) -> RunOutcome {
    run::execute(store, run_id, judge, Arc::new(NoProgress), cancel).unwrap()
}

/// Every result of a run in item order, as JSON (metric, status, score, explanation,
/// details).
fn results(store: &Store, run_id: i64) -> Vec<Value> {
    store::run_items::item_ids(store.conn(), run_id)
        .unwrap()
        .into_iter()
        .flat_map(|item| {
            let mut rows = store::results::for_item(store.conn(), run_id, item).unwrap();
            rows.sort_by(|a, b| a.result.metric.cmp(&b.result.metric));
            rows.into_iter()
                .map(|r| serde_json::to_value(&r.result).unwrap())
                .collect::<Vec<_>>()
        })
        .collect()
}

fn totals(store: &Store, run_id: i64) -> RunTotals {
    store::runs::totals(store.conn(), run_id).unwrap()
}

#[test]
fn a_batch_run_scores_what_a_live_run_scores_phase_by_phase_at_half_the_price() {
    let mut runs = Vec::new();
    for batch in [false, true] {
        let sim = sim(BatchRules::default());
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let dataset_id = dataset(&mut store, dir.path(), 5, None);
        let run_id = plan(&mut store, dataset_id, TWO_PHASES, batch);
        let judged_by = judge(&store, &profile(&sim, ProviderKind::OpenAi), None);
        let outcome = execute(&mut store, run_id, judged_by, &CancelToken::new());
        assert_eq!(outcome.status, RunStatus::Done);
        runs.push((
            results(&store, run_id),
            totals(&store, run_id),
            sim.stats(),
            store::judge_batches::for_run(store.conn(), run_id).unwrap(),
        ));
    }
    let (live, batched) = (&runs[0], &runs[1]);
    assert_eq!(live.0.len(), 5 * TWO_PHASES.len());
    assert!(
        live.0.iter().all(|r| r["status"] == "ok"),
        "the live run scores every cell: {:?}",
        live.0
    );
    assert_eq!(batched.0, live.0, "a batch run's results are a live run's");
    let (stats, batches) = (&batched.2, &batched.3);
    assert_eq!(
        batches.len(),
        2,
        "phase 1 (aspects, chunks, grounding), then phase 2 (coverage, review) once the aspects are known"
    );
    let judged: u64 = live
        .2
        .by_task
        .iter()
        .filter(|(k, _)| *k != "insights")
        .map(|(_, n)| n)
        .sum();
    assert_eq!(
        stats.batch_requests, judged,
        "every task the live run asked went in a batch, once"
    );
    assert_eq!(stats.batch_repeats, 0);
    assert_eq!(
        stats.calls,
        live.2.by_task.get("insights").copied().unwrap_or(0),
        "live: only the run's insights call"
    );
    // A batch asks each task alone; live, an item's independent tasks share one call and
    // its instructions' preamble, so the batch reads at least as many input tokens.
    assert!(
        batched.1.input_tokens >= live.1.input_tokens,
        "{} batched against {} live input tokens",
        batched.1.input_tokens,
        live.1.input_tokens
    );
    let share = batched.1.cost_usd / live.1.cost_usd;
    assert!(
        (0.45..0.75).contains(&share),
        "batch answers cost half (the insights call stays live): {} of {}",
        batched.1.cost_usd,
        live.1.cost_usd
    );
}

#[test]
fn a_run_over_the_request_limit_is_split_into_batches() {
    let sim = sim(BatchRules::default());
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let dataset_id = dataset(&mut store, dir.path(), 7, None);
    let run_id = plan(&mut store, dataset_id, ONE_TASK, true);
    let judged_by = judge(&store, &profile(&sim, ProviderKind::OpenAi), Some(4));
    let outcome = execute(&mut store, run_id, judged_by, &CancelToken::new());
    assert_eq!(outcome.status, RunStatus::Done);
    let sizes: Vec<u64> = store::judge_batches::for_run(store.conn(), run_id)
        .unwrap()
        .iter()
        .map(|b| b.entries)
        .collect();
    assert_eq!(sizes, [4, 3], "7 requests at 4 per batch");
    let stats = sim.stats();
    assert_eq!(
        (
            stats.batches_created,
            stats.batch_requests,
            stats.files_uploaded
        ),
        (2, 7, 2)
    );
    assert!(results(&store, run_id).iter().all(|r| r["status"] == "ok"));
}

#[test]
fn failed_requests_are_asked_live_and_a_live_failure_is_an_error_never_a_zero() {
    let sim = sim(BatchRules::default());
    // Item 0's requests fail everywhere: HTTP 400 is final, so the live call fails too.
    sim.set_faults(FaultRules {
        batch: BatchRules {
            fail_first: 2,
            ..BatchRules::default()
        },
        when_contains: vec![ContainsRule {
            text: "POISON".into(),
            fault: Fault::Status {
                status: 400,
                retry_after: None,
                body: Some("the request was refused".into()),
            },
        }],
        ..FaultRules::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let dataset_id = dataset(&mut store, dir.path(), 5, Some(0));
    let run_id = plan(&mut store, dataset_id, ONE_TASK, true);
    let judged_by = judge(&store, &profile(&sim, ProviderKind::OpenAi), None);
    let outcome = execute(&mut store, run_id, judged_by, &CancelToken::new());
    assert_eq!(outcome.status, RunStatus::Done);
    let rows = results(&store, run_id);
    assert_eq!(rows[0]["status"], "error", "{}", rows[0]);
    assert!(rows[0]["score"].is_null(), "an error has no score, not 0");
    assert!(
        rows[0]["explanation"]
            .as_str()
            .unwrap()
            .contains("HTTP 400"),
        "{}",
        rows[0]
    );
    assert!(
        rows[1..]
            .iter()
            .all(|r| r["status"] == "ok" && r["score"].is_number()),
        "{rows:?}"
    );
    let stats = sim.stats();
    assert_eq!(stats.batch_requests, 5);
    let live_judged = stats.calls - stats.by_task.get("insights").copied().unwrap_or(0);
    assert_eq!(
        live_judged, 2,
        "only the two requests the batch failed were asked live"
    );
    assert_eq!(
        store::judge_batches::miss_count(
            store.conn(),
            store::judge_batches::for_run(store.conn(), run_id).unwrap()[0].id
        )
        .unwrap(),
        2
    );
}

#[test]
fn a_batch_verdict_the_cache_cannot_keep_is_asked_live_and_the_run_completes() {
    let sim = sim(BatchRules::default());
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let dataset_id = dataset(&mut store, dir.path(), 3, None);
    let run_id = plan(&mut store, dataset_id, ONE_TASK, true);
    // A real database that refuses every new cache entry, as a full disk would.
    store
        .conn()
        .execute_batch(
            "CREATE TRIGGER refuse_verdicts BEFORE INSERT ON judge_cache \
             BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;",
        )
        .unwrap();
    let judged_by = judge(&store, &profile(&sim, ProviderKind::OpenAi), None);
    let outcome = execute(&mut store, run_id, judged_by, &CancelToken::new());
    assert_eq!(outcome.status, RunStatus::Done);
    let rows = results(&store, run_id);
    assert_eq!(rows.len(), 3);
    assert!(
        rows.iter()
            .all(|r| r["status"] == "ok" && r["score"].is_number()),
        "{rows:?}"
    );
    let stats = sim.stats();
    assert_eq!(stats.batch_requests, 3);
    let live_judged = stats.calls - stats.by_task.get("insights").copied().unwrap_or(0);
    assert_eq!(
        live_judged, 3,
        "each verdict the cache refused was asked live"
    );
    assert_eq!(
        totals(&store, run_id).calls,
        stats.calls,
        "a verdict asked again live is counted once, as the live call"
    );
    let batch = store::judge_batches::for_run(store.conn(), run_id).unwrap()[0].id;
    assert_eq!(
        store::judge_batches::miss_count(store.conn(), batch).unwrap(),
        3
    );
}

#[test]
fn an_anthropic_batch_with_expired_requests_completes_with_those_asked_live() {
    let sim = sim(BatchRules {
        polls_in_progress: 2,
        expire_last: 2,
        ..BatchRules::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let dataset_id = dataset(&mut store, dir.path(), 6, None);
    let run_id = plan(&mut store, dataset_id, ONE_TASK, true);
    let judged_by = judge(&store, &profile(&sim, ProviderKind::Anthropic), None);
    let outcome = execute(&mut store, run_id, judged_by, &CancelToken::new());
    assert_eq!(outcome.status, RunStatus::Done);
    assert!(results(&store, run_id).iter().all(|r| r["status"] == "ok"));
    let stats = sim.stats();
    assert!(stats
        .requests_seen
        .iter()
        .any(|r| r.starts_with("POST /v1/messages/batches")));
    assert_eq!(stats.batch_requests, 6);
    let live_judged = stats.calls - stats.by_task.get("insights").copied().unwrap_or(0);
    assert_eq!(live_judged, 2, "the two expired requests, asked live");
    let row = &store::judge_batches::for_run(store.conn(), run_id).unwrap()[0];
    assert_eq!(
        (row.provider.as_str(), row.status.as_str(), row.completed),
        ("anthropic", "ended", 4)
    );
}

/// Cancels the run once a batch was submitted.
struct CancelAfterSubmit(CancelToken);

impl ProgressSink for CancelAfterSubmit {
    fn report(&self, event: Progress) {
        if matches!(&event, Progress::Notice { message } if message.contains("submitted")) {
            self.0.cancel();
        }
    }
}

#[test]
fn a_run_stopped_while_its_batch_waits_resumes_it_without_submitting_again() {
    let sim = sim(BatchRules {
        polls_in_progress: 1_000_000,
        ..BatchRules::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let dataset_id = dataset(&mut store, dir.path(), 4, None);
    let run_id = plan(&mut store, dataset_id, ONE_TASK, true);
    let profile = profile(&sim, ProviderKind::OpenAi);
    let cancel = CancelToken::new();
    let judged_by = judge(&store, &profile, None);
    let stopped = run::execute(
        &mut store,
        run_id,
        judged_by,
        Arc::new(CancelAfterSubmit(cancel.clone())),
        &cancel,
    )
    .unwrap();
    assert_eq!(stopped.status, RunStatus::Cancelled);
    let waiting =
        store::judge_batches::waiting(store.conn(), &store::judge_batches::BatchOwner::Run(run_id))
            .unwrap();
    assert_eq!(waiting.len(), 1, "the batch id was stored before waiting");
    assert!(store::results::done_pairs(store.conn(), run_id)
        .unwrap()
        .is_empty());

    sim.set_faults(FaultRules::default());
    let judged_by = judge(&store, &profile, None);
    let resumed = execute(&mut store, run_id, judged_by, &CancelToken::new());
    assert_eq!(resumed.status, RunStatus::Done);
    let stats = sim.stats();
    assert_eq!(
        (
            stats.batches_created,
            stats.batch_repeats,
            stats.batch_requests
        ),
        (1, 0, 4),
        "picked up, not sent again"
    );
    assert_eq!(
        stats.calls,
        stats.by_task.get("insights").copied().unwrap_or(0),
        "nothing judged live"
    );
    assert_eq!(results(&store, run_id).len(), 4);
    assert_eq!(
        totals(&store, run_id).calls,
        4 + stats.calls,
        "each batch answer counted once"
    );
}

#[test]
fn a_batch_that_failed_whole_stops_the_run_and_a_resume_submits_it_again() {
    let sim = sim(BatchRules {
        fail_batch: true,
        ..BatchRules::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let dataset_id = dataset(&mut store, dir.path(), 3, None);
    let run_id = plan(&mut store, dataset_id, ONE_TASK, true);
    let profile = profile(&sim, ProviderKind::OpenAi);
    let judged_by = judge(&store, &profile, None);
    let failed = run::execute(
        &mut store,
        run_id,
        judged_by,
        Arc::new(NoProgress),
        &CancelToken::new(),
    );
    let message = failed
        .expect_err("a failed batch stops the run")
        .to_string();
    assert!(
        message.contains("did not run") && message.contains("resume"),
        "{message}"
    );
    assert_eq!(
        store::runs::get(store.conn(), run_id).unwrap().status,
        RunStatus::Failed
    );
    assert_eq!(
        sim.stats().calls,
        0,
        "nothing was sent live behind the user's back"
    );

    sim.set_faults(FaultRules::default());
    let judged_by = judge(&store, &profile, None);
    let resumed = execute(&mut store, run_id, judged_by, &CancelToken::new());
    assert_eq!(resumed.status, RunStatus::Done);
    assert_eq!(sim.stats().batches_created, 2);
    assert!(results(&store, run_id).iter().all(|r| r["status"] == "ok"));
}

/// Every file of the store's database (the main file, its WAL and shared memory).
fn database_bytes(store: &Store) -> Vec<u8> {
    let mut bytes = Vec::new();
    for suffix in ["", "-wal", "-shm"] {
        let path = format!("{}{suffix}", store.path().display());
        bytes.extend(std::fs::read(path).unwrap_or_default());
    }
    bytes
}

#[test]
fn in_batch_mode_the_key_travels_only_in_its_header_and_never_reaches_the_database() {
    const KEY: &str = "sk-batch-secret-0042";
    for kind in [ProviderKind::OpenAi, ProviderKind::Anthropic] {
        let sim = Simulator::start(SimConfig {
            watch_key: Some(KEY.into()),
            require_key: Some(KEY.into()),
            ..SimConfig::default()
        })
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let dataset_id = dataset(&mut store, dir.path(), 3, None);
        let run_id = plan(&mut store, dataset_id, ONE_TASK, true);
        let cache = Arc::new(ragnosis_core::judge::shelf::open_cache(store.path()).unwrap());
        let options = JudgeOptions {
            batch_poll: Some(PollPolicy {
                first: Duration::from_millis(10),
                max: Duration::from_millis(10),
            }),
            ..JudgeOptions::default()
        };
        let key = ragnosis_core::secrets::ApiKey::new(KEY);
        let judged_by: Arc<dyn Judge> = Arc::new(
            LlmJudge::with_options(&profile(&sim, kind), key, Some(cache), options).unwrap(),
        );
        let outcome = execute(&mut store, run_id, judged_by, &CancelToken::new());
        assert_eq!(outcome.status, RunStatus::Done, "{kind:?}");
        let stats = sim.stats();
        assert_eq!(
            (stats.batch_requests, stats.unauthorised),
            (3, 0),
            "{kind:?}: every batch call carried the key"
        );
        assert_eq!(
            stats.key_leaks, 0,
            "{kind:?}: not in a request file, a body or a URL"
        );
        let db = database_bytes(&store);
        assert!(
            !db.windows(KEY.len()).any(|w| w == KEY.as_bytes()),
            "{kind:?}: the key is nowhere in the database"
        );
    }
}

#[test]
fn an_items_own_criteria_go_in_one_batch_round() {
    let sim = sim(BatchRules::default());
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let dataset_id = dataset(&mut store, dir.path(), 3, None);
    for (name, question) in [
        ("polite", "Is the answer polite to the customer?"),
        ("dated", "Does the answer say when the shipment left?"),
    ] {
        let def: ragnosis_core::criteria::Definition =
            serde_json::from_value(serde_json::json!({"name": name, "question": question}))
                .unwrap();
        store::criteria::save(store.conn(), &def).unwrap();
    }
    let run_id = plan(
        &mut store,
        dataset_id,
        &["criteria.polite", "criteria.dated"],
        true,
    );
    let judged_by = judge(&store, &profile(&sim, ProviderKind::OpenAi), None);
    let outcome = execute(&mut store, run_id, judged_by, &CancelToken::new());
    assert_eq!(outcome.status, RunStatus::Done);
    let stats = sim.stats();
    assert_eq!(
        (stats.batches_created, stats.batch_requests),
        (1, 6),
        "both criteria of every item in the first batch, not one round per criterion"
    );
    let rows = results(&store, run_id);
    assert_eq!(rows.len(), 6);
    assert!(rows.iter().all(|r| r["status"] == "ok"), "{rows:?}");
}

/// The judge check of a fresh judge (own cache) against its own simulator.
fn check(batch: bool, rules: BatchRules) -> (JudgeCheck, SimStats, Store, tempfile::TempDir) {
    let sim = sim(rules);
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let judged_by = judge(&store, &profile(&sim, ProviderKind::OpenAi), None);
    let progress: Arc<dyn ProgressSink> = Arc::new(NoProgress);
    let cancel = CancelToken::new();
    let check = match batch {
        true => judge_check::run_in_batches(&mut store, "sim", judged_by, progress, &cancel),
        false => judge_check::run("sim", judged_by, progress, &cancel),
    }
    .unwrap();
    (check, sim.stats(), store, dir)
}

#[test]
fn a_judge_check_in_batches_gives_the_live_figures_with_only_the_repeat_probe_asked_live() {
    let (live, live_stats, _, _live_dir) = check(false, BatchRules::default());
    let (batched, stats, store, _dir) = check(true, BatchRules::default());
    assert!(
        live.tasks.iter().all(|t| t.errors == 0 && t.n > 0),
        "{live:?}"
    );
    // Figures and counts; not the bootstrap intervals, which depend on the order the
    // cases finished in.
    let figures = |c: &JudgeCheck| -> Vec<(String, u64, u64, Option<f64>)> {
        c.tasks
            .iter()
            .map(|t| {
                let value = t.estimate.map(|e| e.value);
                (format!("{:?}", t.task), t.n, t.errors, value)
            })
            .collect()
    };
    assert_eq!(
        figures(&batched),
        figures(&live),
        "the same figures, task by task"
    );
    assert_eq!(batched.diagnosis, live.diagnosis);
    let probes = |c: &JudgeCheck| {
        let c = c.certificate.clone().unwrap();
        (c.confusion, c.repeat, c.passage_order, c.padding)
    };
    assert_eq!(probes(&batched), probes(&live));
    assert!(
        stats.batches_created >= 2,
        "claims first, then their labels"
    );
    assert_eq!(stats.batch_repeats, 0, "no request sent in a batch twice");
    // Within a few calls: a request the batch did not answer usably (one of the sample's,
    // with this simulator) is asked again live, so it counts twice here.
    // Tasks, not calls: the live check asks an item's independent tasks in one call.
    let asked = stats.batch_requests + stats.calls;
    let live_tasks: u64 = live_stats.by_task.values().sum();
    assert!(
        asked.abs_diff(live_tasks) * 100 <= live_tasks,
        "every task of the live check was asked once, in a batch or live: {asked} against {live_tasks}"
    );
    assert!(
        stats.calls > 0 && stats.calls * 10 < stats.batch_requests,
        "live: only the repeat probe, which bypasses the cache ({} live, {} in batches)",
        stats.calls,
        stats.batch_requests
    );
    let share = batched.accounting.cost_usd / live.accounting.cost_usd;
    assert!(
        (0.45..0.65).contains(&share),
        "the check's cost counts its batches at half price: {} of {}",
        batched.accounting.cost_usd,
        live.accounting.cost_usd
    );
    let owner = BatchOwner::Check {
        judge: batched.judge_config.clone(),
    };
    assert!(
        store::judge_batches::for_owner(store.conn(), &owner)
            .unwrap()
            .is_empty(),
        "a finished check forgets its batches"
    );
}

#[test]
fn a_judge_check_cancelled_while_its_batch_waits_picks_the_batch_up_when_run_again() {
    let sim = sim(BatchRules {
        polls_in_progress: 1_000_000,
        ..BatchRules::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let profile = profile(&sim, ProviderKind::OpenAi);
    let cancel = CancelToken::new();
    let stopped = std::thread::scope(|s| {
        let watcher = s.spawn(|| {
            while sim.stats().batch_polls < 2 {
                std::thread::sleep(Duration::from_millis(5));
            }
            cancel.cancel();
        });
        let judged_by = judge(&store, &profile, None);
        let out = judge_check::run_in_batches(
            &mut store,
            "sim",
            judged_by,
            Arc::new(NoProgress),
            &cancel,
        );
        watcher.join().unwrap();
        out
    });
    assert!(
        matches!(stopped, Err(ragnosis_core::error::Error::Cancelled)),
        "{stopped:?}"
    );
    let judged_by = judge(&store, &profile, None);
    let owner = BatchOwner::Check {
        judge: judged_by.identity().config_key(),
    };
    let waiting = store::judge_batches::waiting(store.conn(), &owner).unwrap();
    assert_eq!(waiting.len(), 1, "the batch id was stored before the wait");
    assert_eq!((sim.stats().batches_created, sim.stats().calls), (1, 0));

    sim.set_faults(FaultRules::default());
    let check = judge_check::run_in_batches(
        &mut store,
        "sim",
        judged_by,
        Arc::new(NoProgress),
        &CancelToken::new(),
    )
    .unwrap();
    let stats = sim.stats();
    assert_eq!(
        stats.batch_repeats, 0,
        "the waiting batch was not sent again"
    );
    assert!(stats.batches_created >= 2, "then the labels' round");
    assert!(
        check.tasks.iter().all(|t| t.errors == 0 && t.n > 0),
        "{check:?}"
    );
    assert!(store::judge_batches::for_owner(store.conn(), &owner)
        .unwrap()
        .is_empty());
}
