//! Quality gates for CI: `--fail-under METRIC=VALUE` and `--fail-over METRIC=VALUE`,
//! checked on a finished run's summary.
//!
//! Owns: reading a gate from what the user typed (refusing one that points the wrong way
//! for its metric) and checking it. Pure: no store, no judge.
//!
//! Direction: a higher-is-better metric fails *under* a floor, a lower-is-better one
//! (hallucination, noise sensitivity, no-citation rate) fails *over* a ceiling. A gate the
//! other way round would pass a run that got worse, so it is refused with a hint.
//!
//! Basis: on the mean (`--gate mean`, the default), or on the side of the mean's 95%
//! interval that a gate must be sure of (`--gate ci`): a floor holds only when the whole
//! interval is above it, a ceiling only when the whole interval is below it. Judges are
//! noisy and samples small; a CI gate fails a run whose mean clears the line by luck.

use serde::{Deserialize, Serialize};

use super::RunSummary;
use crate::error::{Error, Result};
use crate::metrics::{self, Scope};

/// Which way a gate fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// `--fail-under`: fails when the metric is below the value.
    Under,
    /// `--fail-over`: fails when the metric is above the value.
    Over,
}

impl Direction {
    fn flag(self) -> &'static str {
        match self {
            Direction::Under => "--fail-under",
            Direction::Over => "--fail-over",
        }
    }
}

/// What a gate compares with its value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    #[default]
    Mean,
    /// The interval's lower end for a floor, its upper end for a ceiling.
    Ci,
}

impl std::str::FromStr for Basis {
    type Err = Error;

