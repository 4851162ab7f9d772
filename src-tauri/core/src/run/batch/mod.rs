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
mod waiting;

pub(crate) use scout::{poll_once, Found, Scout};
pub use waiting::waiting_sentence;

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
use crate::store::judge_batches::{self, BatchOwner};
use crate::store::{self, runs::RunStatus, Store};

use super::{Accounting, EngineSettings, Mode, RunConfig, RunOutcome, RunTotals, LOAD_CHUNK};

/// What a batch pass asks for: a run's items, or the judge check's sample. The pass itself
/// (scouting, request files, submitting, polling, reading back) is the same for both.
pub(crate) trait Workload {
    fn owner(&self) -> &BatchOwner;
    /// "run 12", "the judge check of gpt": for messages.
    fn describe(&self) -> String;
    /// The command that picks a waiting batch up after this process ends.
    fn pick_up(&self) -> String;
    /// How many parts the work is scouted in, one after another, so a run of a million
    /// items never holds every request at once.
    fn parts(&self) -> usize;
    /// The tasks of part `nth` that `scout` finds askable now and did not note before.
    fn askable(&self, store: &Store, scout: &Scout<'_>, nth: usize) -> Result<Vec<Found>>;
    /// What was spent so far, against a budget.
    fn spent_usd(&self, store: &Store) -> Result<f64>;
    /// Adds what a read batch cost to the owner's totals, inside the transaction that
    /// records its misses and marks it read, so a restart never counts it twice.
    fn add_cost(&self, tx: &rusqlite::Connection, spent: &Accounting) -> Result<()>;
}

/// What the scout needs of a run: its items, the cells already stored, how an item is
/// evaluated.
pub(super) struct Scope<'a> {
    pub owner: BatchOwner,
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
    let scope = Scope {
        owner: BatchOwner::Run(run_id),
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
    Ok(
        match pass(store, &scope, judge, ctx, config.budget_usd).await? {
            true => None,
            false => Some(stopped(run_id)),
        },
    )
}

/// Asks `work`'s tasks through the judge's batch service, round after round, until every
/// answer a batch could give is in the cache. Returns true when the live pass should
/// follow (also when the judge has no batch service), false when it stops here,
/// resumable: cancelled, or the next batch would pass `budget`.
pub(crate) async fn pass(
    store: &mut Store,
    work: &dyn Workload,
    judge: &dyn Judge,
    ctx: &CallContext,
    budget: Option<f64>,
) -> Result<bool> {
    let Some(batch) = judge.batch() else {
        ctx.progress.report(Progress::Notice {
            message: format!(
                "the judge {} has no batch service: its tasks are asked live",
                judge.identity().name
            ),
        });
        return Ok(true);
    };
    let Some(cache) = batch.cache() else {
        return Err(Error::Invalid(
            "batch mode reads answers back through the judge cache, and this judge has none".into(),
        ));
    };
    let provider = batch.api().provider();
    let waiting = judge_batches::waiting(store.conn(), work.owner())?;
    if let Some(other) = waiting.iter().find(|b| b.provider != provider) {
        return Err(Error::Invalid(format!(
            "{} has the batch {} waiting at {}; pick it up with the judge that submitted it, not {} ({provider})",
            work.describe(),
            other.batch_id,
            other.provider,
            batch.identity().name
        )));
    }
    loop {
        if ctx.cancel.is_cancelled() {
            return Ok(false);
        }
        let held = held(store, work.owner())?;
        if !send_askable(store, work, batch, cache, &held, ctx, budget).await? {
            return Ok(false);
        }
        let waiting = judge_batches::waiting(store.conn(), work.owner())?;
        if waiting.is_empty() {
            return Ok(true);
        }
        if !wait_and_read(store, work, batch, cache, ctx, waiting).await? {
            return Ok(false);
        }
    }
}

impl Workload for Scope<'_> {
    fn owner(&self) -> &BatchOwner {
        &self.owner
    }

    fn describe(&self) -> String {
        format!("run {}", self.run_id)
    }

    fn pick_up(&self) -> String {
        format!("ragnosis resume {}", self.run_id)
    }

    fn parts(&self) -> usize {
        self.item_ids.len().div_ceil(LOAD_CHUNK)
    }

    fn askable(&self, store: &Store, scout: &Scout<'_>, nth: usize) -> Result<Vec<Found>> {
        let chunk = self.item_ids.chunks(LOAD_CHUNK).nth(nth).unwrap_or(&[]);
        let ctx = CallContext {
            use_cache: true,
            ..self.ctx.clone()
        };
        for stored in store::items::get_many(store.conn(), chunk)? {
            let job = super::job_for(stored, self.specs, self.mode, &self.done, &mut 0);
            if job.metrics.is_empty() {
                continue;
            }
            // One poll runs the item as far as known answers reach; a held task never
            // finishes, so the evaluation stops there and is dropped.
            let _ = poll_once(super::engine::evaluate_item(
                job.item_id,
                &job.item,
                &job.metrics,
                scout,
                &ctx,
                &self.settings,
            ));
        }
        Ok(scout.take_found())
    }

