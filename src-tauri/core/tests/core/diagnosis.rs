//! The failure-pattern diagnosis against a real SQLite store: results stored for a
//! planned RAGVUE run, the summary computed and stored, the diagnosis read back.
//!
//! Results are inserted directly (as the run engine would commit them) so the test pins
//! the diagnosis, not any judge's verdicts.

use std::path::Path;

use ragnosis_core::analysis::{self, diagnosis, diagnosis::FailurePattern, diagnosis::Stage};
use ragnosis_core::dataset::ImportLimits;
use ragnosis_core::metrics::MetricResult;
use ragnosis_core::progress::NoProgress;
use ragnosis_core::run::{self, Mode, RunRequest};
use ragnosis_core::store::{self, Store};

const JUDGE: &str = "offline:ragnosis-offline-1@0";
const MOON_QUESTION: &str = "Is there liquid water on the Moon?";

const DATA: &str = concat!(
    r#"{"question": "What is the capital of France?", "answer": "Paris is the capital of France.", "contexts": ["Paris is the capital and largest city of France."]}"#,
    "\n",
    r#"{"question": "Is there liquid water on the Moon?", "answer": "The Moon has several liquid rivers.", "contexts": ["The Moon has no liquid water; its water is ice in permanently shadowed craters."]}"#,
    "\n",
    r#"{"question": "When was the Eiffel Tower finished?", "answer": "It was finished in 1899 by Gustave Klimt.", "contexts": ["The Eiffel Tower was completed in 1889 for the World's Fair."]}"#,
    "\n",
    r#"{"question": "How tall is Mont Blanc?", "answer": "About 4,800 metres.", "contexts": ["Mont Blanc rises to 4,806 metres."]}"#,
    "\n",
);

fn import(store: &mut Store, dir: &Path, lines: &str) -> i64 {
    let file = dir.join("data.jsonl");
    std::fs::write(&file, lines).unwrap();
    ragnosis_core::import::import_file(
        store,
        &file,
        Some("moon"),
        &ImportLimits::default(),
        &NoProgress,
    )
    .unwrap()
    .dataset
    .id
}

fn plan_ragvue_run(store: &mut Store, dataset_id: i64, metrics: &[&str]) -> (i64, Vec<i64>) {
    let request = RunRequest {
        dataset_id,
        mode: Mode::Manual,
        metrics: metrics.iter().map(|m| m.to_string()).collect(),
        ..Default::default()
    };
    let run_id = run::plan(store, &request).unwrap();
    let item_ids = store::run_items::item_ids(store.conn(), run_id).unwrap();
    (run_id, item_ids)
}

fn ok(store: &Store, run_id: i64, item_id: i64, metric: &str, score: f64) {
    let result = MetricResult::ok(metric, score, "set by the test", serde_json::Value::Null);
    assert!(store::results::insert(store.conn(), run_id, item_id, JUDGE, &result).unwrap());
}

/// Scores for a healthy item: no rule fires.
fn healthy(store: &Store, run_id: i64, item_id: i64) {
    for metric in [
        "ragvue.retrieval_relevance",
        "ragvue.retrieval_coverage",
        "ragvue.strict_faithfulness",
        "ragvue.answer_completeness",
        "ragvue.clarity",
    ] {
        ok(store, run_id, item_id, metric, 1.0);
    }
}

