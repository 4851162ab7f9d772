//! The trust statement: how far a reader can believe a run, in plain sentences, from what
//! was actually measured — sample size and interval width of the headline metrics, the
//! kind of judge, its stability when it was re-judged (`--calibrate`), its agreement with
//! people's labels, and the share of results that were errors or skipped. Shown at the
//! top of Results and in the report's executive summary.
//!
//! Owns: choosing the headline metrics and writing the sentences. It never claims more
//! than was measured: what was not measured is said to be unknown, with how to measure
//! it.

use serde::{Deserialize, Serialize};

use super::facts::{JudgeFacts, RunFacts};
use crate::analysis::{MetricStats, RunSummary};
use crate::judge;
use crate::metrics;
use crate::trust::alignment::MetricAlignment;
use crate::trust::calibration::Calibration;

/// Headline metrics named in the statement, at most.
const HEADLINES: usize = 3;
/// Labels per metric below which an agreement figure is called a hint.
const FEW_LABELS: u64 = 10;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TrustStatement {
    /// One plain sentence per measured aspect, in reading order.
    pub sentences: Vec<String>,
}

/// The statement of a run, from its facts.
pub fn statement(facts: &RunFacts) -> TrustStatement {
    let summary = &facts.summary;
    let judged = facts
        .run
        .metrics
        .iter()
        .any(|m| metrics::find(m).is_some_and(|s| s.judge));
    let calibration = facts
        .calibration
        .as_ref()
        .and_then(|json| Calibration::deserialize(json).ok());
    let alignment = &facts.alignment.metrics;
    let mut sentences = vec![precision(summary)];
    sentences.push(judge_sentence(judged, &facts.judge));
    if judged {
        sentences.push(stability(calibration.as_ref()));
    }
    if let Some(s) = not_english(summary) {
        sentences.push(s);
    }
    sentences.push(agreement(alignment));
    if let Some(s) = errors(summary) {
        sentences.push(s);
    }
    TrustStatement { sentences }
}

/// The overall scores when the run has them, else the metrics scored on most items.
fn headline_metrics(summary: &RunSummary) -> Vec<(&str, &MetricStats)> {
    let metrics = &summary.metrics;
    let overalls: Vec<_> = ["ragvue.answer_overall", "ragvue.retrieval_overall"]
        .into_iter()
        .filter_map(|id| metrics.get(id).map(|m| (id, &m.stats)))
        .filter(|(_, s)| s.mean.is_some())
        .collect();
    if !overalls.is_empty() {
        return overalls;
    }
    let mut by_n: Vec<(&str, &MetricStats)> = metrics
        .iter()
        .filter(|(_, m)| m.stats.mean.is_some())
        .map(|(id, m)| (id.as_str(), &m.stats))
        .collect();
    by_n.sort_by_key(|(id, s)| (std::cmp::Reverse(s.n), *id));
    by_n.truncate(HEADLINES);
    by_n
}

fn precision(summary: &RunSummary) -> String {
    let items = summary.items;
    let parts: Vec<String> = headline_metrics(summary)
        .into_iter()
        .map(|(id, s)| match (s.mean, s.ci95_low, s.ci95_high) {
            (Some(mean), Some(lo), Some(hi)) => {
                format!("{id} {mean:.2} (95% interval {lo:.2}–{hi:.2}, n = {})", s.n)
            }
            (Some(mean), _, _) => format!("{id} {mean:.2} (n = {}, too few for an interval)", s.n),
            _ => format!("{id} has no score"),
        })
        .collect();
    let widest = headline_metrics(summary)
        .into_iter()
        .filter_map(|(_, s)| Some(s.ci95_high? - s.ci95_low?))
        .fold(None, |w: Option<f64>, x| Some(w.map_or(x, |w| w.max(x))));
    let mut sentence = format!("Measured on {items} items: {}.", parts.join("; "));
    if let Some(width) = widest {
        sentence.push_str(&format!(
            " Each mean is known to within about ±{:.2}; a change smaller than that between two runs may be chance (compare runs to test it item by item).",
            width / 2.0
        ));
    }
    sentence
}

