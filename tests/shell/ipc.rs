//! Every command called through the real IPC layer with the mock runtime, against a real
//! SQLite file in a temp dir, with keys in memory. Each command has a success case and,
//! where it can fail, an error case pinning the `{code, message}` JSON the UI branches
//! on. Run progress is captured with a channel interceptor, as the window would get it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use ragnosis_core::secrets::MemoryStore;
use ragnosis_desktop::state::AppState;
use serde_json::{json, Value};
use tauri::ipc::{CallbackFn, InvokeBody, InvokeResponseBody};
use tauri::test::{
    get_ipc_response, mock_builder, mock_context, noop_assets, MockRuntime, INVOKE_KEY,
};
use tauri::webview::InvokeRequest;
use tauri::WebviewWindow;

/// Messages sent over channels, by channel id, in order.
type Sent = Arc<Mutex<Vec<(u32, Value)>>>;

pub(crate) struct Shell {
    _app: tauri::App<MockRuntime>,
    webview: WebviewWindow<MockRuntime>,
    sent: Sent,
    home: PathBuf,
}

pub(crate) fn shell(home: &Path) -> Shell {
    let state = AppState::with_secrets(Some(home), Arc::new(MemoryStore::default()))
        .expect("store opens in a temp dir");
    shell_with(home, state)
}

/// A window on `state`, as `main` builds it.
fn shell_with(home: &Path, state: AppState) -> Shell {
    let sent: Sent = Arc::default();
    let record = sent.clone();
    let base = mock_builder().channel_interceptor(move |_webview, callback, _index, body| {
        if let InvokeResponseBody::Json(text) = body {
            record
                .lock()
                .unwrap()
                .push((callback.0, serde_json::from_str(text).unwrap()));
        }
        true
    });
    let app = ragnosis_desktop::builder(base, state)
        .build(mock_context(noop_assets()))
        .expect("app builds with the mock runtime");
    let webview = tauri::WebviewWindowBuilder::new(&app, "main", Default::default())
        .build()
        .unwrap();
    Shell {
        _app: app,
        webview,
        sent,
        home: home.to_path_buf(),
    }
}

impl Shell {
    pub(crate) fn invoke(&self, cmd: &str, args: Value) -> Result<Value, Value> {
        get_ipc_response(
            &self.webview,
            InvokeRequest {
                cmd: cmd.into(),
                callback: CallbackFn(0),
                error: CallbackFn(1),
                url: "tauri://localhost".parse().unwrap(),
                body: InvokeBody::Json(args),
                headers: Default::default(),
                invoke_key: INVOKE_KEY.to_string(),
            },
        )
        .map(|body| body.deserialize::<Value>().unwrap())
    }

    pub(crate) fn ok(&self, cmd: &str, args: Value) -> Value {
        self.invoke(cmd, args.clone())
            .unwrap_or_else(|e| panic!("{cmd}({args}) failed: {e}"))
    }

    pub(crate) fn example(&self) -> i64 {
        self.ok("import_example", Value::Null)["dataset"]["id"]
            .as_i64()
            .unwrap()
    }

    /// Waits for the channel's `ended` event and returns every event sent on it.
    pub(crate) fn events_until_ended(&self, channel: u32) -> Vec<Value> {
        let start = Instant::now();
        loop {
            let events: Vec<Value> = self
                .sent
                .lock()
                .unwrap()
                .iter()
                .filter(|(c, _)| *c == channel)
                .map(|(_, v)| v.clone())
                .collect();
            if events.iter().any(|e| e["kind"] == "ended") {
                return events;
            }
            assert!(
                start.elapsed() < Duration::from_secs(120),
                "the run did not end within 2 minutes: {events:?}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// The error shape every command rejects with: a non-empty code and message, nothing else
/// but an optional detail, wait and whether a retry helps.
pub(crate) fn assert_error(err: &Value, code: &str) {
    let obj = err
        .as_object()
        .unwrap_or_else(|| panic!("an error is a JSON object, got {err}"));
    assert_eq!(
        obj.get("code").and_then(Value::as_str),
        Some(code),
        "error code of {err}"
    );
    assert!(
        obj.get("message")
            .and_then(Value::as_str)
            .is_some_and(|m| !m.trim().is_empty()),
        "a message: {err}"
    );
    assert!(
        obj.keys().all(|k| [
            "code",
            "message",
            "detail",
            "retry_after_secs",
            "retry_helps"
        ]
        .contains(&k.as_str())),
        "only code, message, detail, retry_after_secs, retry_helps: {err}"
    );
}

fn request(dataset_id: i64, mode: &str) -> Value {
    json!({ "dataset_id": dataset_id, "mode": mode, "judge": "offline", "label": "baseline", "seed": 0 })
}

fn ragvue_example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/examples/ragvue/agentic.jsonl")
}

/// A finished agentic run of the example with the offline judge.
fn finished_run(s: &Shell, dataset_id: i64, channel: u32) -> i64 {
    let run_id = s.ok("start_run", json!({ "request": request(dataset_id, "agentic"), "onProgress": format!("__CHANNEL__:{channel}") }));
    let events = s.events_until_ended(channel);
    assert_eq!(
        events.last().unwrap()["status"],
        "done",
        "the offline run finishes: {events:?}"
    );
    run_id.as_i64().unwrap()
}

/// A home holding the example and a finished agentic run of it, made once per test
/// process: most tests read such a run and need not each compute it again (the run
/// itself, its progress and its end are what `start_run_streams_progress_…` tests).
/// The directory lives as long as the process.
fn example_run_template() -> &'static (tempfile::TempDir, i64) {
    static TEMPLATE: OnceLock<(tempfile::TempDir, i64)> = OnceLock::new();
    TEMPLATE.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let s = shell(dir.path());
        let id = s.example();
        let run_id = finished_run(&s, id, 1);
        (dir, run_id)
    })
}

/// A shell on a copy of the template's home, with the id of its finished run.
fn shell_with_a_finished_run(home: &Path) -> (Shell, i64) {
    let (template, run_id) = example_run_template();
    copy_home(template.path(), home);
    (shell(home), *run_id)
}

/// Copies a home whose store is idle. The database and its write-ahead log together are
/// the data; the shared-memory index is left behind, since SQLite rebuilds it on open.
fn copy_home(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_home(&entry.path(), &target);
        } else if !entry.file_name().to_string_lossy().ends_with("-shm") {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

#[test]
fn list_datasets_is_empty_on_a_new_home() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    assert_eq!(s.ok("list_datasets", Value::Null), json!([]));
}

