//! Runs: the metric catalogue, a request's plan before it starts, starting a run (in the
//! background for the window, in the foreground for the CLI), resuming, cancelling,
//! re-judging a finished run (calibration, repeats), the run history and one run's
//! summary. Must not print or draw (reports.rs draws).
//!
//! Policies both shells follow:
//! - a request passes `RunRequest::checked` (one set of sentences) before anything is
//!   stored; the few-shot examples are the request's file, else the Settings choice;
//! - the judge is opened before the run is planned, so a missing profile or key leaves
//!   no planned run behind;
//! - resume refuses a finished run, and reads a judge `NAME@TEMP` (what calibration
//!   runs store) as that profile at that temperature;
//! - a run stored as running that no process evaluates is "interrupted" and resumable;
//! - a run not finished is summarised from what it stored, and that summary is never
//!   stored (`analysis::current_summary`);
//! - a run is opened (`open`: its summary and case index stored where missing or stale)
//!   before it is read, and reading it writes nothing.

mod request;
mod view;

use std::collections::hash_map::{Entry, HashMap};
use std::sync::Arc;

use ragnosis_core::analysis;
use ragnosis_core::judge::{open, Judge};
use ragnosis_core::progress::{CancelToken, ProgressSink};
use ragnosis_core::run::{self, owner};
use ragnosis_core::store::{self, runs::RunStatus, Store};
use ragnosis_core::trust::calibration;
use ragnosis_core::view::{ReportOptions, ReportView, RunView};
use ragnosis_core::{metrics, Error, Result};

use crate::jobs::{self, JobKind, JobSink};
use crate::{judges, Ctx};

pub use ragnosis_core::analysis::diagnosis::{uncertainty_note, Diagnosis};
pub use ragnosis_core::analysis::diagnosis::{FailurePattern, Stage};
pub use ragnosis_core::analysis::gate;
pub use ragnosis_core::analysis::insights::RunInsights;
pub use ragnosis_core::judge::plan::JudgePlan;
pub use ragnosis_core::metrics::MetricSpec;
pub use ragnosis_core::run::{Preview, RunOutcome, RunTotals};
pub use ragnosis_core::store::runs::RunRow;
pub use ragnosis_core::store::runs::RunStatus as Status;
pub use ragnosis_core::trust::calibration::Calibration;
pub use request::{Recheck, RunRequest};
pub use view::{RunDetail, RunInfo, RunPlan, SummaryView};

/// The catalogue, then the user's own criteria (`criteria.<name>`). Creates no database.
pub fn metrics(ctx: &Ctx) -> Result<Vec<MetricSpec>> {
    let mut all: Vec<MetricSpec> = metrics::catalogue().to_vec();
    if let Some(store) = ctx.existing_store()? {
        let own = run::criteria::current(&store)?;
        all.extend(own.into_iter().map(|(_, spec)| spec.clone()));
    }
    Ok(all)
}

/// What the run would do: items, metric evaluations, judge calls, tokens, cost, time.
/// Stores nothing.
pub fn preview(ctx: &Ctx, request: &RunRequest) -> Result<RunPlan> {
    let request = request.checked(ctx)?;
    let store = ctx.store()?;
    let profile = open::profile(&store, &request.judge)?;
    Ok(RunPlan::new(
        run::preview(&store, &request, &profile)?,
        profile,
    ))
}

/// A stored run with its judge open, ready to execute.
pub struct PlannedRun {
    /// The stored run's id, for `execute`, progress and `cancel`.
    pub run_id: i64,
    judge: Arc<dyn Judge>,
}

impl PlannedRun {
    /// What the user should know before it starts (the offline judge without its
    /// semantic model), if anything.
    pub fn notice(&self) -> Option<String> {
        judges::semantic_notice(self.judge.as_ref())
    }
}

/// Checks the request, opens its judge, then stores the run (nothing is computed).
pub fn plan(ctx: &Ctx, request: &RunRequest) -> Result<PlannedRun> {
    let request = request.checked(ctx)?;
    let mut store = ctx.store()?;
    let judge = open::open_judge(&store, &request.judge, ctx.secrets())?;
    let run_id = run::plan(&mut store, &request)?;
    Ok(PlannedRun { run_id, judge })
}

