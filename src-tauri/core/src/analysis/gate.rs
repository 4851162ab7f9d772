//! Quality gates for CI: `--fail-under METRIC=VALUE` and `--fail-over METRIC=VALUE`
//! on a finished run's summary, and the regression gate of `compare
//! --fail-on-regression`. A gate answers PASS, FAIL or INCONCLUSIVE.
//!
//! Owns: reading a gate from what the user typed (refusing one that points the wrong way
//! for its metric) and deciding it. Pure: no store, no judge.
//!
//! Direction: a higher-is-better metric fails *under* a floor, a lower-is-better one
//! (hallucination, noise sensitivity, no-citation rate) fails *over* a ceiling. A gate the
//! other way round would pass a run that got worse, so it is refused with a hint.
//!
//! Basis (`--gate`):
//! - `ci` (the default): the gate is decided only when the mean's 95% interval is wholly
//!   on one side of the line — PASS or FAIL —, else INCONCLUSIVE, with about how many
//!   scored items would settle it at the spread this run showed (the interval narrows
//!   with the square root of the items). The interval holds the noise of sampling items
//!   and, with a judge whose scores move from one judging to the next, that variation too
//!   (each item was judged once, so its spread is in the scores); a judge that gives the
//!   same score every time adds none.
//! - `mean`: the mean alone against the line, PASS or FAIL, whatever the noise.
//!
//! The regression gate reads a comparison's paired interval the same way: FAIL when the
//! metric got worse by more than the threshold with the whole interval on the worse side
//! of 0 (a regression), PASS when the interval rules out a drop larger than the threshold
//! (or nothing moved), INCONCLUSIVE otherwise, with the pairs that would settle it and the
//! smallest drop the comparison could detect (80% power, 5% two-sided).

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
    /// The mean alone: PASS or FAIL.
    Mean,
    /// The mean's 95% interval: PASS or FAIL when it is wholly on one side, else
    /// INCONCLUSIVE.
    #[default]
    Ci,
}

/// What a gate says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Pass,
    Fail,
    /// The figures cannot tell yet: the line lies within the noise.
    Inconclusive,
    /// The gate does not apply: its metric scored no item the gate could read (a metric
    /// neither run measured on a shared item). It decides nothing.
    NotApplicable,
}

impl Outcome {
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Pass => "PASS",
            Outcome::Fail => "FAIL",
            Outcome::Inconclusive => "INCONCLUSIVE",
            Outcome::NotApplicable => "NOT APPLICABLE",
        }
    }
}

/// One gate's answer with the figures it rests on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateVerdict {
    pub metric: String,
    pub outcome: Outcome,
    /// One line: "ragvue.clarity mean 0.612, 95% CI 0.55-0.67 < 0.7".
    pub reason: String,
    /// For an inconclusive gate: about how many scored items (pairs, for a comparison)
    /// would settle it at the spread seen, when that is a useful number.
    pub items_needed: Option<u64>,
}

/// Beyond this many times the items at hand, "how many would settle it" is not a plan.
const MAX_GROWTH: f64 = 100.0;

