//! Verdict shape per task kind, and the RAGVUE example items
//! (`shared/data/ragvue-examples`) as end-to-end sanity cases of the offline judge.

use super::OfflineJudge;
use crate::task::{Support, Task, TaskKind, Verdict};
use ragnosis_types::item::Label;

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

fn judge(task: Task) -> Verdict {
    let verdict = OfflineJudge::default().verdict(&task);
    assert_eq!(
        verdict.kind(),
        task.kind(),
        "every task gets a verdict of its own kind"
    );
    verdict
}

#[test]
fn aspects_verdict_has_one_to_five_aspects() {
    let Verdict::Aspects { aspects, .. } = judge(Task::Aspects {
        question: "What is the chemical symbol for gold?".into(),
    }) else {
        unreachable!()
    };
    assert!((1..=5).contains(&aspects.len()), "{aspects:?}");
    let Verdict::Aspects { aspects, .. } = judge(Task::Aspects {
        question: String::new(),
    }) else {
        unreachable!()
    };
    assert!(aspects.is_empty(), "an empty question has no needs");
}

#[test]
fn chunk_relevance_returns_one_score_per_chunk_in_index_order() {
    let chunks = s(&[
        "Gold has the symbol Au.",
        "",
        "Copper is Cu.",
        "The Eiffel Tower is in Paris.",
    ]);
    let Verdict::ChunkRelevance { chunks: scores } = judge(Task::ChunkRelevance {
        question: "What is the chemical symbol for gold?".into(),
        chunks,
    }) else {
        unreachable!()
    };
    assert_eq!(
        scores.iter().map(|c| c.index).collect::<Vec<_>>(),
        [0, 1, 2, 3]
    );
    assert!(scores
        .iter()
        .all(|c| (0.0..=1.0).contains(&c.relevance) && !c.reason.is_empty()));
    assert!(scores[0].relevance > scores[3].relevance);
    let Verdict::ChunkRelevance { chunks: none } = judge(Task::ChunkRelevance {
        question: "Q?".into(),
        chunks: vec![],
    }) else {
        unreachable!()
    };
    assert!(none.is_empty());
}

#[test]
fn coverage_returns_one_entry_per_aspect() {
    let aspects = s(&["chemical symbol for gold", "atomic number of gold"]);
    let Verdict::Coverage { aspects: cov } = judge(Task::Coverage {
        question: "What are the symbol and atomic number of gold?".into(),
        aspects: aspects.clone(),
        chunks: s(&[
            "Gold is a chemical element with symbol Au.",
            "Copper has atomic number 29.",
        ]),
    }) else {
        unreachable!()
    };
    assert_eq!(
        cov.iter().map(|c| c.aspect.clone()).collect::<Vec<_>>(),
        aspects
    );
    assert!(cov[0].covered && cov[0].chunk == Some(0));
    assert!(
        !cov[1].covered || cov[1].chunk.is_some(),
        "a covered aspect names its chunk"
    );
}

#[test]
fn answer_review_scores_are_in_range_and_list_every_aspect() {
    let Verdict::AnswerReview(r) = judge(Task::AnswerReview {
        question: "What SI unit measures electric current?".into(),
        answer: "The ampere is the SI unit of electric current.".into(),
        aspects: s(&["SI unit measures electric current"]),
    }) else {
        unreachable!()
    };
    assert_eq!(r.aspects.len(), 1);
    for x in [r.relevance, r.clarity, r.coherence, r.conciseness] {
        assert!((0.0..=1.0).contains(&x));
    }
    assert!(r.relevance >= 0.8 && r.aspects[0].addressed, "{r:?}");
}

#[test]
fn grounding_has_one_entry_per_claim_and_valid_chunk_indices() {
    let chunks = s(&[
        "Paris is the capital of France.",
        "The Seine flows through Paris.",
    ]);
    let Verdict::Grounding(g) = judge(Task::Grounding {
        question: "Tell me about Paris.".into(),
        answer:
            "Paris is the capital of France. The Seine flows through Paris. Paris has 90 bridges."
                .into(),
        chunks: chunks.clone(),
    }) else {
        unreachable!()
    };
    assert_eq!(g.claims.len(), 3);
    assert_eq!(
        g.claims.iter().map(|c| c.support).collect::<Vec<_>>()[..2],
        [Support::Supported, Support::Supported]
    );
    assert_ne!(
        g.claims[2].support,
        Support::Supported,
        "90 bridges appears nowhere"
    );
    assert!(g
        .used_chunks
        .iter()
        .chain(g.claims.iter().filter_map(|c| c.chunk.as_ref()))
        .all(|&i| i < chunks.len()));
    assert_eq!(g.used_chunks, [0, 1]);
}

