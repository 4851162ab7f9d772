//! Evaluate: the metric and judge catalogues, a run's plan, its start with progress on a
//! channel, cancel and resume, and a run an app closed mid-way left behind.

use serde_json::{json, Value};

use super::common::{assert_error, finished_run, ragvue_example, request, shell};

#[test]
fn list_metrics_gives_the_catalogue_with_the_fields_each_needs() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let metrics = s.ok("list_metrics", Value::Null);
    let faith = metrics
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == "ragvue.strict_faithfulness")
        .unwrap();
    assert_eq!(faith["needs"], json!(["answer", "contexts"]));
    assert_eq!(faith["scope"], "item");
    assert_eq!(faith["judge"], true);
    assert_eq!(faith["family"], "ragvue");
}

#[test]
fn list_judges_always_offers_the_offline_judge_first() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let judges = s.ok("list_judges", Value::Null);
    assert_eq!(judges[0]["name"], "offline");
    assert_eq!(judges[0]["builtin"], true);
}

#[test]
fn preview_run_plans_without_storing_a_run() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let id = s.example();
    let mut req = request(id, "agentic");
    req["limit"] = json!(10);
    let plan = s.ok("preview_run", json!({ "request": req }));
    assert_eq!(plan["items"], 10, "limit applies before planning");
    assert_eq!(plan["offline"], true);
    assert_eq!(plan["judge"]["cost_low"], 0.0, "the offline judge is free");
    assert!(
        plan["cells"].as_u64().unwrap() > 10,
        "several metrics per item"
    );
    assert_eq!(
        s.ok("list_runs", Value::Null),
        json!([]),
        "a preview leaves no run behind"
    );
}

#[test]
fn preview_run_rejects_bad_requests_with_their_codes() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let id = s.example();
    assert_error(
        &s.invoke("preview_run", json!({ "request": request(id, "psychic") }))
            .unwrap_err(),
        "invalid",
    );
    let mut manual = request(id, "manual");
    manual["metrics"] = json!([]);
    assert_error(
        &s.invoke("preview_run", json!({ "request": manual }))
            .unwrap_err(),
        "metrics.selection",
    );
    // Out of range: the CLI's sentence and code (src-tauri/cli/tests/cli/commands/mod.rs
    // pins the same); every check of a request is the api's (tests/api runs.rs).
    let mut tau = request(id, "agentic");
    tau["tau"] = json!(2.0);
    let refused = s
        .invoke("preview_run", json!({ "request": tau }))
        .unwrap_err();
    assert_error(&refused, "invalid");
    assert_eq!(
        refused["message"],
        "invalid input: tau must be between 0 and 1, got 2"
    );
    let mut unknown_judge = request(id, "agentic");
    unknown_judge["judge"] = json!("nobody");
    assert_error(
        &s.invoke("preview_run", json!({ "request": unknown_judge }))
            .unwrap_err(),
        "not_found",
    );
}

#[test]
fn start_run_streams_progress_and_finishes_in_the_background() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let id = s.example();
    let run_id = s.ok(
        "start_run",
        json!({ "request": request(id, "agentic"), "onProgress": "__CHANNEL__:41" }),
    );
    let events = s.events_until_ended(41);
    let kinds: Vec<&str> = events.iter().filter_map(|e| e["kind"].as_str()).collect();
    assert!(
        kinds.contains(&"started") && kinds.contains(&"advanced") && kinds.contains(&"totals"),
        "{kinds:?}"
    );
    let advanced = events
        .iter()
        .rev()
        .find(|e| e["kind"] == "advanced")
        .unwrap();
    assert_eq!(
        advanced["done"], advanced["total"],
        "the last count covers every item"
    );
    let ended = events.last().unwrap();
    assert_eq!(
        (ended["run_id"].clone(), ended["status"].clone()),
        (run_id.clone(), json!("done"))
    );
    let runs = s.ok("list_runs", Value::Null);
    assert_eq!(runs[0]["id"], run_id);
    assert_eq!(
        (runs[0]["active"].clone(), runs[0]["resumable"].clone()),
        (json!(false), json!(false))
    );
    assert_eq!(runs[0]["offline"], true);
}