#[test]
fn import_example_stores_the_bundled_set_with_its_report_and_lists_it() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let imported = s.ok("import_example", Value::Null);
    let count = imported["dataset"]["item_count"].as_i64().unwrap();
    assert!(
        count >= 20,
        "the example set has at least 20 items, got {count}"
    );
    assert_eq!(imported["report"]["format"], "JSONL");
    assert_eq!(imported["report"]["items_accepted"], count);
    let listed = s.ok("list_datasets", Value::Null);
    assert_eq!(listed.as_array().unwrap().len(), 1);
    assert_eq!(listed[0]["id"], imported["dataset"]["id"]);
    assert!(
        home.path().join("ragnosis.db").exists(),
        "data lives in the chosen home"
    );
}

#[test]
fn a_dataset_is_removed_with_its_runs_after_the_window_shows_what_goes() {
    let home = tempfile::tempdir().unwrap();
    let (s, run_id) = shell_with_a_finished_run(home.path());
    let dataset_id = s.ok("list_datasets", Value::Null)[0]["id"]
        .as_i64()
        .unwrap();
    let removal = s.ok("dataset_removal", json!({ "datasetId": dataset_id }));
    assert_eq!(removal["runs"], 1, "{removal}");
    assert!(removal["items"].as_i64().unwrap() >= 20);
    s.ok("remove_dataset", json!({ "datasetId": dataset_id }));
    assert_eq!(s.ok("list_datasets", Value::Null), json!([]));
    let gone = s.invoke("get_run", json!({ "runId": run_id })).unwrap_err();
    assert_error(&gone, "not_found");
}

#[test]
fn import_file_imports_a_dropped_file_and_reports_rejected_lines() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let file = home.path().join("dropped.jsonl");
    std::fs::write(
        &file,
        "{\"question\": \"Q1?\", \"answer\": \"A\"}\nnot json\n{\"answer\": \"no question\"}\n",
    )
    .unwrap();
    let imported = s.ok("import_file", json!({ "path": file.display().to_string() }));
    assert_eq!(
        imported["dataset"]["name"], "dropped",
        "named after the file"
    );
    assert_eq!(imported["dataset"]["item_count"], 1);
    let report = &imported["report"];
    assert_eq!(
        report["rejected_count"], 2,
        "bad JSON and a missing question are rejected, not dropped silently"
    );
    assert_eq!(report["rejected"][0]["line"], 2);
}

#[test]
fn import_file_errors_name_the_problem() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    assert_error(
        &s.invoke("import_file", json!({ "path": "relative.jsonl" }))
            .unwrap_err(),
        "invalid",
    );
    let missing = home.path().join("missing.jsonl");
    assert_error(
        &s.invoke(
            "import_file",
            json!({ "path": missing.display().to_string() }),
        )
        .unwrap_err(),
        "dataset.unreadable",
    );
    let empty = home.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    assert_error(
        &s.invoke(
            "import_file",
            json!({ "path": empty.display().to_string() }),
        )
        .unwrap_err(),
        "dataset.empty_file",
    );
    // A file with no valid line is refused with the CLI's sentence and stores nothing:
    // pinned once, in the api's tests (datasets.rs).
}

#[test]
fn dataset_report_reach_and_items_describe_a_stored_dataset() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let imported = s.ok(
        "import_file",
        json!({ "path": ragvue_example().display().to_string() }),
    );
    let id = imported["dataset"]["id"].as_i64().unwrap();

    let report = s.ok("dataset_report", json!({ "datasetId": id }));
    assert_eq!(report["report"]["schema"], "RAGVUE");
    assert_eq!(report["report"]["coverage"][0]["badge"], "Q");

    let reach = s.ok("dataset_reach", json!({ "datasetId": id }));
    assert_eq!(reach["items"], 8);
    let of = |metric: &str| {
        reach["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["metric"] == metric)
            .unwrap()
            .clone()
    };
    assert!(of("ragvue.retrieval_relevance")["items"].as_u64().unwrap() > 0);
    assert_eq!(
        of("reference.token_f1")["items"],
        0,
        "the RAGVUE examples carry no ground truth"
    );
    assert_eq!(of("reference.token_f1")["absent"], json!(["GT"]));

    let page = s.ok(
        "dataset_items",
        json!({ "datasetId": id, "offset": 2, "limit": 3 }),
    );
    assert_eq!(page["total"], 8);
    assert_eq!(page["items"].as_array().unwrap().len(), 3);
    assert_eq!(page["items"][0]["ordinal"], 2);
}

#[test]
fn dataset_commands_report_a_missing_dataset_as_not_found() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    for cmd in ["dataset_report", "dataset_reach"] {
        assert_error(
            &s.invoke(cmd, json!({ "datasetId": 999 })).unwrap_err(),
            "not_found",
        );
    }
    let err = s
        .invoke(
            "dataset_items",
            json!({ "datasetId": 999, "offset": 0, "limit": 10 }),
        )
        .unwrap_err();
    assert_error(&err, "not_found");
}

#[test]
fn list_metrics_gives_the_catalogue_with_needs_badges() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let metrics = s.ok("list_metrics", Value::Null);
    let faith = metrics
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == "ragvue.strict_faithfulness")
        .unwrap();
    assert_eq!(faith["needs"], json!(["A", "C"]));
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
    // Out of range: the CLI's sentence and code (src-tauri/cli/tests/cli/commands.rs pins the
    // same); every check of a request is the api's (tests/api runs.rs).
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

#[test]
fn get_run_gives_summary_cards_metric_rows_and_diagnosis() {
    let home = tempfile::tempdir().unwrap();
    let (s, run_id) = shell_with_a_finished_run(home.path());
    let detail = s.ok("get_run", json!({ "runId": run_id }));
    assert_eq!(detail["partial"], false);
    assert_eq!(detail["run"]["label"], "baseline");
    let summary = &detail["summary"];
    assert_eq!(summary["items"], detail["run"]["item_count"]);
    let rows = summary["metrics"].as_array().unwrap();
    assert!(!rows.is_empty());
    for row in rows {
        // An all-error metric has no mean rather than a mean of 0.
        if row["n"] == 0 {
            assert!(row["mean"].is_null(), "{row}");
        }
    }
    let errors: u64 = rows.iter().map(|r| r["errors"].as_u64().unwrap()).sum();
    assert_eq!(
        summary["errors"], errors,
        "the errors card sums the metric rows"
    );
    assert_error(
        &s.invoke("get_run", json!({ "runId": 999 })).unwrap_err(),
        "not_found",
    );
}

