//! Experiments and a test set's history: "try this" on an action of a run, what the next
//! evaluated version of the test set did to the items it targeted, and every run of every
//! version with its metric means and the regressions between consecutive runs.

use ragnosis_core::analysis::compare::{self, Flag};
use ragnosis_core::analysis::diagnosis::FailurePattern;
use ragnosis_core::analysis::experiment;
pub use ragnosis_core::analysis::experiment::{ExperimentCheck, Outcome, TargetOutcome};
use ragnosis_core::analysis::trend;
pub use ragnosis_core::store::experiments::ExperimentRow;
use serde::Serialize;

use crate::reports::TrendRun;
use crate::{Ctx, Error, Result};

/// A pattern as a user names it: its letter ("F") or its name ("subtle distortion").
pub fn parse_pattern(text: &str) -> Result<FailurePattern> {
    let wanted = text.trim();
    FailurePattern::named(wanted).ok_or_else(|| {
        Error::Invalid(format!(
            "no failure pattern is called \"{wanted}\": use a letter A–J or a name such as \
                 \"subtle distortion\" (the diagnosis lists the ones a run shows)"
        ))
    })
}

/// Records "try this" for `pattern` on run `run_id` with the change the user will make.
pub fn try_action(ctx: &Ctx, run_id: i64, pattern: &str, change: &str) -> Result<ExperimentRow> {
    let pattern = parse_pattern(pattern)?;
    experiment::record(&*ctx.store()?, run_id, pattern, change)
}

/// The experiments tried from run `run_id`'s actions or checked on it, each with its
/// outcome so far.
pub fn of_run(ctx: &Ctx, run_id: i64) -> Result<Vec<ExperimentCheck>> {
    experiment::of_run(&*ctx.store()?, run_id)
}

/// The experiments tried from run `a`'s actions, read on run `b` (a comparison of the two).
pub fn between(ctx: &Ctx, a: i64, b: i64) -> Result<Vec<ExperimentCheck>> {
    experiment::between(&*ctx.store()?, a, b)
}

/// The experiments tried on any version of `dataset_id`'s test set.
pub fn of_dataset(ctx: &Ctx, dataset_id: i64) -> Result<Vec<ExperimentCheck>> {
    experiment::of_test_set(&*ctx.store()?, dataset_id)
}

/// One run in a test set's history, with what regressed since the run before it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct HistoryRun {
    /// The run (with the test-set version, the dataset, it scored), its title and its
    /// metric means.
    #[serde(flatten)]
    pub point: TrendRun,
    /// Metrics that regressed against the previous run (a red flag of the comparison:
    /// worse beyond the threshold and beyond the judge's noise).
    pub regressions: Vec<String>,
    /// Why the previous run could not be compared with this one, when it could not.
    pub not_compared: Option<String>,
}

/// Every version of a test set and what was tried on it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct History {
    /// Finished runs of every version, oldest first.
    pub runs: Vec<HistoryRun>,
    /// Every experiment tried on any version, each with its outcome once a later run finished.
    pub experiments: Vec<ExperimentCheck>,
}

/// `dataset_id`'s test set over its versions (RAGVUE's longitudinal view).
pub fn history(ctx: &Ctx, dataset_id: i64) -> Result<History> {
    let store = ctx.store()?;
    let points = trend::of_dataset(store.conn(), dataset_id)?;
    let mut runs: Vec<HistoryRun> = Vec::with_capacity(points.len());
    for point in points {
        let (mut regressions, mut not_compared) = (Vec::new(), None);
        if let Some(previous) = runs.last() {
            match compare::compare_runs(
                &store,
                previous.point.run.id,
                point.run.id,
                compare::DEFAULT_THRESHOLD,
                false,
            ) {
                Ok(c) => {
                    regressions = c
                        .metrics
                        .into_iter()
                        .filter(|m| m.flag == Flag::Red)
                        .map(|m| m.metric)
                        .collect()
                }
                Err(e) => not_compared = Some(e.to_string()),
            }
        }
        runs.push(HistoryRun {
            point,
            regressions,
            not_compared,
        });
    }
    let experiments = experiment::of_test_set(&store, dataset_id)?;
    Ok(History { runs, experiments })
}