    fn from_str(s: &str) -> Result<Basis> {
        match s.trim() {
            "mean" => Ok(Basis::Mean),
            "ci" => Ok(Basis::Ci),
            other => Err(Error::Invalid(format!(
                "unknown gate basis '{other}' (use mean or ci)"
            ))),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Gate {
    pub metric: String,
    pub direction: Direction,
    pub value: f64,
}

/// Reads `METRIC=VALUE[,..]` typed after `direction`'s flag. Metric ids, bare names and
/// families resolve as in `--metrics`; a family gates each of its per-item metrics that
/// points the gate's way (a family's mixed directions are not an error).
pub fn parse(spec: &str, direction: Direction) -> Result<Vec<Gate>> {
    let flag = direction.flag();
    let mut gates = Vec::new();
    for pair in spec.split(',').filter(|s| !s.trim().is_empty()) {
        let (name, value) = pair
            .split_once('=')
            .ok_or_else(|| Error::Invalid(format!("{flag} expects METRIC=VALUE, got '{pair}'")))?;
        let value: f64 = value
            .trim()
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or_else(|| {
                Error::Invalid(format!(
                    "{flag} value for {} is not a number: '{}'",
                    name.trim(),
                    value.trim()
                ))
            })?;
        let specs = metrics::resolve_selection(&[name.trim()])?;
        let single = specs.len() == 1;
        let mut matched = 0;
        for spec in specs
            .into_iter()
            .filter(|s| s.scope == Scope::Item || single)
        {
            let wanted = if spec.lower_is_better {
                Direction::Over
            } else {
                Direction::Under
            };
            if wanted != direction {
                if single {
                    return Err(Error::Invalid(wrong_way(
                        spec.id,
                        spec.lower_is_better,
                        value,
                    )));
                }
                continue;
            }
            matched += 1;
            gates.push(Gate {
                metric: spec.id.to_string(),
                direction,
                value,
            });
        }
        if matched == 0 {
            return Err(Error::Invalid(format!(
                "{flag} {}: no metric there fails {}",
                name.trim(),
                match direction {
                    Direction::Under =>
                        "under a floor (all of them are lower-is-better; use --fail-over)",
                    Direction::Over =>
                        "over a ceiling (none of them is lower-is-better; use --fail-under)",
                }
            )));
        }
    }
    Ok(gates)
}

fn wrong_way(metric: &str, lower_is_better: bool, value: f64) -> String {
    if lower_is_better {
        format!(
            "{metric} is lower-is-better, so --fail-under would pass a run that got worse; use --fail-over {metric}={value}"
        )
    } else {
        format!(
            "{metric} is higher-is-better, so --fail-over would pass a run that got worse; use --fail-under {metric}={value}"
        )
    }
}

/// Why a gate did not hold, in one line: "ragvue.clarity mean 0.612 < 0.7".
pub fn missed(summary: &RunSummary, gates: &[Gate], basis: Basis) -> Vec<String> {
    gates
        .iter()
        .filter_map(|gate| {
            let Some(stats) = summary.metrics.get(&gate.metric).map(|m| &m.stats) else {
                return Some(format!("{} did not run", gate.metric));
            };
            let (what, figure) = match (basis, gate.direction) {
                (Basis::Mean, _) => ("mean", stats.mean),
                (Basis::Ci, Direction::Under) => ("95% CI lower end", stats.ci95_low),
                (Basis::Ci, Direction::Over) => ("95% CI upper end", stats.ci95_high),
            };
            let Some(figure) = figure else {
                return Some(match basis {
                    Basis::Mean => format!("{} has no mean in this run", gate.metric),
                    Basis::Ci => format!(
                        "{} has no 95% interval in this run (it needs 2 scored items, it has {})",
                        gate.metric, stats.n
                    ),
                });
            };
            match gate.direction {
                Direction::Under if figure < gate.value => Some(format!(
                    "{} {what} {figure:.3} < {}",
                    gate.metric, gate.value
                )),
                Direction::Over if figure > gate.value => Some(format!(
                    "{} {what} {figure:.3} > {}",
                    gate.metric, gate.value
                )),
                _ => None,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::analysis::{MetricStats, MetricSummary};

    fn summary(metric: &str, scores: &[f64], lower_is_better: bool) -> RunSummary {
        RunSummary {
            run_id: 1,
            items: scores.len() as u64,
            metrics: BTreeMap::from([(
                metric.to_string(),
                MetricSummary {
                    stats: MetricStats::from_scores(metric, scores, 0, 0, lower_is_better),
                    lowest: Vec::new(),
                    highest: Vec::new(),
                    skip_reasons: Vec::new(),
                },
            )]),
            dataset_metrics: BTreeMap::new(),
            dataset_details: BTreeMap::new(),
            errors: Vec::new(),
            diagnosis: None,
            taxonomy: None,
        }
    }

    #[test]
    fn a_gate_pointing_the_wrong_way_is_refused_with_the_right_flag() {
        let err = parse("hallucination=0.2", Direction::Under)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("lower-is-better")
                && err.contains("--fail-over ragchecker.hallucination=0.2"),
            "{err}"
        );
        let err = parse("clarity=0.7", Direction::Over)
            .unwrap_err()
            .to_string();
        assert!(err.contains("--fail-under ragvue.clarity=0.7"), "{err}");
        let gates = parse("hallucination=0.2", Direction::Over).unwrap();
        assert_eq!(gates[0].metric, "ragchecker.hallucination");
        assert!(parse("clarity=high", Direction::Under).is_err());
        assert!(parse("clarity", Direction::Under).is_err());
    }

    #[test]
    fn a_family_gates_the_metrics_that_point_its_way() {
        let floors = parse("ragchecker=0.5", Direction::Under).unwrap();
        let ceilings = parse("ragchecker=0.5", Direction::Over).unwrap();
        assert!(floors.iter().any(|g| g.metric == "ragchecker.precision"));
        assert!(!floors
            .iter()
            .any(|g| g.metric == "ragchecker.hallucination"));
        assert!(ceilings
            .iter()
            .all(|g| { metrics::find(&g.metric).is_some_and(|m| m.lower_is_better) }));
        assert!(ceilings
            .iter()
            .any(|g| g.metric == "ragchecker.hallucination"));
    }

    #[test]
    fn a_ci_gate_needs_the_whole_interval_past_the_line() {
        // mean 0.75, t interval about 0.37 to 1.0 on four items.
        let run = summary("ragvue.clarity", &[0.5, 0.9, 1.0, 0.6], false);
        let floor = parse("clarity=0.7", Direction::Under).unwrap();
        assert!(
            missed(&run, &floor, Basis::Mean).is_empty(),
            "the mean clears 0.7"
        );
        let by_ci = missed(&run, &floor, Basis::Ci);
        assert_eq!(by_ci.len(), 1);
        assert!(
            by_ci[0].starts_with("ragvue.clarity 95% CI lower end 0.3"),
            "{by_ci:?}"
        );

        let run = summary("ragchecker.hallucination", &[0.1, 0.3], true);
        let ceiling = parse("hallucination=0.25", Direction::Over).unwrap();
        assert!(
            missed(&run, &ceiling, Basis::Mean).is_empty(),
            "mean 0.2 ≤ 0.25"
        );
        assert_eq!(
            missed(&run, &ceiling, Basis::Ci).len(),
            1,
            "upper end above 0.25"
        );
        let higher = summary("ragchecker.hallucination", &[0.4, 0.6], true);
        assert_eq!(
            missed(&higher, &ceiling, Basis::Mean),
            vec!["ragchecker.hallucination mean 0.500 > 0.25".to_string()]
        );
    }

    #[test]
    fn a_gate_on_a_metric_without_figures_says_why() {
        let one = summary("ragvue.clarity", &[0.9], false);
        let floor = parse("clarity=0.5", Direction::Under).unwrap();
        assert!(missed(&one, &floor, Basis::Mean).is_empty());
        assert!(missed(&one, &floor, Basis::Ci)[0].contains("needs 2 scored items, it has 1"));
        let other = parse("coherence=0.5", Direction::Under).unwrap();
        assert_eq!(
            missed(&one, &other, Basis::Mean),
            vec!["ragvue.coherence did not run".to_string()]
        );
    }
}
