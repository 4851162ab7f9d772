//! An item's independent tasks asked of a model in one call: the same verdicts as asked
//! one by one, each read on its own field; a reply that cannot be read is asked again
//! task by task; a rerun comes from the cache without a call.

use std::collections::VecDeque;
use std::sync::Arc;

use ragnosis_core::judge::{CallContext, Judge, Task};
use ragnosis_judge_sim::{Fault, FaultRules};

use super::*;

/// Phase one of an item with a question, an answer and two passages.
fn phase_one() -> Vec<Task> {
    let question = "Which noble gases have atomic numbers 2 and 10?".to_string();
    let chunks = vec![
        "Helium is a noble gas with atomic number 2.".to_string(),
        "Neon is a noble gas with atomic number 10.".to_string(),
    ];
    vec![
        Task::Aspects {
            question: question.clone(),
        },
        Task::ChunkRelevance {
            question: question.clone(),
            chunks: chunks.clone(),
        },
        Task::Grounding {
            question,
            answer: "Helium and neon.".into(),
            chunks,
        },
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_items_tasks_share_one_call_and_give_the_verdicts_asked_alone() {
    let sim = start_sim();
    let dir = tempfile::tempdir().unwrap();
    let cache =
        Arc::new(ragnosis_core::judge::shelf::open_cache(&dir.path().join("ragnosis.db")).unwrap());
    let together = LlmJudge::with_options(&profile(&sim), None, Some(cache), options(1)).unwrap();
    let ctx = CallContext::default();
    let tasks = phase_one();
    let answers = together.judge_together(&tasks, &ctx).await;
    assert_eq!(sim.stats().calls, 1, "one call for the item's three tasks");
    let alone = judge(&profile(&sim), None, 1);
    for (task, answer) in tasks.iter().zip(&answers) {
        let answer = answer.as_ref().expect("every task answered");
        let single = alone.judge(task, &ctx).await.unwrap();
        assert_eq!(answer.verdict, single.verdict, "{task:?}");
        assert!(answer.prompt_version.ends_with("+bundle@1"));
    }
    let paid: Vec<bool> = answers
        .iter()
        .map(|a| a.as_ref().unwrap().usage.input_tokens > 0)
        .collect();
    assert_eq!(
        paid,
        [true, false, false],
        "the call's tokens are counted once"
    );
    let before = sim.stats().calls;
    let again = together.judge_together(&tasks, &ctx).await;
    assert!(again.iter().all(|a| a.as_ref().unwrap().cached));
    assert_eq!(sim.stats().calls, before, "a rerun asks nothing");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shared_reply_that_cannot_be_read_is_asked_again_task_by_task() {
    let sim = start_sim();
    sim.set_faults(FaultRules {
        next: VecDeque::from([Fault::MalformedJson]),
        ..FaultRules::default()
    });
    let together = judge(&profile(&sim), None, 1);
    let tasks = phase_one();
    let answers = together
        .judge_together(&tasks, &CallContext::default())
        .await;
    assert!(answers.iter().all(Result::is_ok), "{answers:?}");
    assert_eq!(
        sim.stats().calls,
        1 + tasks.len() as u64,
        "the shared call, then each task alone"
    );
    assert!(answers
        .iter()
        .all(|a| !a.as_ref().unwrap().prompt_version.contains("bundle")));
}
