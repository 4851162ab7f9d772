//! The judge check in batch mode: before the check's live pass, the calls of its sample go
//! to the judge's batch service (half price, results within 24 hours), and the verdicts
//! that come back are put in the judge cache, as a run's are (`run::batch`). The check
//! then runs as it always does and finds them there, so its figures come from the same
//! code. The repeat probe bypasses the cache by design: its few calls stay live, as do
//! the requests a batch did not answer.
//!
//! A check has no stored row until it ends, so its batches belong to the judge being
//! checked (its configuration): checking that judge again after the process ended picks a
//! waiting batch up instead of sending it twice. What the batches cost is kept with them
//! and added to the check's accounting; once the check is done they are forgotten, so the
//! next check starts afresh.
//!
//! Owns: the check's side of a batch pass (its tasks, where its cost goes). Must not:
//! submit, poll or read batches itself (`run::batch` does).

use super::*;
use crate::run::batch::{self as batch_pass, poll_once, Found, Scout, Workload};
use crate::store::judge_batches::{self, BatchOwner};
use crate::store::Store;

/// The sample as a batch pass sees it.
struct SampleWork {
    owner: BatchOwner,
    profile: String,
    cases: Vec<Case>,
    ctx: CallContext,
}

impl Workload for SampleWork {
    fn owner(&self) -> &BatchOwner {
        &self.owner
    }

    fn describe(&self) -> String {
        format!("the judge check of {}", self.profile)
    }

    fn pick_up(&self) -> String {
        format!("ragnosis judge-check {} --batch", self.profile)
    }

    /// A few hundred cases: scouted in one part.
    fn parts(&self) -> usize {
        1
    }

    fn askable(&self, _store: &Store, scout: &Scout<'_>, _nth: usize) -> Result<Vec<Found>> {
        // The scout's answers are thrown away, and what they cost with them.
        let ledger = Ledger::default();
        for case in &self.cases {
            let _ = poll_once(judge_case(case.clone(), scout, &self.ctx, &ledger));
        }
        certificate::scout(&self.cases, scout, &self.ctx);
        Ok(scout.take_found())
    }

    fn spent_usd(&self, store: &Store) -> Result<f64> {
        Ok(spent(store, &self.owner)?.cost_usd)
    }

    /// Nothing to add to: the check has no stored totals, and sums its batches' cost
    /// (kept with each batch) when it ends.
    fn add_cost(&self, _tx: &rusqlite::Connection, _spent: &Accounting) -> Result<()> {
        Ok(())
    }
}

/// What the owner's batches that were read back cost together.
fn spent(store: &Store, owner: &BatchOwner) -> Result<Accounting> {
    let mut total = Accounting::default();
    for json in judge_batches::spent(store.conn(), owner)? {
        total.add(&serde_json::from_str(&json)?);
    }
    Ok(total)
}

/// `run` with the sample's calls asked through the judge's batch service first; waiting
/// batches of an earlier, interrupted check of the same judge are picked up. Cancelling
/// returns `Error::Cancelled`; the batches keep running at the provider and the next
/// check of this judge reads them.
pub fn run_in_batches(
    store: &mut Store,
    profile: &str,
    judge: Arc<dyn Judge>,
    progress: Arc<dyn ProgressSink>,
    cancel: &CancelToken,
) -> Result<JudgeCheck> {
    let runtime = crate::run::worker_runtime("the judge check")?;
    runtime.block_on(async {
        let started = Instant::now();
        let work = SampleWork {
            owner: BatchOwner::Check {
                judge: judge.identity().config_key(),
            },
            profile: profile.to_string(),
            cases: sample::cases(),
            ctx: CallContext {
                progress: progress.clone(),
                cancel: cancel.clone(),
                use_cache: true,
            },
        };
        if !batch_pass::pass(store, &work, judge.as_ref(), &work.ctx, None).await? {
            return Err(Error::Cancelled);
        }
        let waited = started.elapsed().as_secs_f64();
        let mut check = run_async(profile, judge, progress, cancel).await?;
        // The check's time includes the wait for its batches (in this process).
        check.seconds += waited;
        check.accounting.add(&spent(store, &work.owner)?);
        judge_batches::forget(store.conn(), &work.owner)?;
        Ok(check)
    })
}
