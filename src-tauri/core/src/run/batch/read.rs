//! Reading an ended batch back. Its requests are rebuilt by the scout (nothing of a
//! prompt was stored), each reply is parsed and validated as a live reply is, valid
//! verdicts go to the cache, and what the batch cost (at half price) is added to the run's
//! totals in the one transaction that marks the batch read — so a restart between the
//! cache writes and that commit reads the batch again without counting it twice.
//!
//! Every request of the batch ends as a cached verdict or a recorded miss (failed,
//! expired, missing, unreadable), which the live pass asks; none is dropped. Must not:
//! call the judge live or write results.

use std::collections::{HashMap, HashSet};

use crate::error::{Error, ErrorCode, Result};
use crate::judge::accounting::{estimate_tokens, estimate_usage, Price};
use crate::judge::batch::{batch_price, key_prefix, BatchJudge, BatchState, EntryResult};
use crate::judge::cache::JudgeCache;
use crate::judge::parse::parse_verdict;
use crate::judge::prompt::prompt_version;
use crate::judge::provider::ChatResponse;
use crate::judge::{retry, JudgeError, Usage};
use crate::progress::Progress;
use crate::store::{judge_batches, Store};

use super::scout::{Found, Scout};
use super::{batch_calls, Workload};
use crate::judge::CallContext;
use crate::run::Accounting;

/// What reading a batch found: what it cost, and the requests to ask live.
#[derive(Default)]
struct Tally {
    spent: Accounting,
    misses: Vec<(u64, String)>,
    price: Option<Price>,
}

impl Tally {
    fn pay(&mut self, usage: &Usage) {
        self.spent.input_tokens += usage.input_tokens;
        self.spent.output_tokens += usage.output_tokens;
        self.spent.cost_usd += self.price.map_or(0.0, |p| p.cost(usage));
    }
}

/// Reads an ended batch back. Returns false when the user cancelled while its results
/// were downloading (nothing is marked read; a resume reads it).
pub(super) async fn read_back(
    store: &mut Store,
    work: &dyn Workload,
    batch: &dyn BatchJudge,
    cache: &JudgeCache,
    ctx: &CallContext,
    row: &judge_batches::BatchRow,
    state: &BatchState,
) -> Result<bool> {
    let who = batch.identity().name.clone();
    let entries = match retry::run(&batch_calls(), &who, ctx, || {
        batch.api().results(&row.batch_id, state)
    })
    .await
    {
        Ok(entries) => entries,
        Err(JudgeError::Cancelled) => return Ok(false),
        Err(e) => return Err(e.into()),
    };
    let mut replies: HashMap<String, EntryResult> = entries
        .into_iter()
        .map(|e| (e.custom_id, e.result))
        .collect();
    let returned: HashSet<u64> = replies.keys().map(|k| key_prefix(k)).collect();
    let mut tally = Tally {
        price: batch.price().map(batch_price),
        ..Tally::default()
    };
    settle_claimed(store, work, batch, cache, row, &mut replies, &mut tally)?;
    settle_unclaimed(replies, cache, &mut tally);
    let gone = format!(
        "the {} batch {} ended {} without a result for this request; asked live instead",
        row.provider, row.batch_id, state.status
    );
    for key in row.entry_keys.iter().filter(|k| !returned.contains(k)) {
        tally.misses.push((*key, gone.clone()));
    }
    finish(store, work, ctx, row, state, &tally)?;
    Ok(true)
}

/// Settles the replies whose task the scout finds askable now: this batch's requests
/// (the scout holds back only the misses and the other waiting batches). Claimed
/// replies leave `replies`.
fn settle_claimed(
    store: &Store,
    work: &dyn Workload,
    batch: &dyn BatchJudge,
    cache: &JudgeCache,
    row: &judge_batches::BatchRow,
    replies: &mut HashMap<String, EntryResult>,
    tally: &mut Tally,
) -> Result<()> {
    let mut held = judge_batches::misses(store.conn(), work.owner())?;
    for other in judge_batches::waiting(store.conn(), work.owner())? {
        if other.id != row.id {
            held.extend(other.entry_keys);
        }
    }
    let scout = Scout::new(batch.identity(), cache, &held);
    for nth in 0..work.parts() {
        if replies.is_empty() {
            break;
        }
        for found in work.askable(store, &scout, nth)? {
            if let Some(result) = replies.remove(&found.key) {
                settle(found, result, tally, batch, cache)?;
            }
        }
    }
    Ok(())
}