/// Opens a stopped run again (cancelled, failed, interrupted), or a run done with errors
/// to retry its failed cells, with its own judge or `judge`; every result already stored
/// ok is kept. A run done without errors is refused.
pub fn reopen(ctx: &Ctx, run_id: i64, judge: Option<&str>) -> Result<PlannedRun> {
    let store = ctx.store()?;
    let run = store::runs::get(store.conn(), run_id)?;
    if run.status == RunStatus::Done
        && store::results::error_pairs(store.conn(), run_id)?.is_empty()
    {
        return Err(Error::Invalid(format!(
            "run {run_id} is done with every result scored: there is nothing to resume"
        )));
    }
    let profile = judges::profile_at(&store, judge.unwrap_or(&run.judge))?;
    let judge = open::open_profile(&store, &profile, ctx.secrets())?;
    Ok(PlannedRun { run_id, judge })
}

/// Executes the run here and now on a connection of its own (the CLI's way), until it
/// is done, cancelled, over budget or its judge is down.
pub fn execute(
    ctx: &Ctx,
    run: PlannedRun,
    progress: Arc<dyn ProgressSink>,
    cancel: &CancelToken,
) -> Result<RunOutcome> {
    let mut store = ctx.own_store()?;
    jobs::on_own_thread("the run", || {
        run::execute(&mut store, run.run_id, run.judge, progress, cancel)
    })
}

/// Plans the run and starts it in the background (the window's way); returns its id at
/// once. Progress goes to `watcher`, ending with one `ended`.
pub fn start(ctx: &Ctx, request: &RunRequest, watcher: Arc<dyn JobSink>) -> Result<i64> {
    let planned = plan(ctx, request)?;
    let run_id = planned.run_id;
    spawn(ctx, planned, watcher)?;
    Ok(run_id)
}

/// `reopen` with the run's own judge, executed in the background as `start` does.
pub fn resume(ctx: &Ctx, run_id: i64, watcher: Arc<dyn JobSink>) -> Result<()> {
    spawn(ctx, reopen(ctx, run_id, None)?, watcher)
}

/// How many of the run's results are errors (cells a resume retries).
pub fn error_count(ctx: &Ctx, run_id: i64) -> Result<usize> {
    Ok(store::results::error_pairs(ctx.store()?.conn(), run_id)?.len())
}

/// Asks a run executing in this process to stop after the items in flight.
pub fn cancel(ctx: &Ctx, run_id: i64) -> Result<()> {
    ctx.jobs().cancel(JobKind::Run, run_id)
}

fn spawn(ctx: &Ctx, run: PlannedRun, watcher: Arc<dyn JobSink>) -> Result<()> {
    let PlannedRun { run_id, judge } = run;
    jobs::spawn(
        ctx,
        JobKind::Run,
        run_id,
        watcher,
        move |store, progress, cancel| {
            let executed = run::execute(store, run_id, judge, progress, cancel);
            let row = store::runs::get(store.conn(), run_id)?;
            Ok(match executed {
                Ok(_) => (row.status.as_str().to_string(), row.message),
                Err(e) => (
                    "failed".to_string(),
                    Some(row.message.unwrap_or_else(|| e.to_string())),
                ),
            })
        },
    )
}

/// Re-judges the finished run `run_id` (planned from `request`) once per configuration
/// of `recheck`, on the same items and metrics, and stores how far the judges agree
/// with the main run.
pub fn recheck(
    ctx: &Ctx,
    run_id: i64,
    request: &RunRequest,
    recheck: &Recheck,
    progress: Arc<dyn ProgressSink>,
    cancel: &CancelToken,
) -> Result<Calibration> {
    // Two statements: the shared connection is locked by each in turn, never both.
    let dataset_id = store::runs::get(ctx.store()?.conn(), run_id)?.dataset_id;
    let request = run::RunRequest {
        dataset_id,
        ..request.checked(ctx)?
    };
    let mut store = ctx.own_store()?;
    let configs = match recheck {
        Recheck::Calibrate(entries) => entries
            .iter()
            .map(|e| judges::profile_at(&store, e))
            .collect::<Result<Vec<_>>>()?,
        Recheck::Repeat(n) => vec![open::profile(&store, &request.judge)?; *n],
    };
    let repeat = matches!(recheck, Recheck::Repeat(_));
    let mut runs = vec![run_id];
    for (k, profile) in configs.iter().enumerate() {
        let config = format!("{}@{}", profile.name, profile.temperature);
        let label = if repeat {
            format!("repeat {} of #{run_id}", k + 2)
        } else {
            format!("calibration of #{run_id} with {config}")
        };
        let child = run::RunRequest {
            judge: config,
            label: Some(label),
            use_cache: request.use_cache && !repeat,
            // A repeat asks afresh, past the cache a batch answers through.
            batch: request.batch && !repeat,
            ..request.clone()
        };
        let child_id = run::plan(&mut store, &child)?;
        let judge = open::open_profile(&store, profile, ctx.secrets())?;
        let outcome = jobs::on_own_thread("the calibration run", || {
            run::execute(&mut store, child_id, judge, progress.clone(), cancel)
        })?;
        if outcome.status != RunStatus::Done {
            return Err(Error::Invalid(format!("calibration run #{child_id} did not finish; resume it with `ragnosis resume {child_id}`")));
        }
        runs.push(child_id);
    }
    calibration::calibrate(&store, &runs, calibration::DEFAULT_REVIEW_BELOW)
}