#[test]
fn ask_run_answers_from_the_run_and_refuses_an_empty_question() {
    let home = tempfile::tempdir().unwrap();
    let (s, run_id) = shell_with_a_finished_run(home.path());
    let answer = s.ok(
        "ask_run",
        json!({ "runId": run_id, "question": "What should I fix first?", "item": null }),
    );
    assert_eq!(answer["intent"], "fix_first", "{answer}");
    assert_eq!(answer["rule_based"], true);
    assert!(!answer["lines"].as_array().unwrap().is_empty(), "{answer}");
    assert_error(
        &s.invoke(
            "ask_run",
            json!({ "runId": run_id, "question": "  ", "item": null }),
        )
        .unwrap_err(),
        "invalid",
    );
    assert_error(
        &s.invoke(
            "ask_run",
            json!({ "runId": run_id, "question": "why?", "item": "no-such-item" }),
        )
        .unwrap_err(),
        "not_found",
    );
}

#[test]
fn list_cases_pages_sorts_and_filters_a_run() {
    let home = tempfile::tempdir().unwrap();
    let (s, run_id) = shell_with_a_finished_run(home.path());
    let query = |extra: Value| {
        let mut q = json!({ "order": "position", "offset": 0, "limit": 5, "columns": ["ragvue.token_overlap"] });
        q.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        s.ok("list_cases", json!({ "runId": run_id, "query": q }))
    };
    let first = query(json!({}));
    assert_eq!(first["total"], 24);
    assert_eq!(first["rows"].as_array().unwrap().len(), 5);
    assert_eq!(first["rows"][0]["position"], 0);
    assert_eq!(
        first["rows"][0]["cells"][0]["metric"],
        "ragvue.token_overlap"
    );

    let sorted = query(
        json!({ "order": "metric", "sort_metric": "ragvue.token_overlap", "descending": true, "limit": 24 }),
    );
    let scores: Vec<f64> = sorted["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| {
            r["cells"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["metric"] == "ragvue.token_overlap")?["score"]
                .as_f64()
        })
        .collect();
    assert!(
        scores.windows(2).all(|w| w[0] >= w[1]),
        "descending by token overlap: {scores:?}"
    );

    let ranged = query(
        json!({ "score_metric": "ragvue.token_overlap", "min": 0.0, "max": 0.2, "limit": 24 }),
    );
    for row in ranged["rows"].as_array().unwrap() {
        let cell = row["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["metric"] == "ragvue.token_overlap")
            .unwrap();
        assert!(cell["score"].as_f64().unwrap() <= 0.2, "{row}");
    }
    let searched = query(json!({ "text": "WARRANTY" }));
    assert!(
        searched["total"].as_i64().unwrap() >= 1,
        "case-insensitive search finds the warranty questions"
    );
    assert_eq!(query(json!({ "text": "zzz-no-such-text" }))["total"], 0);
    assert_eq!(query(json!({ "order": "worst" }))["total"], 24);

    // "Next" sends the cursor the page before gave: the second page after it is the
    // second page by offset.
    let worst = query(json!({ "order": "worst" }));
    let after = query(json!({ "order": "worst", "offset": 5, "after": worst["next"] }));
    let by_offset = query(json!({ "order": "worst", "offset": 5 }));
    let positions = |page: &Value| -> Vec<i64> {
        page["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["position"].as_i64().unwrap())
            .collect()
    };
    assert!(
        worst["next"].is_object(),
        "a full page names where the next starts: {worst}"
    );
    assert_eq!(positions(&after), positions(&by_offset));
    assert!(
        query(json!({ "limit": 30 }))["next"].is_null(),
        "the last page has no next"
    );
}

#[test]
fn list_cases_rejects_unknown_orders_metrics_and_patterns() {
    let home = tempfile::tempdir().unwrap();
    let (s, run_id) = shell_with_a_finished_run(home.path());
    for bad in [
        json!({ "order": "random", "offset": 0, "limit": 5 }),
        json!({ "order": "metric", "sort_metric": "nonsense", "offset": 0, "limit": 5 }),
        json!({ "order": "position", "pattern": "Z", "offset": 0, "limit": 5 }),
        json!({ "order": "position", "score_metric": "ragvue.clarity", "min": 0.8, "max": 0.2, "offset": 0, "limit": 5 }),
    ] {
        assert_error(
            &s.invoke("list_cases", json!({ "runId": run_id, "query": bad }))
                .unwrap_err(),
            "invalid",
        );
    }
    let ok = json!({ "order": "position", "offset": 0, "limit": 5 });
    assert_error(
        &s.invoke("list_cases", json!({ "runId": 999, "query": ok }))
            .unwrap_err(),
        "not_found",
    );
}

#[test]
fn get_case_shows_the_item_its_results_and_inspectable_json() {
    let home = tempfile::tempdir().unwrap();
    let (s, run_id) = shell_with_a_finished_run(home.path());
    let page = s.ok(
        "list_cases",
        json!({ "runId": run_id, "query": { "order": "position", "offset": 0, "limit": 1 } }),
    );
    let item_id = page["rows"][0]["item_id"].clone();
    let case = s.ok("get_case", json!({ "runId": run_id, "itemId": item_id }));
    assert_eq!(case["question"], "How long is the warranty on the frame?");
    assert_eq!(
        case["offline"], true,
        "the case carries the offline-judge flag for its badge"
    );
    assert_eq!(case["contexts"].as_array().unwrap().len(), 3);
    assert!(!case["results"].as_array().unwrap().is_empty());
    let json: Value =
        serde_json::from_str(case["json"].as_str().unwrap()).expect("Inspect JSON is valid JSON");
    assert_eq!(json["item_id"], item_id);

    let other = s.ok(
        "import_file",
        json!({ "path": ragvue_example().to_str().unwrap() }),
    )["dataset"]["id"]
        .as_i64()
        .unwrap();
    let foreign = s.ok(
        "dataset_items",
        json!({ "datasetId": other, "offset": 0, "limit": 1 }),
    )["items"][0]["item_id"]
        .clone();
    assert_error(
        &s.invoke("get_case", json!({ "runId": run_id, "itemId": foreign }))
            .unwrap_err(),
        "not_found",
    );
}

/// The window's Markdown and PDF of one run come from one model: every section of the
/// Markdown is in the PDF, and so is every figure of its metric table.
#[test]
fn the_markdown_and_the_pdf_of_a_run_carry_the_same_sections_and_figures() {
    let home = tempfile::tempdir().unwrap();
    let (s, run_id) = shell_with_a_finished_run(home.path());
    let export = |name: &str, format: &str| {
        let path = s.home.join(name);
        s.ok(
            "export_run",
            json!({ "runId": run_id, "path": path.display().to_string(), "format": format }),
        );
        path
    };
    let md = std::fs::read_to_string(export("r.md", "markdown")).unwrap();
    let pdf = export("r.pdf", "pdf");
    let text = match std::process::Command::new("pdftotext")
        .args(["-enc", "UTF-8"])
        .arg(&pdf)
        .arg("-")
        .output()
    {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).into_owned(),
        other => {
            assert!(
                std::env::var("RAGNOSIS_E2E").as_deref() != Ok("required"),
                "pdftotext: {other:?}"
            );
            return;
        }
    };
    let squeeze = |t: &str| {
        t.replace('\u{200B}', "")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let pdf_text = squeeze(&text);
    let unescape = |t: &str| t.replace('\\', "");
    let sections: Vec<String> = md
        .lines()
        .filter_map(|l| l.strip_prefix("## "))
        .map(unescape)
        .collect();
    assert!(sections.len() >= 5, "{sections:?}");
    for section in &sections {
        assert!(
            pdf_text.contains(&squeeze(section)),
            "section `{section}` is in the Markdown but not the PDF"
        );
    }
    let table: String = md
        .split("\n## ")
        .find(|part| part.starts_with("Metrics"))
        .unwrap()
        .to_string();
    let figures: Vec<&str> = table
        .split(|c: char| c == '|' || c.is_whitespace())
        .filter(|w| {
            w.len() >= 4
                && w.starts_with(|c: char| c.is_ascii_digit())
                && w.contains('.')
                && w.chars().all(|c| c.is_ascii_digit() || c == '.')
        })
        .collect();
    assert!(
        figures.len() >= 10,
        "the metric table has figures: {figures:?}"
    );
    for figure in figures {
        assert!(
            pdf_text.contains(figure),
            "figure {figure} is in the Markdown's metric table but not the PDF"
        );
    }
}

#[test]
fn a_comparison_is_exported_as_a_report_that_opens_on_it_or_as_json_never_as_csv() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let id = s.example();
    let a = finished_run(&s, id, 31);
    let b = finished_run(&s, id, 32);
    let export = |name: &str, format: &str| {
        s.invoke(
            "export_comparison",
            json!({ "a": a, "b": b, "path": s.home.join(name).display().to_string(), "format": format }),
        )
    };
    export("cmp.md", "markdown").unwrap();
    let md = std::fs::read_to_string(s.home.join("cmp.md")).unwrap();
    let headings: Vec<&str> = md.lines().filter(|l| l.starts_with("## ")).collect();
    assert_eq!(
        headings.first(),
        Some(&"## Comparison"),
        "the report opens on the comparison: {headings:?}"
    );
    assert!(md.contains("No item has another output"), "{md}");
    let written = export("cmp", "json").unwrap();
    assert_eq!(
        written["paths"],
        json!([s.home.join("cmp.json").display().to_string()])
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(s.home.join("cmp.json")).unwrap()).unwrap();
    assert_eq!(
        (json["a"]["id"].clone(), json["b"]["id"].clone()),
        (json!(a), json!(b))
    );
    assert_eq!(json["items"]["same_output"], 24);
    assert_error(&export("cmp.csv", "csv").unwrap_err(), "invalid");
    assert!(
        !s.home.join("cmp.csv").exists(),
        "nothing written for a refused format"
    );
    assert_error(
        &s.invoke(
            "export_comparison",
            json!({ "a": a, "b": a, "path": s.home.join("same.md").display().to_string(), "format": "markdown" }),
        )
        .unwrap_err(),
        "invalid",
    );
}

