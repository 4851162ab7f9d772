//! Runs: one set of checks for a request, the judge before the run, resume's rules, the
//! status shown, the summary of a run not finished, and jobs in the background.

use std::sync::Arc;

use ragnosis_api::runs::{self, RunRequest, Status};
use ragnosis_api::{CancelToken, ErrorCode, NoProgress};

use crate::{home, refusal, Events, Home};

fn example(h: &Home) -> i64 {
    crate::datasets_example(h)
}

fn agentic(dataset_id: i64) -> RunRequest {
    RunRequest {
        dataset_id,
        mode: "agentic".into(),
        judge: "offline".into(),
        ..RunRequest::default()
    }
}

/// A cheap manual run: one metric, the offline judge.
fn cheap(dataset_id: i64) -> RunRequest {
    RunRequest {
        mode: "manual".into(),
        metrics: vec!["ragvue.clarity".into()],
        ..agentic(dataset_id)
    }
}

/// Requests each wrong in one way, with the code and words of their refusal: figures out
/// of range, a mode or pattern that cannot be read.
fn out_of_range(id: i64) -> Vec<(RunRequest, ErrorCode, &'static str)> {
    vec![
        (
            RunRequest {
                mode: "psychic".into(),
                ..agentic(id)
            },
            ErrorCode::Invalid,
            "unknown mode 'psychic': choose agentic, manual or retrieval_only",
        ),
        (
            RunRequest {
                limit: Some(0),
                ..agentic(id)
            },
            ErrorCode::Invalid,
            "limit and sample must be at least 1 item",
        ),
        (
            RunRequest {
                budget_usd: Some(f64::INFINITY),
                ..agentic(id)
            },
            ErrorCode::Invalid,
            "the budget must be an amount of USD, 0 or more; got inf",
        ),
        (
            RunRequest {
                budget_usd: Some(-1.0),
                ..agentic(id)
            },
            ErrorCode::Invalid,
            "the budget must be an amount of USD, 0 or more; got -1",
        ),
        (
            RunRequest {
                k: Some(0),
                ..agentic(id)
            },
            ErrorCode::Invalid,
            "k must be at least 1",
        ),
        (
            RunRequest {
                tau: Some(1.5),
                ..agentic(id)
            },
            ErrorCode::Invalid,
            "tau must be between 0 and 1, got 1.5",
        ),
        (
            RunRequest {
                citation_pattern: Some("([".into()),
                ..agentic(id)
            },
            ErrorCode::Invalid,
            "the citation pattern is not a valid regex",
        ),
    ]
}

/// Requests naming something that does not exist, or is not one of the choices.
fn unknown_names(id: i64) -> Vec<(RunRequest, ErrorCode, &'static str)> {
    vec![
        (
            RunRequest {
                weights: Some("mine".into()),
                ..agentic(id)
            },
            ErrorCode::Invalid,
            "unknown weight profile 'mine'",
        ),
        (
            RunRequest {
                metrics: vec![],
                ..cheap(id)
            },
            ErrorCode::MetricsSelection,
            "",
        ),
        (
            RunRequest {
                judge: "nobody".into(),
                ..agentic(id)
            },
            ErrorCode::NotFound,
            "judge profile nobody does not exist",
        ),
    ]
}

#[test]
fn an_invalid_request_is_refused_with_one_sentence_before_anything_is_stored() {
    let h = home();
    let id = example(&h);
    for (request, code, sentence) in out_of_range(id).into_iter().chain(unknown_names(id)) {
        // The same refusal whichever way the request comes: checked alone (the CLI,
        // before it reads a file), previewed, or started (the window).
        let checked = refusal(request.check(&h.ctx));
        let previewed = refusal(runs::preview(&h.ctx, &request));
        let planned = refusal(runs::plan(&h.ctx, &request).map(|p| p.run_id));
        assert_eq!(checked, previewed, "{request:?}");
        assert_eq!(checked, planned, "{request:?}");
        assert_eq!(checked.0, code, "{request:?}: {}", checked.1);
        assert!(checked.1.contains(sentence), "{}", checked.1);
    }
    assert!(runs::list(&h.ctx).unwrap().is_empty(), "no run was stored");
}

#[test]
fn checking_a_request_creates_no_database() {
    let h = home();
    assert!(agentic(1).check(&h.ctx).is_ok());
    assert!(!h.ctx.database_path().exists());
    assert!(!runs::metrics(&h.ctx).unwrap().is_empty());
    assert!(
        !h.ctx.database_path().exists(),
        "listing metrics creates none either"
    );
}

