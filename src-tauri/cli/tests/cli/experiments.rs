//! The loop from an action to a verified fix, as the README shows it: evaluate, try an
//! action, import the next version of the test set, evaluate it, read what it did.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::{ok, repo, run, stderr};

fn town(version: &str) -> PathBuf {
    repo().join("tests/compare").join(version)
}

fn json(out: &str) -> Value {
    serde_json::from_str(out).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

fn evaluate(home: &Path, file: &Path, label: &str) {
    ok(home, &["agentic", file.to_str().unwrap(), "--label", label]);
}

#[test]
fn an_experiment_tried_on_v1_is_checked_item_by_item_on_v2() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    evaluate(home, &town("town-v1.jsonl"), "v1");

    // v1 states two figures against its passages (t-02, t-04): subtle distortion, F.
    let tried = json(&ok(
        home,
        &[
            "try",
            "1",
            "F",
            "--change",
            "keep numbers verbatim",
            "--json",
        ],
    ));
    assert_eq!(tried["targets"], serde_json::json!(["t-02", "t-04"]));
    assert_eq!(tried["pattern"], "subtle_distortion");
    let before = json(&ok(home, &["history", "1", "--json"]));
    assert_eq!(before["experiments"][0]["checked_on"], Value::Null);
    assert_eq!(before["experiments"][0]["targets"], serde_json::json!([]));

    ok(
        home,
        &[
            "import",
            town("town-v2.jsonl").to_str().unwrap(),
            "--version-of",
            "1",
        ],
    );
    evaluate(home, &town("town-v2.jsonl"), "v2");

    // Read from either version, the same outcome: both targets fixed, and t-05 (a
    // figure v2 changed) named as an item the change broke elsewhere.
    for dataset in ["1", "2"] {
        let history = json(&ok(home, &["history", dataset, "--json"]));
        assert_eq!(history["runs"].as_array().unwrap().len(), 2, "{history}");
        let check = &history["experiments"][0];
        assert_eq!(check["checked_on"]["id"], 2);
        let outcomes: Vec<(&str, &str)> = check["targets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| (t["label"].as_str().unwrap(), t["outcome"].as_str().unwrap()))
            .collect();
        assert_eq!(outcomes, [("t-02", "fixed"), ("t-04", "fixed")]);
        assert_eq!(check["fixed"], 2);
        let elsewhere: Vec<&str> = check["worse_elsewhere"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["label"].as_str().unwrap())
            .collect();
        assert_eq!(elsewhere, ["t-05"]);
    }

    // The terminal and the advisor say it in words, citing run 2's own items.
    let said = ok(home, &["history", "2"]);
    assert!(said.contains("2 of 2 items fixed"), "{said}");
    assert!(said.contains("1 other item got worse: t-05"), "{said}");
    let answer = json(&ok(home, &["ask", "2", "did my change fix it?", "--json"]));
    assert_eq!(answer["intent"], "experiments");
    let cited = answer["items"].as_array().unwrap().len();
    assert_eq!(cited, 3, "t-02, t-04 and t-05 of run 2: {answer}");
    // Comparing the two runs says it too, beside the metrics.
    let out = home.join("cmp");
    let compared = ok(home, &["compare", "1", "2", "--out", out.to_str().unwrap()]);
    assert!(
        compared.contains("Experiment 1: \"keep numbers verbatim\" for F (subtle distortion), checked on Run 2 (v2): 2 of 2 items fixed"),
        "{compared}"
    );
}

#[test]
fn an_experiment_needs_a_pattern_the_run_shows_and_a_change() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    evaluate(home, &town("town-v1.jsonl"), "v1");
    for (args, says) in [
        (
            vec!["try", "1", "Z", "--change", "x"],
            "no failure pattern is called \"Z\"",
        ),
        (
            vec!["try", "1", "J", "--change", "x"],
            "fired on no item of run 1",
        ),
        (
            vec!["try", "1", "F", "--change", "  "],
            "say what you will change",
        ),
        (vec!["try", "9", "F", "--change", "x"], "run"),
    ] {
        let o = run(home, &args);
        assert!(!o.status.success(), "{args:?} was accepted");
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
    let history = json(&ok(home, &["history", "1", "--json"]));
    assert_eq!(history["experiments"], serde_json::json!([]));
}

#[test]
fn a_version_of_an_unknown_dataset_is_refused_before_anything_is_imported() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let o = run(
        home,
        &[
            "import",
            town("town-v2.jsonl").to_str().unwrap(),
            "--version-of",
            "7",
        ],
    );
    assert!(!o.status.success());
    assert!(stderr(&o).contains("dataset"), "{}", stderr(&o));
    let datasets = json(&ok(home, &["datasets", "--json"]));
    assert_eq!(datasets, serde_json::json!([]), "nothing was imported");
}

#[test]
fn a_pipeline_profile_is_shown_in_reports_read_by_actions_and_inherited_by_a_version() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    evaluate(home, &town("town-v1.jsonl"), "v1");
    let set = json(&ok(
        home,
        &[
            "profile",
            "1",
            "--retriever",
            "bm25",
            "--top-k",
            "3",
            "--reranker",
            "none",
            "--temperature",
            "0.7",
            "--json",
        ],
    ));
    assert_eq!(set["profile"]["top_k"], 3);
    assert_eq!(set["inherited_from"], Value::Null);

    // A refused edit changes nothing.
    let o = run(home, &["profile", "1", "--temperature", "5"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("temperature"), "{}", stderr(&o));
    let kept = json(&ok(home, &["profile", "1", "--json"]));
    assert_eq!(kept["profile"]["temperature"], 0.7);

    // The report names the pipeline, and the action for F (a distortion) starts from its
    // temperature before the generic advice.
    let out = home.join("r");
    ok(
        home,
        &[
            "report",
            "1",
            "--format",
            "md",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let md = std::fs::read_to_string(home.join("r.md")).unwrap();
    assert!(
        md.contains("| Your pipeline | bm25 retriever, top\\-k 3, no reranker, temperature 0.7 |"),
        "{md}"
    );
    assert!(
        md.contains("For your pipeline: Your generator runs at temperature 0.7"),
        "{md}"
    );

    // The next version reads its first version's profile until it has its own.
    ok(
        home,
        &[
            "import",
            town("town-v2.jsonl").to_str().unwrap(),
            "--version-of",
            "1",
        ],
    );
    let inherited = json(&ok(home, &["profile", "2", "--json"]));
    assert_eq!(inherited["inherited_from"], 1);
    let own = json(&ok(
        home,
        &["profile", "2", "--temperature", "0.1", "--json"],
    ));
    assert_eq!(own["inherited_from"], Value::Null);
    assert_eq!(
        own["profile"]["top_k"], 3,
        "an edit keeps the fields it does not name"
    );
    let cleared = json(&ok(home, &["profile", "1", "--clear", "--json"]));
    assert_eq!(cleared["profile"]["top_k"], Value::Null);
}