#[test]
fn a_window_started_on_a_damaged_database_opens_and_says_what_to_do() {
    let home = tempfile::tempdir().unwrap();
    // Where the database should be, a file that is not one (as after a disk error).
    std::fs::write(
        home.path().join(ragnosis_core::paths::DB_FILE),
        vec![0x5a; 8192],
    )
    .unwrap();
    let s = shell_with(home.path(), AppState::open_or_problem(Some(home.path())));
    let problem = s.ok("startup_problem", json!({}));
    let message = problem["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("doctor") && message.contains("move the file aside"),
        "the window says what to do: {problem}"
    );
    // The rest of the window answers with the same error instead of stopping.
    assert!(s.invoke("list_datasets", json!({})).is_err());
    assert_eq!(
        std::fs::read(home.path().join(ragnosis_core::paths::DB_FILE)).unwrap(),
        vec![0x5a; 8192],
        "nothing was written to the file"
    );
}

#[test]
fn export_run_writes_markdown_where_asked() {
    let home = tempfile::tempdir().unwrap();
    let (s, run_id) = shell_with_a_finished_run(home.path());
    let target = s.home.join("reports/baseline.md");
    let written = s.ok(
        "export_run",
        json!({ "runId": run_id, "path": target.display().to_string(), "format": "markdown" }),
    );
    assert_eq!(
        written["paths"][0],
        json!(target.display().to_string()),
        "the chosen name, no doubled extension; the charts follow"
    );
    assert!(
        written["paths"].as_array().unwrap()[1..]
            .iter()
            .all(|p| p.as_str().unwrap().ends_with(".svg")),
        "{written}"
    );
    let text = std::fs::read_to_string(&target).unwrap();
    assert!(text.contains("## Executive summary"), "{text}");

    let csv = s.home.join("baseline");
    let written = s.ok(
        "export_run",
        json!({ "runId": run_id, "path": csv.display().to_string(), "format": "csv" }),
    );
    assert_eq!(
        written["paths"],
        json!([format!("{}.csv", csv.display())]),
        "the extension is added when missing"
    );

    let err = s
        .invoke(
            "export_run",
            json!({ "runId": run_id, "path": "report.md", "format": "markdown" }),
        )
        .unwrap_err();
    assert_error(&err, "invalid");
    let err = s
        .invoke(
            "export_run",
            json!({ "runId": 999, "path": target.display().to_string(), "format": "json" }),
        )
        .unwrap_err();
    assert_error(&err, "not_found");
}

