//! Runs against a real SQLite file: persistence, cancel and resume, skipped versus
//! error, statistics, exports.

use std::path::Path;
use std::sync::Arc;

use ragnosis_core::dataset::ImportLimits;
use ragnosis_core::export::{self, ExportFormat};
use ragnosis_core::judge::offline::OfflineJudge;
use ragnosis_core::judge::Judge;
use ragnosis_core::metrics::Status;
use ragnosis_core::progress::{CancelToken, NoProgress, Progress, ProgressSink, RecordedProgress};
use ragnosis_core::run::{self, RunRequest};
use ragnosis_core::store::{self, runs::RunStatus, Store};
use ragnosis_core::view;

pub(crate) fn import(store: &mut Store, dir: &Path, lines: &str) -> i64 {
    let file = dir.join("data.jsonl");
    std::fs::write(&file, lines).unwrap();
    ragnosis_core::import::import_file(
        store,
        &file,
        Some("t"),
        &ImportLimits::default(),
        &NoProgress,
    )
    .unwrap()
    .dataset
    .id
}

pub(crate) fn items(n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "{{\"question\": \"What is item {i}?\", \"answer\": \"Item {i} is a bicycle part [ID: D{i}].\", \
                 \"ground_truth\": \"Item {i} is a bicycle part.\", \"gold_id\": \"D{i}\", \
                 \"contexts\": [\"Item {i} is a bicycle part sold by Northwind.\"]}}\n"
            )
        })
        .collect()
}

fn offline() -> Arc<dyn Judge> {
    Arc::new(OfflineJudge::default())
}

pub(crate) fn request(dataset_id: i64, metrics: &[&str]) -> RunRequest {
    RunRequest {
        dataset_id,
        metrics: metrics.iter().map(|m| m.to_string()).collect(),
        ..Default::default()
    }
}

/// Plans and executes a run of `metrics` with the offline judge, no progress, no cancel.
pub(crate) fn evaluate_offline(
    store: &mut Store,
    dataset: i64,
    metrics: &[&str],
) -> run::RunOutcome {
    run::evaluate(
        store,
        &request(dataset, metrics),
        offline(),
        Arc::new(NoProgress),
        &CancelToken::new(),
    )
    .unwrap()
}

/// Executes the run to its end, with no progress shown and no cancel.
pub(crate) fn run_to_end(store: &mut Store, run_id: i64, judge: Arc<dyn Judge>) -> run::RunOutcome {
    run::execute(
        store,
        run_id,
        judge,
        Arc::new(NoProgress),
        &CancelToken::new(),
    )
    .unwrap()
}

/// The run's report model with the default options.
fn report(store: &Store, run_id: i64) -> view::ReportView {
    view::ReportView::load(store, run_id, &view::ReportOptions::default()).unwrap()
}

/// The run's trust statement, as every output prints it.
fn trust_sentences(store: &mut Store, run_id: i64) -> Vec<String> {
    view::ReportView::load(store, run_id, &view::ReportOptions::default())
        .unwrap()
        .trust
        .sentences
}

/// Cancels the run as soon as the first commit has happened.
struct CancelAfterFirstBatch(CancelToken);

impl ProgressSink for CancelAfterFirstBatch {
    fn report(&self, event: Progress) {
        if matches!(event, Progress::Advanced { .. }) {
            self.0.cancel();
        }
    }
}

