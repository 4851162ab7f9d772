//! Judge replies: tolerant parsing (fences, prose, `</think>`, trailing commas, bare
//! arrays), validation against the task and the tidying it does (clamping, shortening),
//! for every task kind. Seeds are the offline judge's own correct replies to each task,
//! bare and wrapped the ways models wrap them. Invariants: no panic; an error is a
//! sentence; an accepted verdict is stable: printed as the prompts ask and read again,
//! it is the same verdict.

use ragnosis_core::judge::offline::OfflineJudge;
use ragnosis_core::judge::parse::{parse_verdict, payload_json};
use ragnosis_core::judge::task::{
    ActionBrief, CorrectnessExample, Criterion, InsightsTask, ItemBrief, MetricBrief,
    ScorecardTask, Task,
};

use super::engine::campaign;
use super::mutate::{apply, mutation, Mutation, Seed};

fn s(texts: &[&str]) -> Vec<String> {
    texts.iter().map(|t| t.to_string()).collect()
}

/// One task of every kind, on a help-desk item.
pub fn tasks() -> Vec<Task> {
    let question = "How long is the warranty on the frame, and who does it cover?";
    let answer = "The frame is warranted for 10 years, for the first owner only [W01].";
    let chunks = s(&[
        "Every frame is warranted for 10 years from purchase, for the first owner.",
        "Batteries are covered for 2 years or 500 charge cycles, whichever comes first.",
        "Shipping is free within the EU.",
    ]);
    let aspects = s(&["warranty length", "who is covered"]);
    vec![
        Task::Aspects {
            question: question.into(),
        },
        Task::ChunkRelevance {
            question: question.into(),
            chunks: chunks.clone(),
        },
        Task::Coverage {
            question: question.into(),
            aspects: aspects.clone(),
            chunks: chunks.clone(),
        },
        Task::AnswerReview {
            question: question.into(),
            answer: answer.into(),
            aspects: aspects.clone(),
        },
        Task::Grounding {
            question: question.into(),
            answer: answer.into(),
            chunks: chunks.clone(),
        },
        Task::Reasoning {
            question: question.into(),
            answer: answer.into(),
            chunks: chunks.clone(),
        },
        Task::Claims {
            question: question.into(),
            text: answer.into(),
        },
        Task::ClaimLabels {
            claims: s(&[
                "The frame is warranted for 10 years.",
                "Only the first owner is covered.",
            ]),
            passages: chunks.clone(),
        },
        scorecard(question, answer, &chunks),
        insights(question),
        Task::DraftQuestion {
            chunk: chunks[0].clone(),
        },
        Task::DraftAnswer {
            question: question.into(),
            chunk: chunks[0].clone(),
        },
    ]
}

/// The scorecard task of `tasks`: every criterion, one graded example, the taxonomy.
fn scorecard(question: &str, answer: &str, chunks: &[String]) -> Task {
    Task::Scorecard(Box::new(ScorecardTask {
        question: question.into(),
        answer: answer.into(),
        chunks: chunks.to_vec(),
        ground_truth: "10 years, first owner only.".into(),
        structure_note: s(&["a duration and a person"]),
        criteria: Criterion::ALL.to_vec(),
        examples: vec![CorrectnessExample {
            answer: "Ten years.".into(),
            reference: "10 years.".into(),
            score: 0.8,
        }],
        taxonomy: true,
    }))
}

/// The insights task of `tasks`: one low-scoring metric and one baseline action.
fn insights(question: &str) -> Task {
    Task::Insights(Box::new(InsightsTask {
        metrics: vec![MetricBrief {
            metric: "ragvue.clarity".into(),
            description: "how clear the answer is".into(),
            mean: 0.4,
            n: 3,
            lower_is_better: false,
            low: vec![ItemBrief {
                question: question.into(),
                score: 0.1,
                explanation: "rambling".into(),
            }],
            high: vec![],
        }],
        baseline: vec![ActionBrief {
            impact: "high".into(),
            metric: "ragvue.clarity".into(),
            title: "Shorter answers".into(),
            whats_wrong: "answers ramble".into(),
            why: "the prompt asks for detail".into(),
            example_question: question.into(),
            how_to_fix: "ask for two sentences".into(),
        }],
    }))
}

/// Each task's correct reply, bare, fenced, in prose and after a thinking block.
pub fn seeds(tasks: &[Task]) -> Vec<Seed> {
    let judge = OfflineJudge::standard();
    let mut seeds = Vec::new();
    for (i, task) in tasks.iter().enumerate() {
        let reply = payload_json(&judge.verdict(task)).to_string();
        let pretty = serde_json::to_string_pretty(
            &serde_json::from_str::<serde_json::Value>(&reply).unwrap(),
        )
        .unwrap();
        seeds.push(Seed::new(format!("task {i}"), reply.clone().into_bytes()));
        for wrapped in [
            format!("```json\n{pretty}\n```"),
            format!("Sure! Here is my assessment: {reply} Let me know if you need more."),
            format!("<think>maybe {{\"draft\": 1}} or [1,2]</think>\n{reply}"),
        ] {
            seeds.push(Seed::new(
                format!("task {i}, wrapped"),
                wrapped.into_bytes(),
            ));
        }
    }
    seeds
}

pub fn run(default_cases: u32) {
    let tasks = tasks();
    let seeds = seeds(&tasks);
    campaign(
        "judge_reply",
        default_cases,
        (0..tasks.len(), mutation(seeds.len())),
        |(_, m): &(usize, Mutation)| apply(&seeds, m),
        |bytes, (t, _)| {
            let task = &tasks[*t];
            let reply = String::from_utf8_lossy(bytes);
            match parse_verdict(task, &reply) {
                Ok(verdict) => {
                    let again = payload_json(&verdict).to_string();
                    match parse_verdict(task, &again) {
                        Ok(v) if v == verdict => Ok(()),
                        Ok(v) => Err(format!(
                            "read again, the verdict changed: {verdict:?} -> {v:?}"
                        )),
                        Err(e) => Err(format!("the accepted verdict, printed, is refused: {e}")),
                    }
                }
                Err(e) if e.trim().is_empty() => Err("an empty error".into()),
                Err(_) => Ok(()),
            }
        },
    );
}