pub(crate) fn profile(name: &str, base_url: &str) -> Value {
    json!({
        "name": name, "kind": "openai", "base_url": base_url, "model": "gpt-4o-mini", "temperature": 0.0,
        "concurrency": 2, "rpm": null, "tpm": null, "timeout_secs": 5, "price_input": 0.15, "price_output": 0.6,
        "api_version": null, "builtin": false
    })
}

#[test]
fn judge_profiles_are_saved_listed_and_deleted() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let saved = s.ok(
        "save_judge",
        json!({ "profile": profile(" gpt ", "https://api.openai.com/v1") }),
    );
    assert_eq!(saved["name"], "gpt", "the name is trimmed");
    assert_eq!(saved["price_output"], 0.6);
    let judges = s.ok("list_judges", Value::Null);
    assert_eq!(
        judges
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["name"].clone())
            .collect::<Vec<_>>(),
        vec![json!("offline"), json!("gpt")]
    );
    s.ok("delete_judge", json!({ "name": "gpt" }));
    assert_eq!(
        s.ok("list_judges", Value::Null).as_array().unwrap().len(),
        1
    );
}

#[test]
fn judge_profile_errors() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    assert_error(
        &s.invoke(
            "save_judge",
            json!({ "profile": profile("offline", "https://x.test/v1") }),
        )
        .unwrap_err(),
        "invalid",
    );
    assert_error(
        &s.invoke(
            "save_judge",
            json!({ "profile": profile("  ", "https://x.test/v1") }),
        )
        .unwrap_err(),
        "invalid",
    );
    let mut bad_kind = profile("k", "https://x.test/v1");
    bad_kind["kind"] = json!("telepathy");
    let refused = s
        .invoke("save_judge", json!({ "profile": bad_kind }))
        .unwrap_err();
    assert_error(&refused, "invalid");
    assert_eq!(
        refused["message"],
        "invalid input: unknown judge kind 'telepathy' (use openai, azure or anthropic)"
    );
    // The other checks of a profile (temperature, prices) and their sentences are the
    // api's, pinned in its tests (judges.rs): typed or sent as JSON, one rule.
    assert_error(
        &s.invoke("delete_judge", json!({ "name": "nobody" }))
            .unwrap_err(),
        "not_found",
    );
}

#[test]
fn a_key_is_stored_reported_and_forgotten_but_never_returned() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    s.ok(
        "save_judge",
        json!({ "profile": profile("gpt", "https://api.openai.com/v1") }),
    );
    let before = s.ok("judge_key_status", json!({ "name": "gpt" }));
    assert_eq!(
        (before["stored"].clone(), before["backend"].clone()),
        (json!(false), json!("memory"))
    );
    assert_eq!(before["env_var"], "RAGNOSIS_GPT_API_KEY");
    let stored = s.ok(
        "store_judge_key",
        json!({ "name": "gpt", "key": "sk-test-secret-123456" }),
    );
    assert_eq!(stored["stored"], true);
    for answer in [
        &stored,
        &s.ok("judge_key_status", json!({ "name": "gpt" })),
        &s.ok("list_judges", Value::Null),
    ] {
        assert!(
            !answer.to_string().contains("secret-123456"),
            "the key never comes back: {answer}"
        );
    }
    let forgotten = s.ok("forget_judge_key", json!({ "name": "gpt" }));
    assert_eq!(forgotten["stored"], false);
    assert_error(
        &s.invoke("store_judge_key", json!({ "name": "gpt", "key": "   " }))
            .unwrap_err(),
        "invalid",
    );
}

#[test]
fn test_judge_and_discover_models_answer_for_offline_and_explain_an_unreachable_server() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let mut offline = profile("offline", "");
    offline["kind"] = json!("offline");
    let check = s.ok("test_judge", json!({ "profile": offline.clone() }));
    assert_eq!(
        (
            check["ok"].clone(),
            check["structured_output_parsed"].clone()
        ),
        (json!(true), json!(true))
    );
    assert_eq!(
        s.ok("discover_judge_models", json!({ "profile": offline }))
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // Nothing listens on port 9 of this machine: the test says so instead of failing the call.
    let down = profile("down", "http://127.0.0.1:9/v1");
    let check = s.ok("test_judge", json!({ "profile": down.clone() }));
    assert_eq!(check["ok"], false);
    assert!(!check["message"].as_str().unwrap().is_empty());
    assert_error(
        &s.invoke("discover_judge_models", json!({ "profile": down }))
            .unwrap_err(),
        "judge.unreachable",
    );
    assert_error(
        &s.invoke("test_judge", json!({ "profile": profile("", "http://x") }))
            .unwrap_err(),
        "invalid",
    );
}