#[test]
fn cancelled_run_resumes_without_duplicating_results() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let dataset = import(&mut store, dir.path(), &items(600));
    let run_id = run::plan(
        &mut store,
        &request(dataset, &["reference.token_f1", "citation.strict_accuracy"]),
    )
    .unwrap();

    let cancel = CancelToken::new();
    let first = run::execute(
        &mut store,
        run_id,
        offline(),
        Arc::new(CancelAfterFirstBatch(cancel.clone())),
        &cancel,
    )
    .unwrap();
    assert_eq!(first.status, RunStatus::Cancelled);
    assert!(
        first.written > 0 && first.written < 1200,
        "a part was committed: {}",
        first.written
    );
    assert_eq!(
        first.written % 2,
        0,
        "items are committed whole: both metrics or neither"
    );
    assert_eq!(
        store::runs::get(store.conn(), run_id).unwrap().status,
        RunStatus::Cancelled
    );

    let resumed = run_to_end(&mut store, run_id, offline());
    assert_eq!(resumed.status, RunStatus::Done);
    assert_eq!(
        resumed.reused, first.written,
        "stored results are reused, not recomputed"
    );
    assert_eq!(
        first.written + resumed.written,
        1200,
        "600 items × 2 metrics, each exactly once"
    );
    let counts = store::results::status_counts(store.conn(), run_id).unwrap();
    assert_eq!(counts.values().sum::<i64>(), 1200);
}

/// The offline judge, until the user cancels after its first `answer_before` calls: the
/// calls in flight then, and any after, fail the way an in-flight HTTP call does ("the run
/// was cancelled"). Cancelling from inside the judge makes the moment deterministic.
struct CancelledMidRun {
    judge: OfflineJudge,
    answer_before: usize,
    calls: std::sync::atomic::AtomicUsize,
}

#[async_trait::async_trait]
impl Judge for CancelledMidRun {
    fn identity(&self) -> &ragnosis_core::judge::JudgeIdentity {
        self.judge.identity()
    }

    async fn judge(
        &self,
        task: &ragnosis_core::judge::task::Task,
        ctx: &ragnosis_core::judge::CallContext,
    ) -> Result<ragnosis_core::judge::Judgement, ragnosis_core::judge::JudgeError> {
        let call = self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        if call >= self.answer_before {
            ctx.cancel.cancel();
        }
        if ctx.cancel.is_cancelled() {
            return Err(ragnosis_core::judge::JudgeError::Cancelled);
        }
        self.judge.judge(task, ctx).await
    }
}

#[test]
fn a_resume_redoes_the_cells_a_cancel_left_as_errors() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let dataset = import(&mut store, dir.path(), &items(300));
    let metrics = ["ragvue.strict_faithfulness", "reference.token_f1"];
    let run_id = run::plan(&mut store, &request(dataset, &metrics)).unwrap();
    let cancel = CancelToken::new();
    let judge = CancelledMidRun {
        judge: OfflineJudge::default(),
        answer_before: 40,
        calls: Default::default(),
    };
    let first = run::execute(
        &mut store,
        run_id,
        Arc::new(judge),
        Arc::new(NoProgress),
        &cancel,
    )
    .unwrap();
    assert_eq!(first.status, RunStatus::Cancelled);
    let cancelled = store::results::error_pairs(store.conn(), run_id).unwrap();
    assert!(
        !cancelled.is_empty(),
        "items in flight at the cancel were stored with the cancellation error"
    );

    let resumed = run_to_end(&mut store, run_id, offline());
    assert_eq!(resumed.status, RunStatus::Done);
    assert!(
        store::results::error_pairs(store.conn(), run_id)
            .unwrap()
            .is_empty(),
        "every cancelled cell was judged again"
    );
    let counts = store::results::status_counts(store.conn(), run_id).unwrap();
    assert_eq!(
        counts.values().sum::<i64>(),
        600,
        "300 items × 2 metrics, one result each: {counts:?}"
    );
}

