//! The 11 RAGChecker claim metrics (`ragchecker.*`, METRICS.md Family 3) computed from
//! claims and entailment labels an upstream RAGChecker run already produced, plus the
//! RAGChecker-compatible grouped export of their dataset means.
//!
//! Owns: validating the label arrays' shapes, the per-item formulas and their per-claim
//! evidence (the dataset export lives in `ragchecker_export.rs`). Must not: call a judge.
//! Only `Entailment` counts as true; a chunk is *relevant* when it entails at least one
//! ground-truth claim. Degenerate items (no claims, no supported claims) score 0 as
//! RAGChecker does, never NaN; label arrays whose lengths disagree are an error that
//! names the array and both lengths.

use serde_json::{json, Value};

use super::MetricResult;
use crate::item::{Item, Label, RagCheckerLabels};

/// The label sets of one item, checked for consistent shapes.
struct Evidence<'a> {
    labels: &'a RagCheckerLabels,
    /// A2R[i]: response claim i vs the ground truth.
    a2r: &'a [Label],
    /// R2A[j]: ground-truth claim j vs the response.
    r2a: &'a [Label],
    /// Ret2R[i][k]: response claim i vs chunk k.
    ret2r: &'a [Vec<Label>],
    /// Ret2A[j][k]: ground-truth claim j vs chunk k.
    ret2a: &'a [Vec<Label>],
    n_chunks: usize,
    /// relevant[k]: chunk k entails at least one ground-truth claim.
    relevant: Vec<bool>,
}

fn entails(row: &[Label]) -> Vec<usize> {
    row.iter()
        .enumerate()
        .filter(|(_, l)| l.is_entailment())
        .map(|(k, _)| k)
        .collect()
}

/// The label matrices' lengths against the claims they label and against each other:
/// one for one, or an error naming both.
fn check_lengths(
    labels: &RagCheckerLabels,
    a2r: &[Label],
    r2a: &[Label],
    ret2r: &[Vec<Label>],
    ret2a: &[Vec<Label>],
) -> Result<(), String> {
    let same = |name: &str, len: usize, other: &str, expected: usize| {
        if len == expected {
            Ok(())
        } else {
            Err(format!(
                "{name} has length {len} but {other} has length {expected}; they must match one for one"
            ))
        }
    };
    if let Some(claims) = &labels.response_claims {
        same(
            "answer2response",
            a2r.len(),
            "response_claims",
            claims.len(),
        )?;
    }
    if let Some(claims) = &labels.gt_answer_claims {
        same(
            "response2answer",
            r2a.len(),
            "gt_answer_claims",
            claims.len(),
        )?;
    }
    same(
        "retrieved2response",
        ret2r.len(),
        "answer2response",
        a2r.len(),
    )?;
    same(
        "retrieved2answer",
        ret2a.len(),
        "response2answer",
        r2a.len(),
    )?;
    Ok(())
}

/// Every row of the two retrieval matrices has one label per retrieved chunk.
fn check_rows(ret2r: &[Vec<Label>], ret2a: &[Vec<Label>], n_chunks: usize) -> Result<(), String> {
    for (name, matrix) in [("retrieved2response", ret2r), ("retrieved2answer", ret2a)] {
        if let Some((row, labels)) = matrix.iter().enumerate().find(|(_, r)| r.len() != n_chunks) {
            return Err(format!(
                "{name}[{row}] has length {} but the item has {n_chunks} retrieved chunks",
                labels.len()
            ));
        }
    }
    Ok(())
}

impl<'a> Evidence<'a> {
    /// Checks the four label matrices against the claims and chunks before any metric
    /// reads them.
    fn new(labels: &'a RagCheckerLabels, n_contexts: usize) -> Result<Self, String> {
        let missing = |name: &str| format!("the item's RAGChecker labels have no {name}");
        let a2r = labels
            .answer2response
            .as_deref()
            .ok_or_else(|| missing("answer2response"))?;
        let r2a = labels
            .response2answer
            .as_deref()
            .ok_or_else(|| missing("response2answer"))?;
        let ret2r = labels
            .retrieved2response
            .as_deref()
            .ok_or_else(|| missing("retrieved2response"))?;
        let ret2a = labels
            .retrieved2answer
            .as_deref()
            .ok_or_else(|| missing("retrieved2answer"))?;
        check_lengths(labels, a2r, r2a, ret2r, ret2a)?;
        // The item's chunk count is authoritative; without contexts, trust the first row.
        let n_chunks = if n_contexts > 0 {
            n_contexts
        } else {
            ret2r.first().or(ret2a.first()).map_or(0, Vec::len)
        };
        check_rows(ret2r, ret2a, n_chunks)?;
        let relevant = (0..n_chunks)
            .map(|k| ret2a.iter().any(|row| row[k].is_entailment()))
            .collect();
        Ok(Evidence {
            labels,
            a2r,
            r2a,
            ret2r,
            ret2a,
            n_chunks,
            relevant,
        })
    }