/// Every run, newest first, with its totals, whether it is executing (here or in
/// another process) and its key scores when finished.
pub fn list(ctx: &Ctx) -> Result<Vec<RunInfo>> {
    let store = ctx.store()?;
    let mut names: HashMap<i64, String> = HashMap::new();
    let mut rows = Vec::new();
    for run in store::runs::list(store.conn())? {
        let name = match names.entry(run.dataset_id) {
            Entry::Occupied(known) => known.get().clone(),
            Entry::Vacant(new) => new
                .insert(store::datasets::get(store.conn(), run.dataset_id)?.name)
                .clone(),
        };
        // Only a finished run's stored summary is current (resume recomputes it at the end).
        let summary = match run.status {
            RunStatus::Done => store::analyses::get(store.conn(), run.id, analysis::SUMMARY)?
                .and_then(|json| serde_json::from_value(json).ok()),
            _ => None,
        };
        rows.push(info(ctx, &store, run, name, summary.as_ref())?);
    }
    Ok(rows)
}

fn info(
    ctx: &Ctx,
    store: &Store,
    run: RunRow,
    dataset_name: String,
    summary: Option<&analysis::RunSummary>,
) -> Result<RunInfo> {
    let totals = store::runs::totals(store.conn(), run.id)?;
    // Executing here, or in another process on the same database (the CLI, the window):
    // either way not interrupted, and not resumable from here.
    let active = ctx.jobs().is_active(JobKind::Run, run.id)
        || (run.status == RunStatus::Running && owner::is_evaluating(store, run.id));
    let waiting = store::judge_batches::waiting(
        store.conn(),
        &store::judge_batches::BatchOwner::Run(run.id),
    )?;
    let mut info = RunInfo::new(run, dataset_name, active, totals, summary);
    info.waiting_batches = ragnosis_core::run::waiting_sentence(&waiting);
    Ok(info)
}

/// Opens a run for reading: stores what its views read and lack (the summary and case
/// index of a run stored before they were, or before the diagnosis rules changed). The
/// one write on the way to a run's screen or report, taken here so that every read after
/// it is a read (`ragnosis_core::view::materialise`).
pub fn open(store: &mut Store, run_id: i64) -> Result<()> {
    ragnosis_core::view::materialise(store, run_id)
}

/// One run with its statistics, diagnosis, insights, trust statement and criteria, and
/// the executive summary the report opens with: all read from the run's one report model
/// (`ReportView`), so the window and the PDF say the same.
pub fn detail(ctx: &Ctx, run_id: i64) -> Result<RunDetail> {
    let mut store = ctx.store()?;
    open(&mut store, run_id)?;
    let view = ReportView::load(&store, run_id, &ReportOptions::default())?;
    let report = ragnosis_report::model::summary(&view);
    let ReportView {
        run:
            RunView {
                run,
                dataset,
                summary,
                ..
            },
        metrics,
        insights,
        trust,
        criteria,
        ..
    } = view;
    let partial = run.status != RunStatus::Done;
    let run = info(ctx, &store, run, dataset.name, Some(&summary))?;
    Ok(RunDetail {
        run,
        summary: Some(SummaryView::new(summary, metrics, insights)),
        partial,
        trust,
        criteria,
        report,
    })
}
