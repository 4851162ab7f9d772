//! Settings → Your criteria through the real IPC layer (mock runtime, a real SQLite file
//! in a temp dir, the judge simulator on 127.0.0.1): a criterion written in the window is
//! tried on three items with the chosen judge, saved with versions, listed with the
//! metrics, scored by a run and shown with its version on the Results screen.

use serde_json::{json, Value};

use super::ipc::common::{assert_error, profile, shell, Shell};

/// A criterion as the editor sends it, reading the answer and the passages.
fn draft(question: &str) -> Value {
    json!({
        "name": "window_grounded",
        "question": question,
        "scale": "1-5",
        "reads": ["answer", "contexts"],
        "direction": "higher_is_better",
        "threshold": 3,
        "anchors": [{ "score": 5, "means": "Every word comes from the passages." }],
        "examples": []
    })
}

/// A shell on a fresh home with the example dataset and a judge profile `sim` on the
/// simulator: the dataset id.
fn with_simulated_judge(s: &Shell, sim: &ragnosis_judge_sim::SimHandle) -> i64 {
    let dataset = s.example();
    let mut sim_profile = profile("sim", &sim.base_url());
    sim_profile["model"] = json!("sim-judge-small");
    s.ok("save_judge", json!({ "profile": sim_profile }));
    dataset
}

const QUESTION: &str = "Does the answer keep to the passages' words?";

#[test]
fn a_criterion_written_in_the_window_is_tried_on_three_items_with_the_judge_s_reasons() {
    let sim = ragnosis_judge_sim::Simulator::start(Default::default()).unwrap();
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let dataset = with_simulated_judge(&s, &sim);
    let examples = s.ok("criterion_examples", Value::Null);
    let names: Vec<&str> = examples
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    assert_eq!(names, ["tone", "no_promises", "cites_section"]);

    // Three items, scored by the simulated model, with its reasons; nothing stored.
    let trial = s.ok(
        "try_criterion",
        json!({ "definition": draft(QUESTION), "datasetId": dataset, "judge": "sim" }),
    );
    let rows = trial["items"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "{trial}");
    for row in rows {
        assert_eq!(row["result"]["status"], "ok", "{row}");
        assert!(
            row["result"]["explanation"]
                .as_str()
                .unwrap()
                .starts_with("Simulated judge:"),
            "{row}"
        );
        assert!(
            ["1", "2", "3", "4", "5"].contains(&row["score_shown"].as_str().unwrap()),
            "{row}"
        );
    }
    assert_eq!(trial["calls"], 3);
    assert_eq!(sim.stats().by_task.get("criterion"), Some(&3));
    assert_eq!(
        s.ok("list_criteria", Value::Null),
        json!([]),
        "a trial stores nothing"
    );

    // The offline judge leaves a criterion in plain words unmeasured, with the reason.
    let offline = s.ok(
        "try_criterion",
        json!({ "definition": draft(QUESTION), "datasetId": dataset, "judge": "offline" }),
    );
    assert_eq!(
        offline["items"][0]["result"]["status"], "skipped",
        "{offline}"
    );
    assert!(offline["items"][0]["score_shown"].is_null());
    assert!(offline["items"][0]["result"]["explanation"]
        .as_str()
        .unwrap()
        .starts_with("needs a language model judge"));
}

#[test]
fn a_criterion_saved_in_the_window_is_versioned_and_a_run_scores_it_through_the_simulator() {
    let sim = ragnosis_judge_sim::Simulator::start(Default::default()).unwrap();
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let dataset = with_simulated_judge(&s, &sim);
    // Save: created, unchanged, then a new version when the text changes.
    let saved = s.ok("save_criterion", json!({ "definition": draft(QUESTION) }));
    assert_eq!(
        (
            saved["saved"].clone(),
            saved["criterion"]["version"].clone()
        ),
        (json!("created"), json!(1))
    );
    let again = s.ok("save_criterion", json!({ "definition": draft(QUESTION) }));
    assert_eq!(again["saved"], "unchanged");
    let edited = s.ok(
        "save_criterion",
        json!({ "definition": draft("Does the answer use only the passages?") }),
    );
    assert_eq!(
        (
            edited["saved"].clone(),
            edited["criterion"]["version"].clone()
        ),
        (json!("new_version"), json!(2))
    );
    let listed = s.ok("list_criteria", Value::Null);
    assert_eq!(listed[0]["metric"], "criteria.window_grounded");
    assert_eq!(listed[0]["pass_rule"], "passes at 3 or more on 1–5");
    let metrics = s.ok("list_metrics", Value::Null);
    let metric = metrics
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == "criteria.window_grounded");
    assert_eq!(
        metric.map(|m| m["family"].clone()),
        Some(json!("criteria")),
        "the picker offers it"
    );

    // A run scores it with the saved version, and the Results screen says which.
    let request = json!({ "dataset_id": dataset, "mode": "manual", "metrics": ["criteria.window_grounded"], "judge": "sim", "seed": 0, "limit": 4 });
    let run_id = s.ok(
        "start_run",
        json!({ "request": request, "onProgress": "__CHANNEL__:77" }),
    );
    let events = s.events_until_ended(77);
    assert_eq!(events.last().unwrap()["status"], "done", "{events:?}");
    assert_eq!(
        sim.stats().by_task.get("criterion"),
        Some(&4),
        "one call per item"
    );
    let detail = s.ok("get_run", json!({ "runId": run_id }));
    let own = &detail["criteria"][0];
    assert_eq!(
        (own["version"].clone(), own["scored"].clone()),
        (json!(2), json!(4)),
        "{detail}"
    );
    assert!(
        own["insight"]
            .as_str()
            .unwrap()
            .starts_with("Your criterion window_grounded (version 2): "),
        "{own}"
    );
}

#[test]
fn the_window_is_told_what_to_fix_in_a_criterion_and_removing_one_is_final() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let mut empty = draft("  ");
    empty["threshold"] = json!(9);
    let err = s
        .invoke("save_criterion", json!({ "definition": empty }))
        .unwrap_err();
    assert_error(&err, "invalid");
    let message = err["message"].as_str().unwrap();
    assert!(
        message.contains("the question is empty")
            && message.contains("threshold 9 is outside the scale 1–5"),
        "{message}"
    );
    let mut typo = draft("Kept to the passages?");
    typo["treshold"] = json!(3);
    let err = s
        .invoke("save_criterion", json!({ "definition": typo }))
        .unwrap_err();
    assert_error(&err, "invalid");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("unknown field `treshold`"),
        "{err}"
    );

    s.ok(
        "save_criterion",
        json!({ "definition": draft("Kept to the passages?") }),
    );
    s.ok("delete_criterion", json!({ "name": "window_grounded" }));
    assert_eq!(s.ok("list_criteria", Value::Null), json!([]));
    let gone = s
        .invoke("delete_criterion", json!({ "name": "window_grounded" }))
        .unwrap_err();
    assert_error(&gone, "not_found");
}