#[test]
fn reasoning_has_one_hop_per_claim() {
    let Verdict::Reasoning(r) = judge(Task::Reasoning {
        question: "What is the capital of France?".into(),
        answer: "Paris is the capital of France. It lies on the Seine.".into(),
        chunks: s(&["Paris is the capital of France and lies on the Seine."]),
    }) else {
        unreachable!()
    };
    assert_eq!(r.hops.len(), 2);
    assert!(r.hops[0].follows, "the first hop follows trivially");
    assert!(!r.reason.is_empty());
}

#[test]
fn claims_verdict_splits_text() {
    let Verdict::Claims { claims } = judge(Task::Claims {
        question: String::new(),
        text: "Paris is in France. Berlin is in Germany.".into(),
    }) else {
        unreachable!()
    };
    assert_eq!(claims, ["Paris is in France.", "Berlin is in Germany."]);
    let Verdict::Claims { claims } = judge(Task::Claims {
        question: String::new(),
        text: String::new(),
    }) else {
        unreachable!()
    };
    assert!(claims.is_empty());
}

#[test]
fn claim_labels_dims_are_claims_by_passages() {
    let claims = s(&[
        "Paris is the capital of France.",
        "The Eiffel Tower is in London.",
        "The Moon has rivers.",
    ]);
    let passages = s(&[
        "Paris is the capital of France.",
        "The Eiffel Tower is in Paris.",
        "The Moon has no rivers.",
    ]);
    let Verdict::ClaimLabels { labels } = judge(Task::ClaimLabels {
        claims: claims.clone(),
        passages: passages.clone(),
    }) else {
        unreachable!()
    };
    assert_eq!(labels.len(), claims.len());
    assert!(labels.iter().all(|row| row.len() == passages.len()));
    assert_eq!(labels[0][0], Label::Entailment);
    assert!(
        !labels[1].contains(&Label::Entailment),
        "London is nowhere: {:?}",
        labels[1]
    );
    assert_eq!(labels[2][2], Label::Contradiction, "no rivers vs rivers");
    let Verdict::ClaimLabels { labels } = judge(Task::ClaimLabels {
        claims: claims.clone(),
        passages: vec![],
    }) else {
        unreachable!()
    };
    assert!(labels.len() == 3 && labels.iter().all(Vec::is_empty));
}

#[test]
fn every_task_kind_is_answered_on_empty_inputs() {
    let tasks = [
        Task::Aspects {
            question: String::new(),
        },
        Task::ChunkRelevance {
            question: String::new(),
            chunks: vec![],
        },
        Task::Coverage {
            question: String::new(),
            aspects: vec![],
            chunks: vec![],
        },
        Task::AnswerReview {
            question: String::new(),
            answer: String::new(),
            aspects: vec![],
        },
        Task::Grounding {
            question: String::new(),
            answer: String::new(),
            chunks: vec![],
        },
        Task::Reasoning {
            question: String::new(),
            answer: String::new(),
            chunks: vec![],
        },
        Task::Claims {
            question: String::new(),
            text: String::new(),
        },
        Task::ClaimLabels {
            claims: vec![],
            passages: vec![],
        },
        Task::Scorecard(Box::new(crate::task::ScorecardTask {
            question: String::new(),
            answer: String::new(),
            chunks: vec![],
            ground_truth: String::new(),
            structure_note: vec![],
            criteria: crate::task::Criterion::ALL.to_vec(),
            examples: vec![],
            taxonomy: true,
        })),
        Task::Insights(Box::new(crate::task::InsightsTask {
            metrics: vec![],
            baseline: vec![],
        })),
        plain_words_criterion(),
        Task::Advice(Box::new(crate::task::AdviceTask {
            question: String::new(),
            facts: vec![],
            items: vec![],
        })),
    ];
    let kinds: Vec<TaskKind> = tasks.iter().map(|t| judge(t.clone()).kind()).collect();
    let judged: Vec<TaskKind> = TaskKind::ALL
        .into_iter()
        .filter(|k| !k.is_generation())
        .collect();
    assert_eq!(kinds, judged);
}

fn plain_words_criterion() -> Task {
    use ragnosis_types::criterion::{ReadField, Scale};
    Task::Criterion(Box::new(crate::task::CriterionTask {
        name: "plain_words".into(),
        text: "Is the answer written in plain words a customer understands?".into(),
        scale: Scale::PassFail,
        anchors: Vec::new(),
        examples: Vec::new(),
        reads: vec![ReadField::Question, ReadField::Answer],
        question: "Where is my refund?".into(),
        answer: "Read the manual.".into(),
        chunks: Vec::new(),
        ground_truth: String::new(),
    }))
}