#[test]
fn start_run_with_an_unknown_judge_fails_before_creating_a_run() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let id = s.example();
    let mut req = request(id, "agentic");
    req["judge"] = json!("missing-profile");
    let err = s
        .invoke(
            "start_run",
            json!({ "request": req, "onProgress": "__CHANNEL__:3" }),
        )
        .unwrap_err();
    assert_error(&err, "not_found");
    assert_eq!(s.ok("list_runs", Value::Null), json!([]));
}

#[test]
fn cancel_stops_a_run_that_resume_then_completes() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    // Enough items that the run is still going when the cancel arrives.
    let file = home.path().join("big.jsonl");
    let lines: String = (0..3000)
        .map(|i| format!("{{\"question\": \"What is item {i}?\", \"answer\": \"Item {i} is a bolt.\", \"ground_truth\": \"A bolt {i}.\"}}\n"))
        .collect();
    std::fs::write(&file, lines).unwrap();
    let id = s.ok("import_file", json!({ "path": file.display().to_string() }))["dataset"]["id"]
        .as_i64()
        .unwrap();
    let mut req = request(id, "manual");
    // Cheap metrics, so the run's length is set by the item count, not by a model.
    req["metrics"] = json!(["reference.exact_match", "reference.token_f1"]);
    let run_id = s.ok(
        "start_run",
        json!({ "request": req, "onProgress": "__CHANNEL__:5" }),
    );
    s.ok("cancel_run", json!({ "runId": run_id }));
    let ended = s.events_until_ended(5).last().unwrap().clone();
    assert_eq!(ended["status"], "cancelled");
    let run = s.ok("get_run", json!({ "runId": run_id }));
    assert_eq!(
        (run["run"]["resumable"].clone(), run["partial"].clone()),
        (json!(true), json!(true))
    );

    s.ok(
        "resume_run",
        json!({ "runId": run_id, "onProgress": "__CHANNEL__:6" }),
    );
    assert_eq!(s.events_until_ended(6).last().unwrap()["status"], "done");
    let run = s.ok("get_run", json!({ "runId": run_id }));
    assert_eq!(run["summary"]["items"], 3000);
    let exact = run["summary"]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == "reference.exact_match")
        .unwrap()
        .clone();
    assert_eq!(
        exact["n"], 3000,
        "every item scored exactly once across the two executions"
    );
}

#[test]
fn cancel_and_resume_errors() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    assert_error(
        &s.invoke("cancel_run", json!({ "runId": 7 })).unwrap_err(),
        "not_running",
    );
    assert_error(
        &s.invoke(
            "resume_run",
            json!({ "runId": 7, "onProgress": "__CHANNEL__:1" }),
        )
        .unwrap_err(),
        "not_found",
    );
    let id = s.example();
    let run_id = finished_run(&s, id, 2);
    let err = s
        .invoke(
            "resume_run",
            json!({ "runId": run_id, "onProgress": "__CHANNEL__:3" }),
        )
        .unwrap_err();
    assert_error(&err, "invalid");
}

#[test]
fn a_run_left_running_by_a_closed_app_lists_as_resumable() {
    let home = tempfile::tempdir().unwrap();
    let run_id = {
        // What a killed app leaves: a planned run marked running, with nothing executing it.
        let mut store = ragnosis_core::store::Store::open(home.path()).unwrap();
        let imported = ragnosis_core::import::import_file(
            &mut store,
            &ragvue_example(),
            None,
            &Default::default(),
            &ragnosis_core::progress::NoProgress,
        )
        .unwrap();
        let req = ragnosis_core::run::RunRequest {
            dataset_id: imported.dataset.id,
            mode: ragnosis_core::run::Mode::Agentic,
            ..Default::default()
        };
        let run_id = ragnosis_core::run::plan(&mut store, &req).unwrap();
        ragnosis_core::store::runs::mark_started(store.conn(), run_id).unwrap();
        run_id
    };
    let s = shell(home.path());
    let runs = s.ok("list_runs", Value::Null);
    assert_eq!(runs[0]["id"], run_id);
    assert_eq!(runs[0]["status"], "running");
    assert_eq!(
        (runs[0]["active"].clone(), runs[0]["resumable"].clone()),
        (json!(false), json!(true))
    );
    s.ok(
        "resume_run",
        json!({ "runId": run_id, "onProgress": "__CHANNEL__:9" }),
    );
    assert_eq!(s.events_until_ended(9).last().unwrap()["status"], "done");
}
