//! Comparing two runs: per metric, how much run B moved from run A, whether that move is
//! more than noise, and which items crossed the pass line.
//!
//! Owns: matching items across runs, the paired statistics, the flip lists and the
//! regression flag. Reads only through `store` (`compare_runs`); the arithmetic is in
//! pure functions (`compare`, `classify`) that tests feed directly.
//!
//! Rules, in the words a report uses:
//! - Items are matched as the same test case, not as the same output: by the user's item
//!   id when every item of both runs has one and at least one id is shared, otherwise
//!   by question and ground truth (case and spacing aside). Two versions of a pipeline
//!   answering the same questions therefore pair up, and `changed` counts the pairs
//!   whose output (answer, contexts, ...) differs. An id or question appearing twice in
//!   a run pairs by its first occurrence. `matched_by` says which rule was used.
//! - A metric is compared on the matched items that scored `ok` in both runs; errors and
//!   skips are left out on either side. `mean_a`, `mean_b` and `delta = mean_b − mean_a`
//!   are over exactly those pairs, so the delta is the mean of the per-item differences.
//! - What changed comes first: how many matched items have another output, and per
//!   metric how many of those scored better, worse or the same; and how many items with
//!   the same output scored differently (the judge's own variation, seen directly: none
//!   for a deterministic judge). A metric on which no item moved is "no change".
//! - The 95% interval is a paired percentile bootstrap (2000 resamples, fixed seed per
//!   metric): the same two runs always give the same interval. It is the noise of
//!   sampling items: whether the change would hold on other questions like these. A
//!   change whose interval includes 0 is "within noise"; with a judge whose scores move
//!   on unchanged items, that variation is part of it.
//! - Runs judged differently (another judge configuration or prompt version for a
//!   shared metric, or a metric set that changes how a shared metric is computed) are
//!   refused with `compare.judged_differently`; compared anyway on request, the
//!   comparison carries the differences as warnings every output prints.
//! - A flip is a matched item whose score crossed 0.5: pass (≥ 0.5) in A and fail in B,
//!   or the reverse. Lower-is-better metrics pass at ≤ 0.5.
//! - Flag, with `worse` the delta signed so that negative means worse (lower-is-better
//!   metrics flip sign): red (a regression) only when worse < −threshold and the whole
//!   interval is below 0; amber (worse, but within noise) when worse < −threshold and the
//!   interval reaches 0; green otherwise; not compared when no pair exists.

pub mod bootstrap;
pub mod items;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::analysis::diagnosis::{self, FailurePattern};
use crate::error::{Error, Result};
use crate::metrics::{self, Scope};
use crate::store::{self, run_items::RunItemKey, Store};

/// Two scores closer than this are the same score (stored floats of one computation).
const SAME_SCORE: f64 = 1e-9;

/// A delta smaller than this is not called a regression.
pub const DEFAULT_THRESHOLD: f64 = 0.05;
pub use super::stats::{passes, PASS_LINE};

/// Which run a side of the comparison is, for headings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RunRef {
    pub id: i64,
    pub label: Option<String>,
    pub version: Option<String>,
    pub dataset: String,
    pub judge: String,
    pub items: u64,
    /// "Run 3 (baseline, v1.2)": the label and version when the run has them.
    #[serde(default)]
    pub title: String,
}

impl RunRef {
    /// The run `id` of `dataset` judged by `judge`, titled by its label and version.
    pub fn new(
        id: i64,
        label: Option<String>,
        version: Option<String>,
        dataset: String,
        judge: String,
        items: u64,
    ) -> RunRef {
        let extra: Vec<&str> = [label.as_deref(), version.as_deref()]
            .into_iter()
            .flatten()
            .collect();
        let title = if extra.is_empty() {
            format!("Run {id}")
        } else {
            format!("Run {id} ({})", extra.join(", "))
        };
        RunRef {
            id,
            label,
            version,
            dataset,
            judge,
            items,
            title,
        }
    }
}

/// Traffic light of one metric's change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Flag {
    Green,
    Amber,
    Red,
    /// No item was scored `ok` in both runs.
    NotCompared,
}

impl Flag {
    pub fn label(self) -> &'static str {
        match self {
            Flag::Green => "no regression",
            Flag::Amber => "worse, but within noise",
            Flag::Red => "regression",
            Flag::NotCompared => "not compared",
        }
    }
}

