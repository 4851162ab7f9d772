//! Evaluation runs: planning (which items, which metrics) and execution.
//!
//! Owns: item selection (limit / seeded sample), the run row's lifecycle, evaluating
//! items concurrently through `engine`, committing results as items complete, resume,
//! cancel, budget. Must not: format output, or reach a judge except through the `Judge`
//! it is given. Resume is the same code path as a first execution: it skips every
//! (item, metric) that already has a stored result.

pub mod agentic;
pub mod asking;
pub(crate) mod batch;
pub mod criteria;
pub mod engine;
mod health;
pub mod owner;
pub mod phases;
mod preview;
mod select;
pub mod shortened;
mod verdicts;
mod writer;

pub use health::JudgeDown;
pub use preview::{estimate, preview, CascadeOffer, Preview};

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::task::JoinSet;

use crate::analysis;
use crate::error::{Error, Result};
use crate::judge::task::CorrectnessExample;
use crate::judge::{CallContext, Judge};
use crate::metrics::overall::WeightProfile;
use crate::metrics::{self, MetricConfig, MetricResult, MetricSpec, Scope};
use crate::progress::{CancelToken, Progress, ProgressSink};
use crate::store::{self, runs::RunStatus, Store};

pub use agentic::Mode;
pub use asking::Accounting;
pub use batch::waiting_sentence;
pub use phases::EngineSettings;
pub use select::Selection;

/// Commit at least this often while a run is going, whichever comes first.
const COMMIT_EVERY_ITEMS: usize = 512;
const COMMIT_EVERY: Duration = Duration::from_millis(250);
/// Items loaded from SQLite at a time.
const LOAD_CHUNK: usize = 512;

/// Everything needed to plan a run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunRequest {
    pub dataset_id: i64,
    pub mode: Mode,
    /// Metric ids, bare names or family names, as the user typed them (manual mode).
    pub metrics: Vec<String>,
    pub label: Option<String>,
    pub version: Option<String>,
    pub notes: Option<String>,
    pub selection: Selection,
    pub metric_config: MetricConfig,
    /// The judge profile's name; "offline" for the built-in judge.
    pub judge: String,
    pub weights: WeightProfile,
    pub tau: Option<f64>,
    /// Stop launching judge calls once the run's cost would pass this many USD.
    pub budget_usd: Option<f64>,
    pub use_cache: bool,
    /// Scored examples for answer correctness; the shipped set unless the user gives a
    /// file (`--few-shot`, Settings).
    pub few_shot: Vec<CorrectnessExample>,
    /// Batch mode (`run::batch`): half price, results within 24 h.
    #[serde(default)]
    pub batch: bool,
}

impl Default for RunRequest {
    fn default() -> Self {
        RunRequest {
            dataset_id: 0,
            mode: Mode::Manual,
            metrics: Vec::new(),
            label: None,
            version: None,
            notes: None,
            selection: Selection::default(),
            metric_config: MetricConfig::default(),
            judge: "offline".into(),
            weights: WeightProfile::default(),
            tau: None,
            budget_usd: None,
            use_cache: true,
            few_shot: crate::judge::few_shot::default_examples(),
            batch: false,
        }
    }
}

/// What a run row keeps so that resume computes exactly what was planned.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunConfig {
    pub mode: Mode,
    pub metric_config: MetricConfig,
    pub selection: Selection,
    pub weights: WeightProfile,
    pub tau: Option<f64>,
    pub budget_usd: Option<f64>,
    pub use_cache: bool,
    /// Kept with the run so a resume shows the judge the same examples. Runs stored
    /// before correctness existed read as none.
    #[serde(default)]
    pub few_shot: Vec<CorrectnessExample>,
    /// The version of each of the user's criteria the run scores, whole: a resume asks
    /// the same question, a report quotes it, compare tells versions apart.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub criteria: Vec<crate::criteria::Versioned>,
    /// Batch mode, kept so a resume picks the run's waiting batches up.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub batch: bool,
}