#[test]
fn stored_summary_names_hallucination_with_the_contradicted_item_as_worst_example() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let dataset = import(&mut store, dir.path(), DATA);
    let (run_id, ids) = plan_ragvue_run(&mut store, dataset, &["ragvue"]);
    let (paris, moon, eiffel, mont_blanc) = (ids[0], ids[1], ids[2], ids[3]);

    healthy(&store, run_id, paris);
    // The Moon answer contradicts its only passage: nothing it says is supported.
    ok(&store, run_id, moon, "ragvue.retrieval_relevance", 1.0);
    ok(&store, run_id, moon, "ragvue.retrieval_coverage", 1.0);
    ok(&store, run_id, moon, "ragvue.strict_faithfulness", 0.0);
    ok(&store, run_id, moon, "ragvue.clarity", 0.9);
    ok(&store, run_id, moon, "ragvue.token_overlap", 0.2);
    // Wrong year and wrong person: one of the answer's claims holds, so it is less bad.
    ok(&store, run_id, eiffel, "ragvue.strict_faithfulness", 0.4);
    // Every judged metric failed on Mont Blanc: errors are not evidence of anything.
    let failed = MetricResult::error("ragvue.strict_faithfulness", "judge timed out");
    store::results::insert(store.conn(), run_id, mont_blanc, JUDGE, &failed).unwrap();

    analysis::summarize_and_store(&mut store, run_id).unwrap();
    let summary = analysis::load_summary(&mut store, run_id).unwrap();
    let diagnosis = summary
        .diagnosis
        .expect("a run with judged RAGVUE metrics is diagnosed");

    assert_eq!(
        diagnosis.items_checked, 3,
        "Mont Blanc has only an error, so it cannot be checked"
    );
    assert_eq!(diagnosis.items_with_patterns, 2);
    assert_eq!(diagnosis.primary_stage, Some(Stage::Grounding));
    let c = diagnosis
        .patterns
        .iter()
        .find(|p| p.pattern == FailurePattern::Hallucination)
        .expect("pattern C");
    assert_eq!((c.letter, c.count), ('C', 2));
    let examples: Vec<i64> = c.examples.iter().map(|e| e.item_id).collect();
    assert_eq!(
        examples,
        vec![moon, eiffel],
        "worst first: faithfulness 0.0 before 0.4"
    );
    assert_eq!(
        c.examples[0].supporting[0].metric, "ragvue.token_overlap",
        "judge-free evidence rides along"
    );
    assert_eq!(
        diagnosis.patterns.len(),
        1,
        "no other rule had its inputs and fired"
    );

    assert_the_first_action_fixes_hallucination_quoting(&diagnosis, moon);

    assert_eq!(
        diagnosis::item_patterns(&store, run_id, moon).unwrap(),
        vec![FailurePattern::Hallucination]
    );
    assert!(diagnosis::item_patterns(&store, run_id, paris)
        .unwrap()
        .is_empty());
    assert!(
        diagnosis::item_patterns(&store, run_id, mont_blanc)
            .unwrap()
            .is_empty(),
        "an error fires nothing"
    );
}

/// The diagnosis's first action is for hallucination, of high impact, and quotes the
/// Moon question (item `moon`) as its example.
fn assert_the_first_action_fixes_hallucination_quoting(
    diagnosis: &diagnosis::Diagnosis,
    moon: i64,
) {
    let action = &diagnosis.actions[0];
    assert_eq!(action.pattern, Some(FailurePattern::Hallucination));
    assert_eq!(
        action.impact,
        diagnosis::Impact::High,
        "2 of 3 checked items is far above 15%"
    );
    let example = action
        .example
        .as_ref()
        .expect("the action quotes a real question");
    assert_eq!(
        (example.item_id, example.question.as_str()),
        (moon, MOON_QUESTION)
    );
}

#[test]
fn ok_scores_come_grouped_by_item_in_run_order_without_errors() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let dataset = import(&mut store, dir.path(), DATA);
    let (run_id, ids) = plan_ragvue_run(&mut store, dataset, &["ragvue"]);
    // Inserted out of run order, and one cell under two judge configurations.
    ok(&store, run_id, ids[2], "ragvue.clarity", 0.8);
    ok(&store, run_id, ids[0], "ragvue.clarity", 0.2);
    let other = MetricResult::ok("ragvue.clarity", 0.6, "", serde_json::Value::Null);
    store::results::insert(store.conn(), run_id, ids[0], "openai:gpt@0", &other).unwrap();
    let failed = MetricResult::error("ragvue.clarity", "boom");
    store::results::insert(store.conn(), run_id, ids[1], JUDGE, &failed).unwrap();
    ok(&store, run_id, ids[1], "ragvue.coherence", 0.5);
    ok(&store, run_id, ids[1], "ragvue.readability", 0.5); // not asked for below

    let rows = store::results::ok_scores_by_item(
        store.conn(),
        run_id,
        &["ragvue.clarity", "ragvue.coherence"],
    )
    .unwrap();
    let got: Vec<(i64, Vec<(&str, f64)>)> = rows
        .iter()
        .map(|r| {
            (
                r.item_id,
                r.scores
                    .iter()
                    .map(|(m, s)| (m.as_str(), (s * 100.0).round() / 100.0))
                    .collect(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (ids[0], vec![("ragvue.clarity", 0.4)]), // mean of 0.2 and 0.6: one score per cell
            (ids[1], vec![("ragvue.coherence", 0.5)]), // the errored clarity is absent
            (ids[2], vec![("ragvue.clarity", 0.8)]),
        ],
        "run order, ok scores only, only the metrics asked for"
    );
}

#[test]
fn clean_run_gets_a_note_instead_of_an_empty_action_list() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let dataset = import(&mut store, dir.path(), DATA);
    let (run_id, ids) = plan_ragvue_run(&mut store, dataset, &["ragvue"]);
    for id in &ids {
        healthy(&store, run_id, *id);
    }
    let diagnosis = analysis::summarize(&store, run_id)
        .unwrap()
        .diagnosis
        .unwrap();
    assert!(diagnosis.patterns.is_empty());
    assert_eq!(diagnosis.primary_stage, None);
    assert_eq!(
        (diagnosis.items_checked, diagnosis.items_with_patterns),
        (4, 0)
    );
    assert_eq!(diagnosis.actions.len(), 1);
    // Only five of the metrics the patterns read were scored: B, D, F and I could not be
    // checked, and the note says so rather than giving a clean bill of health (E and J
    // apply only to some data, so their absence is not listed).
    assert_eq!(
        diagnosis.unchecked,
        vec![
            FailurePattern::ContextIgnored,
            FailurePattern::OverConfidence,
            FailurePattern::SubtleDistortion,
            FailurePattern::WrongRefusal
        ]
    );
    let note = &diagnosis.actions[0];
    assert_eq!(
        note.title,
        "No failure found among the patterns that could be checked"
    );
    assert!(note
        .whats_wrong
        .contains("4 of the 10 patterns could not be checked"));
}

