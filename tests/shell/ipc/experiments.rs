//! Experiments, versions and the pipeline profile through the shell's commands, with the
//! names and argument shapes the window sends.

use serde_json::json;

use super::common::{assert_error, shell_with_a_finished_run};

#[test]
fn an_action_is_tried_a_version_marked_and_a_profile_kept_through_the_commands() {
    let home = tempfile::tempdir().unwrap();
    let (s, run) = shell_with_a_finished_run(home.path());
    // The example's first action names a pattern the run shows: trying it records the
    // items that pattern fired on.
    let detail = s.ok("get_run", json!({ "runId": run }));
    let pattern = detail["summary"]["diagnosis"]["actions"][0]["pattern"]
        .as_str()
        .expect("the example's first action is for a pattern")
        .to_string();
    let tried = s.ok(
        "try_action",
        json!({ "runId": run, "pattern": pattern, "change": "rerank to the best 5" }),
    );
    assert!(!tried["targets"].as_array().unwrap().is_empty(), "{tried}");
    let checks = s.ok("run_experiments", json!({ "runId": run }));
    assert_eq!(checks[0]["experiment"]["id"], tried["id"]);
    assert_eq!(checks[0]["checked_on"], serde_json::Value::Null);
    assert_error(
        &s.invoke(
            "try_action",
            json!({ "runId": run, "pattern": pattern, "change": " " }),
        )
        .unwrap_err(),
        "invalid",
    );

    let dataset = detail["run"]["dataset_id"].as_i64().unwrap();
    let saved = s.ok(
        "set_dataset_profile",
        json!({ "datasetId": dataset, "profile": { "top_k": 3, "reranker": "none", "retriever": " " } }),
    );
    assert_eq!(saved["profile"]["top_k"], 3);
    assert_eq!(
        saved["profile"]["retriever"],
        serde_json::Value::Null,
        "blank is absent"
    );
    assert_eq!(
        s.ok("dataset_profile", json!({ "datasetId": dataset })),
        saved
    );
    assert_error(
        &s.invoke(
            "set_dataset_profile",
            json!({ "datasetId": dataset, "profile": { "temperature": 9 } }),
        )
        .unwrap_err(),
        "invalid",
    );
    // The report's actions now read the pipeline.
    let reread = s.ok("get_run", json!({ "runId": run }));
    let fixes: Vec<&str> = reread["summary"]["diagnosis"]["actions"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a["how_to_fix"].as_str())
        .collect();
    assert!(
        fixes.iter().any(|f| f.starts_with("For your pipeline:")),
        "{fixes:?}"
    );

    assert_error(
        &s.invoke(
            "set_dataset_version",
            json!({ "datasetId": dataset, "versionOf": dataset }),
        )
        .unwrap_err(),
        "invalid",
    );
    let history = s.ok("dataset_history", json!({ "datasetId": dataset }));
    assert_eq!(history["runs"].as_array().unwrap().len(), 1);
    assert_eq!(history["experiments"].as_array().unwrap().len(), 1);
}
