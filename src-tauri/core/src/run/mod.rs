//! Evaluation runs: planning (which items, which metrics) and execution.
//!
//! Owns: item selection (limit / seeded sample), the run row's lifecycle, computing each
//! (item, metric) cell and committing results as they complete, resume and cancel.
//! Must not: format output or talk to the network. Resume is the same code path as a
//! first execution: it skips every cell that already has a stored result.

mod select;

use std::panic::{catch_unwind, AssertUnwindSafe};

use serde::{Deserialize, Serialize};

use crate::analysis;
use crate::error::{Error, Result};
use crate::metrics::{self, MetricConfig, MetricResult, MetricSpec, Scope};
use crate::progress::{CancelToken, Progress, ProgressSink};
use crate::store::{self, runs::RunStatus, Store};

pub use select::Selection;

/// Items per commit while executing. A kill loses at most one batch of judge-free work.
const BATCH: usize = 256;

/// Everything needed to plan a run.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct RunRequest {
    pub dataset_id: i64,
    /// Metric ids, bare names or family names, as the user typed them.
    pub metrics: Vec<String>,
    pub label: Option<String>,
    pub version: Option<String>,
    pub notes: Option<String>,
    pub selection: Selection,
    pub metric_config: MetricConfig,
}

/// The configuration a run row keeps, so resume computes exactly what was planned.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct StoredConfig {
    metric_config: MetricConfig,
    selection: Selection,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunOutcome {
    pub run_id: i64,
    pub status: RunStatus,
    /// Results written by this execution (not counting ones already stored).
    pub written: u64,
    /// Cells found already stored and not recomputed (resume).
    pub reused: u64,
}

/// Creates a run: resolves metrics, selects items, stores both. Nothing is computed.
pub fn plan(store: &mut Store, request: &RunRequest) -> Result<i64> {
    let specs = metrics::resolve_selection(&request.metrics)?;
    let metric_ids: Vec<String> = specs.iter().map(|m| m.id.to_string()).collect();
    store::datasets::get(store.conn(), request.dataset_id)?;
    let all_items = store::items::ids(store.conn(), request.dataset_id)?;
    let chosen = request.selection.apply(&all_items);
    if chosen.is_empty() {
        return Err(Error::Invalid(format!("dataset {} has no items to evaluate", request.dataset_id)));
    }
    let config = serde_json::to_value(StoredConfig {
        metric_config: request.metric_config.clone(),
        selection: request.selection.clone(),
    })?;
    store.transaction(|tx| {
        let run_id = store::runs::insert(
            tx,
            &store::runs::NewRun {
                dataset_id: request.dataset_id,
                label: request.label.as_deref(),
                version: request.version.as_deref(),
                notes: request.notes.as_deref(),
                mode: "manual",
                metrics: &metric_ids,
                judge: "none",
                config: &config,
                item_count: chosen.len() as i64,
            },
        )?;
        store::run_items::insert_all(tx, run_id, &chosen)?;
        Ok(run_id)
    })
}

/// Computes every missing cell of a run, committing per batch, then its statistics.
/// A cancelled run stops between batches and stays resumable.
pub fn execute(store: &mut Store, run_id: i64, progress: &dyn ProgressSink, cancel: &CancelToken) -> Result<RunOutcome> {
    let run = store::runs::get(store.conn(), run_id)?;
    if run.status == RunStatus::Done {
        return Ok(RunOutcome { run_id, status: RunStatus::Done, written: 0, reused: 0 });
    }
    let config: StoredConfig = serde_json::from_value(run.config.clone())?;
    let specs: Vec<&'static MetricSpec> = run
        .metrics
        .iter()
        .filter_map(|id| metrics::find(id))
        .filter(|m| m.scope == Scope::Item)
        .collect();
    store::runs::mark_started(store.conn(), run_id)?;
    let outcome = compute_cells(store, run_id, &specs, &config.metric_config, progress, cancel);
    let (status, message) = match &outcome {
        Ok(o) => (o.status, None),
        Err(e) => (RunStatus::Failed, Some(e.to_string())),
    };
    if status != RunStatus::Done {
        store::runs::mark_ended(store.conn(), run_id, status, message.as_deref())?;
        return outcome;
    }
    progress.report(Progress::Started { stage: "statistics".into(), total: None });
    analysis::summarize_and_store(store, run_id)?;
    store::runs::mark_ended(store.conn(), run_id, RunStatus::Done, None)?;
    progress.report(Progress::Finished { stage: "run".into() });
    outcome
}

fn compute_cells(
    store: &mut Store,
    run_id: i64,
    specs: &[&'static MetricSpec],
    config: &MetricConfig,
    progress: &dyn ProgressSink,
    cancel: &CancelToken,
) -> Result<RunOutcome> {
    let item_ids = store::run_items::item_ids(store.conn(), run_id)?;
    let done = store::results::done_pairs(store.conn(), run_id)?;
    let total = item_ids.len() as u64;
    progress.report(Progress::Started { stage: "evaluating".into(), total: Some(total) });
    let mut written = 0u64;
    let mut reused = 0u64;
    let mut finished_items = 0u64;
    for batch in item_ids.chunks(BATCH) {
        if cancel.is_cancelled() {
            return Ok(RunOutcome { run_id, status: RunStatus::Cancelled, written, reused });
        }
        let items = store::items::get_many(store.conn(), batch)?;
        let mut cells: Vec<(i64, MetricResult)> = Vec::with_capacity(batch.len() * specs.len());
        for stored in &items {
            for spec in specs {
                if done.contains(&(stored.id, spec.id.to_string())) {
                    reused += 1;
                    continue;
                }
                cells.push((stored.id, compute_guarded(spec, &stored.item, config)));
            }
        }
        store.transaction(|tx| {
            for (item_id, result) in &cells {
                if store::results::insert(tx, run_id, *item_id, "", result)? {
                    written += 1;
                }
            }
            Ok(())
        })?;
        finished_items += batch.len() as u64;
        progress.report(Progress::Advanced { done: finished_items, total: Some(total) });
    }
    Ok(RunOutcome { run_id, status: RunStatus::Done, written, reused })
}

/// A metric that panics becomes an error result for that cell; the run goes on.
fn compute_guarded(spec: &MetricSpec, item: &crate::item::Item, config: &MetricConfig) -> MetricResult {
    match catch_unwind(AssertUnwindSafe(|| metrics::compute(spec, item, config))) {
        Ok(result) => result,
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown failure".into());
            MetricResult::error(spec.id, format!("internal error while computing {}: {what}", spec.id))
        }
    }
}

/// Plans and executes in one step (what `ragnosis eval` does).
pub fn evaluate(
    store: &mut Store,
    request: &RunRequest,
    progress: &dyn ProgressSink,
    cancel: &CancelToken,
) -> Result<RunOutcome> {
    let run_id = plan(store, request)?;
    execute(store, run_id, progress, cancel)
}
