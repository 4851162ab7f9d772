//! Quality floor of the offline judge's claim support decision: balanced accuracy on
//! the human-labelled WiCE-dev and BEGIN-dev sets (in `shared/data`, next to the
//! repository) must stay within 0.03 of what was measured when the thresholds were
//! tuned. Same computation as `examples/offline_judge_eval.rs`, through
//! `judge::offline::fit::calibration`. A change that makes the judge worse fails here.

use std::path::PathBuf;

use ragnosis_core::judge::offline::fit::calibration;
use ragnosis_core::judge::offline::OfflineJudge;

/// Measured with the default `SupportParams` (see the example's output).
const MEASURED_WICE: f64 = 0.756;
const MEASURED_BEGIN: f64 = 0.925;
const TOLERANCE: f64 = 0.03;

fn data_dir() -> PathBuf {
    ragnosis_core::paths::shared_data_dir()
}

#[test]
fn wice_dev_balanced_accuracy_does_not_regress() {
    let examples = calibration::load_wice_dev(&data_dir()).expect("WiCE-dev is readable");
    assert_eq!(examples.len(), 349, "the whole dev set is loaded");
    let confusion = calibration::evaluate(&OfflineJudge::default(), &examples);
    let accuracy = confusion.balanced_accuracy();
    assert!(
        accuracy >= MEASURED_WICE - TOLERANCE,
        "WiCE-dev balanced accuracy fell to {accuracy:.3} (measured {MEASURED_WICE}); confusion {confusion:?}"
    );
}

#[test]
fn begin_dev_balanced_accuracy_does_not_regress() {
    let examples = calibration::load_begin_dev(&data_dir()).expect("BEGIN-dev is readable");
    assert_eq!(examples.len(), 799, "both BEGIN-dev files are loaded");
    let confusion = calibration::evaluate(&OfflineJudge::default(), &examples);
    let accuracy = confusion.balanced_accuracy();
    assert!(
        accuracy >= MEASURED_BEGIN - TOLERANCE,
        "BEGIN-dev balanced accuracy fell to {accuracy:.3} (measured {MEASURED_BEGIN}); confusion {confusion:?}"
    );
}
