//! A run's read model against a real SQLite file: reading a run writes nothing, and
//! opening one (`view::materialise`) stores what an older run lacks.

use ragnosis_core::analysis::SUMMARY;
use ragnosis_core::store::{self, Store};
use ragnosis_core::view::{self, ReportOptions, ReportView};

use crate::runs::{evaluate_offline, import};

/// Six items whose answers agree with their references less and less.
fn graded_items() -> String {
    let answers = [
        "The pass costs 28 euros a week.",
        "The pass costs 28 euros.",
        "The pass costs euros.",
        "A pass is sold.",
        "Trams run late.",
        "Nothing.",
    ];
    answers
        .iter()
        .enumerate()
        .map(|(i, answer)| {
            format!(
                "{{\"id\": \"q{i}\", \"question\": \"How much is the weekly pass?\", \
                 \"answer\": \"{answer}\", \"ground_truth\": \"The pass costs 28 euros a week.\", \
                 \"contexts\": [\"The weekly pass costs 28 euros.\"]}}\n"
            )
        })
        .collect()
}

/// Changes this connection has made to the database since it was opened.
fn changes(store: &Store) -> i64 {
    store
        .conn()
        .query_row("SELECT total_changes()", [], |r| r.get(0))
        .unwrap()
}

fn worst_ids(view: &ReportView) -> Vec<i64> {
    view.run.worst.iter().map(|w| w.item_id).collect()
}

#[test]
fn reading_a_run_writes_nothing_and_opening_it_stores_what_it_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let dataset = import(&mut store, dir.path(), &graded_items());
    let run_id = evaluate_offline(&mut store, dataset, &["reference.token_f1"]).run_id;
    let options = ReportOptions {
        worst: 3,
        ..ReportOptions::default()
    };
    let finished = ReportView::load(&store, run_id, &options).unwrap();
    assert_eq!(finished.run.worst.len(), 3);

    // A run stored before its summary and case index were (or before the rules changed).
    store
        .conn()
        .execute_batch(&format!(
            "DELETE FROM analyses WHERE run_id = {run_id};
             DELETE FROM case_index WHERE run_id = {run_id};"
        ))
        .unwrap();
    let before = changes(&store);
    let read = ReportView::load(&store, run_id, &options).unwrap();
    assert_eq!(
        changes(&store),
        before,
        "reading the run wrote to the database"
    );
    assert!(store::analyses::get(store.conn(), run_id, SUMMARY)
        .unwrap()
        .is_none());
    assert_eq!(
        worst_ids(&read),
        worst_ids(&finished),
        "the worst items read without the case index are those it lists"
    );
    assert_eq!(read.run.summary.metrics, finished.run.summary.metrics);

    view::materialise(&mut store, run_id).unwrap();
    assert!(
        changes(&store) > before,
        "opening the run stored what it lacked"
    );
    assert!(store::analyses::get(store.conn(), run_id, SUMMARY)
        .unwrap()
        .is_some());
    let opened = ReportView::load(&store, run_id, &options).unwrap();
    assert_eq!(worst_ids(&opened), worst_ids(&finished));
    let settled = changes(&store);
    view::materialise(&mut store, run_id).unwrap();
    assert_eq!(
        changes(&store),
        settled,
        "a run already opened is not stored again"
    );
}

/// A summary stored by an older version, without histograms or the record of what judged
/// the results, is completed when the run is opened: the report then draws the same
/// histograms and names the same prompt versions as a new run's, and no read counts them.
#[test]
fn opening_a_run_completes_a_summary_stored_before_it_kept_histograms() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("home")).unwrap();
    let dataset = import(&mut store, dir.path(), &graded_items());
    let run_id = evaluate_offline(&mut store, dataset, &["token_f1", "ragvue.clarity"]).run_id;
    let options = ReportOptions::default();
    let new = ReportView::load(&store, run_id, &options).unwrap();
    assert!(
        !new.methodology.prompt_versions.is_empty(),
        "a judged metric ran"
    );

    // The summary as an older version stored it.
    let mut old = store::analyses::get(store.conn(), run_id, SUMMARY)
        .unwrap()
        .unwrap();
    old.as_object_mut().unwrap().remove("judged_by");
    for metric in old["metrics"].as_object_mut().unwrap().values_mut() {
        metric.as_object_mut().unwrap().remove("histogram");
    }
    store::analyses::put(store.conn(), run_id, SUMMARY, &old).unwrap();
    let stored: ragnosis_core::analysis::RunSummary = serde_json::from_value(old).unwrap();
    assert!(!stored.is_complete());

    view::materialise(&mut store, run_id).unwrap();
    let reopened = ReportView::load(&store, run_id, &options).unwrap();
    let histograms = |r: &ReportView| -> Vec<Vec<u64>> {
        r.metrics.iter().map(|m| m.histogram.clone()).collect()
    };
    assert_eq!(histograms(&reopened), histograms(&new));
    assert!(histograms(&reopened).iter().all(|h| h.len() == 10));
    assert_eq!(
        reopened.methodology.prompt_versions,
        new.methodology.prompt_versions
    );
    assert_eq!(
        reopened.methodology.judge_configs,
        new.methodology.judge_configs
    );
}
