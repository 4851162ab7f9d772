//! One generation's waves: candidates drafted concurrently, then committed in position
//! order (an accepted one as the dataset's next test case), counted and reported, until
//! the count is reached or the generation is cancelled, over budget or failing.
//!
//! Owns: the wave loop's bookkeeping (outcome, failures in a row) and the stop message.
//! Must not: draft or filter a candidate (that is `draft_and_filter`).

use std::sync::Arc;

use super::budget::Budget;
use super::{
    draft_and_filter, GenerationOutcome, GenerationSettings, Tally, FAILURES_IN_A_ROW, OVER_BUDGET,
};
use crate::error::{Error, Result};
use crate::error_code::ErrorCode;
use crate::item::{Item, QuestionSet};
use crate::judge::{CallContext, Judge};
use crate::progress::{CancelToken, Progress, ProgressSink};
use crate::run::JudgeDown;
use crate::store::{self, corpora::Chunk, generations::Candidate, Store};

/// The outcome of a generation before this run of it: the candidates already decided
/// counted by status, nothing called yet, "exhausted" until something else stops it.
pub(super) fn outcome_so_far(
    generation_id: i64,
    dataset_id: i64,
    done: &[Candidate],
) -> GenerationOutcome {
    GenerationOutcome {
        generation_id,
        dataset_id,
        accepted: done.iter().filter(|c| c.status == "accepted").count() as u64,
        rejected: done.iter().filter(|c| c.status == "rejected").count() as u64,
        errors: done.iter().filter(|c| c.status == "error").count() as u64,
        calls: 0,
        cache_hits: 0,
        cost_usd: 0.0,
        seconds: 0.0,
        status: "exhausted".into(),
        judge_down: None,
    }
}

/// A drafted candidate and the code of its judge's last failed call.
type Drafted = (Candidate, Option<ErrorCode>);

/// Candidates whose calls failed in a row, and the last one's reason.
#[derive(Default)]
pub(super) struct Failures {
    in_a_row: u32,
    last: Option<String>,
    /// The judge's error code on the last one, when a judge call failed.
    last_code: Option<ErrorCode>,
    /// Some candidate of this session was decided (the judge answered).
    answered: bool,
}

/// A generation's waves in progress: where they are stored, who drafts them, what stops
/// them, and the outcome and failures so far.
pub(super) struct Waves<'a> {
    pub store: &'a mut Store,
    pub generation_id: i64,
    pub dataset_id: i64,
    pub judge: Arc<dyn Judge>,
    pub ctx: CallContext,
    pub settings: &'a GenerationSettings,
    pub budget: Arc<Budget>,
    pub cancel: &'a CancelToken,
    pub outcome: GenerationOutcome,
    pub failures: Failures,
}

