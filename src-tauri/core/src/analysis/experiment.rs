//! From an action to a verified fix: "Try this" on an action records an experiment (the
//! failure pattern, the items it fired on, the change the user will make), and the next
//! evaluated version of the test set says, item by item, what the change did.
//!
//! A targeted item is read as the diagnosis reads it, in the experiment's run and in the
//! later run (matched by the user's item id, or by position without one):
//! - unchanged: its output is the same, so nothing was tried on it (whatever the scores
//!   did is the judge's own variation);
//! - worse: it shows a pattern it did not show before (whether or not the tried one went);
//! - still failing: the tried pattern still fires;
//! - fixed: the tried pattern no longer fires and nothing new does;
//! - not read: the later run did not measure what the diagnosis reads, or lacks the item.
//!
//! Items the experiment did not target that got worse (the comparison's own list) are
//! reported beside it: a fix that breaks other answers is not yet a fix. Nothing here is
//! stored: the outcome is read again from the runs whenever it is asked for.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

use super::compare::items::ItemChange;
use super::compare::{self, item_label, RunRef};
use super::diagnosis::{self, FailurePattern};
use crate::error::{Error, Result};
use crate::store::experiments::{ExperimentRow, NewExperiment};
use crate::store::runs::{RunRow, RunStatus};
use crate::store::{self, Store};

/// Items named in the sentence before "and N more".
const NAMED: usize = 5;

/// What a change did to one targeted item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Fixed,
    StillFailing,
    Worse,
    Unchanged,
    NotRead,
}

impl Outcome {
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Fixed => "fixed",
            Outcome::StillFailing => "still failing",
            Outcome::Worse => "worse",
            Outcome::Unchanged => "output unchanged",
            Outcome::NotRead => "not read",
        }
    }
}

/// One targeted item, before and after.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TargetOutcome {
    /// The user's id, or "#N" (position in the file, from 1).
    pub label: String,
    pub item_id_before: Option<i64>,
    pub item_id_after: Option<i64>,
    pub outcome: Outcome,
    /// The outcome in words ("still failing"), as every reader shows it.
    pub outcome_label: String,
    /// The patterns it showed, as "F (subtle distortion)", or "no problem found".
    pub before: String,
    pub after: String,
}

/// An experiment and, once a later version was evaluated, what came of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ExperimentCheck {
    pub experiment: ExperimentRow,
    /// "F (subtle distortion)".
    pub pattern_label: String,
    /// The later run it was checked on; none until one finished.
    pub checked_on: Option<RunRef>,
    /// One per target, in the experiment's order; empty until checked.
    pub targets: Vec<TargetOutcome>,
    pub fixed: u64,
    pub still_failing: u64,
    pub worse: u64,
    /// Items it did not target that got worse in the later run.
    pub worse_elsewhere: Vec<ItemChange>,
    /// How the two runs were judged differently, when they were: the outcome is then
    /// the judges' as much as the change's.
    pub judged_differently: Vec<String>,
    /// The outcome in one sentence, as the window, the CLI and the advisor say it.
    pub sentence: String,
}

/// Records "try this" for `pattern` on run `run_id`: the items the pattern fired on are
/// the targets. Refused when the pattern fired on no item of the run.
pub fn record(
    store: &Store,
    run_id: i64,
    pattern: FailurePattern,
    change: &str,
) -> Result<ExperimentRow> {
    let run = store::runs::get(store.conn(), run_id)?;
    let change = change.trim();
    if change.is_empty() {
        return Err(Error::Invalid(
            "say what you will change (for example \"top-k 3 → 8 with a reranker\"): \
             the experiment is read against it later"
                .into(),
        ));
    }
    let problems = diagnosis::problems_by_item(store, run_id)?;
    let targets: Vec<String> = store::run_items::keys(store.conn(), run_id)?
        .iter()
        .filter(|key| {
            problems
                .get(&key.item_id)
                .is_some_and(|p| p.contains(&pattern))
        })
        .map(item_label)
        .collect();
    if targets.is_empty() {
        return Err(Error::Invalid(format!(
            "{} fired on no item of run {run_id}: there is nothing for this experiment to fix",
            pattern.label()
        )));
    }
    let summary = super::current_summary(store, &run)?;
    let title = summary
        .diagnosis
        .iter()
        .flat_map(|d| d.actions.iter())
        .find(|a| a.pattern == Some(pattern))
        .map(|a| a.title.clone())
        .unwrap_or_else(|| format!("Fix {}", pattern.label()));
    let name = serde_json::to_value(pattern)?;
    let id = store::experiments::insert(
        store.conn(),
        &NewExperiment {
            run_id,
            pattern: name.as_str().unwrap_or_default(),
            action_title: &title,
            change,
            targets: &targets,
        },
    )?;
    store::experiments::get(store.conn(), id)
}

