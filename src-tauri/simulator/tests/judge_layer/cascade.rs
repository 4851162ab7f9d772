//! The cascade (`offline+NAME`) routes; it never judges. Every task it sends on gets
//! exactly the stronger judge's verdict, every task it keeps exactly the offline judge's,
//! on the tasks a real run of the bundled examples asks.

use std::sync::Arc;

use ragnosis_core::dataset::{read_items, ImportLimits};
use ragnosis_core::judge::cascade::CascadeJudge;
use ragnosis_core::judge::offline::OfflineJudge;
use ragnosis_core::judge::{CallContext, Judge, Task};
use ragnosis_core::metrics::{self, Family};
use ragnosis_core::run::engine::planned_tasks;

use super::{judge, profile, start_sim};

/// The judge tasks every judged metric asks of the bundled examples.
fn example_tasks() -> Vec<Task> {
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/examples");
    let judged: Vec<_> = metrics::catalogue()
        .iter()
        .filter(|m| m.judge && m.family != Family::Criteria)
        .collect();
    let mut tasks = Vec::new();
    for file in [
        "ragvue/agentic.jsonl",
        "ragvue/manual.jsonl",
        "ragnosis-example.jsonl",
    ] {
        read_items(&examples.join(file), &ImportLimits::default(), |accepted| {
            tasks.extend(planned_tasks(&accepted.item, &judged, &[]));
            Ok(())
        })
        .expect("the bundled examples read");
    }
    tasks
}

#[tokio::test]
async fn a_cascade_gives_the_models_verdict_on_every_task_it_sends_on_and_the_offline_judges_on_the_rest(
) {
    let sim = start_sim();
    let strong: Arc<dyn Judge> = Arc::new(judge(&profile(&sim), None, 2));
    let cascade = CascadeJudge::new(strong.clone());
    let offline = OfflineJudge::standard();
    let ctx = CallContext::default();
    let tasks = example_tasks();
    let (mut sent, mut kept) = (0, 0);
    for task in &tasks {
        let routed = cascade
            .judge(task, &ctx)
            .await
            .expect("the cascade answers");
        let expected = if cascade.sends_on(task) {
            sent += 1;
            strong.judge(task, &ctx).await.expect("the model answers")
        } else {
            kept += 1;
            offline
                .judge(task, &ctx)
                .await
                .expect("the offline judge answers")
        };
        assert_eq!(
            routed.verdict, expected.verdict,
            "the cascade changed a verdict of {task:?}"
        );
        assert_eq!(routed.prompt_version, expected.prompt_version);
    }
    println!(
        "{sent} of {} tasks sent on, {kept} kept offline",
        tasks.len()
    );
    assert!(sent > 0, "some task of the examples is unsure offline");
    assert!(
        kept > sent,
        "most tasks stay offline: {sent} sent, {kept} kept"
    );
}
