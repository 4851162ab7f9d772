//! Home and Data: listing, importing (the example, a dropped file), removing and
//! describing datasets, and a window started on a damaged database.

use ragnosis_desktop::state::AppState;
use serde_json::{json, Value};

use super::common::{assert_error, ragvue_example, shell, shell_with, shell_with_a_finished_run};

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
    assert_eq!(imported["report"]["format_label"], "JSONL");
    assert_eq!(imported["report"]["format"]["kind"], "jsonl");
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
    assert_eq!(report["report"]["schema_label"], "RAGVUE");
    assert_eq!(report["report"]["schema"], "ragvue");
    // Coverage is keyed by the fields the window's labels name.
    assert_eq!(report["report"]["coverage"]["question"], 8);
    assert!(report["report"]["coverage"]["rag_checker_labels"].is_u64());

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
    assert_eq!(of("reference.token_f1")["absent"], json!(["ground_truth"]));

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
