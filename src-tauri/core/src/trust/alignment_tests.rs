//! Alignment figures against scipy 1.16 on fixed pairs: `spearmanr(j, h).statistic`,
//! `kendalltau(j, h).statistic` (τ-b); the standard error and MAE from their formulas.

use super::*;

const JUDGE: [f64; 10] = [0.9, 0.2, 0.5, 0.5, 0.8, 0.1, 0.7, 0.3, 1.0, 0.4];
const HUMAN: [f64; 10] = [1.0, 0.0, 0.6, 0.4, 0.9, 0.2, 0.5, 0.5, 0.8, 0.1];
const PASS_FAIL: [f64; 10] = [1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0];

fn close(a: Option<f64>, b: f64) -> bool {
    a.is_some_and(|a| (a - b).abs() < 1e-12)
}

fn pairs(judge: &[f64], human: &[f64]) -> Vec<(f64, f64)> {
    judge.iter().copied().zip(human.iter().copied()).collect()
}

#[test]
fn graded_labels_match_scipy() {
    let f = figures("m", &pairs(&JUDGE, &HUMAN));
    assert_eq!(f.n, 10);
    assert!(close(f.spearman, 0.829_268_292_682_927), "{f:?}");
    assert!(close(f.kendall_tau, 0.659_090_909_090_909_1), "{f:?}");
    // sqrt((1 + ρ²/2) / (n − 3))
    assert!(close(f.spearman_se, 0.438_152_444_218_843_64), "{f:?}");
    assert!(close(f.mae, 0.16), "{f:?}");
    assert_eq!(f.binary, None, "graded labels have no pass/fail fit");
}

#[test]
fn pass_fail_labels_get_the_best_threshold_and_match_scipy() {
    let f = figures("m", &pairs(&JUDGE, &PASS_FAIL));
    assert!(close(f.spearman, 0.838_116_354_923_493_8), "{f:?}");
    assert!(close(f.kendall_tau, 0.723_627_226_986_632_7), "{f:?}");
    // At 0.5 every pass is caught and one fail (the second 0.5) is let through.
    let fit = f.binary.unwrap();
    assert!(
        (fit.balanced_accuracy - 0.9).abs() < 1e-12 && fit.threshold == 0.5,
        "{fit:?}"
    );
}

#[test]
fn too_few_or_constant_pairs_give_no_figure_rather_than_zero() {
    let one = figures("m", &[(0.3, 1.0)]);
    assert_eq!(
        (one.spearman, one.kendall_tau, one.spearman_se),
        (None, None, None)
    );
    assert!(close(one.mae, 0.7));
    let flat = figures("m", &[(0.5, 1.0), (0.5, 0.0), (0.5, 1.0)]);
    assert_eq!(
        flat.spearman, None,
        "a judge that gives one score ranks nothing"
    );
    assert_eq!(flat.kendall_tau, None);
    let three = figures("m", &[(0.1, 0.0), (0.5, 0.5), (0.9, 1.0)]);
    assert!(close(three.spearman, 1.0));
    assert_eq!(
        three.spearman_se, None,
        "the standard error needs four pairs"
    );
    let all_pass = figures("m", &[(0.2, 1.0), (0.9, 1.0)]);
    assert_eq!(
        all_pass.binary, None,
        "balanced accuracy needs a pass and a fail"
    );
}

#[test]
fn ranks_share_ties_like_scipy_rankdata() {
    assert_eq!(ranks(&[0.5, 0.1, 0.5, 0.9]), vec![2.5, 1.0, 2.5, 4.0]);
}