/// Items needed for a 95% interval of half-width `half` (from `n` items) to shrink to
/// `gap`, the distance from the estimate to the line.
fn items_to_settle(n: u64, half: f64, gap: f64) -> Option<u64> {
    if n == 0 || gap <= 0.0 || !half.is_finite() {
        return None;
    }
    let needed = (n as f64 * (half / gap).powi(2)).ceil();
    (needed <= n as f64 * MAX_GROWTH).then_some(needed.max(n as f64 + 1.0) as u64)
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

/// Each gate's verdict on a run's summary.
pub fn check(summary: &RunSummary, gates: &[Gate], basis: Basis) -> Vec<GateVerdict> {
    gates
        .iter()
        .map(|gate| check_one(summary, gate, basis))
        .collect()
}

fn check_one(summary: &RunSummary, gate: &Gate, basis: Basis) -> GateVerdict {
    let verdict = |outcome, reason: String, items_needed| GateVerdict {
        metric: gate.metric.clone(),
        outcome,
        reason,
        items_needed,
    };
    let Some(stats) = summary.metrics.get(&gate.metric).map(|m| &m.stats) else {
        return verdict(Outcome::Fail, format!("{} did not run", gate.metric), None);
    };
    let Some(mean) = stats.mean else {
        return verdict(
            Outcome::Fail,
            format!("{} has no mean in this run", gate.metric),
            None,
        );
    };
    let (sign, op_fail, op_pass) = match gate.direction {
        Direction::Under => (1.0, "<", "≥"),
        Direction::Over => (-1.0, ">", "≤"),
    };
    // Oriented so that above the line is good.
    let good = |v: f64| sign * (v - gate.value);
    if basis == Basis::Mean {
        return if good(mean) < 0.0 {
            verdict(
                Outcome::Fail,
                format!("{} mean {mean:.3} {op_fail} {}", gate.metric, gate.value),
                None,
            )
        } else {
            verdict(
                Outcome::Pass,
                format!("{} mean {mean:.3} {op_pass} {}", gate.metric, gate.value),
                None,
            )
        };
    }
    let (Some(lo), Some(hi)) = (stats.ci95_low, stats.ci95_high) else {
        return verdict(
            Outcome::Inconclusive,
            format!(
                "{} has no 95% interval in this run (it needs 2 scored items, it has {})",
                gate.metric, stats.n
            ),
            Some(2),
        );
    };
    let interval = format!("mean {mean:.3}, 95% CI {lo:.3}-{hi:.3}");
    let (near, far) = if sign > 0.0 { (lo, hi) } else { (hi, lo) };
    if good(near) >= 0.0 {
        verdict(
            Outcome::Pass,
            format!(
                "{} {interval}: all of it {op_pass} {}",
                gate.metric, gate.value
            ),
            None,
        )
    } else if good(far) < 0.0 {
        verdict(
            Outcome::Fail,
            format!(
                "{} {interval}: all of it {op_fail} {}",
                gate.metric, gate.value
            ),
            None,
        )
    } else {
        let needed = items_to_settle(stats.n, (hi - lo) / 2.0, good(mean).abs());
        verdict(
            Outcome::Inconclusive,
            format!(
                "{} {interval} spans {}: the line is within the noise of {} items",
                gate.metric, gate.value, stats.n
            ),
            needed,
        )
    }
}

/// The regression gate on one metric of a comparison (see the module documentation).
pub fn regression(m: &super::compare::MetricDelta, threshold: f64) -> GateVerdict {
    let verdict = |outcome, reason: String, items_needed| GateVerdict {
        metric: m.metric.clone(),
        outcome,
        reason,
        items_needed,
    };
    use super::compare::Flag;
    if m.flag == Flag::NotCompared {
        return verdict(
            Outcome::NotApplicable,
            format!("{}: no item was scored in both runs", m.metric),
            None,
        );
    }
    if m.moved() == 0 {
        return verdict(Outcome::Pass, format!("{}: no change", m.metric), None);
    }
    let sign = if m.lower_is_better { -1.0 } else { 1.0 };
    let delta = m.delta.unwrap_or(0.0);
    let (Some(lo), Some(hi)) = (m.ci95_low, m.ci95_high) else {
        return verdict(
            Outcome::Inconclusive,
            format!("{}: too few pairs for an interval ({})", m.metric, m.pairs),
            Some(2),
        );
    };
    // Oriented so that positive is better.
    let (worse_end, better_end) = if sign > 0.0 { (lo, hi) } else { (-hi, -lo) };
    let change = sign * delta;
    let half = (better_end - worse_end) / 2.0;
    // 80% power at 5% two-sided: (1.96 + 0.84) standard errors, and the 95% half-width
    // is 1.96 of them.
    let detectable = half * (1.96 + 0.8416) / 1.96;
    let figures = format!(
        "{}: change {delta:+.3}, 95% CI {lo:+.3} to {hi:+.3} over {} pairs",
        m.metric, m.pairs
    );
    if m.flag == Flag::Red {
        verdict(
            Outcome::Fail,
            format!("{figures}: worse by more than {threshold} and surely worse"),
            None,
        )
    } else if worse_end >= -threshold {
        verdict(
            Outcome::Pass,
            format!("{figures}: a drop larger than {threshold} is ruled out"),
            None,
        )
    } else {
        verdict(
            Outcome::Inconclusive,
            format!(
                "{figures}: a drop of {threshold} cannot be ruled out; the smallest drop these pairs could detect is about {detectable:.3}"
            ),
            items_to_settle(m.pairs, half, (change + threshold).abs()),
        )
    }
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
                    histogram: Vec::new(),
                },
            )]),
            dataset_metrics: BTreeMap::new(),
            dataset_details: BTreeMap::new(),
            errors: Vec::new(),
            diagnosis: None,
            taxonomy: None,
            judged_by: None,
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

    fn outcomes(run: &RunSummary, gates: &[Gate], basis: Basis) -> Vec<Outcome> {
        check(run, gates, basis).iter().map(|v| v.outcome).collect()
    }

    #[test]
    fn a_gate_passes_or_fails_only_when_the_whole_interval_is_on_one_side() {
        // mean 0.75, t interval about 0.45 to 1.05 on four items.
        let run = summary("ragvue.clarity", &[0.5, 0.9, 1.0, 0.6], false);
        let floor = parse("clarity=0.7", Direction::Under).unwrap();
        assert_eq!(
            outcomes(&run, &floor, Basis::Mean),
            [Outcome::Pass],
            "the mean clears 0.7"
        );
        let v = &check(&run, &floor, Basis::Ci)[0];
        assert_eq!(v.outcome, Outcome::Inconclusive, "{v:?}");
        // Half-width h from 4 items, distance 0.05 from the line: 4 * (h / 0.05)^2.
        let stats = &run.metrics["ragvue.clarity"].stats;
        let h = (stats.ci95_high.unwrap() - stats.ci95_low.unwrap()) / 2.0;
        assert_eq!(
            v.items_needed,
            Some((4.0 * (h / 0.05).powi(2)).ceil() as u64),
            "{v:?}"
        );
        let low = parse("clarity=0.2", Direction::Under).unwrap();
        assert_eq!(outcomes(&run, &low, Basis::Ci), [Outcome::Pass]);
        let high = parse("clarity=1.5", Direction::Under).unwrap();
        assert_eq!(outcomes(&run, &high, Basis::Ci), [Outcome::Fail]);

        let run = summary("ragchecker.hallucination", &[0.1, 0.3], true);
        let ceiling = parse("hallucination=0.25", Direction::Over).unwrap();
        assert_eq!(
            outcomes(&run, &ceiling, Basis::Mean),
            [Outcome::Pass],
            "mean 0.2 ≤ 0.25"
        );
        assert_eq!(
            outcomes(&run, &ceiling, Basis::Ci),
            [Outcome::Inconclusive],
            "the interval reaches above 0.25"
        );
        let higher = summary("ragchecker.hallucination", &[0.4, 0.6], true);
        assert_eq!(
            check(&higher, &ceiling, Basis::Mean)[0].reason,
            "ragchecker.hallucination mean 0.500 > 0.25"
        );
    }

    #[test]
    fn a_gate_on_a_metric_without_figures_says_why() {
        let one = summary("ragvue.clarity", &[0.9], false);
        let floor = parse("clarity=0.5", Direction::Under).unwrap();
        assert_eq!(outcomes(&one, &floor, Basis::Mean), [Outcome::Pass]);
        let v = &check(&one, &floor, Basis::Ci)[0];
        assert_eq!(v.outcome, Outcome::Inconclusive);
        assert!(v.reason.contains("needs 2 scored items, it has 1"), "{v:?}");
        let other = parse("coherence=0.5", Direction::Under).unwrap();
        let v = &check(&one, &other, Basis::Mean)[0];
        assert_eq!(
            (v.outcome, v.reason.as_str()),
            (Outcome::Fail, "ragvue.coherence did not run")
        );
    }

    /// A/A: the same 40 items judged twice by a judge whose scores jitter by up to
    /// ±0.1 around each item's own level. Over 200 seeded repetitions the regression gate
    /// at threshold 0.05 must say FAIL at most at its stated false-alarm rate (2.5%: a
    /// one-sided 95% interval), and never call identical data a regression more often.
    #[test]
    fn the_same_data_judged_twice_by_a_jittery_judge_is_almost_never_a_regression() {
        use crate::analysis::compare::bootstrap::SplitMix64;
        use crate::analysis::compare::{compare, RunRef, ScoredItem};
        use crate::store::run_items::RunItemKey;
        let reference = |id| RunRef::new(id, None, None, "d".into(), "jittery".into(), 40);
        let run = |rng: &mut SplitMix64, base: i64| -> Vec<ScoredItem> {
            (0..40)
                .map(|i| {
                    let level = 0.2 + 0.6 * ((i * 7 % 40) as f64 / 40.0);
                    let jitter = (rng.below(1_000_001) as f64 / 1e6 - 0.5) * 0.2;
                    ScoredItem {
                        key: RunItemKey {
                            item_id: base + i,
                            ordinal: i,
                            external_id: Some(format!("q{i}")),
                            content_hash: format!("h{i}"),
                            question_key: format!("h{i}"),
                        },
                        scores: BTreeMap::from([(
                            "m".to_string(),
                            (level + jitter).clamp(0.0, 1.0),
                        )]),
                        problems: None,
                    }
                })
                .collect()
        };
        let mut fails = 0;
        let mut passes = 0;
        for seed in 0..200u64 {
            let mut rng = SplitMix64::new(seed);
            let (a, b) = (run(&mut rng, 0), run(&mut rng, 100));
            let c = compare(
                reference(1),
                reference(2),
                &[("m".into(), false)],
                &a,
                &b,
                0.05,
            );
            match regression(&c.metrics[0], 0.05).outcome {
                Outcome::Fail => fails += 1,
                Outcome::Pass => passes += 1,
                Outcome::Inconclusive | Outcome::NotApplicable => {}
            }
        }
        assert!(fails <= 5, "{fails} of 200 A/A comparisons failed");
        assert!(
            passes >= 150,
            "the gate should usually clear identical data: {passes} of 200"
        );
    }

    #[test]
    fn a_regression_gate_tells_a_sure_drop_from_one_it_cannot_rule_out() {
        use crate::analysis::compare::{ChangeCounts, Flag, MetricDelta};
        let delta = |d: f64, lo: f64, hi: f64, flag: Flag| MetricDelta {
            metric: "m".into(),
            lower_is_better: false,
            pairs: 40,
            mean_a: Some(0.7),
            mean_b: Some(0.7 + d),
            delta: Some(d),
            ci95_low: Some(lo),
            ci95_high: Some(hi),
            flag,
            within_noise: lo <= 0.0 && hi >= 0.0,
            to_fail: Vec::new(),
            to_pass: Vec::new(),
            changed: ChangeCounts {
                better: 5,
                worse: 10,
                same: 25,
            },
            unchanged_moved: 0,
            in_words: String::new(),
            to_fail_count: 0,
            to_pass_count: 0,
        };
        assert_eq!(
            regression(&delta(-0.2, -0.3, -0.1, Flag::Red), 0.05).outcome,
            Outcome::Fail
        );
        assert_eq!(
            regression(&delta(0.01, -0.02, 0.04, Flag::Green), 0.05).outcome,
            Outcome::Pass
        );
        // A metric neither run scored on a shared item does not apply: it must not make
        // `--fail-on-regression` inconclusive (exit 4).
        assert_eq!(
            regression(&delta(0.0, 0.0, 0.0, Flag::NotCompared), 0.05).outcome,
            Outcome::NotApplicable
        );
        let unsure = regression(&delta(-0.04, -0.12, 0.04, Flag::Green), 0.05);
        assert_eq!(unsure.outcome, Outcome::Inconclusive);
        // Half-width 0.08 over 40 pairs, estimate 0.01 from the line: 40 * 8^2 = 2560.
        assert_eq!(unsure.items_needed, Some(2560), "{unsure:?}");
        // An estimate right on the line: no number of pairs settles it.
        let on_line = regression(&delta(-0.05, -0.13, 0.03, Flag::Amber), 0.05);
        assert_eq!(
            (on_line.outcome, on_line.items_needed),
            (Outcome::Inconclusive, None)
        );
        let closer = regression(&delta(0.0, -0.06, 0.06, Flag::Green), 0.05);
        // 40 * (0.06 / 0.05)^2 = 57.6 → 58 pairs.
        assert_eq!(closer.items_needed, Some(58), "{closer:?}");
        assert!(
            closer
                .reason
                .contains("smallest drop these pairs could detect is about 0.086"),
            "{}",
            closer.reason
        );
    }
}
