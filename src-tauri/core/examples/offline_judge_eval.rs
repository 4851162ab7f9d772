//! Measures the offline judge's claim support decision against human labels on WiCE-dev
//! and BEGIN-dev, and prints n, positives, balanced accuracy, precision and recall of
//! the positive class and the confusion matrix per data set.
//!
//! Run: `cargo run --release -p ragnosis-core --example offline_judge_eval`
//! Options: `--data DIR` (default: `shared/data` next to the repository), `--sweep`
//! (also print balanced accuracy over a grid of support thresholds: the tuning table).
//!
//! The prediction rule is `ragnosis_core::judge::offline::calibration::predict`: the
//! judge's own claim splitting, then `ClaimLabels`; supported when every claim is
//! entailed by some passage.

use std::path::PathBuf;
use std::time::Instant;

use ragnosis_core::judge::offline::calibration::{self, Confusion, LabelledClaim};
use ragnosis_core::judge::offline::{OfflineJudge, SupportParams};

fn print_report(name: &str, c: &Confusion, seconds: f64) {
    println!("{name}");
    println!("  n = {}, positives = {} ({:.1}%)", c.n(), c.positives(), 100.0 * c.positives() as f64 / c.n().max(1) as f64);
    println!(
        "  balanced accuracy = {:.3}   precision = {:.3}   recall = {:.3}   specificity = {:.3}",
        c.balanced_accuracy(),
        c.precision(),
        c.recall(),
        c.specificity()
    );
    println!("  confusion (rows = human, columns = judge):");
    println!("                  judge+   judge-");
    println!("    human+      {:>7}  {:>7}", c.true_positive, c.false_negative);
    println!("    human-      {:>7}  {:>7}", c.false_positive, c.true_negative);
    println!("  ({seconds:.2}s)");
}

fn sweep(sets: &[(&str, &[LabelledClaim])]) {
    println!("\nsweep: entail_coverage × sentence_weight → balanced accuracy per data set (and mean)");
    let mut rows = Vec::new();
    let sws: Vec<f64> = std::env::var("X_SW").map(|v| v.split(',').map(|x| x.parse().unwrap()).collect()).unwrap_or(vec![0.0, 0.5, 1.0]);
    let pcs: Vec<f64> = std::env::var("X_PC").map(|v| v.split(',').map(|x| x.parse().unwrap()).collect()).unwrap_or(vec![0.2, 0.3, 0.4, 0.5]);
    for sw in sws.iter().flat_map(|s| pcs.iter().map(move |p| (*s, *p))) {
        let (sw, pc) = sw;
        for tau in [0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8] {
            let mut params = SupportParams { entail_coverage: tau, sentence_weight: sw, passage_coverage: pc, ..SupportParams::default() };
            if let Ok(v) = std::env::var("X_PRED") { params.predicate_coverage = v.parse().unwrap(); }
            let judge = OfflineJudge::with_params(params);
            let accs: Vec<f64> = sets.iter().map(|(_, ex)| calibration::balanced_accuracy(&judge, ex)).collect();
            let mean = accs.iter().sum::<f64>() / accs.len() as f64;
            rows.push((sw, pc, tau, accs, mean));
        }
    }
    for (sw, pc, tau, accs, mean) in &rows {
        let cells: Vec<String> = accs.iter().map(|a| format!("{a:.3}")).collect();
        println!("  sentence_weight {sw:.2}  passage_coverage {pc:.2}  entail_coverage {tau:.2}  {}  mean {mean:.3}", cells.join("  "));
    }
    if let Some(best) = rows.iter().max_by(|a, b| a.4.total_cmp(&b.4)) {
        println!("best mean: sentence_weight {:.2}, passage_coverage {:.2}, entail_coverage {:.2} → {:.3}", best.0, best.1, best.2, best.4);
    }
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let data = args
        .iter()
        .position(|a| a == "--data")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"));
    let wice = calibration::load_wice_dev(&data)?;
    let cmu = calibration::load_begin(&data.join("begin-dev/cmu-dog/begin_dev_cmu.tsv"))?;
    let tc = calibration::load_begin(&data.join("begin-dev/topicalchat/begin_dev_tc.tsv"))?;
    let begin = calibration::load_begin_dev(&data)?;

    let judge = OfflineJudge::default();
    println!("offline judge, support thresholds {:?}\n", judge.params());
    for (name, examples) in [
        ("WiCE-dev", &wice),
        ("BEGIN-dev (CMU-DoG + TopicalChat)", &begin),
        ("  BEGIN-dev CMU-DoG only", &cmu),
        ("  BEGIN-dev TopicalChat only", &tc),
    ] {
        let started = Instant::now();
        let confusion = calibration::evaluate(&judge, examples);
        print_report(name, &confusion, started.elapsed().as_secs_f64());
    }
    if args.iter().any(|a| a == "--sweep") {
        sweep(&[("WiCE-dev", &wice), ("BEGIN-dev", &begin)]);
    }
    Ok(())
}