/// A matched item that crossed the pass line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FlippedItem {
    /// The user's id, or "#N" (position in the file, from 1) when the item has none.
    pub label: String,
    pub content_hash: String,
    pub item_id_a: i64,
    pub item_id_b: i64,
    pub score_a: f64,
    pub score_b: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MetricDelta {
    pub metric: String,
    pub lower_is_better: bool,
    /// Matched items scored `ok` in both runs.
    pub pairs: u64,
    pub mean_a: Option<f64>,
    pub mean_b: Option<f64>,
    /// mean_b − mean_a over the pairs.
    pub delta: Option<f64>,
    pub ci95_low: Option<f64>,
    pub ci95_high: Option<f64>,
    pub flag: Flag,
    /// The interval includes 0: the change could be the judge's own variation.
    #[serde(default)]
    pub within_noise: bool,
    /// Passed in A, failed in B, in run order.
    pub to_fail: Vec<FlippedItem>,
    /// Failed in A, passed in B, in run order.
    pub to_pass: Vec<FlippedItem>,
    /// Among the pairs whose output changed: how many scored better, worse, the same.
    #[serde(default)]
    pub changed: ChangeCounts,
    /// Pairs with the same output whose score still moved: the judge's own variation.
    #[serde(default)]
    pub unchanged_moved: u64,
    /// The change in words at the comparison's threshold (`verdict`): "no change",
    /// "better on 3 changed items", "regression", "within noise", …
    #[serde(default)]
    pub in_words: String,
    /// Items that passed in A and failed in B, in all (a reader may list fewer).
    #[serde(default)]
    pub to_fail_count: u64,
    /// Items that failed in A and passed in B, in all.
    #[serde(default)]
    pub to_pass_count: u64,
}

/// How the changed items of one metric moved.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ChangeCounts {
    pub better: u64,
    pub worse: u64,
    pub same: u64,
}

impl MetricDelta {
    /// Pairs whose score differs at all.
    pub fn moved(&self) -> u64 {
        self.changed.better + self.changed.worse + self.unchanged_moved
    }

    /// The change in words, the same everywhere it is shown:
    /// - "not compared" (no pair), "no change" (no item's score moved);
    /// - "regression": worse beyond the threshold with the whole interval worse;
    /// - where no item with the same output moved (a judge that gives the same score
    ///   every run: the changed items are the whole story), what the changed items did:
    ///   "better on 3 changed items", "worse on 2 changed items", "mixed: 3 better,
    ///   1 worse", with "(within sampling noise)" when the interval includes 0, i.e.
    ///   other questions might not move the same way;
    /// - otherwise, with a judge whose scores move on their own: "within noise",
    ///   "improvement" or "no regression".
    pub fn verdict(&self, threshold: f64) -> String {
        match self.flag {
            Flag::NotCompared => return "not compared".into(),
            _ if self.moved() == 0 => return "no change".into(),
            Flag::Red => return "regression".into(),
            _ => {}
        }
        if self.unchanged_moved == 0 {
            let ChangeCounts { better, worse, .. } = self.changed;
            let what = match (better, worse) {
                (b, 0) => format!("better on {b} changed item{}", plural(b)),
                (0, w) => format!("worse on {w} changed item{}", plural(w)),
                (b, w) => format!("mixed: {b} better, {w} worse"),
            };
            return if self.within_noise {
                format!("{what} (within sampling noise)")
            } else {
                what
            };
        }
        if self.within_noise {
            return "within noise".into();
        }
        let sign = if self.lower_is_better { -1.0 } else { 1.0 };
        if self.delta.is_some_and(|d| sign * d > threshold) {
            "improvement".into()
        } else {
            "no regression".into()
        }
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Comparison {
    pub a: RunRef,
    pub b: RunRef,
    /// What the change did to each matched item (worse, improved, ...): the first thing
    /// every output says.
    #[serde(default)]
    pub items: items::ItemChanges,
    pub threshold: f64,
    pub resamples: usize,
    pub seed: u64,
    /// Items of A with a match in B.
    pub matched: u64,
    /// How items were matched.
    #[serde(default)]
    pub matched_by: MatchBasis,
    /// Matched pairs whose output (answer, contexts, ...) differs between the runs.
    #[serde(default)]
    pub changed: u64,
    pub only_in_a: u64,
    pub only_in_b: u64,
    /// Metrics both runs computed per item, in catalogue order.
    pub metrics: Vec<MetricDelta>,
    pub metrics_only_in_a: Vec<String>,
    pub metrics_only_in_b: Vec<String>,
    /// How the two runs were judged differently, in plain sentences; empty when alike.
    /// A comparison is made with differences only when the user allowed it.
    #[serde(default)]
    pub judged_differently: Vec<String>,
}

impl Comparison {
    /// Matched items whose score moved on any metric, split by whether their output
    /// changed: (changed, unchanged).
    pub fn headline(&self) -> String {
        let mut text = format!(
            "{} of {} matched items have another output (answer or contexts)",
            self.changed, self.matched
        );
        let jitter: u64 = self.metrics.iter().map(|m| m.unchanged_moved).sum();
        if jitter > 0 {
            text.push_str(&format!(
                "; on items with the same output the judge moved {jitter} score(s), its own variation"
            ));
        } else if self.metrics.iter().any(|m| m.pairs > 0) {
            text.push_str("; items with the same output kept every score");
        }
        text
    }

    pub fn regressions(&self) -> impl Iterator<Item = &MetricDelta> {
        self.metrics.iter().filter(|m| m.flag == Flag::Red)
    }
}

/// How two runs' items were paired; see the module documentation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum MatchBasis {
    /// The user's item ids.
    Id,
    /// Question and ground truth.
    #[default]
    Question,
}

impl MatchBasis {
    pub fn label(self) -> &'static str {
        match self {
            MatchBasis::Id => "by item id",
            MatchBasis::Question => "by question and ground truth",
        }
    }
}

