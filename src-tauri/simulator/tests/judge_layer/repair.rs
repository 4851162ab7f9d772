//! Unusable replies: one repair call, tolerant parsing, raw text kept on failure, and a
//! poisoned item failing alone.

use std::collections::VecDeque;
use std::sync::Arc;

use ragnosis_core::judge::{CallContext, Judge, JudgeError};
use ragnosis_judge_sim::{ContainsRule, Fault, FaultRules};

use super::*;

fn next(fault: Fault) -> FaultRules {
    FaultRules {
        next: VecDeque::from([fault]),
        ..FaultRules::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_reply_gets_one_repair_call_then_succeeds() {
    let sim = start_sim();
    sim.set_faults(next(Fault::MalformedJson));
    let outcome = judge(&profile(&sim), None, 1)
        .judge_with_outcome(
            &claims_task("The museum opened in 1901."),
            &CallContext::default(),
        )
        .await
        .expect("the repair call returns valid JSON");
    assert!(outcome.repaired);
    let stats = sim.stats();
    assert_eq!(
        (stats.calls, stats.repairs),
        (2, 1),
        "the original call and exactly one repair"
    );
    assert!(
        outcome.judgement.usage.input_tokens > 0,
        "both calls' tokens are counted"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_truncated_reply_is_repaired() {
    let sim = start_sim();
    sim.set_faults(next(Fault::TruncatedJson));
    let outcome = judge(&profile(&sim), None, 1)
        .judge_with_outcome(&claims_task("Rome is in Italy."), &CallContext::default())
        .await;
    assert!(outcome.unwrap().repaired);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_empty_body_is_retried_as_a_transport_failure() {
    let sim = start_sim();
    sim.set_faults(next(Fault::EmptyBody));
    let outcome = judge(&profile(&sim), None, 3)
        .judge_with_outcome(&claims_task("Oslo is in Norway."), &CallContext::default())
        .await
        .unwrap();
    assert!(
        !outcome.repaired,
        "an empty HTTP body is not the model's answer; it is retried, not repaired"
    );
    assert_eq!(sim.stats().calls, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prose_around_the_json_parses_without_a_repair() {
    let sim = start_sim();
    sim.set_faults(next(Fault::ProseAroundJson));
    let outcome = judge(&profile(&sim), None, 1)
        .judge_with_outcome(&claims_task("Lima is in Peru."), &CallContext::default())
        .await;
    assert!(!outcome.unwrap().repaired);
    assert_eq!(sim.stats().calls, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn garbage_twice_is_unparseable_and_keeps_the_raw_text() {
    let sim = start_sim();
    sim.set_faults(FaultRules {
        when_contains: vec![ContainsRule {
            text: "GARBAGE".into(),
            fault: Fault::MalformedJson,
        }],
        ..FaultRules::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("ragnosis.db");
    let cache = Arc::new(ragnosis_core::judge::shelf::open_cache(&path).unwrap());
    let judge =
        LlmJudge::with_options(&profile(&sim), None, Some(cache.clone()), options(1)).unwrap();
    let err = judge
        .judge(
            &claims_task("GARBAGE in, garbage out."),
            &CallContext::default(),
        )
        .await
        .unwrap_err();
    let JudgeError::Unparseable { message, raw, .. } = &err else {
        panic!("expected Unparseable, got {err:?}")
    };
    assert!(
        raw.contains("mostly relevant"),
        "the judge's raw reply is kept for the user: {raw}"
    );
    assert!(
        message.contains("no JSON object") || message.contains("not valid JSON"),
        "{message}"
    );
    assert_eq!(err.raw_output(), Some(raw.as_str()));
    assert_eq!(sim.stats().calls, 2, "one call and one repair, no more");
    assert_eq!(
        ragnosis_core::store::judge_cache::stats(
            ragnosis_core::store::Store::open_file(&path)
                .unwrap()
                .conn()
        )
        .unwrap()
        .entries,
        0,
        "failed verdicts are never cached"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_poisoned_item_fails_while_the_others_succeed() {
    let sim = start_sim();
    sim.set_faults(FaultRules {
        when_contains: vec![ContainsRule {
            text: "POISON".into(),
            fault: Fault::MalformedJson,
        }],
        ..FaultRules::default()
    });
    let judge = Arc::new(judge(&profile(&sim), None, 2));
    let texts = [
        "Paris is in France.",
        "The POISON item says things.",
        "Berlin is in Germany.",
        "Tokyo is in Japan.",
    ];
    let calls: Vec<_> = texts
        .iter()
        .map(|text| {
            let judge = Arc::clone(&judge);
            let task = claims_task(text);
            tokio::spawn(async move { judge.judge(&task, &CallContext::default()).await })
        })
        .collect();
    let mut failed = Vec::new();
    for (text, call) in texts.iter().zip(calls) {
        if let Err(e) = call.await.unwrap() {
            assert!(matches!(e, JudgeError::Unparseable { .. }), "{e:?}");
            failed.push(*text);
        }
    }
    assert_eq!(
        failed,
        vec!["The POISON item says things."],
        "only the poisoned item fails"
    );
}