#[test]
fn resume_refuses_a_done_run_and_reads_a_judge_at_a_temperature() {
    let h = home();
    let id = example(&h);
    let planned = runs::plan(&h.ctx, &cheap(id)).unwrap();
    let run_id = planned.run_id;
    // A planned run resumes with another judge, or its own at another temperature (what
    // calibration runs store as their judge).
    assert!(runs::reopen(&h.ctx, run_id, Some("offline@0.3")).is_ok());
    let (code, message) =
        refusal(runs::reopen(&h.ctx, run_id, Some("offline@warm")).map(|p| p.run_id));
    assert_eq!(code, ErrorCode::Invalid, "{message}");
    let outcome =
        runs::execute(&h.ctx, planned, Arc::new(NoProgress), &CancelToken::new()).unwrap();
    assert_eq!(outcome.status, Status::Done);
    let (code, message) = refusal(runs::reopen(&h.ctx, run_id, None).map(|p| p.run_id));
    assert_eq!(code, ErrorCode::Invalid);
    assert_eq!(
        message,
        format!(
            "invalid input: run {run_id} is done with every result scored: there is nothing to resume"
        )
    );
}

#[test]
fn a_run_not_finished_is_summarised_partially_and_that_summary_is_not_kept() {
    let h = home();
    let id = example(&h);
    let run_id = runs::plan(&h.ctx, &cheap(id)).unwrap().run_id;
    let detail = runs::detail(&h.ctx, run_id).unwrap();
    assert!(detail.partial);
    let shown = ragnosis_api::reports::show(&h.ctx, run_id).unwrap();
    assert_eq!(shown.report.run.run.status, Status::Planned);
    let store = ragnosis_core::store::Store::open(h.dir.path()).unwrap();
    let kept = ragnosis_core::store::analyses::get(store.conn(), run_id, "summary").unwrap();
    assert!(kept.is_none(), "only a finished run's summary is stored");
}

#[test]
fn a_run_left_running_by_a_dead_process_shows_as_interrupted() {
    let h = home();
    let id = example(&h);
    let run_id = runs::plan(&h.ctx, &cheap(id)).unwrap().run_id;
    let store = ragnosis_core::store::Store::open(h.dir.path()).unwrap();
    ragnosis_core::store::runs::mark_started(store.conn(), run_id).unwrap();
    let listed = runs::list(&h.ctx).unwrap();
    assert_eq!(listed[0].shown_status, "interrupted");
    assert!(listed[0].resumable && !listed[0].active);
}

#[test]
fn the_results_screen_opens_on_the_reports_own_summary() {
    let h = home();
    let id = example(&h);
    let planned = runs::plan(&h.ctx, &agentic(id)).unwrap();
    let run_id = planned.run_id;
    runs::execute(&h.ctx, planned, Arc::new(NoProgress), &CancelToken::new()).unwrap();
    let report = runs::detail(&h.ctx, run_id).unwrap().report;
    assert!(!report.headline.is_empty(), "{report:?}");
    assert!(
        report.stages.iter().any(|s| s.score != "–"),
        "a stage has a score: {report:?}"
    );
    let base = h.dir.path().join("out/report");
    let written = ragnosis_api::reports::export(
        &h.ctx,
        run_id,
        &base,
        &[ragnosis_api::reports::ReportFormat::Markdown],
        Some("2026-11-28".into()),
    )
    .unwrap();
    // The Markdown escapes punctuation; read it as text.
    let markdown = std::fs::read_to_string(&written[0])
        .unwrap()
        .replace('\\', "");
    for sentence in report.headline.iter().chain([&report.primary]) {
        assert!(
            markdown.contains(sentence.as_str()),
            "the window says {sentence:?}, the report does not"
        );
    }
    for stage in &report.stages {
        assert!(
            markdown.contains(&format!("| {} | {} |", stage.stage, stage.score)),
            "stage {} at {} is not in the report",
            stage.stage,
            stage.score
        );
    }
}

#[test]
fn a_background_run_ends_once_and_is_no_longer_active() {
    let h = home();
    let id = example(&h);
    let events = Arc::new(Events::default());
    let run_id = runs::start(&h.ctx, &agentic(id), events.clone()).unwrap();
    assert_eq!(events.ended(), "done");
    assert!(!h
        .ctx
        .jobs()
        .is_active(ragnosis_api::jobs::JobKind::Run, run_id));
    let ended = events
        .0
        .lock()
        .unwrap()
        .iter()
        .filter(|e| matches!(e, ragnosis_api::jobs::JobEvent::Ended(_)))
        .count();
    assert_eq!(ended, 1);
    let (code, _) = refusal(runs::cancel(&h.ctx, run_id));
    assert_eq!(code, ErrorCode::NotRunning, "it finished");
}

#[test]
fn a_run_judged_by_a_language_model_gets_its_verdicts_from_the_judge() {
    let h = home();
    let sim = ragnosis_judge_sim::Simulator::start(Default::default()).unwrap();
    crate::judges::save_simulated(&h, "sim", &sim.base_url());
    let id = example(&h);
    let request = RunRequest {
        mode: "manual".into(),
        metrics: vec!["ragvue.strict_faithfulness".into()],
        judge: "sim".into(),
        limit: Some(2),
        ..agentic(id)
    };
    let planned = runs::plan(&h.ctx, &request).unwrap();
    assert_eq!(
        planned.notice(),
        None,
        "no offline-judge note for a language model"
    );
    let outcome =
        runs::execute(&h.ctx, planned, Arc::new(NoProgress), &CancelToken::new()).unwrap();
    assert_eq!(outcome.status, Status::Done);
    assert!(outcome.accounting.calls > 0, "the simulator was asked");
}

