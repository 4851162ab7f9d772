//! Whether the judge answers at all. A run whose judge fails on every call — a rejected
//! key, a server that is not there, a model name the server does not know — stops after
//! a few items with the cause, instead of filling every cell with the same error and
//! calling itself done. A failure no retry can mend (a refused key, a profile the server
//! cannot serve) stops the run too once it repeats on `UNMENDABLE_STOP` judged cells in a
//! row, whenever it comes (a key revoked mid-run) and whatever metrics the items had.
//! Other failures after the judge has answered are the run's errors to report ("done with
//! errors"), never a reason to stop.
//!
//! Owns: that decision. Reads only the results of finished items.

use crate::error_code::ErrorCode;
use crate::metrics::{self, MetricResult, Status};

/// Items in a row on which every judged metric failed, before the run stops — when the
/// judge has not answered once.
const STOP_AFTER: u32 = 3;

/// Judged cells in a row failing in a way no retry mends, before the run stops.
const UNMENDABLE_STOP: u32 = 10;

#[derive(Debug, Default)]
pub struct JudgeHealth {
    answered: bool,
    streak: u32,
    last: Option<(ErrorCode, String)>,
    unmendable: u32,
    last_unmendable: Option<(ErrorCode, String)>,
}

/// A judge failure that the same call cannot get past by being tried again: the key is
/// refused, or the profile is one the server cannot serve (unknown model, bad request).
fn unmendable(code: ErrorCode) -> bool {
    matches!(code, ErrorCode::JudgeAuth | ErrorCode::JudgeConfig)
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
        for r in &judged {
            match judge_code(r) {
                Some(code) if unmendable(code) => {
                    self.unmendable += 1;
                    self.last_unmendable = Some((code, r.explanation.clone()));
                }
                _ if r.status == Status::Ok => self.unmendable = 0,
                _ => {}
            }
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
        if self.unmendable >= UNMENDABLE_STOP {
            let (code, explanation) = self.last_unmendable.clone()?;
            return Some(JudgeDown {
                code,
                message: format!(
                    "stopped: the judge refused {} calls in a row in a way trying again cannot mend ({}). {} {}",
                    self.unmendable,
                    code.as_str(),
                    explanation,
                    what_to_do(code)
                ),
            });
        }
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
            health.observe(&[failed("ragvue.strict_faithfulness", "judge.unreachable")]);
            health.observe(&[failed("ragvue.strict_faithfulness", "judge.rate_limited")]);
        }
        assert!(
            health.down().is_none(),
            "transient failures are the run's errors"
        );
    }

    #[test]
    fn a_key_refused_mid_run_stops_it_whatever_the_metric_mix() {
        let mut health = JudgeHealth::default();
        health.observe(&[MetricResult::ok("ragvue.clarity", 1.0, "", json!({}))]);
        // Items with a metric skipped beside the refused ones: the per-item rule never
        // saw an item of nothing but failures.
        for _ in 0..4 {
            health.observe(&[
                failed("ragvue.strict_faithfulness", "judge.auth"),
                failed("ragvue.clarity", "judge.auth"),
                MetricResult::skipped("ragvue.multi_hop_faithfulness", "single fact"),
            ]);
        }
        assert!(
            health.down().is_none(),
            "eight refused calls are not yet ten"
        );
        health.observe(&[
            failed("ragvue.strict_faithfulness", "judge.auth"),
            failed("ragvue.clarity", "judge.auth"),
        ]);
        let down = health
            .down()
            .expect("ten refused calls in a row stop the run");
        assert_eq!(down.code, ErrorCode::JudgeAuth);
        assert!(down.message.contains("keys set"), "{}", down.message);
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