#[test]
fn a_megabyte_answer_is_judged_on_a_stated_beginning_and_reported_at_import() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let answer = "The library opens at nine on weekdays. ".repeat(30_000);
    let line = serde_json::json!({
        "question": "When does the library open?",
        "answer": answer,
        "contexts": ["The library is open Monday to Friday from 9 am to 8 pm."],
    });
    let file = dir.path().join("long.jsonl");
    std::fs::write(&file, format!("{line}\n")).unwrap();
    let imported = ragnosis_core::import::import_file(
        &mut store,
        &file,
        Some("long"),
        &ImportLimits::default(),
        &NoProgress,
    )
    .unwrap();
    assert!(
        imported.report.warnings.iter().any(|w| w
            .message
            .contains("the answer has 1170000 characters; judges read its first 20000")),
        "{:?}",
        imported.report.warnings
    );
    let run_id = run::plan(
        &mut store,
        &request(
            imported.dataset.id,
            &["ragvue.strict_faithfulness", "ragvue.answer_length"],
        ),
    )
    .unwrap();
    let outcome = run_to_end(&mut store, run_id, offline());
    assert_eq!(outcome.status, RunStatus::Done);
    let item = store::run_items::item_ids(store.conn(), run_id).unwrap()[0];
    for stored in store::results::for_item(store.conn(), run_id, item).unwrap() {
        let r = stored.result;
        assert_eq!(r.status, Status::Ok, "{}: {}", r.metric, r.explanation);
        assert!(
            r.explanation
                .contains("Judged on shortened text: answer to its first"),
            "{}: {}",
            r.metric,
            r.explanation
        );
        assert_eq!(r.details["shortened"][0]["chars"], 1_170_000);
    }
}

#[test]
fn missing_fields_are_skipped_with_a_reason_not_scored_zero() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let dataset = import(
        &mut store,
        dir.path(),
        "{\"question\": \"q\", \"answer\": \"the answer\", \"ground_truth\": \"the answer\"}\n{\"question\": \"q2\", \"answer\": \"x\"}\n",
    );
    let outcome = evaluate_offline(&mut store, dataset, &["exact_match"]);
    let cells =
        store::results::scores(store.conn(), outcome.run_id, "reference.exact_match").unwrap();
    assert_eq!(cells[0].score, Some(1.0));
    assert_eq!(cells[1].status, Status::Skipped);
    assert_eq!(cells[1].score, None);
    let summary = ragnosis_core::analysis::load_summary(&mut store, outcome.run_id).unwrap();
    let stats = &summary.metrics["reference.exact_match"].stats;
    assert_eq!(
        (stats.n, stats.skipped, stats.mean),
        (1, 1, Some(1.0)),
        "the skipped item does not drag the mean to 0.5"
    );
}

#[test]
fn metric_errors_are_counted_and_grouped_not_averaged() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let dataset = import(&mut store, dir.path(), &items(3));
    let mut req = request(dataset, &["citation.strict_accuracy"]);
    req.metric_config.citation_pattern = "([unclosed".into();
    let outcome = run::evaluate(
        &mut store,
        &req,
        offline(),
        Arc::new(NoProgress),
        &CancelToken::new(),
    )
    .unwrap();
    let summary = ragnosis_core::analysis::load_summary(&mut store, outcome.run_id).unwrap();
    let stats = &summary.metrics["citation.strict_accuracy"].stats;
    assert_eq!((stats.n, stats.errors), (0, 3));
    assert_eq!(
        stats.mean, None,
        "a metric that failed everywhere has no mean"
    );
    assert_eq!(summary.errors.len(), 1, "identical failures are grouped");
    assert_eq!(summary.errors[0].count, 3);
}

#[test]
fn progress_reports_advancing_counts_up_to_the_total() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let dataset = import(&mut store, dir.path(), &items(300));
    let recorded = Arc::new(RecordedProgress::default());
    run::evaluate(
        &mut store,
        &request(dataset, &["bleu"]),
        offline(),
        recorded.clone(),
        &CancelToken::new(),
    )
    .unwrap();
    let events = recorded.0.lock().unwrap();
    let done: Vec<u64> = events
        .iter()
        .filter_map(|e| match e {
            Progress::Advanced {
                done,
                total: Some(300),
            } => Some(*done),
            _ => None,
        })
        .collect();
    assert_eq!(done.last(), Some(&300));
    assert!(
        done.windows(2).all(|w| w[0] <= w[1]),
        "progress never goes backwards: {done:?}"
    );
}