/// One of a run's items with its `ok` scores, as `compare` reads it.
#[derive(Debug, Clone, PartialEq)]
pub struct ScoredItem {
    pub key: RunItemKey,
    pub scores: BTreeMap<String, f64>,
    /// The failure patterns the diagnosis reads in the item; `None` when it could not
    /// read it (its metrics were not measured).
    pub problems: Option<Vec<FailurePattern>>,
}

/// Compares run `b` against run `a` from the store. `threshold` is usually
/// `DEFAULT_THRESHOLD`.
pub fn compare_runs(
    store: &Store,
    a: i64,
    b: i64,
    threshold: f64,
    allow_different_judges: bool,
) -> Result<Comparison> {
    if !(threshold.is_finite() && threshold >= 0.0) {
        return Err(Error::Invalid(format!(
            "the regression threshold must be 0 or more, got {threshold}"
        )));
    }
    let (ref_a, metrics_a) = run_ref(store, a)?;
    let (ref_b, metrics_b) = run_ref(store, b)?;
    let shared: Vec<(String, bool)> = metrics::in_order(&metrics_a)
        .into_iter()
        .filter(|m| m.scope == Scope::Item && metrics_b.contains(&m.id))
        .map(|m| (m.id.to_string(), m.lower_is_better))
        .collect();
    let ids: Vec<&str> = shared.iter().map(|(id, _)| id.as_str()).collect();
    let items_a = scored_items(store, a, &ids)?;
    let items_b = scored_items(store, b, &ids)?;
    let differences = judging_differences(store, a, b, &ids, &metrics_a, &metrics_b)?;
    if !differences.is_empty() && !allow_different_judges {
        return Err(Error::JudgedDifferently(format!(
            "run {a} and run {b} were judged differently, so their differences would be the judges' as much as \
             the pipeline's: {}. Compare runs judged alike (the same judge profile and metric list), or compare \
             anyway with --allow-different-judges (the window: Compare anyway); the comparison then says so.",
            differences.join("; ")
        )));
    }
    let mut comparison = compare(ref_a, ref_b, &shared, &items_a, &items_b, threshold);
    comparison.metrics_only_in_a = only_in(&metrics_a, &metrics_b);
    comparison.metrics_only_in_b = only_in(&metrics_b, &metrics_a);
    comparison.judged_differently = differences;
    Ok(comparison)
}

/// Shared metrics whose computation depends on whether another metric is in the run:
/// answer relevance is judged against the question's parts only when completeness is
/// measured (the review then gets the parts), which moves it.
const COMPUTED_WITH: &[(&str, &str)] = &[("ragvue.answer_relevance", "ragvue.answer_completeness")];