/// A failed connection test carries the error code the window offers a fix by: a refused
/// key, a rate limit with the wait the service asked for, an unreadable reply with the
/// reply itself.
#[test]
fn a_failed_connection_test_names_its_error_code_with_what_the_window_needs() {
    use ragnosis_judge_sim::{ContainsRule, Fault, FaultRules, SimConfig, Simulator};
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let check_with = |fault: Fault| {
        let sim = Simulator::start(SimConfig {
            faults: FaultRules {
                when_contains: vec![ContainsRule {
                    text: "2+2".into(),
                    fault,
                }],
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap();
        s.ok(
            "test_judge",
            json!({ "profile": profile("sim", &sim.base_url()) }),
        )
    };

    let auth = check_with(Fault::Status {
        status: 401,
        retry_after: None,
        body: None,
    });
    assert_eq!(auth["ok"], false);
    assert_eq!(auth["error"]["code"], "judge.auth", "{auth}");
    assert!(
        auth["error"].get("retry_helps").is_none(),
        "the same key will not work: {auth}"
    );

    let limited = check_with(Fault::Status {
        status: 429,
        retry_after: Some("7".into()),
        body: None,
    });
    assert_eq!(limited["error"]["code"], "judge.rate_limited", "{limited}");
    assert_eq!(limited["error"]["retry_after_secs"], 7, "{limited}");
    assert_eq!(limited["error"]["retry_helps"], true);

    let garbled = check_with(Fault::MalformedJson);
    assert_eq!(garbled["error"]["code"], "judge.bad_reply", "{garbled}");
    assert!(
        !garbled["error"]["detail"]
            .as_str()
            .unwrap_or_default()
            .is_empty(),
        "the reply itself is there to inspect: {garbled}"
    );

    let fine = s.ok(
        "test_judge",
        json!({ "profile": profile("down", "http://127.0.0.1:9/v1") }),
    );
    assert_eq!(fine["error"]["code"], "judge.unreachable", "{fine}");
}

#[test]
fn the_theme_is_remembered() {
    let home = tempfile::tempdir().unwrap();
    {
        let s = shell(home.path());
        assert_eq!(s.ok("get_theme", Value::Null), "system");
        assert_eq!(s.ok("set_theme", json!({ "theme": "dark" })), "dark");
    }
    let s = shell(home.path());
    assert_eq!(
        s.ok("get_theme", Value::Null),
        "dark",
        "kept in the store across launches"
    );
    let err = s
        .invoke("set_theme", json!({ "theme": "neon" }))
        .unwrap_err();
    assert!(
        err.is_string() || err.get("code").is_some(),
        "an unknown theme is rejected: {err}"
    );
}

#[test]
fn a_few_shot_file_chosen_in_settings_reaches_the_next_run() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let shipped = s.ok("get_few_shot", Value::Null);
    assert_eq!(shipped["path"], Value::Null);
    assert_eq!(shipped["examples"], 8, "the shipped set: {shipped}");

    // A bad line is refused with its number; nothing is chosen.
    let broken = home.path().join("broken.jsonl");
    std::fs::write(
        &broken,
        "{\"answer\":\"a\",\"reference\":\"r\",\"score\":0.5}\n{\"answer\":\"a\"}\n",
    )
    .unwrap();
    let err = s
        .invoke("set_few_shot", json!({ "path": broken.to_str().unwrap() }))
        .unwrap_err();
    assert_error(&err, "invalid");
    assert!(err["message"].as_str().unwrap().contains("line 2"), "{err}");
    assert_eq!(s.ok("get_few_shot", Value::Null)["path"], Value::Null);

    let mine = home.path().join("mine.jsonl");
    std::fs::write(
        &mine,
        "{\"answer\":\"Paris\",\"reference\":\"The capital is Paris.\",\"score\":0.95}\n",
    )
    .unwrap();
    let chosen = s.ok("set_few_shot", json!({ "path": mine.to_str().unwrap() }));
    assert_eq!(
        (chosen["examples"].as_u64(), chosen["problem"].clone()),
        (Some(1), Value::Null)
    );

    let dataset = s.example();
    let run_id = finished_run(&s, dataset, 41);
    let store = ragnosis_core::store::Store::open(home.path()).unwrap();
    let row = ragnosis_core::store::runs::get(store.conn(), run_id).unwrap();
    let config = ragnosis_core::run::run_config(&row).unwrap();
    assert_eq!(
        config.few_shot.len(),
        1,
        "the run keeps the chosen examples"
    );
    assert_eq!(config.few_shot[0].answer, "Paris");

    // The file breaks after it was chosen: Settings says why, and a run does not start.
    std::fs::write(&mine, "not json\n").unwrap();
    let now = s.ok("get_few_shot", Value::Null);
    assert!(now["problem"].as_str().unwrap().contains("line 1"), "{now}");
    let err = s
        .invoke(
            "start_run",
            json!({ "request": request(dataset, "agentic"), "onProgress": "__CHANNEL__:42" }),
        )
        .unwrap_err();
    assert_error(&err, "invalid");

    let reset = s.ok("set_few_shot", json!({ "path": null }));
    assert_eq!(
        (reset["path"].clone(), reset["examples"].as_u64()),
        (Value::Null, Some(8))
    );
}

#[test]
fn labels_from_the_case_view_and_a_file_reach_the_alignment() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let dataset = s.example();
    let run_id = finished_run(&s, dataset, 43);
    let cases = s.ok(
        "list_cases",
        json!({ "runId": run_id, "query": { "order": "position", "offset": 0, "limit": 5, "columns": [] } }),
    );
    let items: Vec<i64> = cases["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["item_id"].as_i64().unwrap())
        .collect();
    assert!(items.len() >= 3, "{cases}");

    // Bad labels are refused with a reason; nothing is stored.
    for (metric, score, code, why) in [
        ("no_such_metric", 0.5, "metrics.selection", "unknown metric"),
        ("clarity", 1.5, "invalid", "between 0 and 1"),
        ("ragvue", 0.5, "invalid", "family"),
    ] {
        let err = s
            .invoke(
                "label_case",
                json!({ "runId": run_id, "itemId": items[0], "metric": metric, "score": score, "note": null }),
            )
            .unwrap_err();
        assert_error(&err, code);
        assert!(err["message"].as_str().unwrap().contains(why), "{err}");
    }
    let labels = s.ok(
        "label_case",
        json!({ "runId": run_id, "itemId": items[0], "metric": "clarity", "score": 1.0, "note": "reads well" }),
    );
    assert_eq!(labels[0]["metric"], "ragvue.clarity");
    assert_eq!(labels[0]["source"], "window");
    let case = s.ok("get_case", json!({ "runId": run_id, "itemId": items[0] }));
    assert_eq!(
        case["labels"][0]["note"], "reads well",
        "the case view shows it"
    );

    // Two more from a file, by the example's ids.
    let file = home.path().join("labels.csv");
    std::fs::write(
        &file,
        "item,metric,score\nnw-002,clarity,0.2\nnw-003,clarity,fail\nnw-999,clarity,1\n",
    )
    .unwrap();
    let imported = s.ok(
        "import_labels",
        json!({ "runId": run_id, "path": file.to_str().unwrap() }),
    );
    assert_eq!(imported["stored"], 2, "{imported}");
    assert_eq!(
        imported["rejected"][0][0], 4,
        "the unknown id is named by line"
    );
    let alignment = s.ok("run_alignment", json!({ "runId": run_id }));
    let clarity = alignment["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == "ragvue.clarity")
        .expect("clarity has labels");
    assert_eq!(clarity["n"], 3, "{alignment}");
    assert!(clarity["mae"].is_number());
    let detail = s.ok("get_run", json!({ "runId": run_id }));
    let trust = detail["trust"]["sentences"].to_string();
    assert!(
        trust.contains("ragvue.clarity") && trust.contains("3 labelled items"),
        "{trust}"
    );

    // Removing a label takes it out of the figures.
    s.ok(
        "label_case",
        json!({ "runId": run_id, "itemId": items[0], "metric": "clarity", "score": null, "note": null }),
    );
    let alignment = s.ok("run_alignment", json!({ "runId": run_id }));
    assert_eq!(alignment["metrics"][0]["n"], 2, "{alignment}");
}

#[test]
fn two_runs_compare_with_flags_and_a_trend_and_charts_follow_them() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let id = s.example();
    let a = finished_run(&s, id, 21);
    let b = finished_run(&s, id, 22);
    let c = s.ok("compare_runs", json!({ "a": a, "b": b, "threshold": 0.05 }));
    assert_eq!(c["matched"], 24, "the same items match by content");
    assert!(
        c["headline"]
            .as_str()
            .unwrap()
            .starts_with("0 of 24 matched items have another output"),
        "{c}"
    );
    assert_eq!(
        c["verdict"],
        "No item has another output (24 kept the same), so none could improve or get worse",
        "the item verdict of a re-run"
    );
    assert_eq!(c["items"]["worse"], json!([]));
    assert_eq!(c["judged_differently"], json!([]));
    let rows = c["metrics"].as_array().unwrap();
    assert!(!rows.is_empty());
    for row in rows {
        assert!(
            ["green", "not_compared"].contains(&row["flag"].as_str().unwrap()),
            "identical runs show no regression: {row}"
        );
        if row["pairs"].as_u64().unwrap() > 0 {
            assert_eq!(row["delta"], 0.0);
            assert_eq!(row["verdict"], "no change", "{row}");
        }
    }
    let trend = s.ok("run_trend", json!({ "datasetId": id }));
    assert_eq!(
        trend
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["run_id"].clone())
            .collect::<Vec<_>>(),
        vec![json!(a), json!(b)]
    );
    let charts = s.ok("run_charts", json!({ "runId": b }));
    for chart in charts.as_array().unwrap() {
        assert!(chart["svg"].as_str().unwrap().contains("<svg"), "{chart}");
    }
    assert_error(
        &s.invoke("compare_runs", json!({ "a": a, "b": a, "threshold": 0.05 }))
            .unwrap_err(),
        "invalid",
    );
    assert_error(
        &s.invoke(
            "compare_runs",
            json!({ "a": a, "b": 999, "threshold": 0.05 }),
        )
        .unwrap_err(),
        "not_found",
    );
    assert_error(
        &s.invoke("compare_runs", json!({ "a": a, "b": b, "threshold": -1.0 }))
            .unwrap_err(),
        "invalid",
    );
    assert_error(
        &s.invoke("run_trend", json!({ "datasetId": 999 }))
            .unwrap_err(),
        "not_found",
    );
    assert_error(
        &s.invoke("run_charts", json!({ "runId": 999 })).unwrap_err(),
        "not_found",
    );
}

#[test]
fn export_run_writes_a_pdf_report() {
    let home = tempfile::tempdir().unwrap();
    let (s, run_id) = shell_with_a_finished_run(home.path());
    let target = s.home.join("report.pdf");
    let written = s.ok(
        "export_run",
        json!({ "runId": run_id, "path": target.display().to_string(), "format": "pdf" }),
    );
    assert_eq!(written["paths"], json!([target.display().to_string()]));
    let bytes = std::fs::read(&target).unwrap();
    assert!(bytes.starts_with(b"%PDF"), "a PDF file");
}

#[test]
fn a_model_server_on_a_default_local_port_is_offered_as_a_ready_profile() {
    // The judge simulator plays vLLM on its default port, 8000, of this machine.
    let sim = ragnosis_judge_sim::Simulator::start(ragnosis_judge_sim::SimConfig {
        port: 8000,
        ..Default::default()
    })
    .expect("port 8000 (vLLM's default) must be free for this test");
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let found = s.ok("detect_local_judges", Value::Null);
    let servers = found.as_array().unwrap();
    let vllm = servers
        .iter()
        .find(|f| f["product"] == "vLLM")
        .unwrap_or_else(|| panic!("vLLM found: {found}"));
    assert_eq!(vllm["base_url"], "http://127.0.0.1:8000/v1");
    assert_eq!(
        vllm["models"],
        json!(["sim-judge-large", "sim-judge-small"])
    );
    assert_eq!(vllm["already_saved"], false);
    let profile = vllm["profile"].clone();
    assert_eq!(
        (profile["name"].clone(), profile["model"].clone()),
        (json!("vllm"), json!("sim-judge-large"))
    );

    // Saving the offered profile as it is works, and the next search says so.
    s.ok("save_judge", json!({ "profile": profile }));
    let again = s.ok("detect_local_judges", Value::Null);
    let vllm = again
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["product"] == "vLLM")
        .unwrap();
    assert_eq!(vllm["already_saved"], true);
    drop(sim);
}

