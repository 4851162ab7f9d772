//! What a report is asked to hold: the options every reader passes (`show`, the
//! exports, the window, the advisor), which the run's facts are read for.

use serde::{Deserialize, Serialize};

use crate::analysis::compare;

/// Worst items a pattern shows in full.
pub const PATTERN_CASES: usize = 2;

/// What to build a report of.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportOptions {
    /// The report's date line, e.g. an RFC 3339 timestamp; the only non-data input.
    pub generated_at: String,
    /// How much the report holds: the short default, or everything.
    pub detail: Detail,
    /// Items in the appendix.
    pub worst: usize,
    /// Compare against this run (the report's run is "B").
    pub baseline: Option<i64>,
    pub threshold: f64,
    /// Compare with a baseline judged differently (the report then says so).
    pub allow_different_judges: bool,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            generated_at: String::new(),
            detail: Detail::Short,
            worst: 10,
            baseline: None,
            threshold: compare::DEFAULT_THRESHOLD,
            allow_different_judges: false,
        }
    }
}

/// How much a report holds. `Short` (the default) answers "how good, what is wrong, what
/// to fix first, which items show it" in a few pages: the headline metrics, the failure
/// patterns with their examples, the action items, a short methodology. `Full` adds every
/// metric, every chart, the insights, every metric definition and the worst items in full.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Detail {
    #[default]
    Short,
    Full,
}

impl Detail {
    pub fn parse(s: &str) -> Option<Detail> {
        match s.trim().to_ascii_lowercase().as_str() {
            "short" => Some(Detail::Short),
            "full" => Some(Detail::Full),
            _ => None,
        }
    }
}