fn judge_sentence(judged: bool, judge: &JudgeFacts) -> String {
    if !judged {
        return "No judge took part: every metric of this run is computed by formula from the data, so the same data always give the same scores.".into();
    }
    if judge.offline {
        return "The scores come from the built-in offline judge, an approximation from word overlap, names and numbers and a small sentence-similarity model, with no language model: a fast first look, not a verdict (its own agreement with people is in Settings → Check this judge).".into();
    }
    if !judge.profile_found {
        return format!(
            "The judge profile '{}' no longer exists, so what kind of judge scored this run cannot be stated.",
            judge.profile
        );
    }
    let model = match &judge.host {
        Some(host) if judge::accounting::is_loopback(&format!("http://{host}")) => {
            format!(
                "a language model on this machine ({}, at {host})",
                judge.model
            )
        }
        Some(host) => format!("a hosted language model ({} at {host})", judge.model),
        None => format!("the language model {}", judge.model),
    };
    if judge::cascade::stronger(&judge.profile).is_some() {
        format!(
            "The built-in offline judge scored what it was sure of and sent the claims and aspects it was unsure of to {model}; each result records which of them decided it."
        )
    } else {
        format!("The scores come from {model}.")
    }
}

fn stability(calibration: Option<&Calibration>) -> String {
    let Some(c) = calibration else {
        return "Judge stability was not measured: re-judge with other temperatures or another judge (calibration) to see how much the scores move.".into();
    };
    let means: Vec<f64> = c.metrics.iter().filter_map(|m| m.mean_agreement).collect();
    if means.is_empty() {
        return "Calibration ran, but no item was scored by every judge configuration, so stability is unknown.".into();
    }
    let mean = means.iter().sum::<f64>() / means.len() as f64;
    let review: usize = c.metrics.iter().map(|m| m.needs_review.len()).sum();
    format!(
        "Re-judged under {} configurations, the scores agreed at {mean:.2} on average (1 is identical); {review} item-metric pairs disagree enough to need a human look.",
        c.runs.len()
    )
}

fn agreement(labelled: &[MetricAlignment]) -> String {
    let figures: Vec<String> = labelled
        .iter()
        .map(|m| {
            let items = if m.n == 1 {
                "1 labelled item".to_string()
            } else {
                format!("{} labelled items", m.n)
            };
            match m.spearman {
                Some(rho) => {
                    let se = m
                        .spearman_se
                        .map(|se| format!(" ± {se:.2}"))
                        .unwrap_or_default();
                    let hint = if m.n < FEW_LABELS {
                        ", a hint only"
                    } else {
                        ""
                    };
                    format!("{} ρ {rho:.2}{se} on {items}{hint}", m.metric)
                }
                None => format!(
                    "{} on {items}, mean difference {:.2} (too few for a correlation)",
                    m.metric,
                    m.mae.unwrap_or(0.0)
                ),
            }
        })
        .collect();
    if figures.is_empty() {
        return "Agreement with people is unknown: no item of this run has a label yet (label about 30 items per metric in the case view, or import a labels file).".into();
    }
    let mut text = format!("Against people's labels: {}.", figures.join("; "));
    for m in labelled {
        if let Some(c) = &m.corrected {
            text.push(' ');
            text.push_str(&c.sentence(&m.metric));
        }
    }
    text
}

/// Items the built-in offline judge could not read (another language than English):
/// how many, and that their judged metrics were left unmeasured rather than scored.
fn not_english(summary: &RunSummary) -> Option<String> {
    let items = summary
        .metrics
        .values()
        .flat_map(|m| &m.skip_reasons)
        .filter(|(reason, _)| reason.starts_with("not measured for this language"))
        .map(|(_, n)| *n)
        .max()?;
    Some(format!(
        "{items} item(s) are not in English: the built-in offline judge reads English only, so their judged metrics were not measured (the judge-free ones were); a language model judge can score them."
    ))
}

fn errors(summary: &RunSummary) -> Option<String> {
    let (mut scored, mut errors, mut skipped) = (0u64, 0u64, 0u64);
    for m in summary.metrics.values() {
        scored += m.stats.n;
        errors += m.stats.errors;
        skipped += m.stats.skipped;
    }
    let total = scored + errors + skipped;
    if total == 0 {
        return None;
    }
    let share = |k: u64| format!("{:.0}%", 100.0 * k as f64 / total as f64);
    Some(if errors + skipped == 0 {
        format!("All {total} metric results were scored: none failed or was skipped.")
    } else {
        format!(
            "Of {total} metric results, {errors} ({}) could not be scored and {skipped} ({}) were skipped (missing fields, or a criterion the judge cannot score); neither counts as a score.",
            share(errors),
            share(skipped)
        )
    })
}