    fn correct(&self, i: usize) -> bool {
        self.a2r[i].is_entailment()
    }

    fn response_claim(&self, i: usize) -> Value {
        claim_text(&self.labels.response_claims, i)
    }

    fn gt_claim(&self, j: usize) -> Value {
        claim_text(&self.labels.gt_answer_claims, j)
    }

    fn relevant_chunks(&self) -> Vec<usize> {
        (0..self.n_chunks).filter(|&k| self.relevant[k]).collect()
    }

    /// How each response claim relates to the chunks and the ground truth.
    fn response_claim_support(&self, i: usize) -> ClaimSupport {
        let chunks = entails(&self.ret2r[i]);
        let by_relevant = chunks.iter().any(|&k| self.relevant[k]);
        let by_irrelevant = chunks.iter().any(|&k| !self.relevant[k]);
        ClaimSupport {
            correct: self.correct(i),
            chunks,
            by_relevant,
            by_irrelevant,
        }
    }
}

struct ClaimSupport {
    /// The ground truth entails the claim (A2R).
    correct: bool,
    /// Chunks that entail the claim.
    chunks: Vec<usize>,
    by_relevant: bool,
    by_irrelevant: bool,
}

fn claim_text(claims: &Option<Vec<String>>, i: usize) -> Value {
    claims
        .as_ref()
        .and_then(|c| c.get(i))
        .map_or(Value::Null, |s| Value::String(s.clone()))
}

fn label_str(l: Label) -> &'static str {
    match l {
        Label::Entailment => "Entailment",
        Label::Neutral => "Neutral",
        Label::Contradiction => "Contradiction",
    }
}

fn ratio(num: usize, den: usize) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

fn f1(p: f64, r: f64) -> f64 {
    if p > 0.0 && r > 0.0 {
        2.0 * p * r / (p + r)
    } else {
        0.0
    }
}

/// "3 of the answer's 11 claims are" / "1 of the answer's 4 claims is".
fn count_of(n: usize, total: usize, whose: &str) -> String {
    format!(
        "{n} of {whose} {total} claim{} {}",
        if total == 1 { "" } else { "s" },
        if n == 1 { "is" } else { "are" }
    )
}

pub fn compute(id: &str, item: &Item) -> MetricResult {
    let Some(labels) = item.ragchecker.as_ref() else {
        return MetricResult::skipped(
            id,
            "the item has no precomputed RAGChecker claims and labels",
        );
    };
    let ev = match Evidence::new(labels, item.contexts.len()) {
        Ok(ev) => ev,
        Err(message) => {
            return MetricResult::error(id, format!("inconsistent RAGChecker labels: {message}"))
        }
    };
    let Some(name) = id.strip_prefix("ragchecker.") else {
        return MetricResult::error(id, format!("{id} is not a RAGChecker metric"));
    };
    let (score, explanation, details) = match name {
        "precision" => precision(&ev),
        "recall" => recall(&ev),
        "f1" => f1_metric(&ev),
        "claim_recall" => claim_recall(&ev),
        "context_precision" => context_precision(&ev, item),
        "context_utilization" => context_utilization(&ev),
        "noise_sensitivity_relevant"
        | "noise_sensitivity_irrelevant"
        | "hallucination"
        | "self_knowledge"
        | "faithfulness" => response_claim_metric(&ev, name),
        _ => return MetricResult::error(id, format!("{id} is not a RAGChecker metric")),
    };
    MetricResult::ok(id, score, explanation, details)
}

type Scored = (f64, String, Value);

fn precision(ev: &Evidence) -> Scored {
    let rows: Vec<Value> = (0..ev.a2r.len())
        .map(
            |i| json!({ "index": i, "claim": ev.response_claim(i), "label": label_str(ev.a2r[i]) }),
        )
        .collect();
    let n = ev.a2r.iter().filter(|l| l.is_entailment()).count();
    let text = format!(
        "{} backed by the ground truth.",
        count_of(n, ev.a2r.len(), "the answer's")
    );
    (
        ratio(n, ev.a2r.len()),
        text,
        json!({ "entailed": n, "total": ev.a2r.len(), "claims": rows }),
    )
}

fn recall(ev: &Evidence) -> Scored {
    let rows: Vec<Value> = (0..ev.r2a.len())
        .map(|j| json!({ "index": j, "claim": ev.gt_claim(j), "label": label_str(ev.r2a[j]) }))
        .collect();
    let n = ev.r2a.iter().filter(|l| l.is_entailment()).count();
    let text = format!(
        "{} stated in the answer.",
        count_of(n, ev.r2a.len(), "the ground truth's")
    );
    (
        ratio(n, ev.r2a.len()),
        text,
        json!({ "entailed": n, "total": ev.r2a.len(), "claims": rows }),
    )
}

