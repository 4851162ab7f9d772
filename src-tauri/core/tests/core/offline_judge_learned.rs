//! The offline judge's learned decisions: the shipped coefficients are exactly a refit of
//! the checked-in feature tables, those tables are what the code computes from the dev
//! sets in `shared/data`, and on held-out folds the learned decisions are no worse than
//! the rules they replace (`examples/fit_offline_judge.rs` prints the full figures).

use std::path::PathBuf;

use ragnosis_core::judge::offline::faithfulness::features::Row;
use ragnosis_core::judge::offline::faithfulness::{features, learned};
use ragnosis_core::judge::offline::fit::dev_sets;
use ragnosis_core::judge_check::fit;

fn assets() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../assets/offline-judge")
}

fn table(name: &str, names: &[&str]) -> Vec<Row> {
    let text = std::fs::read_to_string(assets().join(name)).expect("feature table is checked in");
    fit::from_csv(&text, names).expect("feature table parses")
}

fn support_table() -> Vec<Row> {
    table("support.csv", features::SUPPORT)
}

fn answerability_table() -> Vec<Row> {
    table("answerability.csv", features::ANSWERABILITY)
}

#[test]
fn shipped_coefficients_are_a_refit_of_the_checked_in_tables() {
    let refit = fit::decisions(&support_table(), &answerability_table());
    // The file's text, not `learned::shipped()` re-serialised: parsing a float and
    // printing it again may move its last digit.
    let shipped = std::fs::read_to_string(assets().join("decisions.json")).expect("shipped");
    assert_eq!(
        refit.to_json(),
        shipped,
        "assets/offline-judge/decisions.json is stale: run the fit example with --tables --write"
    );
    // And the copy built into the judge is that file.
    assert_eq!(learned::shipped().fitted_on, refit.fitted_on);
}

/// Every n-th row recomputed from the dev sets must equal the table's row: the tables
/// (and so the coefficients) describe the features this code computes. About a dozen
/// rows of each table: a change to the features moves nearly every row, and each row
/// costs the encoding of its whole evidence.
#[test]
fn checked_in_tables_hold_the_features_the_code_computes() {
    let data = ragnosis_core::paths::shared_data_dir();
    let model = ragnosis_core::semantic::shared();
    if model.is_none() && std::env::var("RAGNOSIS_MODEL").as_deref() != Ok("required") {
        eprintln!("skipped: the embedded model is not installed (scripts/setup.sh)");
        return;
    }
    let sem = Some(
        model
            .as_deref()
            .expect("RAGNOSIS_MODEL=required: the model must load"),
    );
    let close = |fresh: &Row, stored: &Row, what: &str| {
        let fresh = &fit::rounded(std::slice::from_ref(fresh))[0];
        assert_eq!(
            (&fresh.source, &fresh.group, fresh.label),
            (&stored.source, &stored.group, stored.label),
            "{what}"
        );
        assert_eq!(fresh.baseline, stored.baseline, "{what}: baseline");
        for (i, (a, b)) in fresh.x.iter().zip(&stored.x).enumerate() {
            // Cosines may differ in the last digits between CPUs' float paths.
            assert!(
                (a - b).abs() <= 2e-4,
                "{what}: feature {i} is {a}, table has {b}"
            );
        }
    };
    let cases = dev_sets::support_cases(&data).expect("support dev sets");
    let stored = support_table();
    assert_eq!(cases.len(), stored.len(), "one table row per support case");
    for i in (0..cases.len()).step_by(193) {
        close(
            &dev_sets::support_row(&cases[i], sem),
            &stored[i],
            &format!("support row {i}"),
        );
    }
    let cases = dev_sets::answerability_cases(&data).expect("answerability dev sets");
    let stored = answerability_table();
    assert_eq!(cases.len(), stored.len(), "one table row per question");
    for i in (0..cases.len()).step_by(503) {
        close(
            &dev_sets::answerability_row(&cases[i], sem),
            &stored[i],
            &format!("answerability row {i}"),
        );
    }
}

/// Held-out (five folds by group) figures of the learned decision beside the rules' on
/// the same rows, per source: (source, before, after).
fn held_out(
    names: &[&str],
    rows: &[Row],
    prior: bool,
) -> Vec<(String, fit::Figures, fit::Figures)> {
    let baseline: Vec<(f64, bool)> = rows
        .iter()
        .map(|r| (r.baseline, r.baseline >= 0.5))
        .collect();
    let learned = fit::cross_validate(names, rows, true, prior);
    fit::figures(rows, &baseline)
        .into_iter()
        .zip(fit::figures(rows, &learned))
        .map(|(b, a)| (a.source.clone(), b, a))
        .collect()
}

fn value(e: Option<ragnosis_core::judge_check::Estimate>) -> f64 {
    e.expect("both classes present").value
}

/// On every kind of evidence the learned support decision ranks claims better than the
/// rules, is far better calibrated, and decides about as well (on BEGIN-dev, where the
/// rules' thresholds were tuned in-sample, it is 0.03 lower: 0.890 against 0.921).
#[test]
fn learned_support_ranks_and_calibrates_better_than_the_rules_on_held_out_folds() {
    for (source, before, after) in held_out(features::SUPPORT, &support_table(), true) {
        let (ba_before, ba_after) = (
            value(before.balanced_accuracy),
            value(after.balanced_accuracy),
        );
        assert!(
            value(after.auroc) > value(before.auroc),
            "{source}: AUROC {:.3}, the rules {:.3}",
            value(after.auroc),
            value(before.auroc)
        );
        assert!(
            ba_after >= ba_before - 0.035,
            "{source}: balanced accuracy {ba_after:.3}, the rules {ba_before:.3}"
        );
        assert!(
            value(after.ece) < value(before.ece) && value(after.ece) <= 0.1,
            "{source}: calibration error {:.3}, the rules {:.3}",
            value(after.ece),
            value(before.ece)
        );
    }
}

#[test]
fn learned_answerability_ranks_better_than_the_covered_share_on_held_out_articles() {
    for (source, before, after) in held_out(features::ANSWERABILITY, &answerability_table(), false)
    {
        assert!(
            value(after.auroc) >= value(before.auroc) + 0.05,
            "{source}: AUROC {:.3}, the covered share {:.3}",
            value(after.auroc),
            value(before.auroc)
        );
        assert!(
            value(after.ece) < value(before.ece),
            "{source}: calibration error {:.3}, the covered share {:.3}",
            value(after.ece),
            value(before.ece)
        );
    }
}
