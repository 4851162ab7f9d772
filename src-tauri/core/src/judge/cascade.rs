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
        task.needs_language_model() || self.offline.is_unsure(task)
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

    async fn judge(&self, task: &Task, ctx: &CallContext) -> Result<Judgement, JudgeError> {
        if self.sends_on(task) {
            self.strong.judge(task, ctx).await
        } else {
            self.offline.judge(task, ctx).await
        }
    }
}