/// The experiments tried on any version of `dataset_id`'s test set, oldest first, each
/// checked on the latest finished run of a version after it.
pub fn of_test_set(store: &Store, dataset_id: i64) -> Result<Vec<ExperimentCheck>> {
    planned(store, dataset_id)?
        .into_iter()
        .map(|(e, later)| check(store, e, later))
        .collect()
}

/// The experiments tried from run `run_id`'s actions, and those checked on it, each
/// checked as `of_test_set` does (and only those: a check compares two runs).
pub fn of_run(store: &Store, run_id: i64) -> Result<Vec<ExperimentCheck>> {
    let run = store::runs::get(store.conn(), run_id)?;
    planned(store, run.dataset_id)?
        .into_iter()
        .filter(|(e, later)| e.run_id == run_id || *later == Some(run_id))
        .map(|(e, later)| check(store, e, later))
        .collect()
}

/// The test set's experiments, each with the run it is read on: the latest finished run
/// of any version after the experiment's own (none yet: not checked).
fn planned(store: &Store, dataset_id: i64) -> Result<Vec<(ExperimentRow, Option<i64>)>> {
    let versions = store::datasets::versions(store.conn(), dataset_id)?;
    let runs: Vec<RunRow> = store::runs::list(store.conn())?
        .into_iter()
        .filter(|r| versions.contains(&r.dataset_id) && r.status == RunStatus::Done)
        .collect();
    Ok(store::experiments::of_datasets(store.conn(), &versions)?
        .into_iter()
        .map(|e| {
            // Runs come newest first.
            let later = runs.iter().find(|r| r.id > e.run_id).map(|r| r.id);
            (e, later)
        })
        .collect())
}

/// The experiments tried from run `a`'s actions, each read on run `b`: what `compare a b`
/// adds to its verdict. Empty when `b` is not a later run than `a`.
pub fn between(store: &Store, a: i64, b: i64) -> Result<Vec<ExperimentCheck>> {
    if b <= a {
        return Ok(Vec::new());
    }
    let run = store::runs::get(store.conn(), a)?;
    store::experiments::of_datasets(store.conn(), &[run.dataset_id])?
        .into_iter()
        .filter(|e| e.run_id == a)
        .map(|e| check(store, e, Some(b)))
        .collect()
}

/// `experiment` read on run `later` (none: not checked yet).
pub fn check(
    store: &Store,
    experiment: ExperimentRow,
    later: Option<i64>,
) -> Result<ExperimentCheck> {
    let pattern: FailurePattern =
        serde_json::from_value(serde_json::Value::String(experiment.pattern.clone()))?;
    let mut out = ExperimentCheck {
        pattern_label: pattern.label(),
        checked_on: None,
        targets: Vec::new(),
        fixed: 0,
        still_failing: 0,
        worse: 0,
        worse_elsewhere: Vec::new(),
        judged_differently: Vec::new(),
        sentence: String::new(),
        experiment,
    };
    let Some(later) = later else {
        out.sentence = format!(
            "Tried \"{}\" for {} on {} {} ({}); not checked yet: evaluate the next version of the \
             test set (import it as a version of this dataset) to see what the change did.",
            out.experiment.change,
            out.pattern_label,
            out.experiment.targets.len(),
            items(out.experiment.targets.len()),
            out.experiment.targets.join(", ")
        );
        return Ok(out);
    };
    let before = standings(store, out.experiment.run_id)?;
    let after = standings(store, later)?;
    for label in &out.experiment.targets {
        let target = outcome(label, pattern, before.get(label), after.get(label));
        match target.outcome {
            Outcome::Fixed => out.fixed += 1,
            Outcome::StillFailing => out.still_failing += 1,
            Outcome::Worse => out.worse += 1,
            Outcome::Unchanged | Outcome::NotRead => {}
        }
        out.targets.push(target);
    }
    let comparison = compare::compare_runs(
        store,
        out.experiment.run_id,
        later,
        compare::DEFAULT_THRESHOLD,
        true,
    )?;
    let targeted: BTreeSet<&String> = out.experiment.targets.iter().collect();
    out.worse_elsewhere = comparison
        .items
        .worse
        .into_iter()
        .filter(|c| !targeted.contains(&c.label))
        .collect();
    out.judged_differently = comparison.judged_differently;
    out.sentence = sentence(&out, &comparison.b);
    out.checked_on = Some(comparison.b);
    Ok(out)
}

/// An item of a run as the experiment reads it.
struct Standing {
    item_id: i64,
    content_hash: String,
    /// `None`: the diagnosis could not read the item.
    problems: Option<Vec<FailurePattern>>,
}

