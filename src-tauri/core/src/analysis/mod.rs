//! What a run's results mean: per-metric statistics, dataset-level metrics, error notes.
//!
//! Owns: turning stored results into a `RunSummary` and keeping it in the `analyses`
//! table. Reads and writes only through `store`. Errors never count as zeros: they are
//! counted and grouped so the user reads "3 items could not be judged: ...". The
//! deterministic failure-pattern diagnosis (no judge) lives in `diagnosis`.

pub mod compare;
pub mod diagnosis;
pub mod experiment;
pub mod gate;
pub mod insights;
pub mod stages;
pub mod stats;
pub mod trend;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::metrics::{self, citation, Family, MetricConfig, Scope, Status};
use crate::store::{self, Store};

pub use diagnosis::Diagnosis;
pub use stats::MetricStats;

/// Kind under which the summary is kept in `analyses`.
pub const SUMMARY: &str = "summary";

/// How many lowest / highest items each metric keeps as examples.
const EXAMPLES: usize = 3;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemScore {
    pub item_id: i64,
    pub score: f64,
}

/// Statistics of one metric plus its extreme items.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricSummary {
    #[serde(flatten)]
    pub stats: MetricStats,
    pub lowest: Vec<ItemScore>,
    pub highest: Vec<ItemScore>,
    /// Why items were skipped, most frequent first: (reason, count).
    #[serde(default)]
    pub skip_reasons: Vec<(String, u64)>,
    /// `ok` scores counted in `HISTOGRAM_BINS` equal bins over [0, 1] — what a report's
    /// distribution chart draws, kept here so no view reads every score again. Empty in
    /// summaries stored before it existed.
    #[serde(default)]
    pub histogram: Vec<u64>,
}

/// Bins of a metric's score distribution.
pub const HISTOGRAM_BINS: usize = 10;

/// The bin of `score` among `HISTOGRAM_BINS` equal bins over [0, 1]; exactly 1 falls in
/// the last.
pub fn histogram_bin(score: f64) -> usize {
    ((score.clamp(0.0, 1.0) * HISTOGRAM_BINS as f64) as usize).min(HISTOGRAM_BINS - 1)
}

/// `scores` counted in `HISTOGRAM_BINS` equal bins over [0, 1].
pub fn histogram(scores: impl IntoIterator<Item = f64>) -> Vec<u64> {
    let mut bins = vec![0u64; HISTOGRAM_BINS];
    for score in scores {
        bins[histogram_bin(score)] += 1;
    }
    bins
}

/// Errors of one metric, grouped so a thousand identical failures read as one line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ErrorGroup {
    pub metric: String,
    pub count: u64,
    pub message: String,
    pub item_ids: Vec<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunSummary {
    pub run_id: i64,
    pub items: u64,
    /// Per-item metrics, keyed by metric id.
    pub metrics: BTreeMap<String, MetricSummary>,
    /// Metrics defined over the whole dataset (citation macro scores), keyed by id.
    pub dataset_metrics: BTreeMap<String, f64>,
    /// Structured dataset-level detail: citation confusion, RAGChecker-style groups.
    pub dataset_details: BTreeMap<String, serde_json::Value>,
    pub errors: Vec<ErrorGroup>,
    /// Failure patterns and action items; present when the run scored any judged RAGVUE
    /// metric (the patterns read nothing else). Summaries stored before it existed load
    /// with `None`.
    #[serde(default)]
    pub diagnosis: Option<Diagnosis>,
    /// RAGalyst's failure taxonomy counted over the items whose answer correctness was
    /// below 0.9; present when answer correctness ran.
    #[serde(default)]
    pub taxonomy: Option<TaxonomyCounts>,
    /// What judged the run's results: the prompt versions and judge configurations they
    /// record, read once here so a report does not scan every result for them. `None` in
    /// summaries stored before it existed.
    #[serde(default)]
    pub judged_by: Option<JudgedBy>,
}

/// The prompt versions and judge configurations a run's results record, sorted.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct JudgedBy {
    pub prompt_versions: Vec<String>,
    pub judge_configs: Vec<String>,
}

