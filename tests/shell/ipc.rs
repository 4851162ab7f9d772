//! Commands called through the real IPC layer with the mock runtime, against a real
//! SQLite file in a temp dir.

use ragnosis_desktop::state::AppState;
use serde_json::Value;
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{get_ipc_response, mock_builder, mock_context, noop_assets, MockRuntime, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::WebviewWindow;

fn app_in(home: &std::path::Path) -> (tauri::App<MockRuntime>, WebviewWindow<MockRuntime>) {
    let state = AppState::open(Some(home)).expect("store opens in a temp dir");
    let app = ragnosis_desktop::builder(mock_builder(), state)
        .build(mock_context(noop_assets()))
        .expect("app builds with the mock runtime");
    let webview = tauri::WebviewWindowBuilder::new(&app, "main", Default::default()).build().unwrap();
    (app, webview)
}

fn invoke(webview: &WebviewWindow<MockRuntime>, cmd: &str, args: Value) -> Result<Value, Value> {
    get_ipc_response(
        webview,
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

#[test]
fn list_datasets_is_empty_on_a_new_home() {
    let home = tempfile::tempdir().unwrap();
    let (_app, webview) = app_in(home.path());
    let listed = invoke(&webview, "list_datasets", Value::Null).expect("list_datasets succeeds");
    assert_eq!(listed, Value::Array(vec![]));
}

#[test]
fn import_example_stores_the_bundled_set_and_lists_it() {
    let home = tempfile::tempdir().unwrap();
    let (_app, webview) = app_in(home.path());
    let imported = invoke(&webview, "import_example", Value::Null).expect("the bundled example imports");
    let count = imported["item_count"].as_i64().unwrap();
    assert!(count >= 20, "the example set has at least 20 items, got {count}");
    let listed = invoke(&webview, "list_datasets", Value::Null).unwrap();
    let rows = listed.as_array().unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["id"], imported["id"]);
    assert!(home.path().join("ragnosis.db").exists(), "data lives in the chosen home");
}
