//! Batch mode: before a run's live pass, its judge tasks go to the provider's batch
//! service (half price, results within 24 hours), and the verdicts that come back are put
//! in the judge cache; the live pass then finds them there, so results, metrics and
//! reports are computed by the same code as in a live run.
//!
//! Round by round: the scout finds every task that can be asked now (phase 1; phase 2
//! once phase 1's verdicts are cached), the tasks are written as request files — split
//! at the provider's limits — and submitted, each batch's id stored the moment the
//! provider accepted it; then the run polls with backoff, and reads each ended batch
//! back (`read`): the same parsing, validation, cache writes and accounting (at half
//! price) as a live call. Repeat until nothing is left to send and nothing is waiting.
//!
//! Failures: a request a batch did not answer usably (failed, expired, missing from the
//! results, an unreadable reply) is recorded as a miss and asked live by the live pass,
//! with the live path's retries, repair request and visible errors — retrying in a new
//! batch could add another day of waiting for a handful of requests. A batch that did
//! not run as a whole (failed validation, over quota, cancelled at the provider) stops
//! the run instead: sending all of it live at full price is the user's decision, and a
//! resume submits it again.
//!
//! Survives the process ending: everything it needs is in SQLite (`judge_batches`) or
//! rebuilt from the run's items, so a resume picks the waiting batches up instead of
//! submitting again. Must not: evaluate metrics or write results (the live pass does).

mod read;
mod scout;

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use crate::error::{Error, Result};
use crate::judge::accounting::estimate_message_tokens;
use crate::judge::batch::{batch_price, key_prefix, BatchJudge, RequestFile};
use crate::judge::cache::JudgeCache;
use crate::judge::plan::expected_output_tokens;
use crate::judge::retry::{self, RetryPolicy};
use crate::judge::{CallContext, Judge};
use crate::metrics::MetricSpec;
use crate::progress::{CancelToken, Progress, ProgressSink};
use crate::store::{self, judge_batches, runs::RunStatus, Store};

use super::{Accounting, EngineSettings, Mode, RunConfig, RunOutcome, RunTotals, LOAD_CHUNK};

/// What the scout needs of a run: its items, the cells already stored, how an item is
/// evaluated.
pub(super) struct Scope<'a> {
    pub run_id: i64,
    pub item_ids: Vec<i64>,
    pub done: HashSet<(i64, String)>,
    pub specs: &'a [&'static MetricSpec],
    pub mode: Mode,
    pub settings: EngineSettings,
    pub ctx: CallContext,
}

/// Retries of batch status and result calls: a poll that fails is tried again with
/// backoff before the run gives up (a resume then carries on).
fn batch_calls() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 6,
        base: Duration::from_secs(1),
        timeout: Duration::from_secs(30 * 60),
        ..RetryPolicy::default()
    }
}

/// Refuses a batch-mode request that skips the cache: batch answers reach the run
/// through it.
pub(super) fn check(request: &super::RunRequest) -> Result<()> {
    if request.batch && !request.use_cache {
        return Err(Error::Invalid(
            "batch mode reads the batch's verdicts back through the judge cache, so it cannot skip the cache (drop --no-cache)".into(),
        ));
    }
    Ok(())
}

