//! Judge–human alignment (METRICS.md): how far a run's scores agree with the labels
//! people gave the same items, per metric, and which items to label next.
//!
//! Owns: pairing a run's `ok` scores with human labels (by item content hash), the
//! figures — Spearman ρ with the Bonett–Wright standard error sqrt((1 + ρ²/2)/(n − 3)),
//! Kendall's τ-b, mean absolute error, and for pass/fail labels the balanced accuracy at
//! the judge-score threshold that maximises it — and the labelling suggestions. Reads
//! through `store`; the arithmetic is in pure functions (`figures`) tests feed directly.
//!
//! A figure that needs more pairs than there are is `None`, never 0: ρ and τ need two
//! pairs that differ on both sides, the standard error four pairs, balanced accuracy
//! both a pass and a fail among the labels.

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};

use super::calibration::{Calibration, CALIBRATION};
use crate::error::Result;
use crate::metrics::{self, Scope};
use crate::store::{self, Store};

/// Suggestions returned: enough for a labelling session, few enough to do now.
pub const SUGGESTIONS: usize = 10;

/// Balanced accuracy of pass/fail labels at the best judge-score threshold.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BinaryFit {
    pub balanced_accuracy: f64,
    /// A judge score at or above this reads as "pass".
    pub threshold: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MetricAlignment {
    pub metric: String,
    /// Items with both an `ok` score in the run and a human label.
    pub n: u64,
    pub spearman: Option<f64>,
    /// Bonett–Wright standard error of ρ; needs n ≥ 4.
    pub spearman_se: Option<f64>,
    pub kendall_tau: Option<f64>,
    /// Mean |judge − human| on the 0–1 scale.
    pub mae: Option<f64>,
    /// When every label is 0 or 1.
    pub binary: Option<BinaryFit>,
    /// The run's pass rate corrected for the judge's errors on these labels, when they
    /// are pass / fail with enough of each (`corrected`).
    #[serde(default)]
    pub corrected: Option<super::corrected::CorrectedRate>,
}

/// An item whose label would tell the most.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Suggestion {
    pub item_id: i64,
    pub question: String,
    pub metric: String,
    pub score: f64,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Alignment {
    pub run_id: i64,
    /// Labels on this run's items, over every metric.
    pub labels: u64,
    /// Metrics with at least one labelled, scored item, in catalogue order.
    pub metrics: Vec<MetricAlignment>,
    /// Unlabelled items to label next, most informative first.
    pub suggestions: Vec<Suggestion>,
}

/// The run's alignment with the labels of its items.
pub fn align(store: &Store, run_id: i64) -> Result<Alignment> {
    let labels = store::human_labels::for_run(store.conn(), run_id)?;
    let run = store::runs::get(store.conn(), run_id)?;
    // Only the metrics a label or a suggestion can be about are read: a judge-free run
    // with no label reads nothing more, however many items it has.
    let ids = worth_labelling(&run.metrics, &labels);
    if ids.is_empty() {
        return Ok(Alignment {
            run_id,
            labels: labels.len() as u64,
            metrics: Vec::new(),
            suggestions: Vec::new(),
        });
    }
    let disagreement = calibration_disagreement(store, run_id)?;
    // Before any label there are no figures, and the suggestions are a few scores near
    // the line: asked of the score index instead of read from every result (the report
    // of a judged million-item run spent 10 s and 470 MB on them).
    let (metrics, candidates) = if labels.is_empty() {
        let candidates = nearest_the_line(store, run_id, &ids, &disagreement)?;
        (Vec::new(), candidates)
    } else {
        let scored = Scored::read(store, run_id, ids)?;
        let candidates = scored.candidates(&labels, &disagreement);
        (scored.figures(&labels), candidates)
    };
    Ok(Alignment {
        run_id,
        labels: labels.len() as u64,
        metrics,
        suggestions: pick(store, candidates)?,
    })
}

