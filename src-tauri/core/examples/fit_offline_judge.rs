//! Fits the offline judge's learned decisions and prints their held-out figures.
//!
//! ```text
//! cargo run --release -p ragnosis-core --example fit_offline_judge -- [--write] [--tables]
//! ```
//!
//! Without `--tables` it computes the feature tables from the dev sets in `shared/data`
//! (`RAGNOSIS_SHARED_DATA`, or `../shared/data` beside the repository) with the embedded
//! model (it must be installed: `scripts/setup.sh`); with `--tables` it reads the
//! checked-in tables instead. `--write` writes the tables and
//! `assets/offline-judge/decisions.json`. Figures: five-fold cross-validation by group
//! (article, dialogue knowledge, question), per source, with 95 % bootstrap intervals:
//! before (the rules), words only, and with the model's cosines.

use std::path::{Path, PathBuf};
use std::time::Instant;

use ragnosis_core::judge::offline::faithfulness::features;
use ragnosis_core::judge::offline::faithfulness::features::Row;
use ragnosis_core::judge::offline::fit::dev_sets;
use ragnosis_core::judge_check::fit::{self, Figures};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let write = args.iter().any(|a| a == "--write");
    let from_tables = args.iter().any(|a| a == "--tables");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let assets = root.join("assets/offline-judge");
    let (support, answerability) = if from_tables {
        let read = |name: &str, names: &[&str]| {
            let text = std::fs::read_to_string(assets.join(name)).expect("feature table");
            fit::from_csv(&text, names).expect("feature table parses")
        };
        (
            read("support.csv", features::SUPPORT),
            read("answerability.csv", features::ANSWERABILITY),
        )
    } else {
        compute(&data_dir(&root))
    };
    report("support", features::SUPPORT, &support);
    report("answerability", features::ANSWERABILITY, &answerability);
    if write {
        std::fs::create_dir_all(&assets).expect("assets dir");
        std::fs::write(
            assets.join("support.csv"),
            fit::to_csv(features::SUPPORT, &support),
        )
        .expect("write support table");
        std::fs::write(
            assets.join("answerability.csv"),
            fit::to_csv(features::ANSWERABILITY, &answerability),
        )
        .expect("write answerability table");
        let decisions = fit::decisions(&support, &answerability);
        std::fs::write(assets.join("decisions.json"), decisions.to_json()).expect("write");
        println!("wrote {}", assets.display());
    }
}

fn data_dir(root: &Path) -> PathBuf {
    std::env::var_os("RAGNOSIS_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/data"))
}

fn compute(data: &Path) -> (Vec<Row>, Vec<Row>) {
    let model = ragnosis_core::semantic::shared().expect(
        "the embedded model is needed to compute the cosine features: run scripts/setup.sh",
    );
    let sem = Some(model.as_ref());
    let started = Instant::now();
    let cases = dev_sets::support_cases(data).expect("support dev sets");
    let support = in_parallel("support", &cases, started, |c| {
        dev_sets::support_row(c, sem)
    });
    let cases = dev_sets::answerability_cases(data).expect("answerability dev sets");
    let answerability = in_parallel("answerability", &cases, started, |c| {
        dev_sets::answerability_row(c, sem)
    });
    (fit::rounded(&support), fit::rounded(&answerability))
}

/// `row` of every case, in case order, on every core (the encoder runs one text at a
/// time on one thread). Workers take every n-th case, so slow sets are shared out.
fn in_parallel<C: Sync>(
    what: &str,
    cases: &[C],
    started: Instant,
    row: impl Fn(&C) -> Row + Sync,
) -> Vec<Row> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let done = std::sync::atomic::AtomicUsize::new(0);
    let mut scored: Vec<(usize, Row)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let (row, done) = (&row, &done);
                scope.spawn(move || {
                    (w..cases.len())
                        .step_by(workers)
                        .map(|i| {
                            let r = row(&cases[i]);
                            let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                            progress(what, n, cases.len(), started);
                            (i, r)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("worker finished"))
            .collect()
    });
    scored.sort_by_key(|(i, _)| *i);
    scored.into_iter().map(|(_, r)| r).collect()
}

fn progress(what: &str, done: usize, total: usize, started: Instant) {
    if done.is_multiple_of(250) || done == total {
        eprintln!(
            "{what}: {done}/{total} rows, {:.0} s",
            started.elapsed().as_secs_f64()
        );
    }
}

fn report(task: &str, names: &[&str], rows: &[Row]) {
    println!("== {task}: {} rows", rows.len());
    let baseline: Vec<(f64, bool)> = rows
        .iter()
        .map(|r| (r.baseline, r.baseline >= 0.5))
        .collect();
    // Support decides against the prior of its evidence's shape; answerability against
    // its threshold.
    let prior = names == features::SUPPORT;
    let words = fit::cross_validate(names, rows, false, prior);
    let meaning = fit::cross_validate(names, rows, true, prior);
    for (label, scored) in [
        ("before (rules)", baseline),
        ("words only", words),
        ("with meaning", meaning),
    ] {
        println!("  {label}");
        for f in fit::figures(rows, &scored) {
            println!("    {}", line(&f));
        }
    }
}

fn line(f: &Figures) -> String {
    let e = |x: Option<ragnosis_core::judge_check::Estimate>| match x {
        Some(e) => format!("{:.3} [{:.3}, {:.3}]", e.value, e.ci_low, e.ci_high),
        None => "-".into(),
    };
    format!(
        "{:<12} n={:<5} AUROC {}  BA {}  ECE {}",
        f.source,
        f.n,
        e(f.auroc),
        e(f.balanced_accuracy),
        e(f.ece)
    )
}
