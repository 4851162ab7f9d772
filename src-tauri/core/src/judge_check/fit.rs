//! Fitting the learned decisions and measuring them honestly: L2-regularised logistic
//! regression by Newton's method (deterministic to the bit for the same table),
//! cross-validated by group — a question, an article, a dialogue — never by row, so no
//! fold is tested on text it was trained on; the threshold of each fold is chosen on its
//! own training rows.
//!
//! The table of features is written by `examples/fit_offline_judge.rs` from the dev
//! sets in `shared/data` and checked in beside the coefficients
//! (`assets/offline-judge/*.csv`, numbers and hashed group names only, no text), so a
//! test can refit in milliseconds and compare with the shipped file.
//!
//! Owns: the feature table's file form, the fit, the held-out figures (AUROC, balanced
//! accuracy, expected calibration error). Must not: compute features
//! (`judge::offline::faithfulness::features`). It sits beside the judge check, whose figures it
//! shares: the judge only reads what it writes (`assets/offline-judge/decisions.json`).

use std::collections::BTreeMap;

use super::figures::{auroc_estimate, balanced_accuracy, estimate, Estimate};
use crate::judge::offline::faithfulness::features::{self, Row};
use crate::judge::offline::faithfulness::learned::{Decisions, Logistic, Variants};

/// Ridge penalty on the standardised weights: small, only to keep separable features
/// (a verbatim match is always supported) from running off to infinity.
pub const L2: f64 = 1.0;
pub const FOLDS: u64 = 5;
/// The share of decisions a cascade sends to the stronger judge: the fitted rows whose
/// decision lies nearest its point.
pub const CASCADE_SHARE: f64 = 0.2;

/// The CSV form: `source,group,label,baseline,<features…>`, six decimals.
pub fn to_csv(names: &[&str], rows: &[Row]) -> String {
    let mut out = format!("source,group,label,baseline,{}\n", names.join(","));
    for r in rows {
        out.push_str(&format!(
            "{},{},{},{:.6}",
            r.source, r.group, r.label as u8, r.baseline
        ));
        for v in &r.x {
            out.push_str(&format!(",{v:.6}"));
        }
        out.push('\n');
    }
    out
}

pub fn from_csv(text: &str, names: &[&str]) -> Result<Vec<Row>, String> {
    let mut lines = text.lines();
    let header = lines.next().ok_or("empty feature table")?;
    let expected = format!("source,group,label,baseline,{}", names.join(","));
    if header != expected {
        return Err(format!(
            "feature table header is `{header}`, the code computes `{expected}`"
        ));
    }
    lines
        .enumerate()
        .map(|(i, line)| {
            let f: Vec<&str> = line.split(',').collect();
            if f.len() != 4 + names.len() {
                return Err(format!("feature table line {}: {} fields", i + 2, f.len()));
            }
            let num = |s: &str| {
                s.parse::<f64>()
                    .map_err(|e| format!("feature table line {}: {e}", i + 2))
            };
            Ok(Row {
                source: f[0].to_string(),
                group: f[1].to_string(),
                label: f[2] == "1",
                baseline: num(f[3])?,
                x: f[4..].iter().map(|s| num(s)).collect::<Result<_, _>>()?,
            })
        })
        .collect()
}

/// Rows rounded the way the table stores them, so a fit on fresh features and a fit on
/// the checked-in table see the same numbers.
pub fn rounded(rows: &[Row]) -> Vec<Row> {
    let r = |v: f64| format!("{v:.6}").parse::<f64>().unwrap_or(v);
    rows.iter()
        .map(|row| Row {
            baseline: r(row.baseline),
            x: row.x.iter().map(|v| r(*v)).collect(),
            ..row.clone()
        })
        .collect()
}

/// Both variants of both decisions from the two tables (rounded as stored): what the
/// shipped `decisions.json` must equal.
pub fn decisions(support: &[Row], answerability: &[Row]) -> Decisions {
    let variants = |names: &[&str], rows: &[Row], prior: bool| {
        let refs: Vec<&Row> = rows.iter().collect();
        fit_variants(names, &refs, prior)
    };
    Decisions {
        fitted_on: format!(
            "{} claims (WiCE-dev, BEGIN-dev, ExpertQA validation) and {} questions (SQuAD 2.0 dev articles 1-8, \
             train articles 1-10), by examples/fit_offline_judge.rs",
            support.len(),
            answerability.len()
        ),
        support: variants(features::SUPPORT, support, true),
        answerability: variants(features::ANSWERABILITY, answerability, false),
    }
}

