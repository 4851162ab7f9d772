//! The claim decision users read: one decision for the grounding metrics and the claim
//! metrics, and claim labels asked so that the reference never counts as a chunk.

use std::sync::Arc;

use ragnosis_core::judge::offline::{fit::calibration, OfflineJudge};
use ragnosis_core::judge::task::{Support, Task, Verdict};
use ragnosis_core::judge::Judge;
use ragnosis_core::run;
use ragnosis_core::store::{self, runs::RunStatus, Store};

use crate::runs::{import, items, request, run_to_end};

/// A judge that records the passages of every claim-label call, then answers as `judge`
/// would; `together` says whether it reads passages together (as the offline judge's
/// learned decision does) or one by one (as a model is asked to).
struct RecordsClaimLabels {
    judge: OfflineJudge,
    together: bool,
    passages: std::sync::Mutex<Vec<Vec<String>>>,
}

#[async_trait::async_trait]
impl Judge for RecordsClaimLabels {
    fn identity(&self) -> &ragnosis_core::judge::JudgeIdentity {
        self.judge.identity()
    }

    fn weighs_passages_together(&self) -> bool {
        self.together
    }

    async fn judge(
        &self,
        task: &ragnosis_core::judge::task::Task,
        ctx: &ragnosis_core::judge::CallContext,
    ) -> Result<ragnosis_core::judge::Judgement, ragnosis_core::judge::JudgeError> {
        if let ragnosis_core::judge::task::Task::ClaimLabels { passages, .. } = task {
            self.passages.lock().unwrap().push(passages.clone());
        }
        self.judge.judge(task, ctx).await
    }
}

#[test]
fn a_judge_that_weighs_passages_together_never_finds_the_reference_among_the_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let dataset = import(&mut store, dir.path(), &items(3));
    let metrics = ["ragchecker.faithfulness", "ragchecker.claim_recall"];
    let reference = |p: &str| p.ends_with("is a bicycle part.") && !p.contains("Northwind");
    let chunk = |p: &str| p.contains("Northwind");
    for together in [true, false] {
        let judge = Arc::new(RecordsClaimLabels {
            judge: OfflineJudge::standard(),
            together,
            passages: Default::default(),
        });
        let run_id = run::plan(&mut store, &request(dataset, &metrics)).unwrap();
        let outcome = run_to_end(&mut store, run_id, judge.clone());
        assert_eq!(outcome.status, RunStatus::Done);
        let calls = judge.passages.lock().unwrap().clone();
        let mixed = calls
            .iter()
            .filter(|ps| ps.iter().any(|p| reference(p)) && ps.iter().any(|p| chunk(p)))
            .count();
        if together {
            assert_eq!(
                mixed, 0,
                "the reference and the chunks were weighed together: {calls:?}"
            );
            assert_eq!(
                calls.len(),
                12,
                "four calls per item (two sides, reference and chunks apart): {calls:?}"
            );
        } else {
            assert_eq!(
                calls.len(),
                6,
                "one call per side when passages are labelled one by one: {calls:?}"
            );
            assert!(
                mixed > 0,
                "the answer's side carries the reference and the chunks: {calls:?}"
            );
        }
        let scores = store::results::status_counts(store.conn(), run_id).unwrap();
        assert_eq!(scores.get("ok").copied().unwrap_or(0), 6, "{scores:?}");
    }
}

#[test]
fn strict_faithfulness_and_the_claim_labels_read_the_same_decision() {
    let data = ragnosis_core::paths::shared_data_dir();
    let texts = calibration::load_wice_dev(&data).expect("shared/data/wice-dev");
    let (standard, rules) = (OfflineJudge::standard(), OfflineJudge::default());
    let (mut claims_seen, mut changed) = (0, 0);
    for text in texts.iter().filter(|t| t.passages.len() <= 60).take(60) {
        let grounding = |judge: &OfflineJudge| match judge.verdict(&Task::Grounding {
            question: String::new(),
            answer: text.text.clone(),
            chunks: text.passages.clone(),
        }) {
            Verdict::Grounding(g) => g,
            other => panic!("grounding answered {other:?}"),
        };
        let (learned, alone) = (grounding(&standard), grounding(&rules));
        let claims: Vec<String> = learned.claims.iter().map(|c| c.claim.clone()).collect();
        let Verdict::ClaimLabels { labels } = standard.verdict(&Task::ClaimLabels {
            claims: claims.clone(),
            passages: text.passages.clone(),
        }) else {
            panic!("claim labels expected")
        };
        for (i, claim) in learned.claims.iter().enumerate() {
            claims_seen += 1;
            changed += usize::from(claim.support != alone.claims[i].support);
            if claim.support == Support::Supported {
                assert!(
                    labels[i].iter().any(|l| l.is_entailment()),
                    "grounding calls {:?} supported, the claim labels find no passage that entails it",
                    claim.claim
                );
            }
        }
    }
    assert!(claims_seen > 50);
    assert!(
        changed > 0,
        "the learned decision changed no claim's support: grounding reads the rules alone"
    );
}
