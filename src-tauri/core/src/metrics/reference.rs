//! Classic reference metrics (`reference.*`, METRICS.md Family 5): ranking metrics
//! (recall@k, MRR@k) against gold context ids, and answer-vs-ground-truth text metrics
//! (SQuAD exact match and token F1, ROUGE-L F1, smoothed sentence BLEU).
//!
//! Owns: these formulas and their evidence. Must not: call a judge. Conventions:
//! - ids compare exactly after trimming surrounding whitespace;
//! - EM / token F1 use SQuAD normalisation (`text::squad_tokens`), as the official SQuAD
//!   v2 script: when either side has no tokens, F1 = EM = 1 if both are empty, else 0;
//! - ROUGE-L and BLEU use `text::words` (lower-cased Unicode words, punctuation dropped)
//!   and follow the same empty-side convention;
//! - BLEU is BLEU+1 (Lin & Och 2004): n-gram precisions for n = 2..4 are add-one
//!   smoothed, (matches + 1) / (candidates + 1); unigram precision is not, so an answer
//!   sharing no word with the ground truth scores 0. Short answers never give NaN.

use std::collections::HashMap;

use serde_json::json;

use super::{MetricConfig, MetricResult};
use crate::item::Item;
use crate::text;

pub fn compute(id: &str, item: &Item, config: &MetricConfig) -> MetricResult {
    match id {
        "reference.recall_at_k" | "reference.mrr_at_k" => ranking(id, item, config.k),
        "reference.exact_match"
        | "reference.token_f1"
        | "reference.rouge_l"
        | "reference.bleu"
        | "reference.semantic_similarity" => {
            let (Some(answer), Some(truth)) =
                (item.answer.as_deref(), item.ground_truth.as_deref())
            else {
                return MetricResult::skipped(
                    id,
                    "the item needs both an answer and a ground-truth answer",
                );
            };
            match id {
                "reference.exact_match" => exact_match(id, answer, truth),
                "reference.token_f1" => token_f1_metric(id, answer, truth),
                "reference.rouge_l" => rouge_l_metric(id, answer, truth),
                "reference.semantic_similarity" => semantic_metric(id, answer, truth),
                _ => bleu_metric(id, answer, truth),
            }
        }
        _ => MetricResult::error(id, format!("{id} is not a reference metric")),
    }
}

/// Cosine of the answer's and the ground truth's sentence embeddings, negative cosines
/// (opposite in meaning as the model sees it) counting as 0. Without the model the
/// metric is skipped with the reason: no other measure stands in for it silently.
fn semantic_metric(id: &str, answer: &str, truth: &str) -> MetricResult {
    let Some(model) = crate::semantic::shared() else {
        let why = match crate::semantic::availability() {
            crate::semantic::Availability::Absent { reason } => reason,
            crate::semantic::Availability::Loaded { .. } => "it could not be loaded".into(),
        };
        return MetricResult::skipped(id, format!("the semantic model is not available: {why}"));
    };
    if answer.trim().is_empty() || truth.trim().is_empty() {
        let both = answer.trim().is_empty() && truth.trim().is_empty();
        let score = if both { 1.0 } else { 0.0 };
        return MetricResult::ok(id, score, "One side is empty.", json!({ "cosine": null }));
    }
    let cosine = model.similarity(answer, truth);
    let score = cosine.max(0.0);
    let reading = match score {
        s if s >= 0.85 => "say nearly the same thing",
        s if s >= 0.65 => "are close in meaning",
        s if s >= 0.4 => "are related but differ in meaning",
        _ => "say different things",
    };
    MetricResult::ok(
        id,
        score,
        format!(
            "The answer and the ground truth {reading} (cosine {cosine:.2}, {}).",
            crate::semantic::MODEL_NAME
        ),
        json!({ "cosine": cosine, "model": crate::semantic::MODEL_NAME }),
    )
}

/// 1-based rank of the first ranked id that is a gold id, if any.
pub fn first_gold_rank(ranked: &[String], gold: &[String]) -> Option<usize> {
    ranked
        .iter()
        .position(|r| gold.iter().any(|g| g.trim() == r.trim()))
        .map(|i| i + 1)
}