/// Replies no askable task claimed: cached by an earlier read that a restart cut short
/// (paid all the same), or no longer needed.
fn settle_unclaimed(replies: HashMap<String, EntryResult>, cache: &JudgeCache, tally: &mut Tally) {
    for (custom_id, result) in replies {
        let cached = cache.contains(&custom_id).unwrap_or(false);
        if let EntryResult::Replied(reply) = &result {
            tally.pay(&reply_usage(reply));
            tally.spent.calls += u64::from(cached);
        }
        if !cached {
            tally.misses.push((
                key_prefix(&custom_id),
                "nothing asks this reply's task any more; asked live if needed".into(),
            ));
        }
    }
}

/// Stores what reading found. A batch that did not run as a whole keeps what it answered
/// and stops the work: nothing is sent live behind the user's back, and picking it up
/// again submits the rest again.
fn finish(
    store: &mut Store,
    work: &dyn Workload,
    ctx: &CallContext,
    row: &judge_batches::BatchRow,
    state: &BatchState,
    tally: &Tally,
) -> Result<()> {
    if let Some(why) = &state.refused {
        commit(store, work, row.id, &tally.spent, &[])?;
        return Err(Error::JudgeDown {
            code: ErrorCode::JudgeHttp,
            message: format!(
                "the {} batch {} did not run: {why}. Its answers are kept; `{}` submits the rest again, or leave out --batch to ask live",
                row.provider,
                row.batch_id,
                work.pick_up()
            ),
        });
    }
    commit(store, work, row.id, &tally.spent, &tally.misses)?;
    ctx.progress.report(Progress::Notice {
        message: format!(
            "batch {} read: {} verdicts cached, {} request{} to ask live",
            row.batch_id,
            tally.spent.calls,
            tally.misses.len(),
            if tally.misses.len() == 1 { "" } else { "s" }
        ),
    });
    Ok(())
}

/// One reply of the batch, read as a live reply is read.
fn settle(
    found: Found,
    result: EntryResult,
    tally: &mut Tally,
    batch: &dyn BatchJudge,
    cache: &JudgeCache,
) -> Result<()> {
    let prefix = key_prefix(&found.key);
    let reply = match result {
        EntryResult::Replied(reply) => reply,
        EntryResult::Failed(why) => {
            tally
                .misses
                .push((prefix, format!("{why}; asked live instead")));
            return Ok(());
        }
    };
    let usage = reply
        .usage
        .unwrap_or_else(|| estimate_usage(&found.messages, &reply.text));
    // Paid for whether or not it can be read, as a live reply is.
    tally.pay(&usage);
    match parse_verdict(&found.task, &reply.text) {
        Ok(verdict) => {
            let version = prompt_version(found.task.kind());
            let kept = cache.put(
                &found.key,
                batch.identity(),
                version,
                &found.messages,
                &verdict,
                &usage,
            );
            // The run reads a batch's verdicts from the cache: one it cannot keep is asked
            // live, as an unreadable one is (its tokens are paid all the same), and is not
            // counted among the verdicts cached.
            match kept {
                Ok(()) => tally.spent.calls += 1,
                Err(e) => tally.misses.push((
                    prefix,
                    format!("the batch's verdict could not be kept in the judge cache ({e}); asked live instead"),
                )),
            }
        }
        Err(e) => tally.misses.push((
            prefix,
            format!("the batch's reply could not be read ({e}); asked live instead"),
        )),
    }
    Ok(())
}

/// A reply's usage, or its output estimated when the provider reported none.
fn reply_usage(reply: &ChatResponse) -> Usage {
    reply.usage.unwrap_or(Usage {
        input_tokens: 0,
        output_tokens: estimate_tokens(&reply.text),
        estimated: true,
    })
}

/// Records the misses, adds what the batch cost to its owner and marks it read, at once.
fn commit(
    store: &mut Store,
    work: &dyn Workload,
    batch: i64,
    spent: &Accounting,
    misses: &[(u64, String)],
) -> Result<()> {
    store.transaction(|tx| {
        for (key, why) in misses {
            judge_batches::add_miss(tx, work.owner(), Some(batch), *key, why)?;
        }
        work.add_cost(tx, spent)?;
        judge_batches::mark_ingested(tx, batch, &serde_json::to_string(spent)?)
    })
}