impl Waves<'_> {
    /// Drafts and commits `open` in waves of up to the judge's concurrency, never more
    /// than the test cases still wanted, until one of the stops.
    pub(super) async fn run(
        &mut self,
        open: &[(usize, &Chunk)],
        progress: &dyn ProgressSink,
    ) -> Result<()> {
        let count = self.settings.count;
        let mut next = 0;
        while next < open.len() {
            if let Some(status) = self.stop_before_wave() {
                self.outcome.status = status.into();
                break;
            }
            let wanted = (count - self.outcome.accepted) as usize;
            let concurrency = self.judge.concurrency().max(1);
            let wave = &open[next..(next + wanted.min(concurrency)).min(open.len())];
            next += wave.len();
            let (drafted, wave_cost) = self.draft(wave).await?;
            self.commit(wave, drafted)?;
            report_wave(progress, &self.outcome, count);
            // Spent is spent, whether or not its candidates were decided.
            store::generations::add_spent(
                self.store.conn(),
                self.generation_id,
                wave_cost,
                self.budget.dearest_call(),
            )?;
            if matches!(self.outcome.status.as_str(), "cancelled" | "budget") {
                break;
            }
            if self.failures.in_a_row >= FAILURES_IN_A_ROW {
                self.outcome.status = "failing".into();
                break;
            }
        }
        // Every chunk tried and every candidate failed: the judge never answered, which
        // is a judge that is down, not a corpus that is used up.
        if self.outcome.status == "exhausted"
            && !self.failures.answered
            && self.failures.in_a_row > 0
        {
            self.outcome.status = "failing".into();
        }
        Ok(())
    }

    /// Why the generation stops before its next wave: the count reached, cancelled, or
    /// the budget spent.
    fn stop_before_wave(&self) -> Option<&'static str> {
        if self.outcome.accepted >= self.settings.count {
            return Some("done");
        }
        if self.cancel.is_cancelled() {
            return Some("cancelled");
        }
        if self.budget.exhausted() {
            return Some("budget");
        }
        None
    }

    /// Drafts and filters one wave's candidates concurrently, adding their calls and
    /// spend to the outcome; returns the candidates in wave order and the wave's cost.
    async fn draft(&mut self, wave: &[(usize, &Chunk)]) -> Result<(Vec<Option<Drafted>>, f64)> {
        let mut tasks = tokio::task::JoinSet::new();
        for (slot, (_, chunk)) in wave.iter().enumerate() {
            let (judge, ctx, chunk, settings, budget) = (
                self.judge.clone(),
                self.ctx.clone(),
                (*chunk).clone(),
                self.settings.clone(),
                self.budget.clone(),
            );
            tasks.spawn(async move {
                let mut tally = Tally::new(budget);
                let candidate =
                    draft_and_filter(judge.as_ref(), &ctx, &chunk, &settings, &mut tally).await;
                (slot, candidate, tally)
            });
        }
        let mut decided_here: Vec<Option<Drafted>> = vec![None; wave.len()];
        let mut wave_cost = 0.0;
        while let Some(joined) = tasks.join_next().await {
            let (slot, candidate, tally) = joined.map_err(|e| {
                Error::Invalid(format!("a candidate's drafting stopped unexpectedly: {e}"))
            })?;
            self.outcome.calls += tally.calls;
            self.outcome.cache_hits += tally.cache_hits;
            self.outcome.cost_usd += tally.cost_usd;
            wave_cost += tally.cost_usd;
            decided_here[slot] = Some((candidate, tally.failed_with));
        }
        Ok((decided_here, wave_cost))
    }

    /// Commits a wave's candidates in position order, counting each; one cut short by
    /// cancelling or by the budget decides nothing and sets the status instead.
    fn commit(&mut self, wave: &[(usize, &Chunk)], drafted: Vec<Option<Drafted>>) -> Result<()> {
        for ((position, chunk), drafted) in wave.iter().zip(drafted) {
            let Some((mut candidate, failed_with)) = drafted else {
                continue;
            };
            if candidate.status == "error" && self.cancel.is_cancelled() {
                // A call cut short by cancelling decides nothing: the position stays open.
                self.outcome.status = "cancelled".into();
                continue;
            }
            if candidate.status == "error" && candidate.reason.as_deref() == Some(OVER_BUDGET) {
                self.outcome.status = "budget".into();
                continue;
            }
            candidate.position = *position as i64;
            let ordinal = self.outcome.accepted as i64;
            self.store_candidate(chunk, &candidate, ordinal)?;
            match candidate.status.as_str() {
                "accepted" => self.outcome.accepted += 1,
                "rejected" => self.outcome.rejected += 1,
                _ => self.outcome.errors += 1,
            }
            if candidate.status == "error" {
                self.failures.in_a_row += 1;
                self.failures.last = candidate.reason.clone();
                self.failures.last_code = failed_with;
            } else {
                self.failures.in_a_row = 0;
                self.failures.answered = true;
            }
        }
        Ok(())
    }

    /// Stores one decided candidate and, when it is accepted, its test case as the
    /// dataset's next item, in one transaction.
    fn store_candidate(
        &mut self,
        chunk: &Chunk,
        candidate: &Candidate,
        ordinal: i64,
    ) -> Result<()> {
        let (generation_id, dataset_id) = (self.generation_id, self.dataset_id);
        let accepted = candidate.status == "accepted";
        self.store.transaction(|tx| {
            store::generations::add_candidate(tx, generation_id, candidate)?;
            if accepted {
                let item = test_case(chunk, candidate);
                store::items::insert(tx, dataset_id, ordinal, 0, &item.content_hash(), &item)?;
                store::datasets::finish(
                    tx,
                    dataset_id,
                    ordinal + 1,
                    None,
                    Some("generated"),
                    "{}",
                    "{}",
                )?;
            }
            Ok(())
        })
    }

    /// Ends the generation: the dataset's question set, and its final status with why it
    /// stopped.
    pub(super) fn record_end(&self) -> Result<()> {
        let conn = self.store.conn();
        let mut questions = QuestionSet::default();
        store::items::for_each(conn, self.dataset_id, |stored| {
            questions.add(&stored.item.question_key())
        })?;
        store::datasets::set_question_set(conn, self.dataset_id, &questions.fingerprint())?;
        let message = self.stop_message();
        let status = if self.outcome.status == "done" || self.outcome.status == "exhausted" {
            "done"
        } else {
            "stopped"
        };
        store::generations::set_status(conn, self.generation_id, status, message.as_deref())
    }

    /// When the judge's calls kept failing: its last error code (a reply it could not read
    /// when no call failed as such) and the stop message.
    pub(super) fn judge_down(&self) -> Option<JudgeDown> {
        if self.outcome.status != "failing" {
            return None;
        }
        Some(JudgeDown {
            code: self.failures.last_code.unwrap_or(ErrorCode::JudgeBadReply),
            message: self.stop_message()?,
        })
    }

    /// Why the generation stopped, in a sentence; none when it reached its count.
    fn stop_message(&self) -> Option<String> {
        let (outcome, settings) = (&self.outcome, self.settings);
        match outcome.status.as_str() {
            "done" => None,
            "exhausted" => Some(format!(
                "every chunk was tried: {} of the {} test cases asked for were accepted",
                outcome.accepted, settings.count
            )),
            "budget" => Some(format!(
                "stopped before passing the budget of {:.4} USD ({:.4} USD spent in all); resume with a larger --budget to go on",
                settings.budget_usd.unwrap_or(0.0),
                self.budget.spent()
            )),
            "failing" => Some(format!(
                "stopped after {} candidates in a row failed; the last: {}",
                self.failures.in_a_row,
                self.failures.last.as_deref().unwrap_or("unknown")
            )),
            _ => Some("cancelled".to_string()),
        }
    }
}

/// The generation's progress after a wave: accepted test cases, calls, cache hits,
/// failures and spend.
fn report_wave(progress: &dyn ProgressSink, outcome: &GenerationOutcome, count: u64) {
    progress.report(Progress::Advanced {
        done: outcome.accepted.min(count),
        total: Some(count),
    });
    progress.report(Progress::Totals {
        calls: outcome.calls,
        cache_hits: outcome.cache_hits,
        failures: outcome.errors,
        cost_usd: outcome.cost_usd,
    });
}

/// The accepted candidate as a dataset item, in the importer's schema.
fn test_case(chunk: &Chunk, candidate: &Candidate) -> Item {
    Item {
        id: Some(format!("gen-{}", chunk.key)),
        question: candidate.question.clone().unwrap_or_default(),
        ground_truth: candidate.answer.clone(),
        reference_contexts: vec![chunk.text.clone()],
        gold_context_ids: vec![chunk.key.clone()],
        ..Item::default()
    }
}