/// Both variants of one decision; with `prior`, also the share supported given only the
/// evidence's shape (`features::SHAPE`), which becomes the decision's threshold.
pub fn fit_variants(names: &[&str], rows: &[&Row], prior: bool) -> Variants {
    let mut v = Variants {
        with_meaning: fit(names, rows, &|_| true),
        words_only: fit(names, rows, &|n| !features::needs_model(n)),
        prior: prior.then(|| fit(names, rows, &|n| features::SHAPE.contains(&n))),
    };
    for semantic in [true, false] {
        let mut distances: Vec<f64> = rows.iter().map(|r| v.distance(semantic, &r.x)).collect();
        distances.sort_by(f64::total_cmp);
        let margin = if distances.is_empty() {
            0.0
        } else {
            crate::analysis::stats::quantile(&distances, CASCADE_SHARE)
        };
        if semantic {
            v.with_meaning.cascade_margin = margin;
        } else {
            v.words_only.cascade_margin = margin;
        }
    }
    v
}

/// The fold of a group: a hash, so folds do not depend on row order.
pub fn fold_of(group: &str) -> u64 {
    let h = blake3::hash(group.as_bytes());
    u64::from_le_bytes(h.as_bytes()[..8].try_into().expect("8 bytes")) % FOLDS
}

/// Fits a logistic model on `rows` using the features `uses` accepts (the rest get
/// weight 0); each source weighs the same in total, so the largest set does not decide
/// alone.
pub fn fit(names: &[&str], rows: &[&Row], uses: &dyn Fn(&str) -> bool) -> Logistic {
    let d = names.len();
    let active: Vec<usize> = (0..d).filter(|&j| uses(names[j])).collect();
    let used = active.len();
    let weights = source_weights(rows);
    let total: f64 = weights.iter().sum();
    let mut mean = vec![0.0; d];
    let mut scale = vec![1.0; d];
    for &j in &active {
        let m = rows
            .iter()
            .zip(&weights)
            .map(|(r, w)| w * r.x[j])
            .sum::<f64>()
            / total;
        let var = rows
            .iter()
            .zip(&weights)
            .map(|(r, w)| w * (r.x[j] - m).powi(2))
            .sum::<f64>()
            / total;
        mean[j] = m;
        scale[j] = if var > 1e-12 { var.sqrt() } else { 1.0 };
    }
    // Design matrix: intercept first, then the standardised features in use.
    let design: Vec<Vec<f64>> = rows
        .iter()
        .map(|r| {
            std::iter::once(1.0)
                .chain(active.iter().map(|&j| (r.x[j] - mean[j]) / scale[j]))
                .collect()
        })
        .collect();
    let k = used + 1;
    let beta = newton_steps(&design, rows, &weights, k);
    let mut model = Logistic {
        features: names.iter().map(|s| s.to_string()).collect(),
        mean,
        scale,
        weights: (0..d)
            .map(|j| {
                active
                    .iter()
                    .position(|&a| a == j)
                    .map_or(0.0, |k| beta[k + 1])
            })
            .collect(),
        bias: beta[0],
        threshold: 0.5,
        cascade_margin: 0.0,
    };
    let fitted: Vec<(f64, bool)> = rows
        .iter()
        .map(|r| (model.probability(&r.x), r.label))
        .collect();
    model.threshold = best_threshold(&fitted, rows);
    model
}

// Matrix code reads as the formulas it implements: indices, not iterator chains.
#[allow(clippy::needless_range_loop)]
/// The `k` coefficients (intercept first) of the weighted, L2-penalised logistic model
/// on the `design` rows: Newton steps until none moves a coefficient.
fn newton_steps(design: &[Vec<f64>], rows: &[&Row], weights: &[f64], k: usize) -> Vec<f64> {
    let mut beta = vec![0.0; k];
    for _ in 0..100 {
        let mut grad = vec![0.0; k];
        let mut hess = vec![vec![0.0; k]; k];
        for ((z, r), w) in design.iter().zip(rows).zip(weights) {
            let eta: f64 = z.iter().zip(&beta).map(|(a, b)| a * b).sum();
            let p = 1.0 / (1.0 + (-eta).exp());
            let y = if r.label { 1.0 } else { 0.0 };
            let c = w * p * (1.0 - p);
            for a in 0..k {
                grad[a] += w * (p - y) * z[a];
                for b in 0..=a {
                    hess[a][b] += c * z[a] * z[b];
                }
            }
        }
        for a in 0..k {
            for b in 0..a {
                hess[b][a] = hess[a][b];
            }
        }
        // The intercept is not penalised.
        for a in 1..k {
            grad[a] += L2 * beta[a];
            hess[a][a] += L2;
        }
        let step = solve(hess, grad);
        let mut largest: f64 = 0.0;
        for (b, s) in beta.iter_mut().zip(&step) {
            *b -= s;
            largest = largest.max(s.abs());
        }
        if largest < 1e-12 {
            break;
        }
    }
    beta
}

