//! Prints how the offline judge's ragalyst.answer_correctness ranks STS-B train pairs
//! against the human similarity scores (answer = sentence 1, ground truth = sentence 2):
//! Spearman with the embedded semantic model when it is installed, and with words alone.
//!     cargo run --release -p ragnosis-core --example correctness_stsb [LIMIT]

use ragnosis_core::judge::offline::OfflineJudge;
use ragnosis_core::judge::task::{Criterion, ScorecardTask};
use ragnosis_core::judge::{Task, Verdict};
use ragnosis_core::judge_check::figures::spearman;

fn main() {
    let limit: usize = std::env::args()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(usize::MAX);
    let path = ragnosis_core::paths::shared_data_dir().join("stsb-train/train.tsv");
    let text = std::fs::read_to_string(&path).expect("stsb-train/train.tsv");
    let pairs: Vec<(String, String, f64)> = text
        .lines()
        .filter_map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            let n = cols.len();
            let score = cols.get(n.checked_sub(1)?)?.parse().ok()?;
            Some((cols[n - 3].to_string(), cols[n - 2].to_string(), score))
        })
        .take(limit)
        .collect();
    for (name, judge) in [
        ("words only", OfflineJudge::default()),
        (
            "standard (semantic model if installed)",
            OfflineJudge::standard(),
        ),
    ] {
        let scored: Vec<(f64, f64)> = pairs
            .iter()
            .map(|(a, b, human)| {
                let task = Task::Scorecard(Box::new(ScorecardTask {
                    question: String::new(),
                    answer: a.clone(),
                    chunks: vec![],
                    ground_truth: b.clone(),
                    structure_note: vec![],
                    criteria: vec![Criterion::AnswerCorrectness],
                    examples: vec![],
                    taxonomy: false,
                }));
                let Verdict::Scorecard(card) = judge.verdict(&task) else {
                    unreachable!("a scorecard task gets a scorecard")
                };
                (card.scores[0].score, *human)
            })
            .collect();
        println!(
            "{name}: {} pairs, Spearman {:.4} (semantic model used: {})",
            scored.len(),
            spearman(&scored).unwrap_or(f64::NAN),
            judge.uses_semantic_model()
        );
    }
}
