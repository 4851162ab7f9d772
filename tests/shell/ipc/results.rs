//! Results and the case view: a run's summary, asking it, its cases paged, sorted and
//! filtered, one case with its JSON, and labels from the case view or a file reaching the
//! alignment.

use serde_json::{json, Value};

use super::common::{
    assert_error, finished_run, ragvue_example, shell, shell_with_a_finished_run, Shell,
};

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

/// The `ragvue.token_overlap` cell of a case row, if it has one.
fn token_overlap_cell(row: &Value) -> Option<&Value> {
    row["cells"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["metric"] == "ragvue.token_overlap")
}

/// The positions of a page's rows, in order.
fn positions(page: &Value) -> Vec<i64> {
    page["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["position"].as_i64().unwrap())
        .collect()
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
        .filter_map(|r| token_overlap_cell(r)?["score"].as_f64())
        .collect();
    assert!(
        scores.windows(2).all(|w| w[0] >= w[1]),
        "descending by token overlap: {scores:?}"
    );

    let ranged = query(
        json!({ "score_metric": "ragvue.token_overlap", "min": 0.0, "max": 0.2, "limit": 24 }),
    );
    for row in ranged["rows"].as_array().unwrap() {
        let cell = token_overlap_cell(row).unwrap();
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

/// The item ids of a run's first page of cases (at least three).
fn first_items_of(s: &Shell, run_id: i64) -> Vec<i64> {
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
    items
}

/// Bad labels on `item` are refused with a reason; nothing is stored.
fn assert_bad_labels_are_refused_with_a_reason(s: &Shell, run_id: i64, item: i64) {
    for (metric, score, code, why) in [
        ("no_such_metric", 0.5, "metrics.selection", "unknown metric"),
        ("clarity", 1.5, "invalid", "between 0 and 1"),
        ("ragvue", 0.5, "invalid", "family"),
    ] {
        let err = s
            .invoke(
                "label_case",
                json!({ "runId": run_id, "itemId": item, "metric": metric, "score": score, "note": null }),
            )
            .unwrap_err();
        assert_error(&err, code);
        assert!(err["message"].as_str().unwrap().contains(why), "{err}");
    }
}

#[test]
fn labels_from_the_case_view_and_a_file_reach_the_alignment() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let dataset = s.example();
    let run_id = finished_run(&s, dataset, 43);
    let items = first_items_of(&s, run_id);
    assert_bad_labels_are_refused_with_a_reason(&s, run_id, items[0]);
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