#[test]
fn the_offline_judge_gives_a_criterion_in_plain_words_no_score_and_says_why() {
    let Verdict::Criterion(v) = judge(plain_words_criterion()) else {
        unreachable!()
    };
    assert_eq!(v.score, None, "never a made-up score");
    assert!(
        v.reasoning.starts_with(super::NEEDS_LANGUAGE_MODEL),
        "{}",
        v.reasoning
    );
}

#[test]
fn the_offline_judge_refuses_to_write_test_cases() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    for task in [
        Task::DraftQuestion {
            chunk: "The battery lasts two years.".into(),
        },
        Task::DraftAnswer {
            question: "How long?".into(),
            chunk: "The battery lasts two years.".into(),
        },
    ] {
        let result = runtime.block_on(crate::Judge::judge(
            &OfflineJudge::default(),
            &task,
            &crate::CallContext::default(),
        ));
        let err = result.unwrap_err().to_string();
        assert!(err.contains("cannot write questions"), "{err}");
    }
}

/// The RAGVUE example items, read from the shared data directory.
fn ragvue_items(file: &str) -> Vec<(String, String, Vec<String>)> {
    let path = ragnosis_types::dev_data::shared_data_dir()
        .join("ragvue-examples")
        .join(file);
    let raw = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    raw.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("valid JSON line");
            let contexts = v["contexts"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|c| c.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            (
                v["question"].as_str().unwrap_or("").to_string(),
                v["answer"].as_str().unwrap_or("").to_string(),
                contexts,
            )
        })
        .collect()
}

fn faithful_share(q: &str, a: &str, chunks: &[String]) -> Option<f64> {
    let Verdict::Grounding(g) = judge(Task::Grounding {
        question: q.into(),
        answer: a.into(),
        chunks: chunks.to_vec(),
    }) else {
        unreachable!()
    };
    (!g.claims.is_empty()).then(|| {
        g.claims
            .iter()
            .filter(|c| c.support == Support::Supported)
            .count() as f64
            / g.claims.len() as f64
    })
}

#[test]
fn ragvue_examples_get_the_expected_faithfulness() {
    for file in ["agentic.jsonl", "manual.jsonl"] {
        for (q, a, chunks) in ragvue_items(file) {
            let share = faithful_share(&q, &a, &chunks);
            let lower = a.to_lowercase();
            if a.is_empty() || chunks.is_empty() {
                continue;
            } else if lower.contains("rivers")
                || lower.contains("eiffel")
                || lower.contains("weather")
                || lower.contains("depends")
            {
                assert_eq!(
                    share,
                    Some(0.0),
                    "{file}: {a:?} is not backed by {chunks:?}"
                );
            } else {
                assert_eq!(
                    share,
                    Some(1.0),
                    "{file}: {a:?} should be backed by {chunks:?}"
                );
            }
        }
    }
}

#[test]
fn ragvue_examples_get_the_expected_answer_review() {
    for file in ["agentic.jsonl", "manual.jsonl"] {
        for (q, a, chunks) in ragvue_items(file) {
            let Verdict::Aspects { aspects, .. } = judge(Task::Aspects {
                question: q.clone(),
            }) else {
                unreachable!()
            };
            let Verdict::AnswerReview(r) = judge(Task::AnswerReview {
                question: q.clone(),
                answer: a.clone(),
                aspects: aspects.clone(),
            }) else {
                unreachable!()
            };
            let lower = a.to_lowercase();
            if lower.contains("eiffel") || lower.contains("weather") {
                assert!(
                    r.relevance <= 0.2 && !r.off_topic.is_empty(),
                    "{q} / {a}: {r:?}"
                );
            }
            if lower.contains("depends") {
                assert!(r.clarity < 0.5, "{a}: {r:?}");
            }
            if a == "Kotlin" {
                let done = r.aspects.iter().filter(|x| x.addressed).count();
                assert_eq!(
                    (done, r.aspects.len()),
                    (1, 2),
                    "one of two languages named: {r:?}"
                );
            }
            if a == "Helium and Neon" {
                assert!(r.aspects.iter().all(|x| x.addressed), "{r:?}");
                let Verdict::Coverage { aspects: cov } = judge(Task::Coverage {
                    question: q.clone(),
                    aspects,
                    chunks: chunks.clone(),
                }) else {
                    unreachable!()
                };
                assert!(cov.iter().all(|c| c.covered), "{cov:?}");
            }
        }
    }
}
