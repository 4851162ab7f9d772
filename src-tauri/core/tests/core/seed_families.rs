//! RAGXplain's diamond and RAGalyst end to end with the offline judge, on a real SQLite
//! file: an agentic run of the bundled example scores both families, counts the failure
//! taxonomy, writes insights, and keeps the whole agentic set of an item with question,
//! answer, contexts and ground truth within ten judge calls.

use std::path::Path;
use std::sync::Arc;

use ragnosis_core::analysis::{self, insights};
use ragnosis_core::dataset::ImportLimits;
use ragnosis_core::judge::offline::OfflineJudge;
use ragnosis_core::metrics::Status;
use ragnosis_core::progress::{CancelToken, NoProgress};
use ragnosis_core::run::{self, Mode, RunRequest};
use ragnosis_core::store::{self, Store};

const EXAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../assets/examples/ragnosis-example.jsonl"
);

fn agentic_run(store: &mut Store, file: &Path) -> (i64, run::RunOutcome) {
    let dataset = ragnosis_core::import::import_file(
        store,
        file,
        Some("t"),
        &ImportLimits::default(),
        &NoProgress,
    )
    .unwrap()
    .dataset
    .id;
    let request = RunRequest {
        dataset_id: dataset,
        mode: Mode::Agentic,
        ..Default::default()
    };
    let run_id = run::plan(store, &request).unwrap();
    let outcome = run::execute(
        store,
        run_id,
        Arc::new(OfflineJudge::default()),
        Arc::new(NoProgress),
        &CancelToken::new(),
    )
    .unwrap();
    (run_id, outcome)
}

#[test]
fn an_agentic_run_of_the_example_scores_both_families_with_taxonomy_and_insights() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let (run_id, _) = agentic_run(&mut store, Path::new(EXAMPLE));
    let summary = analysis::load_summary(&mut store, run_id).unwrap();
    for id in [
        "ragxplain.context_relevancy",
        "ragxplain.context_adherence",
        "ragxplain.answer_relevancy",
        "ragxplain.context_recall",
        "ragxplain.factuality",
        "ragxplain.grading_note",
        "ragalyst.answer_correctness",
        "ragalyst.answerability",
    ] {
        let m = &summary.metrics[id];
        assert!(m.stats.n > 0, "{id} scored items: {:?}", m.stats);
        assert_eq!(m.stats.errors, 0, "{id} had errors");
    }
    // Rubric metrics only take the five rubric values.
    let cells = store::results::scores(store.conn(), run_id, "ragxplain.factuality").unwrap();
    for cell in cells.iter().filter(|c| c.status == Status::Ok) {
        let s = cell.score.unwrap();
        assert!(
            [0.2, 0.4, 0.6, 0.8, 1.0]
                .iter()
                .any(|r| (r - s).abs() < 1e-9),
            "{s} is off the rubric"
        );
    }
    let taxonomy = summary
        .taxonomy
        .expect("correctness ran, so the taxonomy is counted");
    assert!(
        taxonomy.items > 0,
        "some example answers are wrong on purpose"
    );
    let applied: u64 = taxonomy.counts.iter().map(|(_, n)| n).sum();
    assert!(
        applied >= taxonomy.items,
        "every low item has at least one category"
    );
    let advice = insights::load(&store, run_id)
        .unwrap()
        .expect("insights are stored");
    assert_eq!(advice.source, insights::InsightSource::Templates);
    assert!(advice.note.contains("templates"), "{}", advice.note);
    assert!(!advice.insights.is_empty());
    for insight in &advice.insights {
        assert!(summary.metrics.contains_key(&insight.metric));
        assert!(
            summary.metrics[&insight.metric].stats.mean.unwrap() < 0.95
                || summary.metrics[&insight.metric].stats.lower_is_better
        );
    }
    assert!(!advice.actions.is_empty() && advice.actions.len() <= 4);
    let questions: Vec<String> = store::run_items::item_ids(store.conn(), run_id)
        .unwrap()
        .into_iter()
        .map(|id| store::items::get(store.conn(), id).unwrap().item.question)
        .collect();
    for action in &advice.actions {
        assert!(
            questions.contains(&action.example_question),
            "{:?} is a question of the run",
            action.example_question
        );
    }
}

#[test]
fn the_full_agentic_set_costs_at_most_ten_judge_calls_per_item() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let file = dir.path().join("one.jsonl");
    // A wrong answer, so the failure taxonomy is asked as well.
    std::fs::write(
        &file,
        r#"{"question": "When did the Golden Gate Bridge open, and how long is it?", "answer": "It opened in 1936 and is about 2 km long.", "contexts": ["The Golden Gate Bridge opened to traffic on May 27, 1937.", "The bridge is 2,737 metres long in total."], "ground_truth": "It opened on May 27, 1937; it is 2,737 m long."}"#,
    )
    .unwrap();
    let (run_id, outcome) = agentic_run(&mut store, &file);
    let calls = outcome.accounting.calls;
    println!("judge calls for one item, full agentic set: {calls}");
    assert!(calls <= 10, "{calls} judge calls for one item");
    let chosen = store::results::for_item(
        store.conn(),
        run_id,
        store::run_items::item_ids(store.conn(), run_id).unwrap()[0],
    )
    .unwrap();
    let families = |prefix: &str| {
        chosen
            .iter()
            .filter(|r| r.result.metric.starts_with(prefix) && r.result.status == Status::Ok)
            .count()
    };
    assert!(families("ragvue.") >= 12 && families("ragchecker.") == 11);
    assert_eq!(families("ragxplain."), 6);
    assert_eq!(families("ragalyst."), 2);
    let correctness = chosen
        .iter()
        .find(|r| r.result.metric == "ragalyst.answer_correctness")
        .unwrap();
    assert!(correctness.result.score.unwrap() < 0.9);
    assert_eq!(
        correctness.result.details["failures"]
            .as_array()
            .unwrap()
            .len(),
        10,
        "a low answer gets every category checked"
    );
}
