//! The simulated model's answer to a user's own criterion (the offline judge scores
//! none): a fixed rule a test can predict. The share of the answer's words (four
//! letters or more) that the passages hold, or the question when the criterion reads no
//! passages, decides the score: pass/fail passes at a half or more, 1–5 is 1 + 4 × the
//! share rounded, 0–1 is the share to two decimals. The reasoning names the count.
//!
//! Owns: that rule. Must not: answer any other task.

use std::collections::HashSet;

use ragnosis_core::criteria::Scale;
use ragnosis_core::judge::task::{CriterionTask, CriterionVerdict, Task, Verdict};

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 4)
        .map(str::to_lowercase)
        .collect()
}

/// The verdict on a criterion task; `None` for any other task.
pub fn verdict(task: &Task) -> Option<Verdict> {
    let Task::Criterion(task) = task else {
        return None;
    };
    Some(Verdict::Criterion(score(task)))
}

fn score(task: &CriterionTask) -> CriterionVerdict {
    let (source, what) = if task.chunks.is_empty() {
        (task.question.clone(), "the question")
    } else {
        (task.chunks.join("\n"), "the passages")
    };
    let known: HashSet<String> = words(&source).into_iter().collect();
    let answer = words(&task.answer);
    let found = answer.iter().filter(|w| known.contains(*w)).count();
    let share = if answer.is_empty() {
        0.0
    } else {
        found as f64 / answer.len() as f64
    };
    let score = match task.scale {
        Scale::PassFail => f64::from(u8::from(share >= 0.5)),
        Scale::OneToFive => 1.0 + (4.0 * share).round(),
        Scale::Unit => (share * 100.0).round() / 100.0,
    };
    CriterionVerdict {
        reasoning: format!(
            "Simulated judge: {found} of {} answer words appear in {what}.",
            answer.len()
        ),
        score: Some(score),
    }
}