fn f1_metric(ev: &Evidence) -> Scored {
    let p = ratio(
        ev.a2r.iter().filter(|l| l.is_entailment()).count(),
        ev.a2r.len(),
    );
    let r = ratio(
        ev.r2a.iter().filter(|l| l.is_entailment()).count(),
        ev.r2a.len(),
    );
    let score = f1(p, r);
    let text =
        format!("Claim precision {p:.2} and claim recall {r:.2} combine to an F1 of {score:.2}.");
    (score, text, json!({ "precision": p, "recall": r }))
}

fn claim_recall(ev: &Evidence) -> Scored {
    let rows: Vec<Value> = (0..ev.ret2a.len())
        .map(|j| json!({ "index": j, "claim": ev.gt_claim(j), "entailing_chunks": entails(&ev.ret2a[j]) }))
        .collect();
    let n = ev
        .ret2a
        .iter()
        .filter(|row| row.iter().any(|l| l.is_entailment()))
        .count();
    let text = format!(
        "The retrieved chunks support {n} of the ground truth's {} claim{}.",
        ev.ret2a.len(),
        if ev.ret2a.len() == 1 { "" } else { "s" }
    );
    (
        ratio(n, ev.ret2a.len()),
        text,
        json!({ "recalled": n, "total": ev.ret2a.len(), "claims": rows }),
    )
}

fn context_precision(ev: &Evidence, item: &Item) -> Scored {
    let chunks: Vec<Value> = (0..ev.n_chunks)
        .map(|k| {
            let gt: Vec<usize> = (0..ev.ret2a.len())
                .filter(|&j| ev.ret2a[j][k].is_entailment())
                .collect();
            let id = item.contexts.get(k).and_then(|c| c.id.clone());
            json!({ "index": k, "id": id, "relevant": ev.relevant[k], "entailed_gt_claims": gt })
        })
        .collect();
    let relevant = ev.relevant_chunks();
    let text = format!(
        "{} of the {} retrieved chunks support at least one ground-truth claim.",
        relevant.len(),
        ev.n_chunks
    );
    (
        ratio(relevant.len(), ev.n_chunks),
        text,
        json!({ "relevant_chunks": relevant, "chunks": chunks }),
    )
}

fn context_utilization(ev: &Evidence) -> Scored {
    let in_context: Vec<usize> = (0..ev.ret2a.len())
        .filter(|&j| ev.ret2a[j].iter().any(|l| l.is_entailment()))
        .collect();
    let used: Vec<usize> = in_context
        .iter()
        .copied()
        .filter(|&j| ev.r2a[j].is_entailment())
        .collect();
    let text = if in_context.is_empty() {
        "No retrieved chunk supports any ground-truth claim, so the answer had nothing to use (scored 0).".to_string()
    } else {
        format!(
            "The answer states {} of the {} ground-truth claims that the retrieved chunks support.",
            used.len(),
            in_context.len()
        )
    };
    let details = json!({ "gt_claims_in_context": in_context, "gt_claims_used": used });
    (ratio(used.len(), in_context.len()), text, details)
}

/// The five metrics that classify each response claim by its support.
fn response_claim_metric(ev: &Evidence, name: &str) -> Scored {
    let flag = |s: &ClaimSupport| match name {
        "noise_sensitivity_relevant" => s.by_relevant && !s.correct,
        "noise_sensitivity_irrelevant" => s.by_irrelevant && !s.by_relevant && !s.correct,
        "hallucination" => s.chunks.is_empty() && !s.correct,
        "self_knowledge" => s.chunks.is_empty() && s.correct,
        _ => !s.chunks.is_empty(), // faithfulness
    };
    let mut flagged = 0;
    let rows: Vec<Value> = (0..ev.a2r.len())
        .map(|i| {
            let s = ev.response_claim_support(i);
            let hit = flag(&s);
            flagged += usize::from(hit);
            json!({
                "index": i,
                "claim": ev.response_claim(i),
                "correct": s.correct,
                "entailing_chunks": s.chunks,
                "flagged": hit,
            })
        })
        .collect();
    let total = ev.a2r.len();
    let what = match name {
        "noise_sensitivity_relevant" => {
            "wrong (not in the ground truth) yet supported by a relevant chunk"
        }
        "noise_sensitivity_irrelevant" => "wrong and supported only by irrelevant chunks",
        "hallucination" => "wrong and supported by no retrieved chunk",
        "self_knowledge" => "correct but supported by no retrieved chunk",
        _ => "supported by at least one retrieved chunk",
    };
    let text = if total == 0 {
        "The answer has no claims to check, so the score is 0.".to_string()
    } else {
        format!("{} {what}.", count_of(flagged, total, "the answer's"))
    };
    let details = json!({ "flagged": flagged, "total": total, "relevant_chunks": ev.relevant_chunks(), "claims": rows });
    (ratio(flagged, total), text, details)
}

#[path = "ragchecker_export.rs"]
mod export;
pub use export::{grouped_export, grouped_export_from_scores, item_means};

#[cfg(test)]
#[path = "ragchecker_tests.rs"]
mod tests;
