//! The judge check end to end in-process: the shipped labelled sample through the
//! offline judge (words and anchors only, the judge every install has), the figures
//! stored in a real SQLite file, and a report's methodology citing them.

use std::path::Path;
use std::sync::Arc;

use ragnosis_core::dataset::ImportLimits;
use ragnosis_core::judge::offline::{self, OfflineJudge};
use ragnosis_core::judge_check::{self, CheckTask, DiagnosisFigure, JudgeCheck, Measure};
use ragnosis_core::progress::{CancelToken, NoProgress, Progress, RecordedProgress};
use ragnosis_core::run::{self, Mode, RunRequest};
use ragnosis_core::store::Store;
use ragnosis_core::view::{ReportOptions, ReportView};

fn lexical_check() -> (JudgeCheck, Vec<Progress>) {
    let progress = Arc::new(RecordedProgress::default());
    let check = judge_check::run(
        "offline",
        Arc::new(OfflineJudge::default()),
        progress.clone(),
        &CancelToken::new(),
    )
    .unwrap();
    let events = progress.0.lock().unwrap().clone();
    (check, events)
}

#[test]
fn offline_judge_check_measures_every_task_against_human_labels() {
    let (check, events) = lexical_check();
    assert_every_task_judged_with_a_figure(&check);
    // What the dev sets measured for the word-level judge: clearly above chance on
    // attribution, so a broken claim pipeline (everything unsupported) cannot pass.
    let begin = check
        .task(CheckTask::Attribution)
        .unwrap()
        .estimate
        .unwrap();
    assert!(begin.ci_low > 0.6, "BEGIN attribution agreement {begin:?}");
    assert_eq!(check.claims_n, 180);
    assert!(check.claims.unwrap().value > 0.6, "{:?}", check.claims);
    assert_eq!(
        check.prompt_versions,
        vec![offline::PROMPT_VERSION.to_string()]
    );
    assert_eq!(check.judge_config, "offline");

    assert_the_designed_shapes_are_named(&check.diagnosis);

    assert!(
        matches!(
            events.first(),
            Some(Progress::Started {
                total: Some(355),
                ..
            })
        ),
        "{:?}",
        events.first()
    );
    let advanced = events
        .iter()
        .filter(|e| matches!(e, Progress::Advanced { .. }))
        .count();
    assert_eq!(advanced, 355, "one step per case");
    assert!(check.headline().contains("n = 180"), "{}", check.headline());
}

/// Every task judged on its 60 cases with no error, with a figure inside its interval,
/// by the task's measure (Spearman for similarity).
fn assert_every_task_judged_with_a_figure(check: &JudgeCheck) {
    for task in CheckTask::ALL {
        let figure = check.task(task).unwrap();
        assert_eq!(
            (figure.n, figure.errors),
            (60, 0),
            "{task:?}: every case judged"
        );
        let e = figure
            .estimate
            .unwrap_or_else(|| panic!("{task:?} has a figure"));
        assert!(
            e.ci_low <= e.value && e.value <= e.ci_high,
            "{task:?}: {e:?}"
        );
        assert_eq!(figure.measure, task.measure());
    }
    assert_eq!(
        check.task(CheckTask::Similarity).unwrap().measure,
        Measure::Spearman
    );
}

/// The designed-failure figures of the word-level judge: which shapes it names, at
/// least how often, and the letters each shape expects.
fn assert_the_designed_shapes_are_named(d: &DiagnosisFigure) {
    assert_eq!((d.designed, d.good), (50, 5));
    let shape = |name: &str| {
        d.shapes
            .iter()
            .find(|s| s.shape == name)
            .unwrap_or_else(|| panic!("shape {name}"))
    };
    // Passages from other articles are the failure the word-level judge sees best.
    assert_eq!(
        shape("retrieval_miss").named,
        5,
        "{:?}",
        shape("retrieval_miss")
    );
    assert_eq!(shape("retrieval_miss").expected, "A");
    assert_eq!(shape("correct_abstention").expected, "not C, D, H or I");
    // Floors from the rules that catch them (an opposite word, a value swapped within the
    // restated sentence): before those rules both shapes were named 0 of 5 times.
    assert!(
        shape("reversed_fact").named >= 3,
        "{:?}",
        shape("reversed_fact")
    );
    assert!(
        shape("swapped_entity").named >= 1,
        "{:?}",
        shape("swapped_entity")
    );
    // The shapes of one pattern each: an answer drawn from outside the passages (B) and
    // a negated restatement (F).
    assert_eq!(shape("context_ignored").expected, "B");
    assert_eq!(shape("negated_fact").expected, "F");
    assert!(
        shape("negated_fact").named >= 3,
        "{:?}",
        shape("negated_fact")
    );
    assert!(d.named <= d.designed && d.false_alarms <= d.good);
}