#[test]
fn the_offline_judge_says_whether_its_semantic_model_is_in_use() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let status = s.ok("offline_judge_status", Value::Null);
    let notice = status["notice"].as_str().unwrap();
    match status["semantic_model"].as_str() {
        Some(model) => assert!(
            notice.contains(model) && notice.contains("in use"),
            "{status}"
        ),
        None => {
            assert!(notice.contains("not in use"), "{status}");
            assert_ne!(
                std::env::var("RAGNOSIS_MODEL").as_deref(),
                Ok("required"),
                "the model must load here: {status}"
            );
        }
    }
}

/// The Generate screen's commands end to end against the judge simulator: documents
/// become a corpus (unreadable files named), the offline judge is refused before
/// anything is stored, a generation streams progress and ends, its candidates keep their
/// reasons, cancel and resume keep what was decided, both exports write JSONL, and the
/// generated set compares BM25 with the simulator's embeddings endpoint.
#[test]
fn documents_become_a_generated_test_set_and_compare_retrievers() {
    let sim = ragnosis_judge_sim::Simulator::start(ragnosis_judge_sim::SimConfig {
        faults: ragnosis_judge_sim::faults::FaultRules {
            latency_ms: 30,
            ..Default::default()
        },
        ..Default::default()
    })
    .unwrap();
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let documents = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/documents");
    let report = s.ok(
        "ingest_documents",
        json!({ "input": { "paths": [documents], "chunk_tokens": 120, "overlap": 20 } }),
    );
    assert_eq!(report["name"], "documents", "named after the folder");
    let files = report["files"].as_array().unwrap();
    assert_eq!(files.len(), 6);
    assert!(
        files
            .iter()
            .any(|f| f["path"].as_str().unwrap().ends_with("broken.pdf")
                && f["error"].as_str().is_some_and(|e| !e.is_empty())),
        "{report}"
    );
    let corpus = report["corpus_id"].as_i64().unwrap();
    let chunks = report["chunks"].as_u64().unwrap();
    assert_eq!(
        s.ok("list_corpora", Value::Null)[0]["chunks"].as_u64(),
        Some(chunks)
    );

    let settings = json!({ "count": 3, "seed": 1, "require_answerable": true, "min_faithfulness": 0.8,
                           "min_relevance": 0.7, "budget_usd": null });
    let offline = s
        .invoke(
            "start_generation",
            json!({ "input": { "corpus_id": corpus, "judge": "offline", "settings": settings }, "onProgress": "__CHANNEL__:60" }),
        )
        .unwrap_err();
    assert_error(&offline, "invalid");
    assert!(offline["message"]
        .as_str()
        .unwrap()
        .contains("cannot write questions"));
    assert_eq!(s.ok("list_generations", Value::Null), json!([]));

    let mut sim_profile = profile("sim", &sim.base_url());
    sim_profile["model"] = json!("sim-judge-small");
    s.ok("save_judge", json!({ "profile": sim_profile }));
    let input = json!({ "corpus_id": corpus, "judge": "sim", "name": "northwind cases", "settings": settings });
    let plan = s.ok("preview_generation", json!({ "input": input }));
    assert_eq!(plan["calls"], 15, "five calls for each of three chunks");
    assert_eq!(sim.stats().calls, 0, "a plan calls nothing");

    let id = s.ok(
        "start_generation",
        json!({ "input": input, "onProgress": "__CHANNEL__:61" }),
    );
    let events = s.events_until_ended(61);
    let ended = events.last().unwrap();
    assert_eq!(
        (&ended["status"], &ended["run_id"]),
        (&json!("done"), &id),
        "{ended}"
    );
    assert!(events
        .iter()
        .any(|e| e["kind"] == "advanced" && e["done"] == 3 && e["total"] == 3));
    assert!(events
        .iter()
        .any(|e| e["kind"] == "totals" && e["calls"].as_u64() >= Some(15)));
    let detail = s.ok("get_generation", json!({ "generationId": id }));
    assert_eq!(detail["summary"]["accepted"], 3);
    assert_eq!(detail["active"], false);
    let candidates = detail["candidates"].as_array().unwrap();
    assert!(candidates
        .iter()
        .filter(|c| c["status"] != "accepted")
        .all(|c| c["reason"].as_str().is_some_and(|r| !r.is_empty())));
    let dataset = detail["summary"]["dataset_id"].as_i64().unwrap();
    let datasets = s.ok("list_datasets", Value::Null);
    assert!(
        datasets
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["id"] == dataset && d["name"] == "northwind cases" && d["item_count"] == 3),
        "{datasets}"
    );

    // Both exports are JSONL; the test set imports back as the same three cases.
    let out = home.path().join("cases.jsonl");
    let written = s.ok(
        "export_generation",
        json!({ "generationId": id, "what": "test_set", "path": out }),
    );
    assert_eq!(written["rows"], 3);
    let imported = s.ok("import_file", json!({ "path": out }));
    assert_eq!(imported["report"]["items_accepted"], 3, "{imported}");
    let all = home.path().join("candidates.jsonl");
    let written = s.ok(
        "export_generation",
        json!({ "generationId": id, "what": "candidates", "path": all }),
    );
    assert_eq!(written["rows"].as_u64(), Some(candidates.len() as u64));
    assert_error(
        &s.invoke(
            "export_generation",
            json!({ "generationId": id, "what": "everything", "path": all }),
        )
        .unwrap_err(),
        "invalid",
    );

    // A generation cancelled at once stops resumable; resuming finishes it.
    let big = json!({ "corpus_id": corpus, "judge": "sim", "settings": {
        "count": 6, "seed": 2, "require_answerable": true, "min_faithfulness": 0.8,
        "min_relevance": 0.7, "budget_usd": null } });
    let second = s.ok(
        "start_generation",
        json!({ "input": big, "onProgress": "__CHANNEL__:62" }),
    );
    s.ok("cancel_generation", json!({ "generationId": second }));
    let stopped = s.events_until_ended(62);
    assert_eq!(stopped.last().unwrap()["status"], "cancelled");
    let before = s.ok("get_generation", json!({ "generationId": second }))["summary"]["accepted"]
        .as_u64()
        .unwrap();
    assert!(before < 6);
    s.ok(
        "resume_generation",
        json!({ "generationId": second, "judge": "sim", "onProgress": "__CHANNEL__:63" }),
    );
    let resumed = s.events_until_ended(63);
    let last = resumed.last().unwrap();
    assert!(
        last["status"] == "done" || last["status"] == "exhausted",
        "{last}"
    );
    assert_error(
        &s.invoke("cancel_generation", json!({ "generationId": second }))
            .unwrap_err(),
        "not_running",
    );

    // The generated set ranks its own corpus: BM25 beside the endpoint's vectors.
    let view = s.ok(
        "evaluate_retrievers",
        json!({ "input": { "dataset_id": dataset, "corpus_id": corpus,
                           "retrievers": ["bm25", "endpoint:sim@sim-embed-1"], "k": 5 } }),
    );
    assert_eq!(view["eval"]["queries"], 3);
    let names: Vec<&str> = view["eval"]["retrievers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["retriever"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["BM25", "sim-embed-1 (sim)"]);
    assert!(view["chart"]["svg"].as_str().unwrap().contains("<svg"));
    // The report is the comparison shown, written without evaluating again.
    let md = home.path().join("retrievers");
    let exported = s.ok(
        "export_retrieval_report",
        json!({ "eval": view["eval"], "path": md }),
    );
    let paths = exported["paths"].as_array().unwrap();
    assert!(paths[0].as_str().unwrap().ends_with("retrievers.md"));
    assert!(std::fs::read_to_string(paths[0].as_str().unwrap())
        .unwrap()
        .contains("| BM25 |"));
    assert_error(
        &s.invoke(
            "evaluate_retrievers",
            json!({ "input": { "dataset_id": dataset, "corpus_id": corpus, "retrievers": ["telepathy"], "k": 5 } }),
        )
        .unwrap_err(),
        "invalid",
    );
}
