//! Retries, backoff, Retry-After, timeouts, cancellation, concurrency limits.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use ragnosis_core::judge::{CallContext, Judge, JudgeError};
use ragnosis_judge_sim::{ContainsRule, Fault, FaultRules};

use super::*;

fn next(faults: Vec<Fault>) -> FaultRules {
    FaultRules {
        next: VecDeque::from(faults),
        ..FaultRules::default()
    }
}

fn always(text: &str, fault: Fault) -> FaultRules {
    FaultRules {
        when_contains: vec![ContainsRule {
            text: text.into(),
            fault,
        }],
        ..FaultRules::default()
    }
}

fn status(status: u16, retry_after: Option<&str>) -> Fault {
    Fault::Status {
        status,
        retry_after: retry_after.map(str::to_string),
        body: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limit_with_retry_after_waits_then_succeeds() {
    let sim = start_sim();
    sim.set_faults(next(vec![status(429, Some("1"))]));
    let judge = judge(&profile(&sim), None, 5);
    let (ctx, progress) = recorded_ctx();
    let started = Instant::now();
    let judgement = judge
        .judge(&claims_task("The bridge opened in 1932."), &ctx)
        .await
        .expect("the retry succeeds");
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "Retry-After: 1 must be honoured"
    );
    assert!(!judgement.cached);
    assert_eq!(
        sim.stats().calls,
        2,
        "one rate-limited request and one answered"
    );
    let notices = notices(&progress);
    assert!(
        notices
            .iter()
            .any(|n| n.starts_with("waiting 1.0 s: rate limited (HTTP 429) by sim")),
        "the wait is reported to the user: {notices:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_errors_are_retried_until_success() {
    let sim = start_sim();
    sim.set_faults(next(vec![status(500, None), status(500, None)]));
    let (ctx, progress) = recorded_ctx();
    judge(&profile(&sim), None, 5)
        .judge(&claims_task("Water boils at 100 C."), &ctx)
        .await
        .unwrap();
    assert_eq!(sim.stats().calls, 3, "two failures, then the answer");
    assert_eq!(
        notices(&progress)
            .iter()
            .filter(|n| n.contains("HTTP 500 from sim"))
            .count(),
        2
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn endless_rate_limits_give_up_after_the_configured_attempts() {
    let sim = start_sim();
    sim.set_faults(always("Mars", status(429, Some("0"))));
    let result = judge(&profile(&sim), None, 3)
        .judge(&claims_task("Mars is red."), &CallContext::default())
        .await;
    assert_eq!(
        result.unwrap_err(),
        JudgeError::RateLimited {
            attempts: 3,
            retry_after_secs: Some(0)
        }
    );
    assert_eq!(sim.stats().calls, 3);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_errors_are_not_retried() {
    let sim = start_sim();
    sim.set_faults(next(vec![status(400, None)]));
    let result = judge(&profile(&sim), None, 5)
        .judge(&claims_task("x is y."), &CallContext::default())
        .await;
    assert!(
        matches!(result, Err(JudgeError::Http { status: 400, .. })),
        "{result:?}"
    );
    assert_eq!(
        sim.stats().calls,
        1,
        "a bad request will not get better by repeating it"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_abandons_a_hanging_request_promptly() {
    let sim = start_sim();
    sim.set_faults(next(vec![Fault::Hang]));
    let judge = judge(&profile(&sim), None, 5);
    let ctx = CallContext::default();
    let cancel = ctx.cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        cancel.cancel();
    });
    let started = Instant::now();
    let result = judge.judge(&claims_task("The sea is salty."), &ctx).await;
    assert_eq!(result.unwrap_err(), JudgeError::Cancelled);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "cancel must not wait for the 30 s timeout"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_server_times_out_after_the_retries() {
    let sim = start_sim();
    sim.set_faults(always("glacier", Fault::Hang));
    let mut profile = profile(&sim);
    profile.timeout_secs = 1;
    let started = Instant::now();
    let result = judge(&profile, None, 2)
        .judge(
            &claims_task("The glacier retreated."),
            &CallContext::default(),
        )
        .await;
    assert_eq!(
        result.unwrap_err(),
        JudgeError::Timeout(Duration::from_secs(1))
    );
    let elapsed = started.elapsed();
    assert!(
        elapsed >= Duration::from_secs(2),
        "two attempts of 1 s each"
    );
    assert!(
        elapsed < Duration::from_secs(30),
        "the total time is bounded by attempts × timeout + backoff"
    );
    assert_eq!(sim.stats().calls, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrency_never_exceeds_the_profile_limit() {
    let sim = start_sim();
    sim.set_faults(FaultRules {
        latency_ms: 150,
        ..FaultRules::default()
    });
    let mut profile = profile(&sim);
    profile.concurrency = 2;
    let judge = Arc::new(judge(&profile, None, 1));
    let calls: Vec<_> = (0..6)
        .map(|i| {
            let judge = Arc::clone(&judge);
            tokio::spawn(async move {
                judge
                    .judge(
                        &claims_task(&format!("Fact number {i}.")),
                        &CallContext::default(),
                    )
                    .await
            })
        })
        .collect();
    for call in calls {
        call.await.unwrap().expect("every call succeeds");
    }
    let stats = sim.stats();
    assert_eq!(stats.calls, 6);
    assert!(
        stats.max_in_flight <= 2,
        "at most 2 requests in flight, saw {}",
        stats.max_in_flight
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn temperature_is_really_sent() {
    let sim = start_sim();
    let mut profile = profile(&sim);
    profile.temperature = 0.7;
    judge(&profile, None, 1)
        .judge(&claims_task("Ice is cold."), &CallContext::default())
        .await
        .unwrap();
    assert_eq!(sim.stats().temperatures_seen, vec![0.7]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejected_json_schema_falls_back_to_json_object_once_and_is_remembered() {
    let sim = ragnosis_judge_sim::Simulator::start(ragnosis_judge_sim::SimConfig {
        reject_json_schema: true,
        ..Default::default()
    })
    .unwrap();
    let judge = judge(&profile(&sim), None, 1);
    judge
        .judge(&claims_task("Snow is white."), &CallContext::default())
        .await
        .unwrap();
    judge
        .judge(&claims_task("Grass is green."), &CallContext::default())
        .await
        .unwrap();
    let stats = sim.stats();
    assert_eq!(
        stats.response_formats_seen,
        vec!["json_schema", "json_object"]
    );
    assert_eq!(
        stats.calls, 3,
        "the second task goes straight to json_object"
    );
}
