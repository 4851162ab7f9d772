//! Whether the judge answers at all. A run whose judge fails on every call — a rejected
//! key, a server that is not there, a model name the server does not know — stops after
//! a few items with the cause, instead of filling every cell with the same error and
//! calling itself done. Once the judge has answered, failures are the run's errors to
//! report ("done with errors"), never a reason to stop.
//!
//! Owns: that decision. Reads only the results of finished items.

use crate::error_code::ErrorCode;
use crate::metrics::{self, MetricResult, Status};

/// Items in a row on which every judged metric failed, before the run stops — when the
/// judge has not answered once.
const STOP_AFTER: u32 = 3;

#[derive(Debug, Default)]
pub struct JudgeHealth {
    answered: bool,
    streak: u32,
    last: Option<(ErrorCode, String)>,
}

/// Why a run stopped early: the judge's error code and what the user reads.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct JudgeDown {
    pub code: ErrorCode,
    pub message: String,
}

impl JudgeHealth {
    /// Takes one finished item's results into account.
    pub fn observe(&mut self, results: &[MetricResult]) {
        let judged: Vec<&MetricResult> = results
            .iter()
            .filter(|r| metrics::find(&r.metric).is_some_and(|m| m.judge))
            .collect();
        if judged.is_empty() {
            return;
        }
        if judged.iter().any(|r| r.status == Status::Ok) {
            self.answered = true;
            self.streak = 0;
            return;
        }
        let codes: Vec<Option<ErrorCode>> = judged.iter().map(|r| judge_code(r)).collect();
        match codes.first().copied().flatten() {
            Some(code) if codes.iter().all(|c| c.is_some()) => {
                self.streak += 1;
                self.last = Some((code, judged[0].explanation.clone()));
            }
            // Skipped cells or failures of another kind (a cancelled call): no evidence
            // either way.
            _ => {}
        }
    }

    /// Some when the run should stop: the judge has failed on every judged metric of
    /// the last few items and never answered.
    pub fn down(&self) -> Option<JudgeDown> {
        if self.answered || self.streak < STOP_AFTER {
            return None;
        }
        let (code, explanation) = self.last.clone()?;
        Some(JudgeDown {
            code,
            message: format!(
                "stopped: the judge failed on every call of the first {} items ({}). {} {}",
                self.streak,
                code.as_str(),
                explanation,
                what_to_do(code)
            ),
        })
    }
}

/// The judge error code a result's details record, for a failure of the judge itself.
fn judge_code(result: &MetricResult) -> Option<ErrorCode> {
    if result.status != Status::Error {
        return None;
    }
    let text = result.details.get("error_code")?.as_str()?;
    ErrorCode::ALL
        .into_iter()
        .find(|c| c.as_str() == text)
        .filter(|c| c.as_str().starts_with("judge."))
}

fn what_to_do(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::JudgeAuth => {
            "Store the right key for this judge profile (`ragnosis keys set NAME`, or Settings in the window), then resume the run."
        }
        ErrorCode::JudgeUnreachable => {
            "Check the profile's URL and that the server is running, then resume the run."
        }
        ErrorCode::JudgeTimeout => {
            "The judge did not answer in time: check the server, or raise the profile's timeout, then resume the run."
        }
        ErrorCode::JudgeRateLimited => {
            "The service kept refusing for rate: wait, or lower the profile's requests per minute, then resume the run."
        }
        ErrorCode::JudgeBadReply => {
            "The model's replies could not be read: try another model for this profile, then resume the run."
        }
        ErrorCode::JudgeConfig => "Fix the judge profile, then resume the run.",
        _ => "Check the judge profile and the server, then resume the run.",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn failed(metric: &str, code: &str) -> MetricResult {
        let mut r = MetricResult::error(
            metric,
            "The judge could not score this item: cannot reach the judge",
        );
        r.details = json!({ "error_code": code });
        r
    }

    #[test]
    fn a_judge_that_never_answers_stops_the_run_after_a_few_items() {
        let mut health = JudgeHealth::default();
        for _ in 0..2 {
            health.observe(&[failed("ragvue.strict_faithfulness", "judge.unreachable")]);
        }
        assert!(health.down().is_none(), "two items are not yet a pattern");
        health.observe(&[failed("ragvue.strict_faithfulness", "judge.unreachable")]);
        let down = health.down().expect("three items without an answer");
        assert_eq!(down.code, ErrorCode::JudgeUnreachable);
        assert!(
            down.message.contains("judge.unreachable") && down.message.contains("resume"),
            "{}",
            down.message
        );
    }

    #[test]
    fn once_the_judge_has_answered_failures_never_stop_the_run() {
        let mut health = JudgeHealth::default();
        health.observe(&[MetricResult::ok(
            "ragvue.strict_faithfulness",
            1.0,
            "",
            json!({}),
        )]);
        for _ in 0..10 {
            health.observe(&[failed("ragvue.strict_faithfulness", "judge.auth")]);
        }
        assert!(health.down().is_none());
    }

    #[test]
    fn judge_free_metrics_and_cancelled_calls_say_nothing_about_the_judge() {
        let mut health = JudgeHealth::default();
        for _ in 0..5 {
            health.observe(&[MetricResult::ok("ragvue.answer_length", 1.0, "", json!({}))]);
            health.observe(&[failed("ragvue.strict_faithfulness", "cancelled")]);
        }
        assert!(health.down().is_none());
    }
}