fn source_weights(rows: &[&Row]) -> Vec<f64> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for r in rows {
        *counts.entry(r.source.as_str()).or_default() += 1;
    }
    let per_source = rows.len() as f64 / counts.len().max(1) as f64;
    rows.iter()
        .map(|r| per_source / counts[r.source.as_str()] as f64)
        .collect()
}

#[allow(clippy::needless_range_loop)]
/// Gaussian elimination with partial pivoting; the system is small (≤ 20) and positive
/// definite thanks to the ridge.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Vec<f64> {
    let n = b.len();
    for col in 0..n {
        let pivot = (col..n)
            .max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))
            .unwrap_or(col);
        a.swap(col, pivot);
        b.swap(col, pivot);
        let d = a[col][col];
        if d.abs() < 1e-300 {
            continue;
        }
        for row in col + 1..n {
            let f = a[row][col] / d;
            if f == 0.0 {
                continue;
            }
            for c in col..n {
                a[row][c] -= f * a[col][c];
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for row in (0..n).rev() {
        let s: f64 = (row + 1..n).map(|c| a[row][c] * x[c]).sum();
        x[row] = if a[row][row].abs() < 1e-300 {
            0.0
        } else {
            (b[row] - s) / a[row][row]
        };
    }
    x
}

/// The threshold that maximises the mean over sources of balanced accuracy, among the
/// scores' midpoints; ties go to the one nearest 0.5.
fn best_threshold(scored: &[(f64, bool)], rows: &[&Row]) -> f64 {
    let mut candidates: Vec<f64> = scored.iter().map(|s| s.0).collect();
    candidates.sort_by(f64::total_cmp);
    candidates.dedup();
    // At most 200 evenly spaced candidates: the figure barely moves between them.
    let step = (candidates.len() / 200).max(1);
    let mut best: (f64, f64) = (f64::MIN, 0.5);
    for t in candidates.iter().step_by(step) {
        let ba = mean_source_ba(scored, rows, *t);
        let better = ba > best.0 + 1e-12
            || ((ba - best.0).abs() <= 1e-12 && (t - 0.5).abs() < (best.1 - 0.5).abs());
        if better {
            best = (ba, *t);
        }
    }
    best.1
}

fn mean_source_ba(scored: &[(f64, bool)], rows: &[&Row], t: f64) -> f64 {
    let mut by_source: BTreeMap<&str, Vec<(bool, bool)>> = BTreeMap::new();
    for ((p, y), r) in scored.iter().zip(rows) {
        by_source
            .entry(r.source.as_str())
            .or_default()
            .push((*p >= t, *y));
    }
    let bas: Vec<f64> = by_source
        .values()
        .filter_map(|pairs| balanced_accuracy(pairs))
        .collect();
    bas.iter().sum::<f64>() / bas.len().max(1) as f64
}

/// Out-of-fold probabilities and decisions: each fold scored by models fitted (and
/// thresholded) on the other folds. `(probability, decision)` per row, in row order.
pub fn cross_validate(
    names: &[&str],
    rows: &[Row],
    semantic: bool,
    prior: bool,
) -> Vec<(f64, bool)> {
    let mut out = vec![(0.0, false); rows.len()];
    for fold in 0..FOLDS {
        let train: Vec<&Row> = rows.iter().filter(|r| fold_of(&r.group) != fold).collect();
        let variants = fit_variants(names, &train, prior);
        for (i, r) in rows.iter().enumerate() {
            if fold_of(&r.group) == fold {
                out[i] = variants.decide(semantic, &r.x);
            }
        }
    }
    out
}

/// Expected calibration error over ten equal-width probability bins.
pub fn ece(pairs: &[(f64, bool)]) -> Option<f64> {
    if pairs.is_empty() {
        return None;
    }
    let mut bins = [(0.0f64, 0.0f64, 0usize); 10];
    for &(p, y) in pairs {
        let b = ((p * 10.0) as usize).min(9);
        bins[b].0 += p;
        bins[b].1 += if y { 1.0 } else { 0.0 };
        bins[b].2 += 1;
    }
    let n = pairs.len() as f64;
    Some(
        bins.iter()
            .filter(|b| b.2 > 0)
            .map(|(p, y, _)| (p - y).abs() / n)
            .sum(),
    )
}

/// Held-out figures of one source, each with its 95 % bootstrap interval.
#[derive(Debug, Clone, PartialEq)]
pub struct Figures {
    pub source: String,
    pub n: usize,
    pub auroc: Option<Estimate>,
    pub balanced_accuracy: Option<Estimate>,
    pub ece: Option<Estimate>,
}

/// Figures per source for `scored` rows: `(probability, decision)` as from
/// `cross_validate`.
pub fn figures(rows: &[Row], scored: &[(f64, bool)]) -> Vec<Figures> {
    let mut by_source: BTreeMap<&str, Vec<(f64, bool, bool)>> = BTreeMap::new();
    for (r, (p, d)) in rows.iter().zip(scored) {
        by_source
            .entry(r.source.as_str())
            .or_default()
            .push((*p, *d, r.label));
    }
    by_source
        .into_iter()
        .map(|(source, triples)| Figures {
            source: source.to_string(),
            n: triples.len(),
            auroc: auroc_estimate(&triples.iter().map(|(p, _, y)| (*p, *y)).collect::<Vec<_>>()),
            balanced_accuracy: estimate(&triples, |t| {
                balanced_accuracy(&t.iter().map(|(_, d, y)| (*d, *y)).collect::<Vec<_>>())
            }),
            ece: estimate(&triples, |t| {
                ece(&t.iter().map(|(p, _, y)| (*p, *y)).collect::<Vec<_>>())
            }),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(source: &str, group: usize, label: bool, x: f64) -> Row {
        Row {
            source: source.into(),
            group: format!("g{group}"),
            label,
            baseline: 0.0,
            x: vec![x, 0.0],
        }
    }

    #[test]
    fn a_fit_separates_what_a_feature_separates_and_is_reproducible() {
        let rows: Vec<Row> = (0..200)
            .map(|i| {
                row(
                    "a",
                    i,
                    i % 2 == 0,
                    if i % 2 == 0 { 0.7 } else { 0.3 } + (i % 7) as f64 * 0.02,
                )
            })
            .collect();
        let refs: Vec<&Row> = rows.iter().collect();
        let names = ["x", "unused"];
        let m = fit(&names, &refs, &|n| n == "x");
        assert!(m.weights[0] > 1.0, "{m:?}");
        assert_eq!(m.weights[1], 0.0, "a feature not in use carries no weight");
        assert!(m.probability(&[0.9, 0.0]) > 0.9 && m.probability(&[0.1, 0.0]) < 0.1);
        assert_eq!(
            fit(&names, &refs, &|n| n == "x"),
            m,
            "the same rows give the same model"
        );
        let scored = cross_validate(&names, &rows, false, false);
        let f = figures(&rows, &scored);
        assert!(f[0].auroc.unwrap().value > 0.99);
        assert!(f[0].balanced_accuracy.unwrap().value > 0.95);
    }

    #[test]
    fn calibration_error_is_zero_when_probabilities_match_frequencies() {
        let mut pairs = Vec::new();
        for i in 0..10 {
            pairs.push((0.25, i < 3));
        }
        // 3 of 10 at 0.25: off by 0.05.
        assert!((ece(&pairs).unwrap() - 0.05).abs() < 1e-9);
        let honest = [(0.5, true), (0.5, false)];
        assert_eq!(ece(&honest), Some(0.0));
    }

    #[test]
    fn the_table_round_trips_through_its_file_form() {
        let rows = rounded(&[row("wice", 1, true, 0.123_456_789)]);
        let names = ["x", "y"];
        let back = from_csv(&to_csv(&names, &rows), &names).expect("parses");
        assert_eq!(back, rows);
        assert!(
            from_csv(&to_csv(&names, &rows), &["x"]).is_err(),
            "header must match the code"
        );
    }
}