/// The run's per-item metrics worth a person's time, in catalogue order: the ones already
/// being labelled, or, before any label, the judged ones (a formula's score needs no
/// second opinion, an overall is labelled through its parts).
fn worth_labelling(run_metrics: &[String], labels: &Labels) -> Vec<&'static str> {
    let labelled: HashSet<&str> = labels.keys().map(|(_, m)| m.as_str()).collect();
    metrics::in_order(run_metrics)
        .into_iter()
        .filter(|m| m.scope == Scope::Item)
        .filter(|m| {
            if labelled.is_empty() {
                m.judge && !m.synthesised
            } else {
                labelled.contains(m.id)
            }
        })
        .map(|m| m.id)
        .collect()
}

/// A run's items and their `ok` scores on the metrics asked for.
struct Scored {
    ids: Vec<&'static str>,
    keys: Vec<store::run_items::RunItemKey>,
    scores: BTreeMap<i64, BTreeMap<String, f64>>,
}

impl Scored {
    fn read(store: &Store, run_id: i64, ids: Vec<&'static str>) -> Result<Scored> {
        let conn = store.conn();
        let keys = store::run_items::keys(conn, run_id)?;
        let scores = store::results::ok_scores_by_item(conn, run_id, &ids)?
            .into_iter()
            .map(|s| (s.item_id, s.scores))
            .collect();
        Ok(Scored { ids, keys, scores })
    }

    /// Each metric with at least one labelled, scored item, in catalogue order.
    fn figures(&self, labels: &Labels) -> Vec<MetricAlignment> {
        let mut out = Vec::new();
        for metric in &self.ids {
            let mut pairs = Vec::new();
            let mut seen = HashSet::new();
            for key in &self.keys {
                // An item listed twice in the run counts once.
                if !seen.insert(key.content_hash.as_str()) {
                    continue;
                }
                let label = labels.get(&(key.content_hash.clone(), metric.to_string()));
                let score = self.scores.get(&key.item_id).and_then(|s| s.get(*metric));
                if let (Some(label), Some(score)) = (label, score) {
                    pairs.push((*score, label.score));
                }
            }
            if pairs.is_empty() {
                continue;
            }
            let mut m = figures(metric, &pairs);
            // Pass / fail on a lower-is-better metric has no agreed meaning: no correction.
            if metrics::find(metric).is_some_and(|spec| !spec.lower_is_better) {
                let run_scores: Vec<f64> = self
                    .scores
                    .values()
                    .filter_map(|s| s.get(*metric))
                    .copied()
                    .collect();
                m.corrected = super::corrected::corrected_rate(&pairs, &run_scores);
            }
            out.push(m);
        }
        out
    }
}

/// People's labels of a run's items, by (content hash, metric).
type Labels = std::collections::HashMap<(String, String), store::human_labels::HumanLabel>;

/// An unlabelled (item, metric) cell that could be suggested for labelling.
struct Candidate {
    /// Larger first: above 1 where the calibration judges disagreed, else nearness to 0.5.
    priority: f64,
    item_id: i64,
    metric: &'static str,
    score: f64,
    /// How far the calibration judges disagreed on the cell, when the run was calibrated.
    spread: Option<f64>,
}

impl Candidate {
    fn new(item_id: i64, metric: &'static str, score: f64, spread: Option<f64>) -> Candidate {
        let priority = match spread {
            Some(spread) => 1.0 + spread,
            None => 0.5 - (score - 0.5).abs(),
        };
        Candidate {
            priority,
            item_id,
            metric,
            score,
            spread,
        }
    }
}

/// How far the calibration judges disagreed, by (item, metric), for the cells the
/// calibration marked for review; empty when the run was not calibrated.
fn calibration_disagreement(store: &Store, run_id: i64) -> Result<BTreeMap<(i64, String), f64>> {
    let mut disagreement = BTreeMap::new();
    if let Some(json) = store::analyses::get(store.conn(), run_id, CALIBRATION)? {
        if let Ok(calibration) = serde_json::from_value::<Calibration>(json) {
            for m in calibration.metrics {
                for item in m.needs_review {
                    disagreement.insert((item.item_id, m.metric.clone()), 1.0 - item.agreement);
                }
            }
        }
    }
    Ok(disagreement)
}

