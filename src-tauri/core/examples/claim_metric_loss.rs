//! Where the learned claim decision's ranking goes on its way to the claim metrics, on
//! held-out folds. For each labelled text of a dev set (WiCE, BEGIN or ExpertQA), the
//! support decision is refitted on the other four folds (by group, as
//! `fit_offline_judge` does) and read three ways: on the whole text (the decision's own
//! figure), and on the claims the judge splits it into, as the share it finds supported
//! (what `ragchecker.faithfulness` and `ragvue.strict_faithfulness` read) and as the
//! mean probability. The rules' share is printed beside them. Texts with more than 200
//! passages are left out, as the importer refuses them.
//!
//!     cargo run --release -p ragnosis-core --example claim_metric_loss -- [wice|begin|expertqa]

use ragnosis_core::judge::offline::fit::calibration::LabelledClaim;
use ragnosis_core::judge::offline::fit::dev_sets::{self, SupportCase};
use ragnosis_core::judge::offline::{faithfulness::features, OfflineJudge};
use ragnosis_core::judge::task::{Task, Verdict};
use ragnosis_core::judge_check::fit;

fn auroc(s: &[(f64, bool)]) -> f64 {
    ragnosis_core::judge_check::figures::auroc(s).unwrap_or(0.5)
}

fn claims_of(judge: &OfflineJudge, text: &str) -> Vec<String> {
    match judge.verdict(&Task::Claims {
        question: String::new(),
        text: text.to_string(),
    }) {
        Verdict::Claims { claims } => claims,
        _ => Vec::new(),
    }
}

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let data = std::env::var_os("RAGNOSIS_SHARED_DATA")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/data"));
    let source = std::env::args().nth(1).unwrap_or_else(|| "wice".into());
    let table = std::fs::read_to_string(root.join("assets/offline-judge/support.csv"))
        .expect("support table");
    let rows = fit::from_csv(&table, features::SUPPORT).expect("support table parses");
    let folds: Vec<_> = (0..fit::FOLDS)
        .map(|f| {
            let train: Vec<_> = rows
                .iter()
                .filter(|r| fit::fold_of(&r.group) != f)
                .collect();
            fit::fit_variants(features::SUPPORT, &train, true)
        })
        .collect();
    let rules = OfflineJudge::default();
    let sem = ragnosis_core::semantic::shared();
    let sem = sem.as_deref();
    let semantic = sem.is_some();
    let cases: Vec<SupportCase> = dev_sets::support_cases(&data)
        .expect("dev sets")
        .into_iter()
        .filter(|c| c.source == source && c.claim.passages.len() <= 200)
        .collect();
    let (mut whole, mut share, mut mean_p, mut rules_share) = (vec![], vec![], vec![], vec![]);
    for c in &cases {
        let y = c.claim.supported;
        let model = &folds[fit::fold_of(&c.group) as usize];
        whole.push((
            model.decide(semantic, &dev_sets::support_row(c, sem).x).0,
            y,
        ));
        let claims = claims_of(&rules, &c.claim.text);
        if claims.is_empty() {
            continue;
        }
        let decided: Vec<(f64, bool, bool)> = claims
            .iter()
            .map(|t| {
                let one = LabelledClaim {
                    text: t.clone(),
                    passages: c.claim.passages.clone(),
                    supported: y,
                };
                let row = dev_sets::support_row(
                    &SupportCase {
                        source: c.source,
                        group: c.group.clone(),
                        claim: one,
                    },
                    sem,
                );
                let (p, yes) = model.decide(semantic, &row.x);
                (p, yes, row.baseline > 0.5)
            })
            .collect();
        let n = decided.len() as f64;
        share.push((decided.iter().filter(|d| d.1).count() as f64 / n, y));
        mean_p.push((decided.iter().map(|d| d.0).sum::<f64>() / n, y));
        rules_share.push((decided.iter().filter(|d| d.2).count() as f64 / n, y));
    }
    println!(
        "{source}: {} texts ({} with claims); held-out AUROC — whole text {:.3}; claims: share supported {:.3}, mean probability {:.3}; rules' share {:.3}",
        cases.len(),
        share.len(),
        auroc(&whole),
        auroc(&share),
        auroc(&mean_p),
        auroc(&rules_share)
    );
}