/// Totals over every execution of a run (a resumed run adds to them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RunTotals {
    pub calls: u64,
    pub cache_hits: u64,
    pub failures: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: f64,
    pub seconds: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunOutcome {
    pub run_id: i64,
    pub status: RunStatus,
    /// Results written by this execution (not counting ones already stored).
    pub written: u64,
    /// Cells found already stored and not recomputed (resume).
    pub reused: u64,
    pub accounting: Accounting,
    /// Set when the run stopped because the judge failed on every call (status failed).
    pub judge_down: Option<JudgeDown>,
}

/// The metrics a request selects, in catalogue order, then the user's criteria
/// (`criteria::select`).
pub fn selected_metrics(store: &Store, request: &RunRequest) -> Result<Vec<&'static MetricSpec>> {
    criteria::select(store, request.mode, &request.metrics)
}

/// Creates a run: resolves metrics, selects items, stores both. Nothing is computed.
pub fn plan(store: &mut Store, request: &RunRequest) -> Result<i64> {
    batch::check(request)?;
    let specs = selected_metrics(store, request)?;
    let own = criteria::versions_for(store, &specs)?;
    let metric_ids: Vec<String> = specs.iter().map(|m| m.id.to_string()).collect();
    store::datasets::get_ready(store.conn(), request.dataset_id)?;
    let chosen = request
        .selection
        .apply(&store::items::ids(store.conn(), request.dataset_id)?);
    if chosen.is_empty() {
        return Err(Error::Invalid(format!(
            "dataset {} has no items to evaluate",
            request.dataset_id
        )));
    }
    let config = serde_json::to_value(RunConfig {
        mode: request.mode,
        metric_config: request.metric_config.clone(),
        selection: request.selection.clone(),
        weights: request.weights.clone(),
        tau: request.tau,
        budget_usd: request.budget_usd,
        use_cache: request.use_cache,
        few_shot: request.few_shot.clone(),
        criteria: own,
        batch: request.batch,
    })?;
    store.transaction(|tx| {
        let run_id = store::runs::insert(
            tx,
            &store::runs::NewRun {
                dataset_id: request.dataset_id,
                label: request.label.as_deref(),
                version: request.version.as_deref(),
                notes: request.notes.as_deref(),
                mode: request.mode.as_str(),
                metrics: &metric_ids,
                judge: &request.judge,
                config: &config,
                item_count: chosen.len() as i64,
            },
        )?;
        store::run_items::insert_all(tx, run_id, &chosen)?;
        Ok(run_id)
    })
}

pub fn run_config(run: &store::runs::RunRow) -> Result<RunConfig> {
    serde_json::from_value(run.config.clone()).map_err(|e| {
        Error::Invalid(format!(
            "run {} has an unreadable configuration: {e}",
            run.id
        ))
    })
}

/// How the message of a run done with cells left as errors opens; a resume retries them.
pub const DONE_WITH_ERRORS: &str = "done with errors";

impl RunOutcome {
    /// A run that has nothing (more) to evaluate: done, nothing written or reused.
    fn nothing_to_do(run_id: i64) -> RunOutcome {
        RunOutcome {
            run_id,
            status: RunStatus::Done,
            written: 0,
            reused: 0,
            accounting: Accounting::default(),
            judge_down: None,
        }
    }
}

/// The run's per-item metrics that are still in the catalogue.
fn item_specs(run: &store::runs::RunRow) -> Vec<&'static MetricSpec> {
    run.metrics
        .iter()
        .filter_map(|id| metrics::find(id))
        .filter(|m| m.scope == Scope::Item)
        .collect()
}

/// Adds this execution's calls and seconds to the run's stored totals.
fn record_totals(
    store: &Store,
    run_id: i64,
    outcome: &Result<RunOutcome>,
    started: Instant,
) -> Result<()> {
    let mut totals: RunTotals = store::runs::totals(store.conn(), run_id)?;
    if let Ok(o) = outcome {
        add_accounting(&mut totals, &o.accounting);
    }
    totals.seconds += started.elapsed().as_secs_f64();
    store::runs::set_totals(store.conn(), run_id, &serde_json::to_value(totals)?)
}

