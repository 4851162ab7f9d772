//! How one metric ended on one item: a score with its evidence, an error, or a skip with
//! its reason. Every stage shares this shape (metrics and the judge make it, the store
//! keeps it, criteria and statistics read it).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How a metric result ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Ok,
    Error,
    Skipped,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Error => "error",
            Status::Skipped => "skipped",
        }
    }

    pub fn parse(s: &str) -> Option<Status> {
        match s {
            "ok" => Some(Status::Ok),
            "error" => Some(Status::Error),
            "skipped" => Some(Status::Skipped),
            _ => None,
        }
    }
}

/// One metric's verdict on one item. `score` is in [0, 1] and present only when `ok`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MetricResult {
    /// The metric's id ("ragvue.strict_faithfulness").
    pub metric: String,
    /// In [0, 1]; null when the metric errored or was skipped.
    pub score: Option<f64>,
    pub status: Status,
    /// Why the score is what it is, or why there is none.
    pub explanation: String,
    /// Structured evidence (per chunk, per claim, per aspect) for the UI and reports.
    pub details: Value,
}

impl MetricResult {
    pub fn ok(metric: &str, score: f64, explanation: impl Into<String>, details: Value) -> Self {
        debug_assert!(score.is_finite(), "{metric} produced a non-finite score");
        MetricResult {
            metric: metric.to_string(),
            score: Some(score.clamp(0.0, 1.0)),
            status: Status::Ok,
            explanation: explanation.into(),
            details,
        }
    }

    pub fn error(metric: &str, message: impl Into<String>) -> Self {
        MetricResult {
            metric: metric.to_string(),
            score: None,
            status: Status::Error,
            explanation: message.into(),
            details: Value::Null,
        }
    }

    pub fn skipped(metric: &str, reason: impl Into<String>) -> Self {
        MetricResult {
            metric: metric.to_string(),
            score: None,
            status: Status::Skipped,
            explanation: reason.into(),
            details: Value::Null,
        }
    }
}