/// Before a run's live pass: in batch mode, asks the run's pending tasks through the
/// judge's batch service until every answer a batch could give is in the cache. Returns
/// None when the live pass should follow, or the outcome of a run that stops here,
/// resumable: cancelled by the user, or the next batch would pass the budget.
pub(super) async fn first(
    store: &mut Store,
    run_id: i64,
    specs: &[&'static MetricSpec],
    config: &RunConfig,
    judge: &Arc<dyn Judge>,
    progress: &Arc<dyn ProgressSink>,
    cancel: &CancelToken,
) -> Result<Option<RunOutcome>> {
    if !config.batch {
        return Ok(None);
    }
    let ctx = CallContext {
        progress: progress.clone(),
        cancel: cancel.clone(),
        use_cache: true,
    };
    ask_in_batches(store, run_id, specs, config, judge.as_ref(), &ctx).await
}

async fn ask_in_batches(
    store: &mut Store,
    run_id: i64,
    specs: &[&'static MetricSpec],
    config: &RunConfig,
    judge: &dyn Judge,
    ctx: &CallContext,
) -> Result<Option<RunOutcome>> {
    let Some(batch) = judge.batch() else {
        ctx.progress.report(Progress::Notice {
            message: format!(
                "the judge {} has no batch service: its tasks are asked live",
                judge.identity().name
            ),
        });
        return Ok(None);
    };
    let Some(cache) = batch.cache() else {
        return Err(Error::Invalid(
            "batch mode reads answers back through the judge cache, and this judge has none".into(),
        ));
    };
    let provider = batch.api().provider();
    let waiting = judge_batches::waiting(store.conn(), run_id)?;
    if let Some(other) = waiting.iter().find(|b| b.provider != provider) {
        return Err(Error::Invalid(format!(
            "run {run_id} has the batch {} waiting at {}; resume it with the judge that submitted it, not {} ({provider})",
            other.batch_id,
            other.provider,
            batch.identity().name
        )));
    }
    let scope = Scope {
        run_id,
        item_ids: store::run_items::item_ids(store.conn(), run_id)?,
        done: store::results::done_pairs(store.conn(), run_id)?,
        specs,
        mode: config.mode,
        settings: EngineSettings {
            metric_config: config.metric_config.clone(),
            tau: config.tau,
            weights: config.weights.clone(),
            few_shot: config.few_shot.clone(),
            criteria: config.criteria.clone(),
        },
        ctx: ctx.clone(),
    };
    loop {
        if ctx.cancel.is_cancelled() {
            return Ok(Some(stopped(run_id)));
        }
        let held = held(store, run_id)?;
        if !send_askable(store, &scope, batch, cache, &held, config.budget_usd).await? {
            return Ok(Some(stopped(run_id)));
        }
        let waiting = judge_batches::waiting(store.conn(), run_id)?;
        if waiting.is_empty() {
            return Ok(None);
        }
        if !wait_and_read(store, &scope, batch, cache, waiting).await? {
            return Ok(Some(stopped(run_id)));
        }
    }
}

/// A run that stops before its live pass; `execute` words the reason.
fn stopped(run_id: i64) -> RunOutcome {
    RunOutcome {
        run_id,
        status: RunStatus::Cancelled,
        written: 0,
        reused: 0,
        accounting: Accounting::default(),
        judge_down: None,
    }
}

/// Requests not to send: those in batches still waiting, and those batches did not
/// answer (asked live).
fn held(store: &Store, run_id: i64) -> Result<HashSet<u64>> {
    let mut held = judge_batches::misses(store.conn(), run_id)?;
    for row in judge_batches::waiting(store.conn(), run_id)? {
        held.extend(row.entry_keys);
    }
    Ok(held)
}

/// Writes every task askable now into request files and submits them, one batch per
/// file. Returns false, having sent nothing more, when the next batch would pass the
/// budget.
async fn send_askable(
    store: &mut Store,
    scope: &Scope<'_>,
    batch: &dyn BatchJudge,
    cache: &JudgeCache,
    held: &HashSet<u64>,
    budget: Option<f64>,
) -> Result<bool> {
    let scout = scout::Scout::new(batch.identity(), cache, held);
    let api = batch.api();
    let limits = api.limits();
    let price = batch.price().map(batch_price);
    let mut file = RequestFile::default();
    let mut too_large = Vec::new();
    for chunk in scope.item_ids.chunks(LOAD_CHUNK) {
        for found in scout.chunk(store, scope, chunk)? {
            let prefix = key_prefix(&found.key);
            let cost = price.map_or(0.0, |p| {
                let input = estimate_message_tokens(&found.messages);
                let output = expected_output_tokens(&found.task);
                (input as f64 * p.input + output as f64 * p.output) / 1e6
            });
            let line = api.line(&found.key, &batch.request(&found.task, found.messages));
            if line.len() + 1 > limits.bytes {
                too_large.push(prefix);
                continue;
            }
            if !file.fits(line.len(), limits)
                && !submit(store, scope, batch, &mut file, budget).await?
            {
                return Ok(false);
            }
            file.push(prefix, &line, cost);
        }
    }
    if !file.is_empty() && !submit(store, scope, batch, &mut file, budget).await? {
        return Ok(false);
    }
    if !too_large.is_empty() {
        store.transaction(|tx| {
            for prefix in &too_large {
                judge_batches::add_miss(
                    tx,
                    scope.run_id,
                    None,
                    *prefix,
                    "the request is larger than a batch may be; asked live instead",
                )?;
            }
            Ok(())
        })?;
    }
    Ok(true)
}

/// Submits a full request file and stores the batch at once; empties the file. Returns
/// false, submitting nothing, when the file would pass the budget.
async fn submit(
    store: &mut Store,
    scope: &Scope<'_>,
    batch: &dyn BatchJudge,
    file: &mut RequestFile,
    budget: Option<f64>,
) -> Result<bool> {
    if let Some(budget) = budget {
        let spent: RunTotals = store::runs::totals(store.conn(), scope.run_id)?;
        if spent.cost_usd + file.estimated_cost > budget {
            return Ok(false);
        }
    }
    let api = batch.api();
    // One attempt: a create that timed out may still have made a batch, and sending it
    // again would pay twice. A failure stops the run; a resume submits again.
    let once = RetryPolicy {
        max_attempts: 1,
        timeout: Duration::from_secs(30 * 60),
        ..RetryPolicy::default()
    };
    let who = batch.identity().name.clone();
    let submitted = retry::run(&once, &who, &scope.ctx, || api.submit(file)).await?;
    judge_batches::insert(
        store.conn(),
        &judge_batches::NewBatch {
            run_id: scope.run_id,
            provider: api.provider(),
            batch_id: &submitted.batch_id,
            input_file_id: submitted.input_file_id.as_deref(),
            status: &submitted.status,
            entry_keys: &file.keys,
        },
    )?;
    scope.ctx.progress.report(Progress::Notice {
        message: format!(
            "batch {} submitted to {} with {} requests (results within 24 h; `ragnosis resume {}` picks it up if this process ends)",
            submitted.batch_id,
            api.provider(),
            file.len(),
            scope.run_id
        ),
    });
    *file = RequestFile::default();
    Ok(true)
}

/// Polls the waiting batches with backoff and reads each one back as it ends. Returns
/// false when the user cancelled (the batches keep running at the provider; a resume
/// picks them up).
async fn wait_and_read(
    store: &mut Store,
    scope: &Scope<'_>,
    batch: &dyn BatchJudge,
    cache: &JudgeCache,
    mut waiting: Vec<judge_batches::BatchRow>,
) -> Result<bool> {
    let poll = batch.poll();
    let total: u64 = waiting.iter().map(|b| b.entries).sum();
    scope.ctx.progress.report(Progress::Started {
        stage: format!(
            "waiting for {} batch{}",
            waiting.len(),
            if waiting.len() == 1 { "" } else { "es" }
        ),
        total: Some(total),
    });
    let who = batch.identity().name.clone();
    let mut wait = Duration::ZERO;
    // Requests of the batches already read, for the progress shown.
    let mut finished = 0;
    loop {
        if retry::sleep_or_cancel(wait, &scope.ctx.cancel)
            .await
            .is_err()
        {
            return Ok(false);
        }
        wait = poll.next(wait);
        let mut still = Vec::new();
        let mut answered = finished;
        for row in waiting {
            let state = match retry::run(&batch_calls(), &who, &scope.ctx, || {
                batch.api().state(&row.batch_id)
            })
            .await
            {
                Ok(state) => state,
                Err(crate::judge::JudgeError::Cancelled) => return Ok(false),
                Err(e) => return Err(e.into()),
            };
            let mut row = row;
            report_change(store, scope, &mut row, &state)?;
            if !state.ended {
                answered += state.completed + state.failed;
                still.push(row);
            } else if read::read_back(store, scope, batch, cache, &row, &state).await? {
                finished += row.entries;
                answered += row.entries;
            } else {
                return Ok(false);
            }
        }
        scope.ctx.progress.report(Progress::Advanced {
            done: answered.min(total),
            total: Some(total),
        });
        if still.is_empty() {
            return Ok(true);
        }
        waiting = still;
    }
}

/// Stores a batch's status and counts, and says so when they changed.
fn report_change(
    store: &Store,
    scope: &Scope<'_>,
    row: &mut judge_batches::BatchRow,
    state: &crate::judge::batch::BatchState,
) -> Result<()> {
    let changed = (row.status.as_str(), row.completed, row.failed)
        != (state.status.as_str(), state.completed, state.failed);
    judge_batches::set_progress(
        store.conn(),
        row.id,
        &judge_batches::BatchProgress {
            status: &state.status,
            completed: state.completed,
            failed: state.failed,
            output_file_id: state.output_file_id.as_deref(),
            error_file_id: state.error_file_id.as_deref(),
        },
    )?;
    if changed {
        scope.ctx.progress.report(Progress::Notice {
            message: format!(
                "batch {} ({}): {}, {} of {} answered, {} failed",
                row.batch_id,
                row.provider,
                state.status,
                state.completed,
                row.entries,
                state.failed
            ),
        });
    }
    row.status = state.status.clone();
    (row.completed, row.failed) = (state.completed, state.failed);
    Ok(())
}
