//! The judge cache on a real SQLite file, and the plan estimate that reads it.

use std::sync::Arc;

use ragnosis_core::judge::cache::JudgeCache;
use ragnosis_core::judge::{plan, CallContext, Judge};

use super::*;

fn cached_judge(
    sim: &ragnosis_judge_sim::SimHandle,
    dir: &tempfile::TempDir,
) -> (LlmJudge, Arc<JudgeCache>) {
    let cache = Arc::new(
        ragnosis_core::judge::shelf::open_cache(&dir.path().join("ragnosis.db"))
            .expect("cache file opens"),
    );
    let judge =
        LlmJudge::with_options(&profile(sim), None, Some(cache.clone()), options(1)).unwrap();
    (judge, cache)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_task_twice_is_served_from_the_cache() {
    let sim = start_sim();
    let dir = tempfile::tempdir().unwrap();
    let (judge, _cache) = cached_judge(&sim, &dir);
    let task = claims_task("The library holds two million books.");
    let first = judge.judge(&task, &CallContext::default()).await.unwrap();
    let second = judge.judge(&task, &CallContext::default()).await.unwrap();
    assert!(!first.cached && second.cached);
    assert_eq!(second.verdict, first.verdict);
    assert_eq!(
        (second.usage.input_tokens, second.usage.output_tokens),
        (first.usage.input_tokens, first.usage.output_tokens),
        "a hit reports the tokens the verdict originally cost"
    );
    assert_eq!(second.cost_usd, 0.0);
    assert_eq!(second.prompt_version, "claims@1");
    assert_eq!(
        sim.stats().calls,
        1,
        "the second call never reached the server"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_cache_bypasses_reads_but_still_writes() {
    let sim = start_sim();
    let dir = tempfile::tempdir().unwrap();
    let (judge, _cache) = cached_judge(&sim, &dir);
    let task = claims_task("The river floods every spring.");
    let fresh = CallContext {
        use_cache: false,
        ..CallContext::default()
    };
    assert!(!judge.judge(&task, &fresh).await.unwrap().cached);
    assert!(
        !judge.judge(&task, &fresh).await.unwrap().cached,
        "reads are bypassed"
    );
    assert_eq!(sim.stats().calls, 2);
    assert!(
        judge
            .judge(&task, &CallContext::default())
            .await
            .unwrap()
            .cached,
        "the bypassing calls still wrote"
    );
    assert_eq!(sim.stats().calls, 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cache_survives_reopening_the_database_file() {
    let sim = start_sim();
    let dir = tempfile::tempdir().unwrap();
    let task = claims_task("The tower is 300 metres tall.");
    {
        let (judge, _cache) = cached_judge(&sim, &dir);
        judge.judge(&task, &CallContext::default()).await.unwrap();
    }
    let (judge, _cache) = cached_judge(&sim, &dir);
    assert!(
        judge
            .judge(&task, &CallContext::default())
            .await
            .unwrap()
            .cached
    );
    assert_eq!(sim.stats().calls, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_plan_estimate_counts_cache_hits() {
    let sim = start_sim();
    let dir = tempfile::tempdir().unwrap();
    let (judge, cache) = cached_judge(&sim, &dir);
    let tasks: Vec<_> = ["One fact.", "Two facts here.", "Three facts in all."]
        .iter()
        .map(|t| claims_task(t))
        .collect();
    let before = plan::estimate(&profile(&sim), &tasks, Some(&cache)).unwrap();
    assert_eq!((before.calls, before.cache_hits), (3, 0));
    assert_eq!(
        before.cost_low,
        Some(0.0),
        "a server on 127.0.0.1 is local and free"
    );
    for task in &tasks[..2] {
        judge.judge(task, &CallContext::default()).await.unwrap();
    }
    let after = plan::estimate(&profile(&sim), &tasks, Some(&cache)).unwrap();
    assert_eq!((after.calls, after.cache_hits), (1, 2));
    assert!(after.input_tokens < before.input_tokens);
    assert_eq!(sim.stats().calls, 2, "estimating makes no calls");
}