/// The RAGVUE examples evaluated agentically by the lexical offline judge (so the run's
/// prompt version is the one `lexical_check` records), in a fresh home; the run's id.
fn evaluated_example(store: &mut Store) -> i64 {
    evaluated_example_by(store, OfflineJudge::default())
}

fn evaluated_example_by(store: &mut Store, judge: OfflineJudge) -> i64 {
    let example =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/examples/ragvue/agentic.jsonl");
    let limits = ImportLimits::default();
    let imported =
        ragnosis_core::import::import_file(store, &example, Some("ragvue"), &limits, &NoProgress)
            .unwrap();
    let request = RunRequest {
        dataset_id: imported.dataset.id,
        mode: Mode::Agentic,
        ..Default::default()
    };
    run::evaluate(
        store,
        &request,
        Arc::new(judge),
        Arc::new(NoProgress),
        &CancelToken::new(),
    )
    .unwrap()
    .run_id
}

#[test]
fn a_report_cites_the_judge_check_of_the_judge_that_scored_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let run_id = evaluated_example(&mut store);
    let options = ReportOptions {
        generated_at: "2026-11-23T00:00:00Z".into(),
        worst: 3,
        baseline: None,
        threshold: 0.05,
        ..ReportOptions::default()
    };

    let before = ReportView::load(&store, run_id, &options).unwrap();
    assert!(
        before.methodology.judge_check.starts_with("No judge check"),
        "{}",
        before.methodology.judge_check
    );

    let (check, _) = lexical_check();
    check.save(store.conn()).unwrap();
    let stored = judge_check::latest_for_config(store.conn(), "offline")
        .unwrap()
        .unwrap();
    // JSON keeps floats to within their last bit, so compare what people read.
    assert_eq!(
        (stored.headline(), &stored.diagnosis, stored.claims_n),
        (check.headline(), &check.diagnosis, check.claims_n)
    );
    let by_profile = judge_check::latest_for_profile(store.conn(), "offline")
        .unwrap()
        .unwrap();
    assert_eq!(by_profile.checked_at, check.checked_at);

    let after = ReportView::load(&store, run_id, &options).unwrap();
    assert!(
        after.methodology.judge_check.contains(&check.headline()),
        "{}",
        after.methodology.judge_check
    );

    // A check of another prompt version (the semantic offline judge) is not cited.
    let mut other = check.clone();
    other.prompt_versions = vec![offline::SEMANTIC_PROMPT_VERSION.to_string()];
    let dir2 = tempfile::tempdir().unwrap();
    let mut store2 = Store::open(dir2.path()).unwrap();
    let run2 = evaluated_example(&mut store2);
    other.save(store2.conn()).unwrap();
    let view = ReportView::load(&store2, run2, &options).unwrap();
    assert!(
        view.methodology.judge_check.starts_with("No judge check"),
        "{}",
        view.methodology.judge_check
    );
}

/// A run the offline judge users get scored (learned, with the embedded model) cites the
/// judge check shipped with this build in a home where nobody ran a check.
#[test]
fn a_report_of_the_standard_offline_judge_cites_the_shipped_check() {
    if !matches!(
        ragnosis_core::semantic::availability(),
        ragnosis_core::semantic::Availability::Loaded { .. }
    ) {
        assert_ne!(std::env::var("RAGNOSIS_MODEL").as_deref(), Ok("required"));
        eprintln!("skipped: the embedded model is not installed");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let run_id = evaluated_example_by(&mut store, OfflineJudge::standard());
    let view = ReportView::load(&store, run_id, &ReportOptions::default()).unwrap();
    let shipped = judge_check::shipped::shipped();
    assert!(
        view.methodology.judge_check.contains(&shipped.headline()),
        "{}",
        view.methodology.judge_check
    );
}

/// A check describes the built-in judge only while its rules and learned coefficients
/// are the ones this build runs (the offline profile's model never changes, its
/// prompt version does).
#[test]
fn an_offline_check_of_an_older_judge_no_longer_describes_it() {
    let (check, _) = lexical_check();
    let offline_profile = ragnosis_core::judge::open::offline_profile();
    let mut current = check.clone();
    current.prompt_versions = vec![offline::current_prompt_version().to_string()];
    assert!(current.describes(&offline_profile));
    let mut older = check;
    older.prompt_versions = vec!["offline-3".to_string()];
    assert!(
        !older.describes(&offline_profile),
        "made with the rules of an older build"
    );
}
