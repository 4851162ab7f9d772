//! Measures the offline judge's claim support decision against human labels on WiCE-dev
//! and BEGIN-dev, and prints n, positives, balanced accuracy, precision and recall of
//! the positive class and the confusion matrix per data set.
//!
//! Run: `cargo run --release -p ragnosis-core --example offline_judge_eval`
//! Options: `--data DIR` (default: `shared/data` next to the repository); `--sweep`
//! also prints balanced accuracy over a grid of support thresholds (the tuning table);
//! `--errors` lists the misjudged examples with their claims.
//!
//! The prediction rule is `ragnosis_core::judge::offline::fit::calibration::predict`: the
//! judge's own claim splitting, then `ClaimLabels`; supported when every claim is
//! entailed by some passage.

use std::path::PathBuf;
use std::time::Instant;

use ragnosis_core::judge::offline::fit::calibration::{self, Confusion, LabelledClaim};
use ragnosis_core::judge::offline::{OfflineJudge, SupportParams};
use ragnosis_core::judge::task::{Task, Verdict};

fn print_report(name: &str, c: &Confusion, seconds: f64) {
    println!("{name}");
    println!(
        "  n = {}, positives = {} ({:.1}%)",
        c.n(),
        c.positives(),
        100.0 * c.positives() as f64 / c.n().max(1) as f64
    );
    println!(
        "  balanced accuracy = {:.3}   precision = {:.3}   recall = {:.3}   specificity = {:.3}",
        c.balanced_accuracy(),
        c.precision(),
        c.recall(),
        c.specificity()
    );
    println!("  confusion (rows = human, columns = judge):");
    println!("                  judge+   judge-");
    println!(
        "    human+      {:>7}  {:>7}",
        c.true_positive, c.false_negative
    );
    println!(
        "    human-      {:>7}  {:>7}",
        c.false_positive, c.true_negative
    );
    println!("  ({seconds:.2}s)");
}

/// Balanced accuracy over a grid of the three thresholds that decide entailment; the
/// defaults in `SupportParams` are the grid's best mean over the data sets.
fn sweep(sets: &[(&str, &[LabelledClaim])]) {
    println!(
        "\nsweep: balanced accuracy per data set ({}) and their mean",
        sets.iter().map(|s| s.0).collect::<Vec<_>>().join(", ")
    );
    let mut best: Option<(SupportParams, f64)> = None;
    for passage in [0.1, 0.2, 0.3] {
        for predicate in [0.0, 0.2, 0.4] {
            for entail in [0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65] {
                let params = SupportParams {
                    entail_coverage: entail,
                    passage_coverage: passage,
                    predicate_coverage: predicate,
                    ..SupportParams::default()
                };
                let judge = OfflineJudge::with_params(params);
                let accs: Vec<f64> = sets
                    .iter()
                    .map(|(_, ex)| calibration::balanced_accuracy(&judge, ex))
                    .collect();
                let mean = accs.iter().sum::<f64>() / accs.len() as f64;
                let cells: Vec<String> = accs.iter().map(|a| format!("{a:.3}")).collect();
                println!(
                    "  entail {entail:.2}  passage {passage:.2}  predicate {predicate:.2}   {}   mean {mean:.3}",
                    cells.join("  ")
                );
                if best.is_none_or(|(_, m)| mean > m + 1e-9) {
                    best = Some((params, mean));
                }
            }
        }
    }
    if let Some((p, mean)) = best {
        println!(
            "best mean {mean:.3} at entail {:.2}, passage {:.2}, predicate {:.2}",
            p.entail_coverage, p.passage_coverage, p.predicate_coverage
        );
    }
}

/// Prints every example the judge gets wrong, with its claims: the material for
/// finding a general rule, not for memorising cases.
fn print_errors(judge: &OfflineJudge, name: &str, examples: &[LabelledClaim]) {
    println!("\nerrors on {name}:");
    for example in examples {
        let predicted = calibration::predict(judge, example);
        if predicted == example.supported {
            continue;
        }
        let Verdict::Claims { claims } = judge.verdict(&Task::Claims {
            question: String::new(),
            text: example.text.clone(),
        }) else {
            continue;
        };
        let kind = if predicted {
            "false positive"
        } else {
            "false negative"
        };
        println!("  {kind}: {:?}\n    claims: {claims:?}", example.text);
    }
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let data = args
        .iter()
        .position(|a| a == "--data")
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from)
        .unwrap_or_else(ragnosis_core::paths::shared_data_dir);
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
    if args.iter().any(|a| a == "--errors") {
        print_errors(&judge, "WiCE-dev", &wice);
        print_errors(&judge, "BEGIN-dev", &begin);
    }
    if args.iter().any(|a| a == "--sweep") {
        sweep(&[("WiCE-dev", &wice), ("BEGIN-dev", &begin)]);
    }
    Ok(())
}