/// Each step an evaluation told, in order, in a few words.
#[derive(Default)]
struct Steps(std::sync::Mutex<Vec<String>>);

impl Steps {
    fn note(&self, step: String) {
        self.0.lock().unwrap().push(step);
    }

    fn told(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

impl ragnosis_api::evaluate::EvaluationSteps for Steps {
    fn imported(&self, imported: &ragnosis_api::datasets::Imported) {
        self.note(format!("imported {}", imported.report.items_accepted));
    }

    fn starting(&self, run_id: i64, _notice: Option<&str>) {
        self.note(format!("starting #{run_id}"));
    }

    fn ended(&self, shown: &ragnosis_api::reports::Shown, outcome: &runs::RunOutcome) {
        assert_eq!(shown.report.run.run.id, outcome.run_id);
        self.note(format!("ended {}", outcome.status.as_str()));
    }

    fn wrote(&self, path: &std::path::Path) {
        self.note(format!(
            "wrote {}",
            path.file_name().unwrap().to_string_lossy()
        ));
    }
}

fn evaluation(gates: &[(&str, runs::gate::Direction)]) -> ragnosis_api::evaluate::Evaluation {
    ragnosis_api::evaluate::Evaluation {
        import: Some(ragnosis_api::datasets::ImportRequest::new(
            crate::ragvue_example(),
        )),
        request: cheap(0),
        plan_only: false,
        recheck: None,
        exports: None,
        gates: gates.iter().map(|(s, d)| (s.to_string(), *d)).collect(),
        basis: runs::gate::Basis::Mean,
    }
}

#[test]
fn an_evaluation_imports_runs_exports_and_gates_in_one_call_telling_each_step() {
    use runs::gate::{Direction, Outcome};
    let h = home();
    let base = h.dir.path().join("out").join("nightly");
    let steps = Steps::default();
    let evaluated = ragnosis_api::evaluate::evaluate(
        &h.ctx,
        ragnosis_api::evaluate::Evaluation {
            exports: Some((
                base.clone(),
                vec![ragnosis_api::reports::ReportFormat::Json],
            )),
            ..evaluation(&[
                ("ragvue.clarity=0", Direction::Under),
                ("clarity=1.01", Direction::Under),
            ])
        },
        &steps,
        Arc::new(NoProgress),
        &CancelToken::new(),
    )
    .unwrap();
    let ragnosis_api::evaluate::Evaluated::Finished { run_id, verdicts } = evaluated else {
        panic!("a run was asked for, not a plan: {evaluated:?}")
    };
    assert_eq!(
        steps.told(),
        vec![
            "imported 8".to_string(),
            format!("starting #{run_id}"),
            "ended done".into(),
            "wrote nightly.json".into()
        ]
    );
    assert!(base.with_extension("json").is_file());
    let outcomes: Vec<Outcome> = verdicts.iter().map(|v| v.outcome).collect();
    assert_eq!(
        outcomes,
        vec![Outcome::Pass, Outcome::Fail],
        "a bare name reads as its metric; {verdicts:?}"
    );
}

#[test]
fn an_evaluation_refuses_an_unknown_gate_before_it_imports_and_a_plan_stores_no_run() {
    let h = home();
    let steps = Steps::default();
    let (_, message) = refusal(ragnosis_api::evaluate::evaluate(
        &h.ctx,
        evaluation(&[("ragvue.nonsense=0.5", runs::gate::Direction::Under)]),
        &steps,
        Arc::new(NoProgress),
        &CancelToken::new(),
    ));
    assert!(message.contains("ragvue.nonsense"), "{message}");
    assert!(steps.told().is_empty(), "{:?}", steps.told());
    assert!(ragnosis_api::datasets::list(&h.ctx).unwrap().is_empty());

    let planned = ragnosis_api::evaluate::evaluate(
        &h.ctx,
        ragnosis_api::evaluate::Evaluation {
            plan_only: true,
            ..evaluation(&[])
        },
        &steps,
        Arc::new(NoProgress),
        &CancelToken::new(),
    )
    .unwrap();
    let ragnosis_api::evaluate::Evaluated::Planned { dataset_id, plan } = planned else {
        panic!("only the plan was asked for: {planned:?}")
    };
    assert_eq!(plan.preview.items, 8);
    assert_eq!(steps.told(), vec!["imported 8".to_string()]);
    assert_eq!(
        ragnosis_api::datasets::list(&h.ctx).unwrap()[0].id,
        dataset_id
    );
    assert!(
        runs::list(&h.ctx).unwrap().is_empty(),
        "a plan stores no run"
    );
}