impl JudgedBy {
    fn read(store: &Store, run_id: i64) -> Result<JudgedBy> {
        // Only a judged metric's results carry a judge and a prompt version; a judge-free
        // run need not scan its results (every row, seconds at a million items) to find none.
        let run = store::runs::get(store.conn(), run_id)?;
        if !run
            .metrics
            .iter()
            // A criterion deleted since is unknown here: it may have been judged.
            .any(|id| metrics::find(id).is_none_or(|m| m.judge))
        {
            return Ok(JudgedBy::default());
        }
        Ok(JudgedBy {
            prompt_versions: store::results::prompt_versions(store.conn(), run_id)?,
            judge_configs: store::results::judge_configs(store.conn(), run_id)?,
        })
    }
}

/// How many low-correctness items each failure category applies to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TaxonomyCounts {
    /// Items with a taxonomy (correctness below 0.9).
    pub items: u64,
    /// (category, items it applies to), in the taxonomy's order; `missed_top_ranked`
    /// (judge-free: the gold context was not retrieved) last, when items had rankings.
    pub counts: Vec<(String, u64)>,
}

fn taxonomy_counts(store: &Store, run_id: i64) -> Result<TaxonomyCounts> {
    let mut items = 0;
    let mut counts: Vec<(String, u64)> = crate::judge::task::FAILURE_CATEGORIES
        .iter()
        .map(|c| (c.to_string(), 0))
        .collect();
    let mut missed: Option<u64> = None;
    let correctness = "ragalyst.answer_correctness";
    store::results::for_each_of_metric(store.conn(), run_id, correctness, false, |stored| {
        let result = stored.result;
        if result.status != Status::Ok {
            return;
        }
        let Some(failures) = result.details.get("failures").and_then(|f| f.as_array()) else {
            return;
        };
        if failures.is_empty() {
            return;
        }
        items += 1;
        for failure in failures {
            if failure.get("applies").and_then(|a| a.as_bool()) == Some(true) {
                let category = failure
                    .get("category")
                    .and_then(|c| c.as_str())
                    .unwrap_or("");
                if let Some(slot) = counts.iter_mut().find(|(c, _)| c == category) {
                    slot.1 += 1;
                }
            }
        }
        if let Some(m) = result
            .details
            .get("missed_top_ranked")
            .and_then(|m| m.as_bool())
        {
            *missed.get_or_insert(0) += u64::from(m);
        }
    })?;
    if let Some(m) = missed {
        counts.push(("missed_top_ranked".into(), m));
    }
    Ok(TaxonomyCounts { items, counts })
}

/// Computes the run's summary from its stored results and stores it.
pub fn summarize_and_store(store: &mut Store, run_id: i64) -> Result<RunSummary> {
    let summary = summarize(store, run_id)?;
    store::analyses::put(
        store.conn(),
        run_id,
        SUMMARY,
        &serde_json::to_value(&summary)?,
    )?;
    Ok(summary)
}

/// The stored summary, computed and stored now if the run has none yet, or has one
/// stored before summaries kept what every view reads (`RunSummary::is_complete`).
pub fn load_summary(store: &mut Store, run_id: i64) -> Result<RunSummary> {
    if let Some(json) = store::analyses::get(store.conn(), run_id, SUMMARY)? {
        let stored: RunSummary = serde_json::from_value(json)?;
        if stored.is_complete() {
            return Ok(stored);
        }
    }
    summarize_and_store(store, run_id)
}

impl RunSummary {
    /// Carries everything a view reads: what judged the results, and each per-item
    /// metric's histogram. A summary stored by an older version may lack either; it is
    /// computed again when the run is opened (`crate::view::materialise`), so that no
    /// read has to count them from the results.
    pub fn is_complete(&self) -> bool {
        self.judged_by.is_some()
            && self
                .metrics
                .values()
                .all(|m| m.histogram.len() == HISTOGRAM_BINS)
    }
}

