//! Asking the judge on behalf of a run or a judge check, and what it cost: every call
//! goes through one `Asker`, which keeps the `Accounting` (calls, cache hits, failures,
//! tokens, cost) and the prompt versions that answered.
//!
//! Owns: the accounting of judge calls. Must not: choose tasks (`engine`) or build
//! metrics from verdicts (`verdicts`).

use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::judge::{CallContext, Judge, JudgeError, Judgement, Task, TaskKind, Verdict};

/// What judging cost: calls, cache hits, failures, tokens and US dollars.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Accounting {
    /// Judge calls that went to the judge (not answered from the cache).
    pub calls: u64,
    pub cache_hits: u64,
    pub failures: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: f64,
}

impl Accounting {
    pub fn add(&mut self, other: &Accounting) {
        self.calls += other.calls;
        self.cache_hits += other.cache_hits;
        self.failures += other.failures;
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cost_usd += other.cost_usd;
    }
}

/// Asks the judge, keeping the accounting and the prompt versions that answered. Every
/// judge call of a run or a judge check goes through one.
pub(crate) struct Asker<'a> {
    pub(super) judge: &'a dyn Judge,
    ctx: &'a CallContext,
    accounting: Mutex<Accounting>,
    prompt_versions: Mutex<std::collections::BTreeSet<String>>,
}

impl<'a> Asker<'a> {
    pub(crate) fn new(judge: &'a dyn Judge, ctx: &'a CallContext) -> Asker<'a> {
        Asker {
            judge,
            ctx,
            accounting: Mutex::default(),
            prompt_versions: Mutex::default(),
        }
    }

    /// What the calls cost, and the prompt versions of the verdicts.
    pub(crate) fn into_spent(self) -> (Accounting, std::collections::BTreeSet<String>) {
        (
            self.accounting.into_inner().unwrap_or_default(),
            self.prompt_versions.into_inner().unwrap_or_default(),
        )
    }

    pub(crate) async fn ask(&self, task: Task) -> Result<Verdict, JudgeError> {
        let outcome = self.judge.judge(&task, self.ctx).await;
        self.account(outcome)
    }

    /// Asks tasks that need no other verdict together (one call for a model); each
    /// answer is counted once, a call shared by several answers once.
    pub(crate) async fn ask_together(&self, tasks: &[Task]) -> Vec<Result<Verdict, JudgeError>> {
        let outcomes = self.judge.judge_together(tasks, self.ctx).await;
        outcomes.into_iter().map(|o| self.account(o)).collect()
    }

    fn account(&self, outcome: Result<Judgement, JudgeError>) -> Result<Verdict, JudgeError> {
        let mut acc = self.accounting.lock().unwrap();
        match &outcome {
            Ok(j) if j.cached => acc.cache_hits += 1,
            Ok(j) => {
                acc.calls += u64::from(!j.shared_call);
                acc.input_tokens += j.usage.input_tokens;
                acc.output_tokens += j.usage.output_tokens;
                acc.cost_usd += j.cost_usd;
            }
            Err(e) => {
                acc.failures += 1;
                // Replies that could not be read were still paid for.
                if let Some((usage, cost)) = e.spent() {
                    acc.input_tokens += usage.input_tokens;
                    acc.output_tokens += usage.output_tokens;
                    acc.cost_usd += cost;
                }
            }
        }
        drop(acc);
        if let Ok(j) = &outcome {
            self.prompt_versions
                .lock()
                .unwrap()
                .insert(j.prompt_version.clone());
        }
        outcome.map(|j| j.verdict)
    }
}

pub(super) fn wrong_verdict(expected: &str, got: TaskKind) -> JudgeError {
    JudgeError::Unparseable {
        message: format!("expected a {expected} verdict, got {}", got.as_str()),
        raw: String::new(),
        spent: None,
    }
}