#[test]
fn runs_without_judged_ragvue_metrics_have_no_diagnosis() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let dataset = import(&mut store, dir.path(), DATA);
    let (run_id, ids) = plan_ragvue_run(
        &mut store,
        dataset,
        &["ragvue.token_overlap", "ragvue.readability"],
    );
    ok(&store, run_id, ids[0], "ragvue.token_overlap", 0.0);
    let summary = analysis::summarize(&store, run_id).unwrap();
    assert_eq!(
        summary.diagnosis, None,
        "judge-free signals alone cannot diagnose anything"
    );
}

#[test]
fn summaries_stored_before_the_diagnosis_existed_still_load() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let dataset = import(&mut store, dir.path(), DATA);
    let (run_id, _) = plan_ragvue_run(&mut store, dataset, &["ragvue"]);
    let mut old = serde_json::to_value(analysis::summarize(&store, run_id).unwrap()).unwrap();
    old.as_object_mut().unwrap().remove("diagnosis");
    store::analyses::put(store.conn(), run_id, analysis::SUMMARY, &old).unwrap();
    let loaded = analysis::load_summary(&mut store, run_id).unwrap();
    assert_eq!(
        loaded.diagnosis, None,
        "#[serde(default)] keeps old summaries readable"
    );
}

/// The rules read negative rejection's decisions (did the answer decline, did the passages
/// hold an answer) from the stored details, as booleans only, and only from `ok` results.
#[test]
fn negative_rejection_decisions_reach_the_rules_from_stored_details() {
    use diagnosis::patterns::{ANSWER_DECLINED, NEGATIVE_REJECTION, PASSAGES_HELD_ANSWER};
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("home")).unwrap();
    let dataset = import(&mut store, dir.path(), DATA);
    let (run_id, items) = plan_ragvue_run(&mut store, dataset, &[NEGATIVE_REJECTION]);
    let stored = |item: i64, details: serde_json::Value, ok: bool| {
        let result = if ok {
            MetricResult::ok(NEGATIVE_REJECTION, 0.0, "set by the test", details)
        } else {
            let mut r = MetricResult::error(NEGATIVE_REJECTION, "the judge failed");
            r.details = details;
            r
        };
        assert!(store::results::insert(store.conn(), run_id, item, JUDGE, &result).unwrap());
    };
    stored(
        items[0],
        serde_json::json!({"answer_abstains": true, "contexts_sufficient": false}),
        true,
    );
    stored(
        items[1],
        serde_json::json!({"answer_abstains": "yes"}),
        true,
    );
    stored(
        items[2],
        serde_json::json!({"answer_abstains": true}),
        false,
    );
    stored(
        items[3],
        serde_json::json!({"contexts_sufficient": true}),
        true,
    );
    let mut seen = std::collections::BTreeMap::new();
    diagnosis::for_each_rule_scores(store.conn(), run_id, |item| {
        seen.insert(item.item_id, item.scores);
    })
    .unwrap();
    let facts = |item: i64| {
        seen.get(&item).map(|scores| {
            (
                scores.get(ANSWER_DECLINED).copied(),
                scores.get(PASSAGES_HELD_ANSWER).copied(),
            )
        })
    };
    assert_eq!(facts(items[0]), Some((Some(1.0), Some(0.0))));
    assert_eq!(
        facts(items[1]),
        Some((None, None)),
        "a string is not a decision"
    );
    assert_eq!(facts(items[2]), None, "an error decides nothing");
    assert_eq!(facts(items[3]), Some((None, Some(1.0))));
}
