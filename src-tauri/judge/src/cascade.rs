//! The cascade: the offline judge decides what it is sure of and a stronger judge (a
//! configured model) the rest. The offline judge's learned decisions are calibrated
//! probabilities, so it knows when one lies close to its decision point; a task with
//! such a decision (a claim that may or may not be supported, an aspect the chunks may
//! or may not answer) goes on, every other task stays offline and free. Chosen as
//! `offline+NAME` wherever a judge is named.
//!
//! Owns: routing each task. Must not: judge anything itself.

use std::sync::Arc;

use super::offline::OfflineJudge;
use super::task::Task;
use super::{CallContext, Judge, JudgeError, JudgeIdentity, Judgement};

/// The prefix that names a cascade in front of the stronger judge's profile name.
pub const PREFIX: &str = "offline+";

/// The stronger judge's profile name, when `name` names a cascade.
pub fn stronger(name: &str) -> Option<&str> {
    name.strip_prefix(PREFIX).filter(|s| !s.is_empty())
}

pub struct CascadeJudge {
    offline: OfflineJudge,
    strong: Arc<dyn Judge>,
    identity: JudgeIdentity,
}

impl CascadeJudge {
    /// The standard offline judge in front of `strong`.
    pub fn new(strong: Arc<dyn Judge>) -> CascadeJudge {
        CascadeJudge::with_offline(OfflineJudge::standard(), strong)
    }

    pub fn with_offline(offline: OfflineJudge, strong: Arc<dyn Judge>) -> CascadeJudge {
        let mut identity = strong.identity().clone();
        identity.name = format!("{PREFIX}{}", identity.name);
        CascadeJudge {
            offline,
            strong,
            identity,
        }
    }

    /// Whether `task` goes to the stronger judge: generation and criteria in plain words
    /// always (the offline judge writes nothing and scores no such criterion),
    /// otherwise when the offline judge is unsure of it.
    pub fn sends_on(&self, task: &Task) -> bool {
        sends_on(&self.offline, task)
    }
}

#[async_trait::async_trait]
impl Judge for CascadeJudge {
    fn identity(&self) -> &JudgeIdentity {
        &self.identity
    }

    fn concurrency(&self) -> usize {
        self.strong.concurrency()
    }

    fn weighs_passages_together(&self) -> bool {
        self.offline.weighs_passages_together() || self.strong.weighs_passages_together()
    }

    async fn judge(&self, task: &Task, ctx: &CallContext) -> Result<Judgement, JudgeError> {
        if self.sends_on(task) {
            self.strong.judge(task, ctx).await
        } else {
            self.offline.judge(task, ctx).await
        }
    }

    /// The tasks sent on go to the stronger judge together (one call for a model); the
    /// rest stay offline.
    async fn judge_together(
        &self,
        tasks: &[Task],
        ctx: &CallContext,
    ) -> Vec<Result<Judgement, JudgeError>> {
        let routes: Vec<bool> = tasks.iter().map(|t| self.sends_on(t)).collect();
        let sent_tasks: Vec<Task> = tasks
            .iter()
            .zip(&routes)
            .filter(|(_, sent)| **sent)
            .map(|(t, _)| t.clone())
            .collect();
        let kept: Vec<&Task> = tasks
            .iter()
            .zip(&routes)
            .filter(|(_, sent)| !**sent)
            .map(|(t, _)| t)
            .collect();
        let (strong, offline) = tokio::join!(
            self.strong.judge_together(&sent_tasks, ctx),
            super::join_all(kept.iter().map(|t| self.offline.judge(t, ctx)).collect()),
        );
        let (mut strong, mut offline) = (strong.into_iter(), offline.into_iter());
        routes
            .iter()
            .map(|sent| {
                let answer = if *sent { strong.next() } else { offline.next() };
                answer.expect("one answer per task")
            })
            .collect()
    }
}

/// Whether a cascade with `offline` in front sends `task` on: generation and criteria in
/// plain words always, otherwise when the offline judge is unsure of it.
pub fn sends_on(offline: &OfflineJudge, task: &Task) -> bool {
    task.needs_language_model() || offline.is_unsure(task)
}

/// Routing a task runs the offline judge on it (the embedded model's encoder included),
/// so a plan measures the split on at most this many tasks, spread evenly over the run.
pub const SPLIT_SAMPLE: usize = 240;

/// How a cascade would route a run's tasks, before any is asked.
#[derive(Debug, Clone, PartialEq)]
pub struct Split {
    /// The measured tasks that would go to the stronger judge.
    pub sent: Vec<Task>,
    /// How many tasks were routed to measure the split: all of them, or an even
    /// sample of a large run.
    pub measured: usize,
    /// How many tasks the run has.
    pub total: usize,
}

impl Split {
    /// The share of the run's tasks expected to go to the stronger judge.
    pub fn share(&self) -> f64 {
        if self.measured == 0 {
            0.0
        } else {
            self.sent.len() as f64 / self.measured as f64
        }
    }
}

/// Where `offline` in front of a stronger judge would send `tasks`: measured on every
/// task of a small run, on `SPLIT_SAMPLE` evenly spaced ones of a large run.
pub fn split(offline: &OfflineJudge, tasks: &[Task]) -> Split {
    let stride = tasks.len().div_ceil(SPLIT_SAMPLE).max(1);
    let measured: Vec<&Task> = tasks.iter().step_by(stride).collect();
    Split {
        sent: measured
            .iter()
            .filter(|t| sends_on(offline, t))
            .map(|t| (*t).clone())
            .collect(),
        measured: measured.len(),
        total: tasks.len(),
    }
}
