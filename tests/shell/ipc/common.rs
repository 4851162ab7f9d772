//! What every IPC test starts from: the window built as `main` builds it on the mock
//! runtime (`Shell`), a home with a finished run of the example made once per process,
//! and the error shape every command rejects with.

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
    pub(super) home: PathBuf,
}

pub(crate) fn shell(home: &Path) -> Shell {
    let state = AppState::with_secrets(Some(home), Arc::new(MemoryStore::default()))
        .expect("store opens in a temp dir");
    shell_with(home, state)
}

/// A window on `state`, as `main` builds it.
pub(super) fn shell_with(home: &Path, state: AppState) -> Shell {
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

pub(super) fn request(dataset_id: i64, mode: &str) -> Value {
    json!({ "dataset_id": dataset_id, "mode": mode, "judge": "offline", "label": "baseline", "seed": 0 })
}

pub(super) fn ragvue_example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/examples/ragvue/agentic.jsonl")
}

/// A finished agentic run of the example with the offline judge.
pub(super) fn finished_run(s: &Shell, dataset_id: i64, channel: u32) -> i64 {
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
pub(super) fn shell_with_a_finished_run(home: &Path) -> (Shell, i64) {
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

pub(crate) fn profile(name: &str, base_url: &str) -> Value {
    json!({
        "name": name, "kind": "openai", "base_url": base_url, "model": "gpt-4o-mini", "temperature": 0.0,
        "concurrency": 2, "rpm": null, "tpm": null, "timeout_secs": 5, "price_input": 0.15, "price_output": 0.6,
        "api_version": null, "builtin": false
    })
}
