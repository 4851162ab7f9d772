//! What the case list asks for: order, filters, a page and its columns, read into the
//! core's query with every unknown name refused.

use ragnosis_core::analysis::diagnosis::FailurePattern;
use ragnosis_core::cases::{CaseFilter, CaseQuery, Cursor, Order, ScoreRange};
use ragnosis_core::metrics;
use ragnosis_core::Error;
use serde::Deserialize;

/// What the case list asks for.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CaseQueryInput {
    /// "position" (run order), "worst" (lowest mean score first) or "metric".
    pub order: String,
    /// With order "metric": the metric to sort by.
    #[serde(default)]
    pub sort_metric: Option<String>,
    /// With order "metric": highest score first instead of lowest.
    #[serde(default)]
    pub descending: bool,
    /// Keep items whose score on this metric lies in [min, max].
    #[serde(default)]
    pub score_metric: Option<String>,
    /// Lower bound of the score range; 0 when absent.
    #[serde(default)]
    pub min: Option<f64>,
    /// Upper bound of the score range; 1 when absent.
    #[serde(default)]
    pub max: Option<f64>,
    /// A failure pattern letter "A" … "J": keep the items it fired on.
    #[serde(default)]
    pub pattern: Option<String>,
    /// Keep only items with at least one errored result.
    #[serde(default)]
    pub errors_only: bool,
    /// Keep items whose question or answer contains this text (ASCII case-insensitive).
    #[serde(default)]
    pub text: Option<String>,
    /// Rows counted off before the page starts (when `after` is absent).
    pub offset: i64,
    /// Rows per page; the core serves between 1 and 500.
    pub limit: i64,
    /// Start after this row of the page before (its list's `next`) instead of counting
    /// `offset` rows off; `offset` then only numbers the rows.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub after: Option<Cursor>,
    /// Metrics whose cells each row carries.
    #[serde(default)]
    pub columns: Vec<String>,
}

fn known_metric(id: &str) -> Result<String, Error> {
    metrics::find(id)
        .map(|m| m.id.to_string())
        .ok_or_else(|| Error::Invalid(format!("unknown metric '{id}'")))
}

impl CaseQueryInput {
    /// The core's query, refusing an unknown order or metric, "metric" without
    /// `sort_metric`, an empty or non-finite score range and an unknown pattern letter.
    pub fn into_query(self) -> Result<CaseQuery, Error> {
        let order = match (self.order.as_str(), self.sort_metric) {
            ("position", _) => Order::Position,
            ("worst", _) => Order::Worst,
            ("metric", Some(metric)) => Order::Metric {
                metric: known_metric(&metric)?,
                descending: self.descending,
            },
            ("metric", None) => {
                return Err(Error::Invalid(
                    "sorting by a metric needs sort_metric".into(),
                ))
            }
            (other, _) => {
                return Err(Error::Invalid(format!(
                    "unknown order '{other}': use position, worst or metric"
                )))
            }
        };
        let score = match self.score_metric {
            Some(metric) => {
                let (min, max) = (self.min.unwrap_or(0.0), self.max.unwrap_or(1.0));
                if !(min.is_finite() && max.is_finite()) || min > max {
                    return Err(Error::Invalid(format!(
                        "the score range {min} – {max} is empty"
                    )));
                }
                Some(ScoreRange {
                    metric: known_metric(&metric)?,
                    min,
                    max,
                })
            }
            None => None,
        };
        let pattern = match self.pattern.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(p) => {
                let letter = p
                    .chars()
                    .next()
                    .filter(|_| p.len() == 1)
                    .and_then(FailurePattern::from_letter)
                    .map(FailurePattern::letter);
                Some(letter.ok_or_else(|| {
                    let last = FailurePattern::ALL.last().map_or('A', |f| f.letter());
                    Error::Invalid(format!("unknown failure pattern '{p}': use A to {last}"))
                })?)
            }
        };
        let columns = self
            .columns
            .iter()
            .map(|c| known_metric(c))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(CaseQuery {
            filter: CaseFilter {
                score,
                pattern,
                errors_only: self.errors_only,
                text: self.text,
            },
            order,
            offset: self.offset,
            limit: self.limit,
            after: self.after,
            columns,
        })
    }
}