fn ranking(id: &str, item: &Item, k: usize) -> MetricResult {
    if k == 0 {
        return MetricResult::error(id, "k must be at least 1 for ranking metrics");
    }
    let ranked = item.ranked_ids();
    if ranked.is_empty() || item.gold_context_ids.is_empty() {
        return MetricResult::skipped(
            id,
            "the item has no ranked retrieved ids and gold context id",
        );
    }
    let rank = first_gold_rank(&ranked, &item.gold_context_ids);
    let in_top_k = rank.is_some_and(|r| r <= k);
    let score = match (id, rank) {
        ("reference.mrr_at_k", Some(r)) if in_top_k => 1.0 / r as f64,
        ("reference.recall_at_k", _) if in_top_k => 1.0,
        _ => 0.0,
    };
    let gold = item.gold_context_ids.join(", ");
    let explanation = match rank {
        Some(r) if in_top_k => {
            format!("The gold context ({gold}) is retrieved at rank {r}, within the top {k}.")
        }
        Some(r) => {
            format!("The gold context ({gold}) is retrieved only at rank {r}, below the top {k}.")
        }
        None => format!(
            "The gold context ({gold}) is not among the {} retrieved ids.",
            ranked.len()
        ),
    };
    let top_k: Vec<&String> = ranked.iter().take(k).collect();
    let details = json!({ "rank": rank, "k": k, "top_k": top_k, "gold": item.gold_context_ids });
    MetricResult::ok(id, score, explanation, details)
}

fn exact_match(id: &str, answer: &str, truth: &str) -> MetricResult {
    let (a, t) = (text::normalize_squad(answer), text::normalize_squad(truth));
    let equal = a == t;
    let explanation = if equal {
        "After normalisation the answer is exactly the ground truth.".to_string()
    } else {
        format!(
            "After normalisation the answer (\"{}\") differs from the ground truth (\"{}\").",
            clip(&a),
            clip(&t)
        )
    };
    let details = json!({ "normalized_answer": a, "normalized_ground_truth": t });
    MetricResult::ok(id, if equal { 1.0 } else { 0.0 }, explanation, details)
}

/// Token counts of both sides' multiset intersection.
fn common_tokens(a: &[String], b: &[String]) -> usize {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for t in b {
        *counts.entry(t).or_default() += 1;
    }
    let mut common = 0;
    for t in a {
        if let Some(n) = counts.get_mut(t.as_str()).filter(|n| **n > 0) {
            *n -= 1;
            common += 1;
        }
    }
    common
}

/// SQuAD token F1 of `prediction` against `truth` (see the module doc for empty sides).
pub fn token_f1(prediction: &str, truth: &str) -> f64 {
    let (p, t) = (text::squad_tokens(prediction), text::squad_tokens(truth));
    overlap_f1(&p, &t, common_tokens(&p, &t))
}

fn overlap_f1(p: &[String], t: &[String], common: usize) -> f64 {
    if p.is_empty() || t.is_empty() {
        return if p.is_empty() && t.is_empty() {
            1.0
        } else {
            0.0
        };
    }
    if common == 0 {
        return 0.0;
    }
    let precision = common as f64 / p.len() as f64;
    let recall = common as f64 / t.len() as f64;
    2.0 * precision * recall / (precision + recall)
}

fn token_f1_metric(id: &str, answer: &str, truth: &str) -> MetricResult {
    let (p, t) = (text::squad_tokens(answer), text::squad_tokens(truth));
    let common = common_tokens(&p, &t);
    let score = overlap_f1(&p, &t, common);
    let explanation = format!(
        "{common} of the answer's {} normalised words match the ground truth's {} words.",
        p.len(),
        t.len()
    );
    let details = json!({ "common_tokens": common, "answer_tokens": p.len(), "ground_truth_tokens": t.len() });
    MetricResult::ok(id, score, explanation, details)
}