#[test]
fn json_export_keeps_hostile_text_exact() {
    // Its Markdown rendering is the report crate's, tested there (structure.rs).
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let dataset = import(
        &mut store,
        dir.path(),
        "{\"question\": \"<script>alert(1)</script> | *bold*\", \"answer\": \"nope\", \"ground_truth\": \"yes\"}\n",
    );
    let outcome = evaluate_offline(&mut store, dataset, &["token_f1"]);
    let base = dir.path().join("out/r");
    let written = export::write_all(
        &store,
        &report(&store, outcome.run_id),
        &base,
        &[ExportFormat::Json],
    )
    .unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&written[0]).unwrap()).unwrap();
    assert_eq!(
        json["items"][0]["question"], "<script>alert(1)</script> | *bold*",
        "JSON keeps the exact text"
    );
}

#[test]
fn a_csv_export_opens_formula_text_as_text_and_the_json_keeps_it_exact() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let dataset = import(
        &mut store,
        dir.path(),
        "{\"id\": \"@evil\", \"question\": \"=HYPERLINK(\\\"http://x.test\\\",\\\"click\\\")\", \"answer\": \"nope\", \"ground_truth\": \"yes\"}\n",
    );
    let outcome = evaluate_offline(&mut store, dataset, &["token_f1"]);
    let base = dir.path().join("out/r");
    let written = export::write_all(
        &store,
        &report(&store, outcome.run_id),
        &base,
        &[ExportFormat::Csv, ExportFormat::Json],
    )
    .unwrap();
    let csv = std::fs::read_to_string(&written[0]).unwrap();
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let row = reader.records().next().unwrap().unwrap();
    assert_eq!(&row[2], "'@evil", "the id opens as text");
    assert_eq!(
        &row[3], "'=HYPERLINK(\"http://x.test\",\"click\")",
        "the question opens as text"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&written[1]).unwrap()).unwrap();
    assert_eq!(
        json["items"][0]["question"],
        "=HYPERLINK(\"http://x.test\",\"click\")"
    );
}

#[test]
fn a_run_found_running_after_a_crash_resumes_to_done() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let dataset = import(&mut store, dir.path(), &items(10));
    let run_id = run::plan(&mut store, &request(dataset, &["bleu"])).unwrap();
    // What a killed process leaves: status `running` and no end time.
    store::runs::mark_started(store.conn(), run_id).unwrap();
    drop(store);
    let mut store = Store::open(dir.path()).unwrap();
    let outcome = run_to_end(&mut store, run_id, offline());
    assert_eq!((outcome.status, outcome.written), (RunStatus::Done, 10));
}

#[test]
fn ragchecker_precision_and_recall_do_not_need_contexts() {
    // They compare the answer with the ground truth only; the chunk metrics still skip.
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let line = r#"{"question": "Who wrote Hamlet?", "answer": "William Shakespeare wrote Hamlet.", "ground_truth": "Hamlet was written by William Shakespeare."}"#;
    let dataset = import(&mut store, dir.path(), &format!("{line}\n"));
    let run_id = run::plan(&mut store, &request(dataset, &["ragchecker"])).unwrap();
    run_to_end(&mut store, run_id, offline());
    let item_id = store::run_items::item_ids(store.conn(), run_id).unwrap()[0];
    let results = store::results::for_item(store.conn(), run_id, item_id).unwrap();
    let status = |metric: &str| {
        results
            .iter()
            .find(|r| r.result.metric == metric)
            .map(|r| r.result.status)
    };
    for metric in ["ragchecker.precision", "ragchecker.recall", "ragchecker.f1"] {
        assert_eq!(status(metric), Some(Status::Ok), "{metric}: {results:?}");
    }
    assert_eq!(
        status("ragchecker.claim_recall"),
        Some(Status::Skipped),
        "needs chunks"
    );
}