    fn spent_usd(&self, store: &Store) -> Result<f64> {
        let spent: RunTotals = store::runs::totals(store.conn(), self.run_id)?;
        Ok(spent.cost_usd)
    }

    fn add_cost(&self, tx: &rusqlite::Connection, spent: &Accounting) -> Result<()> {
        let mut totals: RunTotals = store::runs::totals(tx, self.run_id)?;
        super::add_accounting(&mut totals, spent);
        store::runs::set_totals(tx, self.run_id, &serde_json::to_value(totals)?)
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
fn held(store: &Store, owner: &BatchOwner) -> Result<HashSet<u64>> {
    let mut held = judge_batches::misses(store.conn(), owner)?;
    for row in judge_batches::waiting(store.conn(), owner)? {
        held.extend(row.entry_keys);
    }
    Ok(held)
}

/// Writes every task askable now into request files and submits them, one batch per
/// file. Returns false, having sent nothing more, when the next batch would pass the
/// budget.
async fn send_askable(
    store: &mut Store,
    work: &dyn Workload,
    batch: &dyn BatchJudge,
    cache: &JudgeCache,
    held: &HashSet<u64>,
    ctx: &CallContext,
    budget: Option<f64>,
) -> Result<bool> {
    let scout = scout::Scout::new(batch.identity(), cache, held);
    let api = batch.api();
    let limits = api.limits();
    let price = batch.price().map(batch_price);
    let mut file = RequestFile::default();
    let mut too_large = Vec::new();
    for nth in 0..work.parts() {
        for found in work.askable(store, &scout, nth)? {
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
                && !submit(store, work, batch, &mut file, ctx, budget).await?
            {
                return Ok(false);
            }
            file.push(prefix, &line, cost);
        }
    }
    if !file.is_empty() && !submit(store, work, batch, &mut file, ctx, budget).await? {
        return Ok(false);
    }
    if !too_large.is_empty() {
        store.transaction(|tx| {
            for prefix in &too_large {
                judge_batches::add_miss(
                    tx,
                    work.owner(),
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
    work: &dyn Workload,
    batch: &dyn BatchJudge,
    file: &mut RequestFile,
    ctx: &CallContext,
    budget: Option<f64>,
) -> Result<bool> {
    if let Some(budget) = budget {
        if work.spent_usd(store)? + file.estimated_cost > budget {
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
    let submitted = retry::run(&once, &who, ctx, || api.submit(file)).await?;
    judge_batches::insert(
        store.conn(),
        &judge_batches::NewBatch {
            owner: work.owner(),
            provider: api.provider(),
            batch_id: &submitted.batch_id,
            input_file_id: submitted.input_file_id.as_deref(),
            status: &submitted.status,
            entry_keys: &file.keys,
        },
    )?;
    ctx.progress.report(Progress::Notice {
        message: format!(
            "batch {} submitted to {} with {} requests (results within 24 h; `{}` picks it up if this process ends)",
            submitted.batch_id,
            api.provider(),
            file.len(),
            work.pick_up()
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
    work: &dyn Workload,
    batch: &dyn BatchJudge,
    cache: &JudgeCache,
    ctx: &CallContext,
    mut waiting: Vec<judge_batches::BatchRow>,
) -> Result<bool> {
    let poll = batch.poll();
    let total: u64 = waiting.iter().map(|b| b.entries).sum();
    ctx.progress.report(Progress::Started {
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
        if retry::sleep_or_cancel(wait, &ctx.cancel).await.is_err() {
            return Ok(false);
        }
        wait = poll.next(wait);
        let mut still = Vec::new();
        let mut answered = finished;
        for row in waiting {
            let state = match retry::run(&batch_calls(), &who, ctx, || {
                batch.api().state(&row.batch_id)
            })
            .await
            {
                Ok(state) => state,
                Err(crate::judge::JudgeError::Cancelled) => return Ok(false),
                Err(e) => return Err(e.into()),
            };
            let mut row = row;
            report_change(store, ctx, &mut row, &state)?;
            if !state.ended {
                answered += state.completed + state.failed;
                still.push(row);
            } else if read::read_back(store, work, batch, cache, ctx, &row, &state).await? {
                finished += row.entries;
                answered += row.entries;
            } else {
                return Ok(false);
            }
        }
        ctx.progress.report(Progress::Advanced {
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
    ctx: &CallContext,
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
        ctx.progress.report(Progress::Notice {
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