/// Length of the longest common subsequence of two token lists (two-row DP).
pub fn lcs_len(a: &[String], b: &[String]) -> usize {
    let mut prev = vec![0usize; b.len() + 1];
    let mut cur = vec![0usize; b.len() + 1];
    for x in a {
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = if x == y {
                prev[j] + 1
            } else {
                cur[j].max(prev[j + 1])
            };
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// ROUGE-L F1 (β = 1): P = LCS / answer words, R = LCS / ground-truth words.
pub fn rouge_l(answer: &str, truth: &str) -> f64 {
    let (a, t) = (text::words(answer), text::words(truth));
    overlap_f1(&a, &t, lcs_len(&a, &t))
}

fn rouge_l_metric(id: &str, answer: &str, truth: &str) -> MetricResult {
    let (a, t) = (text::words(answer), text::words(truth));
    let lcs = lcs_len(&a, &t);
    let score = overlap_f1(&a, &t, lcs);
    let explanation = format!(
        "The answer repeats {lcs} of the ground truth's {} words in the same order.",
        t.len()
    );
    let details = json!({ "lcs": lcs, "answer_tokens": a.len(), "ground_truth_tokens": t.len() });
    MetricResult::ok(id, score, explanation, details)
}

/// Clipped n-gram matches and candidate n-gram count for one order.
fn ngram_matches(candidate: &[String], reference: &[String], n: usize) -> (usize, usize) {
    if candidate.len() < n {
        return (0, 0);
    }
    let mut reference_counts: HashMap<&[String], usize> = HashMap::new();
    for g in reference.windows(n) {
        *reference_counts.entry(g).or_default() += 1;
    }
    let mut matches = 0;
    for g in candidate.windows(n) {
        if let Some(c) = reference_counts.get_mut(g).filter(|c| **c > 0) {
            *c -= 1;
            matches += 1;
        }
    }
    (matches, candidate.len() + 1 - n)
}

/// Sentence BLEU-4 with BLEU+1 smoothing (see the module doc) and the standard brevity
/// penalty exp(1 − r/c) when the answer is shorter than the ground truth.
pub struct Bleu {
    pub score: f64,
    pub precisions: [f64; 4],
    pub brevity_penalty: f64,
}

pub fn bleu(candidate: &[String], reference: &[String]) -> Bleu {
    let mut precisions = [0.0; 4];
    for (i, p) in precisions.iter_mut().enumerate() {
        let (m, c) = ngram_matches(candidate, reference, i + 1);
        *p = if i == 0 {
            if c == 0 {
                0.0
            } else {
                m as f64 / c as f64
            }
        } else {
            (m + 1) as f64 / (c + 1) as f64
        };
    }
    let (c, r) = (candidate.len() as f64, reference.len() as f64);
    let brevity_penalty = if c == 0.0 {
        0.0
    } else if c >= r {
        1.0
    } else {
        (1.0 - r / c).exp()
    };
    let score = if precisions[0] == 0.0 || brevity_penalty == 0.0 {
        0.0
    } else {
        brevity_penalty * (precisions.iter().map(|p| p.ln()).sum::<f64>() / 4.0).exp()
    };
    Bleu {
        score,
        precisions,
        brevity_penalty,
    }
}

fn bleu_metric(id: &str, answer: &str, truth: &str) -> MetricResult {
    let (a, t) = (text::words(answer), text::words(truth));
    let b = if a.is_empty() && t.is_empty() {
        Bleu {
            score: 1.0,
            precisions: [1.0; 4],
            brevity_penalty: 1.0,
        }
    } else {
        bleu(&a, &t)
    };
    let explanation = format!(
        "{:.0}% of the answer's words appear in the ground truth; BLEU, which also rewards matching phrases, is {:.2}.",
        b.precisions[0] * 100.0,
        b.score
    );
    let round = |x: f64| (x * 10_000.0).round() / 10_000.0;
    let details = json!({
        "precisions": b.precisions.map(round),
        "brevity_penalty": round(b.brevity_penalty),
        "answer_tokens": a.len(),
        "ground_truth_tokens": t.len(),
        "smoothing": "BLEU+1 (Lin & Och 2004): add-one for 2- to 4-grams",
    });
    MetricResult::ok(id, b.score, explanation, details)
}

fn clip(s: &str) -> String {
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
#[path = "reference_tests.rs"]
mod tests;