/// How the evaluation ended and why, when it did not simply finish: cancelled by the
/// user, stopped by a judge that is down or by the budget, or failed.
fn ended_status(
    outcome: &Result<RunOutcome>,
    cancel: &CancelToken,
    config: &RunConfig,
) -> (RunStatus, Option<String>) {
    match outcome {
        Ok(o) if o.status == RunStatus::Cancelled && cancel.is_cancelled() => {
            (o.status, Some("cancelled by the user".to_string()))
        }
        Ok(RunOutcome {
            judge_down: Some(down),
            ..
        }) => (RunStatus::Failed, Some(down.message.clone())),
        Ok(o) if o.status == RunStatus::Cancelled => (
            o.status,
            Some(format!(
                "stopped: the budget of ${:.2} would be exceeded",
                config.budget_usd.unwrap_or(0.0)
            )),
        ),
        Ok(o) => (o.status, None),
        Err(e) => (RunStatus::Failed, Some(e.to_string())),
    }
}

/// The run's statistics and insights; the insights call is added to what the run cost.
fn summarize_with_insights(
    store: &mut Store,
    run_id: i64,
    runtime: &tokio::runtime::Runtime,
    judge: &dyn Judge,
    ctx: &CallContext,
    progress: &dyn ProgressSink,
) -> Result<()> {
    progress.report(Progress::Started {
        stage: "statistics".into(),
        total: None,
    });
    let summary = analysis::summarize_and_store(store, run_id)?;
    progress.report(Progress::Started {
        stage: "insights".into(),
        total: None,
    });
    let (_, spent) = runtime.block_on(analysis::insights::write(store, &summary, judge, ctx))?;
    // The insights call is part of what the run cost.
    if let Some((usage, cost)) = spent {
        let mut totals: RunTotals = store::runs::totals(store.conn(), run_id)?;
        add_accounting(
            &mut totals,
            &Accounting {
                calls: 1,
                input_tokens: usage.input_tokens,
                output_tokens: usage.output_tokens,
                cost_usd: cost,
                ..Accounting::default()
            },
        );
        store::runs::set_totals(store.conn(), run_id, &serde_json::to_value(totals)?)?;
    }
    Ok(())
}

/// Marks the run done, not silently: how many cells the judge could not score, and that
/// a resume retries them.
fn mark_done(store: &Store, run_id: i64) -> Result<()> {
    let errors = store::results::error_pairs(store.conn(), run_id)?.len();
    let message = (errors > 0).then(|| {
        format!(
            "{DONE_WITH_ERRORS}: {errors} result{} could not be scored; resume the run to retry them",
            if errors == 1 { "" } else { "s" }
        )
    });
    store::runs::mark_ended(store.conn(), run_id, RunStatus::Done, message.as_deref())
}

/// Evaluates every missing cell of a run with `judge`, committing as items complete,
/// then computes its statistics. A cancelled or over-budget run stops launching items,
/// commits what finished, and stays resumable. Ownership, cancel, budget and the final
/// status are decided here so that a stop is recorded once.
pub fn execute(
    store: &mut Store,
    run_id: i64,
    judge: Arc<dyn Judge>,
    progress: Arc<dyn ProgressSink>,
    cancel: &CancelToken,
) -> Result<RunOutcome> {
    let run = store::runs::get(store.conn(), run_id)?;
    // A run done with errors is executed again for its error cells only (every ok
    // result is kept); one done without errors has nothing left to do.
    if run.status == RunStatus::Done
        && store::results::error_pairs(store.conn(), run_id)?.is_empty()
    {
        return Ok(RunOutcome::nothing_to_do(run_id));
    }
    // Held until this function returns: another process sees the run as evaluating,
    // and a process killed mid-run leaves it interrupted, not running forever.
    let _owner = owner::claim(store, run_id)?;
    let config = run_config(&run)?;
    let specs = item_specs(&run);
    store::runs::mark_started(store.conn(), run_id)?;
    let started = Instant::now();
    let runtime = worker_runtime("the run")?;
    let outcome = runtime.block_on(evaluate_pending(
        store,
        run_id,
        &specs,
        &config,
        judge.clone(),
        progress.clone(),
        cancel,
    ));
    record_totals(store, run_id, &outcome, started)?;
    let (status, message) = ended_status(&outcome, cancel, &config);
    if status != RunStatus::Done {
        store::runs::mark_ended(store.conn(), run_id, status, message.as_deref())?;
        return outcome;
    }
    let ctx = call_context(&progress, cancel, &config);
    summarize_with_insights(
        store,
        run_id,
        &runtime,
        judge.as_ref(),
        &ctx,
        progress.as_ref(),
    )?;
    mark_done(store, run_id)?;
    // The case list's indexes are built here, while the user still watches a progress
    // bar, not on the first open of the Results screen (seconds on a large run). Never
    // fatal: the case list builds what is missing on demand.
    progress.report(Progress::Started {
        stage: "indexing cases".into(),
        total: None,
    });
    let _ = crate::cases::prepare(store, run_id);
    progress.report(Progress::Finished {
        stage: "run".into(),
    });
    outcome
}