/// The summary every view of a run shows (the window, `show`, reports): a finished run's
/// stored summary; otherwise a summary of what the run has stored so far, computed now
/// and never stored. A read never writes: only a finished run's summary is kept, stored
/// when it ends (resume recomputes it then) or by `crate::view::materialise` for a run
/// stored before summaries were.
pub fn current_summary(store: &Store, run: &store::runs::RunRow) -> Result<RunSummary> {
    if run.status == store::runs::RunStatus::Done {
        if let Some(json) = store::analyses::get(store.conn(), run.id, SUMMARY)? {
            return Ok(serde_json::from_value(json)?);
        }
    }
    summarize(store, run.id)
}

/// The run's statistics, streamed metric by metric from the store, with the
/// dataset-level details each family needs (citation macro scores, RAGChecker's grouped
/// means, the diagnosis, RAGalyst's taxonomy).
pub fn summarize(store: &Store, run_id: i64) -> Result<RunSummary> {
    let conn = store.conn();
    let run = store::runs::get(conn, run_id)?;
    let mut summary = RunSummary {
        run_id,
        items: run.item_count as u64,
        metrics: BTreeMap::new(),
        dataset_metrics: BTreeMap::new(),
        dataset_details: BTreeMap::new(),
        errors: Vec::new(),
        diagnosis: None,
        taxonomy: None,
        judged_by: Some(JudgedBy::read(store, run_id)?),
    };
    let specs: Vec<_> = run
        .metrics
        .iter()
        .filter_map(|id| metrics::find(id))
        .collect();
    for spec in specs.iter().filter(|s| s.scope == Scope::Item) {
        let (metric, errors) = metric_summary(store, run_id, spec)?;
        summary.metrics.insert(spec.id.to_string(), metric);
        if errors > 0 {
            summary.errors.extend(group_errors(store, run_id, spec.id)?);
        }
    }
    if specs.iter().any(|s| s.family == Family::Citation) {
        add_citation_summary(store, run_id, &run.config, &mut summary)?;
    }
    if specs.iter().any(|s| s.family == Family::RagChecker) {
        let means: BTreeMap<String, f64> = summary
            .metrics
            .iter()
            .filter(|(id, _)| id.starts_with("ragchecker."))
            .filter_map(|(id, m)| m.stats.mean.map(|v| (id.clone(), v)))
            .collect();
        summary.dataset_details.insert(
            "ragchecker".into(),
            metrics::ragchecker::grouped_export(&means),
        );
    }
    if specs.iter().any(|s| s.family == Family::Ragvue && s.judge) {
        summary.diagnosis = Some(diagnosis::diagnose(store, run_id)?);
    }
    if specs.iter().any(|s| s.id == "ragalyst.answer_correctness") {
        summary.taxonomy = Some(taxonomy_counts(store, run_id)?);
    }
    Ok(summary)
}

/// One item-level metric's statistics, histogram, extreme items and skip reasons, and
/// how many of its results are errors. Streamed: the scores alone (8 bytes an item) and
/// a few extreme items are kept.
fn metric_summary(
    store: &Store,
    run_id: i64,
    spec: &metrics::MetricSpec,
) -> Result<(MetricSummary, u64)> {
    let conn = store.conn();
    let mut values: Vec<f64> = Vec::new();
    let mut extremes = Extremes::default();
    let (mut skipped, mut errors) = (0u64, 0u64);
    store::results::for_each_score(conn, run_id, spec.id, |cell| {
        match (cell.status, cell.score) {
            (Status::Ok, Some(score)) => {
                values.push(score);
                extremes.add(ItemScore {
                    item_id: cell.item_id,
                    score,
                });
            }
            (Status::Skipped, _) => skipped += 1,
            _ => errors += 1,
        }
    })?;
    let stats = MetricStats::from_scores(spec.id, &values, skipped, errors, spec.lower_is_better);
    let histogram = histogram(values.iter().copied());
    drop(values);
    let (lowest, highest) = extremes.finish();
    let skip_reasons = if skipped > 0 {
        store::results::skip_reasons(conn, run_id, spec.id)?
    } else {
        Vec::new()
    };
    let metric = MetricSummary {
        stats,
        lowest,
        highest,
        skip_reasons,
        histogram,
    };
    Ok((metric, errors))
}