#[test]
fn judged_results_record_the_prompt_version_that_judged_them() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let dataset = import(&mut store, dir.path(), &items(3));
    let run_id = run::plan(
        &mut store,
        &request(dataset, &["ragvue.clarity", "reference.token_f1"]),
    )
    .unwrap();
    run_to_end(&mut store, run_id, offline());
    assert_eq!(
        store::results::prompt_versions(store.conn(), run_id).unwrap(),
        [ragnosis_core::judge::offline::PROMPT_VERSION],
        "the lexical offline judge judged clarity; token F1 needs no judge and records none"
    );
}

/// Pass / fail labels on a metric give the run's pass rate corrected for the judge's own
/// errors on them, and the trust statement says so with its interval. The expected rate
/// is worked out here from the stored scores and labels (Rogan–Gladen).
#[test]
fn pass_fail_labels_correct_the_pass_rate_in_the_trust_statement() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("home")).unwrap();
    // A third of the answers are off: the judge (token F1) fails those.
    let lines: String = items(30)
        .lines()
        .enumerate()
        .map(|(i, line)| {
            if i % 3 == 2 {
                line.replacen("\"answer\": \"Item", "\"answer\": \"Nothing about item", 1)
                    .replacen("is a bicycle part [ID", "was never sold here [ID", 1)
                    + "\n"
            } else {
                format!("{line}\n")
            }
        })
        .collect();
    let dataset = import(&mut store, dir.path(), &lines);
    let id = evaluate_offline(&mut store, dataset, &["reference.token_f1"]).run_id;
    let keys = store::run_items::keys(store.conn(), id).unwrap();
    let scores = store::results::scores(store.conn(), id, "reference.token_f1").unwrap();
    let score_of = |item_id: i64| {
        scores
            .iter()
            .find(|s| s.item_id == item_id)
            .and_then(|s| s.score)
            .unwrap()
    };
    // People fail the off answers and pass the rest, but for two they judge otherwise.
    let mut pairs = Vec::new();
    for (i, key) in keys.iter().enumerate().take(20) {
        let off = i % 3 == 2;
        let label = if off != (i == 0 || i == 5) { 0.0 } else { 1.0 };
        store::human_labels::upsert(
            store.conn(),
            &key.content_hash,
            "reference.token_f1",
            label,
            None,
            "test",
        )
        .unwrap();
        pairs.push((score_of(key.item_id), label));
    }
    let all: Vec<f64> = keys.iter().map(|k| score_of(k.item_id)).collect();
    let alignment = ragnosis_core::trust::alignment::align(&store, id).unwrap();
    let m = &alignment.metrics[0];
    let positives = pairs.iter().filter(|(_, l)| *l == 1.0).count() as f64;
    let tpr = pairs.iter().filter(|(s, l)| *l == 1.0 && *s >= 0.5).count() as f64 / positives;
    let tnr = pairs.iter().filter(|(s, l)| *l == 0.0 && *s < 0.5).count() as f64
        / (pairs.len() as f64 - positives);
    let q = all.iter().filter(|s| **s >= 0.5).count() as f64 / 30.0;
    assert!(
        tpr + tnr - 1.0 > 0.5,
        "the judge separates the labels: TPR {tpr}, TNR {tnr}"
    );
    let c = m
        .corrected
        .as_ref()
        .expect("pass / fail labels of both kinds");
    let expected = ((q + tnr - 1.0) / (tpr + tnr - 1.0)).clamp(0.0, 1.0);
    assert!(
        (c.corrected.value - expected).abs() < 1e-12,
        "{c:?} against {expected}"
    );
    let trust = trust_sentences(&mut store, id);
    assert!(
        trust
            .iter()
            .any(|s| s.contains("Corrected for the judge's errors on 20 labelled items")),
        "{trust:?}"
    );
}