/// The runtime judge calls run on: two worker threads (the machines Ragnosis targets
/// have few cores; the judge's own concurrency limit does the rest). `what` names the job
/// in the error.
pub(crate) fn worker_runtime(what: &str) -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::Invalid(format!("cannot start {what}'s worker threads: {e}")))
}

fn add_accounting(totals: &mut RunTotals, a: &Accounting) {
    totals.calls += a.calls;
    totals.cache_hits += a.cache_hits;
    totals.failures += a.failures;
    totals.input_tokens += a.input_tokens;
    totals.output_tokens += a.output_tokens;
    totals.cost_usd += a.cost_usd;
}

/// One item's remaining work.
struct Job {
    item_id: i64,
    item: crate::item::Item,
    metrics: Vec<&'static MetricSpec>,
    /// Agentic: metrics not chosen for this item, with the reason, stored as skipped.
    not_chosen: Vec<MetricResult>,
    reasons: Vec<(&'static str, String)>,
}

/// Which item each task evaluates, so a crashed task still yields that item's results.
type Launched = std::collections::HashMap<tokio::task::Id, (i64, Vec<&'static str>)>;

/// What the engine needs beside the judge, from the run's configuration.
fn engine_settings(config: &RunConfig) -> Arc<EngineSettings> {
    Arc::new(EngineSettings {
        metric_config: config.metric_config.clone(),
        tau: config.tau,
        weights: config.weights.clone(),
        few_shot: config.few_shot.clone(),
        criteria: config.criteria.clone(),
    })
}

/// Loads one chunk of items as jobs (cells already stored are counted as reused);
/// returns how many items have nothing left to evaluate.
fn load_jobs(
    store: &Store,
    chunk: &[i64],
    specs: &[&'static MetricSpec],
    mode: Mode,
    done: &std::collections::HashSet<(i64, String)>,
    reused: &mut u64,
    loaded: &mut std::collections::VecDeque<Job>,
) -> Result<u64> {
    let mut finished = 0u64;
    for stored in store::items::get_many(store.conn(), chunk)? {
        let job = job_for(stored, specs, mode, done, reused);
        if job.metrics.is_empty() && job.not_chosen.is_empty() {
            finished += 1; // everything stored already
        } else {
            loaded.push_back(job);
        }
    }
    Ok(finished)
}

/// Starts evaluating one item on its own task, remembering which item the task holds.
fn launch(
    in_flight: &mut JoinSet<Finished>,
    launched: &mut Launched,
    job: Job,
    judge: &Arc<dyn Judge>,
    ctx: &CallContext,
    settings: &Arc<EngineSettings>,
) {
    let (judge, ctx, settings) = (judge.clone(), ctx.clone(), settings.clone());
    let ids: Vec<&'static str> = job.metrics.iter().map(|m| m.id).collect();
    let item_id = job.item_id;
    let handle = in_flight.spawn(async move {
        let result = engine::evaluate_item(
            job.item_id,
            &job.item,
            &job.metrics,
            judge.as_ref(),
            &ctx,
            &settings,
        )
        .await;
        (result, job.not_chosen, job.reasons)
    });
    launched.insert(handle.id(), (item_id, ids));
}

/// The context of the run's judge calls: its progress, its cancel, and whether the cache
/// is used.
fn call_context(
    progress: &Arc<dyn ProgressSink>,
    cancel: &CancelToken,
    config: &RunConfig,
) -> CallContext {
    CallContext {
        progress: progress.clone(),
        cancel: cancel.clone(),
        use_cache: config.use_cache,
    }
}

/// Adds a finished item's calls to the outcome and watches the judge's health on it;
/// true when the judge is found down with this item (the run then stops launching).
fn account_for(
    item: &Finished,
    outcome: &mut RunOutcome,
    health: &mut health::JudgeHealth,
) -> bool {
    outcome.accounting.add(&item.0.accounting);
    health.observe(&item.0.results);
    if outcome.judge_down.is_none() {
        outcome.judge_down = health.down();
        return outcome.judge_down.is_some();
    }
    false
}

/// Whether the finished items are written now: enough of them, enough time since the
/// last commit, or nothing left in flight.
fn commit_due(pending: usize, last_commit: Instant, nothing_in_flight: bool) -> bool {
    pending >= COMMIT_EVERY_ITEMS || last_commit.elapsed() >= COMMIT_EVERY || nothing_in_flight
}

/// Writes the last finished items and waits for the writer; returns how many results it
/// wrote in all.
fn write_the_rest(writer: &mut writer::ResultWriter, pending: &mut Vec<Finished>) -> Result<u64> {
    writer.send(pending)?;
    writer.finish()
}

/// A finished task's item; a task that panicked gives its item's metrics as errors.
fn joined_item(
    joined: std::result::Result<(tokio::task::Id, Finished), tokio::task::JoinError>,
    launched: &mut Launched,
) -> Finished {
    match joined {
        Ok((id, item)) => {
            launched.remove(&id);
            item
        }
        Err(e) => {
            let (item_id, ids) = launched.remove(&e.id()).unwrap_or_default();
            crashed_item(item_id, &ids, &e)
        }
    }
}

/// The run's progress: items finished, then calls, cache hits, failures and spend.
fn report_progress(progress: &dyn ProgressSink, finished: u64, total: u64, acc: &Accounting) {
    progress.report(Progress::Advanced {
        done: finished,
        total: Some(total),
    });
    progress.report(Progress::Totals {
        calls: acc.calls,
        cache_hits: acc.cache_hits,
        failures: acc.failures,
        cost_usd: acc.cost_usd,
    });
}

/// The run's scheduling loop: items loaded in chunks and launched while there is room,
/// each finished one written in batches, until the work runs out or a stop (cancel,
/// budget, a judge that is down).
async fn evaluate_pending(
    store: &mut Store,
    run_id: i64,
    specs: &[&'static MetricSpec],
    config: &RunConfig,
    judge: Arc<dyn Judge>,
    progress: Arc<dyn ProgressSink>,
    cancel: &CancelToken,
) -> Result<RunOutcome> {
    let batched = batch::first(store, run_id, specs, config, &judge, &progress, cancel);
    if let Some(stopped) = batched.await? {
        return Ok(stopped);
    }
    let item_ids = store::run_items::item_ids(store.conn(), run_id)?;
    let done = store::results::done_pairs(store.conn(), run_id)?;
    let total = item_ids.len() as u64;
    progress.report(Progress::Started {
        stage: "evaluating".into(),
        total: Some(total),
    });
    let settings = engine_settings(config);
    let ctx = call_context(&progress, cancel, config);
    let parallel = (judge_parallelism(judge.as_ref()) * 2).max(4);

    let mut outcome = RunOutcome::nothing_to_do(run_id);
    // Cells whose stored error this execution retries (a resume).
    let retried = store::results::error_pairs(store.conn(), run_id)?;
    let mut writer = writer::ResultWriter::start(store, run_id, retried)?;
    let mut health = health::JudgeHealth::default();
    let mut finished = 0u64;
    let mut in_flight: JoinSet<Finished> = JoinSet::new();
    let mut pending_writes: Vec<Finished> = Vec::new();
    let mut last_commit = Instant::now();
    let mut queue = item_ids.chunks(LOAD_CHUNK);
    let mut loaded: std::collections::VecDeque<Job> = Default::default();
    let mut stopped = false;
    let mut launched = Launched::default();

    loop {
        // Launch while there is room, work, and no reason to stop.
        while !stopped && in_flight.len() < parallel {
            if cancel.is_cancelled()
                || over_budget(config, &outcome.accounting, finished, in_flight.len())
            {
                stopped = true;
                break;
            }
            if loaded.is_empty() {
                let Some(chunk) = queue.next() else { break };
                let reused = &mut outcome.reused;
                finished +=
                    load_jobs(store, chunk, specs, config.mode, &done, reused, &mut loaded)?;
                continue;
            }
            let job = loaded.pop_front().unwrap();
            launch(&mut in_flight, &mut launched, job, &judge, &ctx, &settings);
        }
        let Some(joined) = in_flight.join_next_with_id().await else {
            break;
        };
        let item = joined_item(joined, &mut launched);
        stopped |= account_for(&item, &mut outcome, &mut health);
        pending_writes.push(item);
        finished += 1;
        if commit_due(pending_writes.len(), last_commit, in_flight.is_empty()) {
            writer.send(&mut pending_writes)?;
            last_commit = Instant::now();
            report_progress(progress.as_ref(), finished, total, &outcome.accounting);
        }
    }
    outcome.written += write_the_rest(&mut writer, &mut pending_writes)?;
    progress.report(Progress::Advanced {
        done: finished,
        total: Some(total),
    });
    if stopped || finished < total {
        outcome.status = RunStatus::Cancelled;
    }
    Ok(outcome)
}

fn judge_parallelism(judge: &dyn Judge) -> usize {
    if judge.identity().is_offline() {
        4
    } else {
        judge.concurrency().max(1)
    }
}

/// True when launching one more item would likely pass the budget: cost so far plus
/// the average cost per finished item for each item in flight and the next one.
fn over_budget(config: &RunConfig, acc: &Accounting, finished: u64, in_flight: usize) -> bool {
    let Some(budget) = config.budget_usd else {
        return false;
    };
    let per_item = if finished > 0 {
        acc.cost_usd / finished as f64
    } else {
        0.0
    };
    acc.cost_usd + per_item * (in_flight as f64 + 1.0) > budget
}

fn job_for(
    stored: store::items::StoredItem,
    specs: &[&'static MetricSpec],
    mode: Mode,
    done: &std::collections::HashSet<(i64, String)>,
    reused: &mut u64,
) -> Job {
    let mut job = Job {
        item_id: stored.id,
        item: stored.item,
        metrics: Vec::new(),
        not_chosen: Vec::new(),
        reasons: Vec::new(),
    };
    for spec in specs {
        if done.contains(&(job.item_id, spec.id.to_string())) {
            *reused += 1;
            continue;
        }
        if mode == Mode::Manual {
            job.metrics.push(spec);
            continue;
        }
        let (chosen, reason) = agentic::choose(spec, &job.item);
        if chosen {
            job.metrics.push(spec);
            job.reasons.push((spec.id, reason));
        } else {
            job.not_chosen.push(MetricResult::skipped(spec.id, reason));
        }
    }
    job
}

/// An evaluated item waiting to be stored: its outcome, the metrics the agent did not
/// choose for it (stored as skipped), and why each was chosen or not.
type Finished = (
    engine::ItemOutcome,
    Vec<MetricResult>,
    Vec<(&'static str, String)>,
);

/// A task that panicked: every metric it was computing becomes an error for its item,
/// and the run goes on.
fn crashed_item(item_id: i64, metric_ids: &[&'static str], e: &tokio::task::JoinError) -> Finished {
    // JoinError reads "task 12 panicked with message \"...\"": keep only the message so
    // identical failures group together.
    let text = e.to_string();
    let why = text
        .split_once("with message ")
        .map(|(_, m)| m.trim_matches('"').to_string())
        .unwrap_or(text);
    let results = metric_ids
        .iter()
        .map(|id| {
            MetricResult::error(
                id,
                format!("internal error while evaluating this item: {why}"),
            )
        })
        .collect();
    (
        engine::ItemOutcome {
            item_id,
            results,
            judge_config: String::new(),
            prompt_version: None,
            metric_versions: Vec::new(),
            accounting: Accounting::default(),
        },
        Vec::new(),
        Vec::new(),
    )
}

/// Plans and executes in one step (what `ragnosis eval` does).
pub fn evaluate(
    store: &mut Store,
    request: &RunRequest,
    judge: Arc<dyn Judge>,
    progress: Arc<dyn ProgressSink>,
    cancel: &CancelToken,
) -> Result<RunOutcome> {
    let run_id = plan(store, request)?;
    execute(store, run_id, judge, progress, cancel)
}