/// The candidates of a run nobody labelled yet: the cells the calibration judges
/// disagreed on, and on each side of 0.5 the `SUGGESTIONS` scores nearest it per metric.
/// No more are needed: a cell further down its metric's side has `SUGGESTIONS` cells of
/// other items ahead of it, so `pick` never reaches it.
fn nearest_the_line(
    store: &Store,
    run_id: i64,
    metric_ids: &[&'static str],
    disagreement: &BTreeMap<(i64, String), f64>,
) -> Result<Vec<Candidate>> {
    let conn = store.conn();
    let mut out = Vec::new();
    for metric in metric_ids.iter().copied() {
        for (item_id, score) in
            store::results::ok_scores_nearest(conn, run_id, metric, 0.5, SUGGESTIONS)?
        {
            let spread = disagreement.get(&(item_id, metric.to_string())).copied();
            out.push(Candidate::new(item_id, metric, score, spread));
        }
        for ((item_id, _), spread) in disagreement.iter().filter(|((_, m), _)| m == metric) {
            if let Some(score) = store::results::ok_score(conn, run_id, *item_id, metric)? {
                out.push(Candidate::new(*item_id, metric, score, Some(*spread)));
            }
        }
    }
    Ok(out)
}

impl Scored {
    /// Every unlabelled cell of the metrics worth labelling.
    fn candidates(
        &self,
        labels: &Labels,
        disagreement: &BTreeMap<(i64, String), f64>,
    ) -> Vec<Candidate> {
        let mut out = Vec::new();
        for key in &self.keys {
            let Some(item_scores) = self.scores.get(&key.item_id) else {
                continue;
            };
            for metric in self.ids.iter().copied() {
                let Some(&score) = item_scores.get(metric) else {
                    continue;
                };
                if labels.contains_key(&(key.content_hash.clone(), metric.to_string())) {
                    continue;
                }
                let spread = disagreement
                    .get(&(key.item_id, metric.to_string()))
                    .copied();
                out.push(Candidate::new(key.item_id, metric, score, spread));
            }
        }
        out
    }
}

/// The suggestions among `candidates`, most informative first: the cells the calibration
/// judges disagreed on most, then those whose score sits nearest 0.5, where the judge is
/// least sure which side of the line the item is on. One per item (a person labels an
/// item, then moves on); the reason is written for the few kept.
fn pick(store: &Store, mut candidates: Vec<Candidate>) -> Result<Vec<Suggestion>> {
    candidates.sort_by(|a, b| {
        b.priority
            .total_cmp(&a.priority)
            .then(a.item_id.cmp(&b.item_id))
            .then(a.metric.cmp(b.metric))
    });
    let mut items_seen = HashSet::new();
    let mut out = Vec::new();
    for c in candidates {
        if out.len() == SUGGESTIONS {
            break;
        }
        if !items_seen.insert(c.item_id) {
            continue;
        }
        let reason = match c.spread {
            Some(spread) => format!("the calibration judges disagree by {spread:.2}"),
            None if (c.score - 0.5).abs() <= 0.25 => {
                format!(
                    "{:.2} is near the 0.5 line, where the judge is least sure",
                    c.score
                )
            }
            None => format!("not labelled yet (judge score {:.2})", c.score),
        };
        out.push(Suggestion {
            item_id: c.item_id,
            question: store::items::get(store.conn(), c.item_id)?.item.question,
            metric: c.metric.to_string(),
            score: c.score,
            reason,
        });
    }
    Ok(out)
}

/// The figures of one metric from (judge score, human label) pairs.
pub fn figures(metric: &str, pairs: &[(f64, f64)]) -> MetricAlignment {
    let judge: Vec<f64> = pairs.iter().map(|p| p.0).collect();
    let human: Vec<f64> = pairs.iter().map(|p| p.1).collect();
    let n = pairs.len();
    let spearman = spearman(&judge, &human);
    let spearman_se = spearman
        .filter(|_| n > 3)
        .map(|rho| ((1.0 + rho * rho / 2.0) / (n as f64 - 3.0)).sqrt());
    let binary = human
        .iter()
        .all(|h| *h == 0.0 || *h == 1.0)
        .then(|| best_threshold(&judge, &human))
        .flatten();
    MetricAlignment {
        metric: metric.to_string(),
        n: n as u64,
        spearman,
        spearman_se,
        kendall_tau: kendall_tau_b(&judge, &human),
        mae: (n > 0).then(|| pairs.iter().map(|(j, h)| (j - h).abs()).sum::<f64>() / n as f64),
        binary,
        corrected: None,
    }
}

/// Ranks from 1, ties sharing the mean of their ranks (as scipy's `rankdata`).
pub(crate) fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|a, b| values[*a].total_cmp(&values[*b]));
    let mut out = vec![0.0; values.len()];
    let mut start = 0;
    while start < order.len() {
        let mut end = start;
        while end + 1 < order.len() && values[order[end + 1]] == values[order[start]] {
            end += 1;
        }
        let rank = (start + end) as f64 / 2.0 + 1.0;
        for &i in &order[start..=end] {
            out[i] = rank;
        }
        start = end + 1;
    }
    out
}

fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len() as f64;
    if x.len() < 2 {
        return None;
    }
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    (sxx > 0.0 && syy > 0.0).then(|| (sxy / (sxx * syy).sqrt()).clamp(-1.0, 1.0))
}

/// Spearman's ρ: Pearson's correlation of the ranks.
pub fn spearman(x: &[f64], y: &[f64]) -> Option<f64> {
    pearson(&ranks(x), &ranks(y))
}

/// Kendall's τ-b, which corrects for ties on either side (scipy's default).
pub fn kendall_tau_b(x: &[f64], y: &[f64]) -> Option<f64> {
    let n = x.len();
    let (mut concordant, mut discordant, mut tied_x, mut tied_y) = (0i64, 0i64, 0i64, 0i64);
    for i in 0..n {
        for j in i + 1..n {
            let dx = x[i] - x[j];
            let dy = y[i] - y[j];
            match (dx == 0.0, dy == 0.0) {
                (true, true) => {}
                (true, false) => tied_x += 1,
                (false, true) => tied_y += 1,
                (false, false) if (dx > 0.0) == (dy > 0.0) => concordant += 1,
                (false, false) => discordant += 1,
            }
        }
    }
    let left = (concordant + discordant + tied_x) as f64;
    let right = (concordant + discordant + tied_y) as f64;
    (left > 0.0 && right > 0.0).then(|| (concordant - discordant) as f64 / (left * right).sqrt())
}

/// The threshold on the judge's score that best separates pass (1) from fail (0)
/// labels, by balanced accuracy; ties go to the lower threshold.
fn best_threshold(judge: &[f64], human: &[f64]) -> Option<BinaryFit> {
    let positives = human.iter().filter(|h| **h == 1.0).count() as f64;
    let negatives = human.len() as f64 - positives;
    if positives == 0.0 || negatives == 0.0 {
        return None;
    }
    let mut candidates: Vec<f64> = judge.to_vec();
    candidates.sort_by(f64::total_cmp);
    candidates.dedup();
    candidates
        .into_iter()
        .map(|t| {
            let (mut tp, mut tn) = (0.0, 0.0);
            for (j, h) in judge.iter().zip(human) {
                match (*j >= t, *h == 1.0) {
                    (true, true) => tp += 1.0,
                    (false, false) => tn += 1.0,
                    _ => {}
                }
            }
            BinaryFit {
                balanced_accuracy: (tp / positives + tn / negatives) / 2.0,
                threshold: t,
            }
        })
        .fold(None, |best: Option<BinaryFit>, fit| match best {
            Some(b) if b.balanced_accuracy >= fit.balanced_accuracy => Some(b),
            _ => Some(fit),
        })
}

#[cfg(test)]
#[path = "alignment_tests.rs"]
mod tests;