#[test]
fn a_dataset_whose_import_was_killed_is_refused_not_evaluated() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    // What a kill mid-import leaves: the dataset row, some items, never marked ready.
    let whole = import(&mut store, dir.path(), &items(3));
    let cut = store::datasets::insert(store.conn(), "cut", Some("cut.jsonl")).unwrap();
    let err = run::plan(&mut store, &request(cut, &["token_f1"])).unwrap_err();
    assert_eq!(err.code(), ragnosis_core::ErrorCode::Invalid);
    assert!(
        err.to_string().contains("incomplete") && err.to_string().contains("import the file again"),
        "{err}"
    );
    assert!(run::plan(&mut store, &request(whole, &["token_f1"])).is_ok());
}

/// An item in German judged by the built-in offline judge, whose rules read English:
/// its judged metrics are not measured (never scored near 0 and called failures), its
/// judge-free ones are, an English item beside it is judged as usual, and the trust
/// statement says why.
#[test]
fn an_item_the_offline_judge_cannot_read_is_not_measured_rather_than_failed() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("home")).unwrap();
    let lines = concat!(
        r#"{"id": "de-1", "question": "Wie lange ist die Garantie auf den Rahmen und was ist nicht abgedeckt?", "answer": "Der Rahmen hat zehn Jahre Garantie, die nicht für den Akku gilt.", "contexts": ["Die Garantie auf den Rahmen beträgt zehn Jahre. Der Akku ist nicht eingeschlossen und hat zwei Jahre Garantie."]}"#,
        "\n",
        r#"{"id": "en-1", "question": "How long is the warranty on the frame?", "answer": "The frame has a ten-year warranty.", "contexts": ["The frame is under warranty for ten years."]}"#,
        "\n"
    );
    let dataset = import(&mut store, dir.path(), lines);
    let id = evaluate_offline(
        &mut store,
        dataset,
        &["ragvue.strict_faithfulness", "ragvue.token_overlap"],
    )
    .run_id;
    let results = |metric| store::results::scores(store.conn(), id, metric).unwrap();
    let faithfulness = results("ragvue.strict_faithfulness");
    let skipped: Vec<_> = faithfulness
        .iter()
        .filter(|r| r.status == Status::Skipped)
        .collect();
    assert_eq!(skipped.len(), 1, "only the German item: {faithfulness:?}");
    assert!(
        faithfulness.iter().any(|r| r.status == Status::Ok),
        "the English item is judged"
    );
    assert!(
        results("ragvue.token_overlap")
            .iter()
            .all(|r| r.status == Status::Ok),
        "judge-free metrics read any language"
    );
    let view = report(&store, id).run;
    let reasons = &view.summary.metrics["ragvue.strict_faithfulness"].skip_reasons;
    assert!(
        reasons
            .iter()
            .any(|(r, n)| *n == 1 && r.contains("reads as de") && r.contains("English only")),
        "{reasons:?}"
    );
    let trust = trust_sentences(&mut store, id);
    assert!(
        trust
            .iter()
            .any(|s| s.starts_with("1 item(s) are not in English")),
        "{trust:?}"
    );
}

/// A finished run leaves the case list ready: its case index and its dataset's search
/// index are built at the end of the run (a stage the progress names), not on the first
/// open of the Results screen.
#[test]
fn a_finished_run_indexes_its_cases_before_it_returns() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("home")).unwrap();
    let dataset = import(&mut store, dir.path(), &items(6));
    let recorded = Arc::new(RecordedProgress::default());
    let outcome = run::evaluate(
        &mut store,
        &request(dataset, &["bleu"]),
        offline(),
        recorded.clone(),
        &CancelToken::new(),
    )
    .unwrap();
    let indexing = recorded
        .0
        .lock()
        .unwrap()
        .iter()
        .any(|e| matches!(e, Progress::Started { stage, .. } if stage == "indexing cases"));
    assert!(indexing, "the progress says the cases are being indexed");
    assert!(
        store::analyses::get(store.conn(), outcome.run_id, "case_index")
            .unwrap()
            .is_some(),
        "the case index is stamped"
    );
    let searchable: bool = store
        .conn()
        .query_row(
            "SELECT EXISTS (SELECT 1 FROM item_search_datasets WHERE dataset_id = ?1)",
            [dataset],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        searchable,
        "the dataset's questions and answers are searchable"
    );
}