/// The `EXAMPLES` lowest and highest scores of a metric, kept small as scores stream by.
/// Ties go to the lower item id among the lowest and to the higher among the highest.
#[derive(Default)]
struct Extremes {
    lowest: Vec<ItemScore>,
    highest: Vec<ItemScore>,
}

impl Extremes {
    fn add(&mut self, score: ItemScore) {
        self.lowest.push(score.clone());
        self.highest.push(score);
        if self.lowest.len() >= 64 * EXAMPLES {
            self.trim();
        }
    }

    fn trim(&mut self) {
        let ascending = |a: &ItemScore, b: &ItemScore| {
            a.score.total_cmp(&b.score).then(a.item_id.cmp(&b.item_id))
        };
        self.lowest.sort_by(ascending);
        self.lowest.truncate(EXAMPLES);
        self.highest.sort_by(|a, b| ascending(b, a));
        self.highest.truncate(EXAMPLES);
    }

    fn finish(mut self) -> (Vec<ItemScore>, Vec<ItemScore>) {
        self.trim();
        (self.lowest, self.highest)
    }
}

fn group_errors(store: &Store, run_id: i64, metric: &str) -> Result<Vec<ErrorGroup>> {
    let mut groups: BTreeMap<String, ErrorGroup> = BTreeMap::new();
    store::results::for_each_of_metric(store.conn(), run_id, metric, true, |stored| {
        let result = stored.result;
        let group = groups
            .entry(result.explanation.clone())
            .or_insert_with(|| ErrorGroup {
                metric: metric.to_string(),
                count: 0,
                message: result.explanation.clone(),
                item_ids: Vec::new(),
            });
        group.count += 1;
        if group.item_ids.len() < 20 {
            group.item_ids.push(stored.item_id);
        }
    })?;
    Ok(groups.into_values().collect())
}

/// Citation macro scores need every item's (gold, cited) pair, so they are computed from
/// the items themselves rather than from per-item results.
fn add_citation_summary(
    store: &Store,
    run_id: i64,
    config: &serde_json::Value,
    summary: &mut RunSummary,
) -> Result<()> {
    let metric_config: MetricConfig = config
        .get("metric_config")
        .cloned()
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default();
    let Ok(pattern) = citation::compile_pattern(&metric_config.citation_pattern) else {
        return Ok(()); // the per-item citation results already carry the pattern error
    };
    let mut pairs = citation::CitationPairs::default();
    store::items::for_each_citation(store.conn(), run_id, |gold, answer| {
        pairs.add(gold, &citation::extract_cited(answer, &pattern));
    })?;
    if pairs.is_empty() {
        return Ok(());
    }
    let cited = citation::summarize_pairs(&pairs, 10);
    summary
        .dataset_metrics
        .insert("citation.macro_precision".into(), cited.macro_precision);
    summary
        .dataset_metrics
        .insert("citation.macro_recall".into(), cited.macro_recall);
    summary
        .dataset_metrics
        .insert("citation.macro_f1".into(), cited.macro_f1);
    summary
        .dataset_details
        .insert("citation".into(), serde_json::to_value(&cited)?);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Streaming keeps what sorting every score kept: the lowest first (ties to the lower
    /// item id) and the highest first (ties to the higher item id).
    #[test]
    fn extremes_kept_while_streaming_match_a_full_sort() {
        let scores: Vec<ItemScore> = (0..1_000i64)
            .map(|i| ItemScore {
                item_id: i,
                score: ((i * 7919) % 101) as f64 / 100.0,
            })
            .collect();
        let mut extremes = Extremes::default();
        for s in &scores {
            extremes.add(s.clone());
        }
        let (lowest, highest) = extremes.finish();
        let mut sorted = scores.clone();
        sorted.sort_by(|a, b| a.score.total_cmp(&b.score).then(a.item_id.cmp(&b.item_id)));
        assert_eq!(lowest, sorted[..EXAMPLES].to_vec());
        assert_eq!(
            highest,
            sorted
                .iter()
                .rev()
                .take(EXAMPLES)
                .cloned()
                .collect::<Vec<_>>()
        );
        assert_eq!(lowest[0].score, 0.0);
        assert_eq!(highest[0].score, 1.0);
    }
}
