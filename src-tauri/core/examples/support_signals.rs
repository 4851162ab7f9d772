//! Measures signals for claim support on shared/data (WiCE-dev, BEGIN-dev, ExpertQA
//! val): the offline judge's lexical decision, the embedded model's closest-sentence
//! cosine, and a content-word overlap share, each as balanced accuracy (decisions) or
//! AUROC (scores). Prints a table; decides nothing.
//!     cargo run --release -p ragnosis-core --example support_signals [-- --limit N]

use ragnosis_core::judge::offline::fit::calibration::{self, LabelledClaim};
use ragnosis_core::judge::offline::OfflineJudge;
use ragnosis_core::text;

/// The judge check's AUROC (ties count half); 0.5 when one class is missing.
fn auroc(scores: &[(f64, bool)]) -> f64 {
    ragnosis_core::judge_check::figures::auroc(scores).unwrap_or(0.5)
}

fn load_expertqa(path: &std::path::Path) -> Vec<LabelledClaim> {
    let mut out = Vec::new();
    for line in std::fs::read_to_string(path).unwrap().lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        for answer in v["answers"].as_object().unwrap().values() {
            for claim in answer["claims"].as_array().into_iter().flatten() {
                let support = claim["support"].as_str().unwrap_or("");
                let supported = match support {
                    "Complete" => true,
                    "Missing" | "Incomplete" | "Partial" => false,
                    _ => continue,
                };
                let passages: Vec<String> = claim["evidence"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|e| e.as_str())
                    .map(str::to_string)
                    .collect();
                if passages.is_empty() {
                    continue;
                }
                let text = claim["claim_string"].as_str().unwrap_or("").to_string();
                out.push(LabelledClaim {
                    text,
                    passages,
                    supported,
                });
            }
        }
    }
    out
}

fn content_words(s: &str) -> std::collections::HashSet<String> {
    let mut set = std::collections::HashSet::new();
    text::for_each_content_word(s, |w| {
        set.insert(w.to_string());
    });
    set
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let limit = args
        .iter()
        .position(|a| a == "--limit")
        .and_then(|i| args.get(i + 1)?.parse().ok())
        .unwrap_or(400usize);
    let data = ragnosis_core::paths::shared_data_dir();
    let model = ragnosis_core::semantic::shared().expect("the semantic model must be installed");
    let judge = OfflineJudge::default();
    let sets = [
        ("WiCE-dev", calibration::load_wice_dev(&data).unwrap()),
        ("BEGIN-dev", calibration::load_begin_dev(&data).unwrap()),
        (
            "ExpertQA-val",
            load_expertqa(&data.join("expertqa-val/domain_val.jsonl")),
        ),
    ];
    for (name, all) in sets {
        let step = (all.len() / limit).max(1);
        let sample: Vec<&LabelledClaim> = all.iter().step_by(step).take(limit).collect();
        let started = std::time::Instant::now();
        let mut lexical = Vec::new();
        let mut cosine = Vec::new();
        let mut overlap = Vec::new();
        let mut hybrid = Vec::new();
        for ex in &sample {
            let lex = calibration::predict(&judge, ex);
            let sentences: Vec<&str> = ex
                .passages
                .iter()
                .flat_map(|p| text::sentences(p))
                .take(400)
                .collect();
            let best = if sentences.is_empty() {
                0.0
            } else {
                model
                    .similarities(&ex.text, &sentences)
                    .into_iter()
                    .fold(f64::MIN, f64::max)
            };
            let claim_words = content_words(&ex.text);
            let evidence_words = content_words(&ex.passages.join(" "));
            let share = claim_words
                .iter()
                .filter(|w| evidence_words.contains(*w))
                .count() as f64
                / claim_words.len().max(1) as f64;
            lexical.push((f64::from(u8::from(lex)), ex.supported));
            cosine.push((best, ex.supported));
            overlap.push((share, ex.supported));
            hybrid.push((
                0.5 * f64::from(u8::from(lex)) + 0.25 * best + 0.25 * share,
                ex.supported,
            ));
        }
        sweep(&lexical, &cosine, &overlap);
        let pos = sample.iter().filter(|e| e.supported).count();
        println!(
            "{name}: n {} (supported {pos}), {:.0} s\n  AUROC lexical decision {:.3}  closest-sentence cosine {:.3}  word overlap {:.3}  hybrid {:.3}",
            sample.len(),
            started.elapsed().as_secs_f64(),
            auroc(&lexical),
            auroc(&cosine),
            auroc(&overlap),
            auroc(&hybrid)
        );
    }
}

/// Balanced accuracy of "lexical yes and cosine ≥ down, or lexical no and cosine ≥ up
/// and overlap ≥ share" over a grid, printed as one line per setting.
fn sweep(lexical: &[(f64, bool)], cosine: &[(f64, bool)], overlap: &[(f64, bool)]) {
    let ba = |pred: &dyn Fn(usize) -> bool| {
        let (mut tp, mut tn, mut p, mut n) = (0.0, 0.0, 0.0, 0.0);
        for (i, &(_, actual)) in lexical.iter().enumerate() {
            if actual {
                p += 1.0;
                if pred(i) {
                    tp += 1.0
                }
            } else {
                n += 1.0;
                if !pred(i) {
                    tn += 1.0
                }
            }
        }
        0.5 * (tp / f64::max(p, 1.0) + tn / f64::max(n, 1.0))
    };
    let base = ba(&|i| lexical[i].0 > 0.5);
    let mut line = format!("  sweep (base {base:.3}):");
    for down in [0.0, 0.3, 0.4, 0.5] {
        for up in [0.7, 0.75, 0.8, 0.85, 2.0] {
            for share in [0.6, 0.7, 0.8] {
                let v = ba(&|i| {
                    if lexical[i].0 > 0.5 {
                        cosine[i].0 >= down
                    } else {
                        cosine[i].0 >= up && overlap[i].0 >= share
                    }
                });
                line.push_str(&format!(" d{down}/u{up}/s{share}={v:.3}"));
            }
        }
    }
    println!("{line}");
}