/// A report reads a finished run's kept figures instead of every result again: the score
/// histograms come with the stored statistics, the worst items from the case index, and
/// both agree with a count made here from the results themselves.
#[test]
fn a_report_reads_histograms_and_worst_items_kept_with_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("home")).unwrap();
    // Answers that drift away from the truth, so the scores spread over several bins.
    let lines: String = (0..20)
        .map(|i| {
            let answer = if i % 3 == 0 {
                format!("Item {i} is a bicycle part.")
            } else {
                format!(
                    "Item {i} is something else entirely, {} words later.",
                    i * 2
                )
            };
            format!(
                "{{\"question\": \"What is item {i}?\", \"answer\": \"{answer}\", \
                 \"ground_truth\": \"Item {i} is a bicycle part.\"}}\n"
            )
        })
        .collect();
    let dataset = import(&mut store, dir.path(), &lines);
    let outcome = evaluate_offline(&mut store, dataset, &["token_f1"]);
    let run_id = outcome.run_id;

    let scores: Vec<f64> = store::results::scores(store.conn(), run_id, "reference.token_f1")
        .unwrap()
        .into_iter()
        .filter_map(|c| c.score)
        .collect();
    assert_eq!(scores.len(), 20);
    let counted = ragnosis_core::analysis::histogram(scores.iter().copied());
    assert!(
        counted.iter().filter(|n| **n > 0).count() > 1,
        "the scores spread: {counted:?}"
    );
    let stored = ragnosis_core::analysis::load_summary(&mut store, run_id).unwrap();
    assert_eq!(
        stored.metrics["reference.token_f1"].histogram, counted,
        "the stored statistics carry the histogram"
    );

    let options = view::ReportOptions {
        worst: 3,
        ..Default::default()
    };
    let report = view::ReportView::load(&store, run_id, &options).unwrap();
    let line = report
        .metrics
        .iter()
        .find(|m| m.id == "reference.token_f1")
        .unwrap();
    assert_eq!(
        line.histogram, counted,
        "the report draws the kept histogram"
    );
    let mut lowest = scores.clone();
    lowest.sort_by(|a, b| a.total_cmp(b));
    let score_of = |item: &view::ItemView| item.results.iter().find_map(|r| r.score);
    let worst: Vec<f64> = report.run.worst.iter().filter_map(score_of).collect();
    assert_eq!(
        worst,
        lowest[..3].to_vec(),
        "the worst items are the lowest scores"
    );
}

#[test]
fn a_run_plan_times_itself_by_this_judges_last_runs_here_once_there_are_any() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let dataset = import(&mut store, dir.path(), &items(6));
    let profile = ragnosis_core::judge::open::offline_profile();
    let metrics = ["ragvue.clarity", "ragvue.answer_relevance"];
    let before = run::preview(&store, &request(dataset, &metrics), &profile).unwrap();
    assert!(
        before.duration.basis.starts_with("assumed"),
        "{:?}",
        before.duration
    );
    let outcome = evaluate_offline(&mut store, dataset, &metrics);
    let run_row = store::runs::get(store.conn(), outcome.run_id).unwrap();
    let took = chrono::DateTime::parse_from_rfc3339(run_row.finished_at.as_deref().unwrap())
        .unwrap()
        - chrono::DateTime::parse_from_rfc3339(run_row.started_at.as_deref().unwrap()).unwrap();
    let after = run::preview(&store, &request(dataset, &metrics), &profile).unwrap();
    assert!(
        after.duration.basis.starts_with("measured")
            && after.duration.basis.contains("last 1 run "),
        "{:?}",
        after.duration
    );
    // The same work again: the measured run's own wall time.
    let expected = took.num_milliseconds() as f64 / 1000.0;
    assert!(
        (after.duration.secs - expected).abs() < 1e-6,
        "{} against {expected}",
        after.duration.secs
    );
}