fn standings(store: &Store, run_id: i64) -> Result<HashMap<String, Standing>> {
    let mut problems = diagnosis::problems_by_item(store, run_id)?;
    Ok(store::run_items::keys(store.conn(), run_id)?
        .into_iter()
        .map(|key| {
            let standing = Standing {
                item_id: key.item_id,
                problems: problems.remove(&key.item_id),
                content_hash: key.content_hash.clone(),
            };
            (item_label(&key), standing)
        })
        .collect())
}

/// One target's outcome; see the module documentation for the rule.
fn outcome(
    label: &str,
    pattern: FailurePattern,
    before: Option<&Standing>,
    after: Option<&Standing>,
) -> TargetOutcome {
    let words = |s: Option<&Standing>| match s {
        None => "not in the run".to_string(),
        Some(Standing { problems: None, .. }) => "not read".to_string(),
        Some(Standing {
            problems: Some(p), ..
        }) if p.is_empty() => "no problem found".to_string(),
        Some(Standing {
            problems: Some(p), ..
        }) => p.iter().map(|p| p.label()).collect::<Vec<_>>().join(", "),
    };
    let result = match (before, after) {
        (Some(b), Some(a)) if b.content_hash == a.content_hash => Outcome::Unchanged,
        (
            Some(Standing {
                problems: Some(was),
                ..
            }),
            Some(Standing {
                problems: Some(now),
                ..
            }),
        ) => {
            if now.iter().any(|p| !was.contains(p)) {
                Outcome::Worse
            } else if now.contains(&pattern) {
                Outcome::StillFailing
            } else {
                Outcome::Fixed
            }
        }
        _ => Outcome::NotRead,
    };
    TargetOutcome {
        label: label.to_string(),
        item_id_before: before.map(|s| s.item_id),
        item_id_after: after.map(|s| s.item_id),
        outcome: result,
        outcome_label: result.label().to_string(),
        before: words(before),
        after: words(after),
    }
}

fn items(n: usize) -> &'static str {
    if n == 1 {
        "item"
    } else {
        "items"
    }
}

/// "On run 2 (v2): 2 of 2 items fixed, 0 still failing, 0 worse; 1 other item got
/// worse: t-05."
fn sentence(c: &ExperimentCheck, later: &RunRef) -> String {
    let n = c.targets.len();
    let unchanged = c
        .targets
        .iter()
        .filter(|t| t.outcome == Outcome::Unchanged)
        .count();
    let unread = c
        .targets
        .iter()
        .filter(|t| t.outcome == Outcome::NotRead)
        .count();
    let mut s = format!(
        "\"{}\" for {}, checked on {}: {} of {n} {} fixed, {} still failing, {} worse",
        c.experiment.change,
        c.pattern_label,
        later.title,
        c.fixed,
        items(n),
        c.still_failing,
        c.worse
    );
    if unchanged > 0 {
        s.push_str(&format!(", {unchanged} with the same output"));
    }
    if unread > 0 {
        s.push_str(&format!(", {unread} not read"));
    }
    let elsewhere = &c.worse_elsewhere;
    if elsewhere.is_empty() {
        s.push_str("; no other item got worse.");
    } else {
        let names: Vec<&str> = elsewhere
            .iter()
            .take(NAMED)
            .map(|c| c.label.as_str())
            .collect();
        let more = elsewhere.len().saturating_sub(NAMED);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        s.push_str(&format!(
            "; {} other {} got worse: {}{more}.",
            elsewhere.len(),
            items(elsewhere.len()),
            names.join(", ")
        ));
    }
    if !c.judged_differently.is_empty() {
        s.push_str(" The runs were judged differently, so part of the change may be the judge's.");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use FailurePattern::{Incomplete, SubtleDistortion};

    fn standing(hash: &str, problems: Option<Vec<FailurePattern>>) -> Standing {
        Standing {
            item_id: 1,
            content_hash: hash.into(),
            problems,
        }
    }

    fn read(before: &Standing, after: Option<&Standing>) -> Outcome {
        outcome("t-1", SubtleDistortion, Some(before), after).outcome
    }

    #[test]
    fn a_target_is_fixed_only_when_its_pattern_went_and_nothing_new_came() {
        let was = standing("a", Some(vec![SubtleDistortion]));
        let fixed = standing("b", Some(vec![]));
        let still = standing("b", Some(vec![SubtleDistortion]));
        let traded = standing("b", Some(vec![Incomplete]));
        let unread = standing("b", None);
        let same = standing("a", Some(vec![]));
        assert_eq!(read(&was, Some(&fixed)), Outcome::Fixed);
        assert_eq!(read(&was, Some(&still)), Outcome::StillFailing);
        assert_eq!(read(&was, Some(&traded)), Outcome::Worse);
        assert_eq!(read(&was, Some(&unread)), Outcome::NotRead);
        assert_eq!(read(&was, None), Outcome::NotRead);
        // The same output scored differently is the judge's variation, not a fix.
        assert_eq!(read(&was, Some(&same)), Outcome::Unchanged);
    }
}