/// How runs `a` and `b` were judged differently on the shared metrics `ids`, in plain
/// sentences: another judge configuration or prompt version, or a metric set that
/// changes how a shared metric is computed.
fn judging_differences(
    store: &Store,
    a: i64,
    b: i64,
    ids: &[&str],
    metrics_a: &[&str],
    metrics_b: &[&str],
) -> Result<Vec<String>> {
    let (judged_a, judged_b) = (
        store::results::judging(store.conn(), a)?,
        store::results::judging(store.conn(), b)?,
    );
    let describe = |set: &std::collections::BTreeSet<(String, String)>| -> String {
        set.iter()
            .map(|(config, version)| {
                if version.is_empty() {
                    config.clone()
                } else {
                    format!("{config} ({version})")
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    // One sentence per distinct pair of judgings, naming the metrics it concerns.
    let mut by_judging: BTreeMap<(String, String), Vec<&str>> = BTreeMap::new();
    for metric in ids {
        let (Some(ja), Some(jb)) = (judged_a.get(*metric), judged_b.get(*metric)) else {
            continue;
        };
        if ja != jb {
            by_judging
                .entry((describe(ja), describe(jb)))
                .or_default()
                .push(metric);
        }
    }
    let mut out: Vec<String> = by_judging
        .into_iter()
        .map(|((ja, jb), metrics)| {
            let named = if metrics.len() > 3 {
                format!(
                    "{} and {} more metrics",
                    metrics[..3].join(", "),
                    metrics.len() - 3
                )
            } else {
                metrics.join(", ")
            };
            format!("{named} judged by {ja} in run {a} and by {jb} in run {b}")
        })
        .collect();
    out.extend(criteria_versions(store, a, b, ids)?);
    for (metric, with) in COMPUTED_WITH {
        let shared = ids.contains(metric);
        let (in_a, in_b) = (metrics_a.contains(with), metrics_b.contains(with));
        if shared && in_a != in_b {
            let (has, lacks) = if in_a { (a, b) } else { (b, a) };
            out.push(format!(
                "{metric} is computed with the question's parts in run {has} ({with} was measured) and without them in run {lacks}"
            ));
        }
    }
    Ok(out)
}

/// Shared criteria scored by different versions of their text: a changed question is
/// another measurement, as another judge is.
fn criteria_versions(store: &Store, a: i64, b: i64, ids: &[&str]) -> Result<Vec<String>> {
    // Only the criteria of a run's stored configuration matter here; reading that one
    // field keeps compare below the run module that writes the whole configuration.
    #[derive(serde::Deserialize)]
    struct CriteriaOfRun {
        #[serde(default)]
        criteria: Vec<crate::criteria::Versioned>,
    }
    let versions = |run_id: i64| -> Result<BTreeMap<String, u32>> {
        let run = store::runs::get(store.conn(), run_id)?;
        let config: CriteriaOfRun = serde_json::from_value(run.config).map_err(|e| {
            Error::Invalid(format!("run {run_id} has an unreadable configuration: {e}"))
        })?;
        Ok(config
            .criteria
            .into_iter()
            .map(|v| (v.definition.metric_id(), v.version))
            .collect())
    };
    let (in_a, in_b) = (versions(a)?, versions(b)?);
    Ok(ids
        .iter()
        .filter_map(|id| {
            let (va, vb) = (in_a.get(*id)?, in_b.get(*id)?);
            (va != vb).then(|| {
                format!(
                    "{id} was scored with version {va} of the criterion in run {a} and version {vb} in run {b} \
                     (its text or scale changed; `ragnosis criteria show {} --version N` shows each)",
                    id.trim_start_matches("criteria.")
                )
            })
        })
        .collect())
}

fn run_ref(store: &Store, run_id: i64) -> Result<(RunRef, Vec<&'static str>)> {
    let run = store::runs::get(store.conn(), run_id)?;
    let dataset = store::datasets::get(store.conn(), run.dataset_id)?;
    let ids = run
        .metrics
        .iter()
        .filter_map(|id| metrics::find(id))
        .filter(|m| m.scope == Scope::Item)
        .map(|m| m.id)
        .collect();
    let reference = RunRef::new(
        run.id,
        run.label,
        run.version,
        dataset.name,
        run.judge,
        run.item_count.max(0) as u64,
    );
    Ok((reference, ids))
}

fn only_in(these: &[&str], those: &[&str]) -> Vec<String> {
    these
        .iter()
        .filter(|m| !those.contains(m))
        .map(|m| m.to_string())
        .collect()
}

fn scored_items(store: &Store, run_id: i64, metrics: &[&str]) -> Result<Vec<ScoredItem>> {
    let mut problems = diagnosis::problems_by_item(store, run_id)?;
    let mut scores: HashMap<i64, BTreeMap<String, f64>> =
        store::results::ok_scores_by_item(store.conn(), run_id, metrics)?
            .into_iter()
            .map(|s| (s.item_id, s.scores))
            .collect();
    Ok(store::run_items::keys(store.conn(), run_id)?
        .into_iter()
        .map(|key| {
            let scores = scores.remove(&key.item_id).unwrap_or_default();
            let problems = problems.remove(&key.item_id);
            ScoredItem {
                key,
                scores,
                problems,
            }
        })
        .collect())
}

/// The comparison itself, from both runs' items. `metrics` are (id, lower_is_better) in
/// presentation order. Pure: same input, same output, bit for bit.
pub fn compare(
    a: RunRef,
    b: RunRef,
    metrics: &[(String, bool)],
    items_a: &[ScoredItem],
    items_b: &[ScoredItem],
    threshold: f64,
) -> Comparison {
    let (matched_by, pairs) = pair_items(items_a, items_b);
    let changed = pairs
        .iter()
        .filter(|(a, b)| a.key.content_hash != b.key.content_hash)
        .count() as u64;
    let matched = pairs.len() as u64;
    let items = items::sort(&pairs, metrics);
    let metrics = metrics
        .iter()
        .map(|(metric, lower_is_better)| {
            let mut delta = metric_delta(metric, *lower_is_better, &pairs, threshold);
            delta.in_words = delta.verdict(threshold);
            delta.to_fail_count = delta.to_fail.len() as u64;
            delta.to_pass_count = delta.to_pass.len() as u64;
            delta
        })
        .collect();
    Comparison {
        items,
        only_in_a: items_a.len() as u64 - matched,
        only_in_b: items_b.len() as u64 - matched,
        a,
        b,
        threshold,
        resamples: bootstrap::RESAMPLES,
        seed: bootstrap::SEED,
        matched,
        matched_by,
        changed,
        metrics,
        metrics_only_in_a: Vec::new(),
        metrics_only_in_b: Vec::new(),
        judged_differently: Vec::new(),
    }
}

/// Pairs A's items with B's; see the module documentation for the rule.
fn pair_items<'a>(
    items_a: &'a [ScoredItem],
    items_b: &'a [ScoredItem],
) -> (MatchBasis, Vec<(&'a ScoredItem, &'a ScoredItem)>) {
    let all_have_ids = items_a
        .iter()
        .chain(items_b)
        .all(|i| i.key.external_id.is_some());
    if all_have_ids {
        let by_id = pair_by(items_a, items_b, |i| {
            i.key.external_id.as_deref().unwrap_or("")
        });
        if !by_id.is_empty() {
            return (MatchBasis::Id, by_id);
        }
    }
    let by_question = pair_by(items_a, items_b, |i| i.key.question_key.as_str());
    (MatchBasis::Question, by_question)
}

/// Pairs items with equal `key`, each by its first occurrence, in A's order.
fn pair_by<'a>(
    items_a: &'a [ScoredItem],
    items_b: &'a [ScoredItem],
    key: impl Fn(&'a ScoredItem) -> &'a str,
) -> Vec<(&'a ScoredItem, &'a ScoredItem)> {
    let mut first_in_b: HashMap<&str, &ScoredItem> = HashMap::new();
    for item in items_b {
        first_in_b.entry(key(item)).or_insert(item);
    }
    let mut seen_in_a: HashSet<&str> = HashSet::new();
    items_a
        .iter()
        .filter(|item| seen_in_a.insert(key(item)))
        .filter_map(|item| first_in_b.get(key(item)).map(|other| (item, *other)))
        .collect()
}

/// One metric over the pairs scored in both runs: paired differences, bootstrap
/// interval, the flag, and the items that moved or flipped.
fn metric_delta(
    metric: &str,
    lower_is_better: bool,
    pairs: &[(&ScoredItem, &ScoredItem)],
    threshold: f64,
) -> MetricDelta {
    let mut scored: Vec<(&ScoredItem, &ScoredItem, f64, f64)> = Vec::new();
    for (a, b) in pairs {
        if let (Some(sa), Some(sb)) = (a.scores.get(metric), b.scores.get(metric)) {
            scored.push((a, b, *sa, *sb));
        }
    }
    let n = scored.len();
    let mut out = MetricDelta {
        metric: metric.to_string(),
        lower_is_better,
        pairs: n as u64,
        mean_a: None,
        mean_b: None,
        delta: None,
        ci95_low: None,
        ci95_high: None,
        flag: Flag::NotCompared,
        within_noise: false,
        to_fail: Vec::new(),
        to_pass: Vec::new(),
        changed: ChangeCounts::default(),
        unchanged_moved: 0,
        in_words: String::new(),
        to_fail_count: 0,
        to_pass_count: 0,
    };
    if n == 0 {
        return out;
    }
    let mean_a = scored.iter().map(|s| s.2).sum::<f64>() / n as f64;
    let mean_b = scored.iter().map(|s| s.3).sum::<f64>() / n as f64;
    let differences: Vec<f64> = scored.iter().map(|s| s.3 - s.2).collect();
    let delta = differences.iter().sum::<f64>() / n as f64;
    let ci = bootstrap::paired_ci95(
        &differences,
        bootstrap::RESAMPLES,
        bootstrap::seed_for(metric),
    );
    count_moves(&mut out, &scored);
    out.mean_a = Some(mean_a);
    out.mean_b = Some(mean_b);
    out.delta = Some(delta);
    out.ci95_low = ci.map(|c| c.0);
    out.ci95_high = ci.map(|c| c.1);
    out.flag = classify(delta, ci, lower_is_better, threshold);
    // With fewer than two pairs there is no interval, and nothing to tell noise from change.
    out.within_noise = ci.is_none_or(|(lo, hi)| lo <= 0.0 && hi >= 0.0);
    out
}

/// How the scored pairs moved: among changed outputs better, worse or the same; among
/// unchanged outputs those whose score still moved; and the items that crossed the pass
/// line either way, in pair order.
fn count_moves(out: &mut MetricDelta, scored: &[(&ScoredItem, &ScoredItem, f64, f64)]) {
    let lower_is_better = out.lower_is_better;
    let sign = if lower_is_better { -1.0 } else { 1.0 };
    for (a, b, sa, sb) in scored {
        let gain = sign * (sb - sa);
        let moved = gain.abs() > SAME_SCORE;
        if a.key.content_hash != b.key.content_hash {
            match (moved, gain > 0.0) {
                (false, _) => out.changed.same += 1,
                (true, true) => out.changed.better += 1,
                (true, false) => out.changed.worse += 1,
            }
        } else if moved {
            out.unchanged_moved += 1;
        }
        let (pass_a, pass_b) = (passes(*sa, lower_is_better), passes(*sb, lower_is_better));
        if pass_a == pass_b {
            continue;
        }
        let flipped = FlippedItem {
            label: item_label(&a.key),
            content_hash: a.key.content_hash.clone(),
            item_id_a: a.key.item_id,
            item_id_b: b.key.item_id,
            score_a: *sa,
            score_b: *sb,
        };
        if pass_a {
            out.to_fail.push(flipped);
        } else {
            out.to_pass.push(flipped);
        }
    }
}

/// The flag of one metric's change; see the module documentation.
pub fn classify(delta: f64, ci: Option<(f64, f64)>, lower_is_better: bool, threshold: f64) -> Flag {
    let sign = if lower_is_better { -1.0 } else { 1.0 };
    let worse = sign * delta;
    if worse >= -threshold {
        return Flag::Green;
    }
    // The interval in the same orientation: entirely below 0 means surely worse.
    let surely_worse = ci.is_some_and(|(lo, hi)| (sign * lo).max(sign * hi) < 0.0);
    if surely_worse {
        Flag::Red
    } else {
        Flag::Amber
    }
}

/// The user's id of an item, or its 1-based position in the file.
pub fn item_label(key: &RunItemKey) -> String {
    key.external_id
        .clone()
        .unwrap_or_else(|| format!("#{}", key.ordinal + 1))
}
