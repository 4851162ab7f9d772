//! The `ragnosis` binary end to end on the files in `assets/examples/`, each test with
//! its own home directory (a real SQLite file in a temp dir).

mod alignment;
mod retrieval;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn example(rel: &str) -> PathBuf {
    repo().join("assets/examples").join(rel)
}

fn ragnosis(home: &Path, args: &[&str]) -> Output {
    crate::support::ragnosis(home)
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn eval_of_the_example_prints_a_summary_and_writes_three_exports() {
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("out/example");
    let file = example("ragnosis-example.jsonl");
    let o = ragnosis(
        home.path(),
        &[
            "eval",
            file.to_str().unwrap(),
            "--metrics",
            "ragvue,citation,reference",
            "--label",
            "demo",
            "--out-base",
            out.to_str().unwrap(),
        ],
    );
    assert!(o.status.success(), "eval succeeds: {}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("Imported 24 of 24 items"),
        "import line: {text}"
    );
    assert!(
        text.contains("reference.token_f1") && text.contains("citation.strict_accuracy"),
        "summary table: {text}"
    );

    assert_the_json_export_has_every_item_its_statistics_and_advice(&out.with_extension("json"));
    assert_the_csv_export_has_one_row_per_item(&out.with_extension("csv"));
    assert_the_markdown_report_advises_what_the_terminal_printed(&out, &text);
}

/// The JSON export of the example's run: labelled `demo`, with its trust statement, its
/// ranked actions, its 24 items with their details and every summary statistic.
fn assert_the_json_export_has_every_item_its_statistics_and_advice(path: &Path) {
    let json: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(json["run"]["label"], "demo");
    // The report facts travel with the data: how far to trust it, and the advice.
    let trust = json["trust"].as_array().expect("the trust statement");
    assert!(
        trust
            .iter()
            .any(|s| s.as_str().is_some_and(|s| s.contains("offline judge"))),
        "{trust:?}"
    );
    assert!(
        json["insights"]["actions"]
            .as_array()
            .is_some_and(|a| !a.is_empty()),
        "the ranked actions: {}",
        json["insights"]
    );
    let items = json["items"].as_array().unwrap();
    assert_eq!(items.len(), 24);
    let f1 = &json["summary"]["metrics"]["reference.token_f1"];
    assert_eq!(
        f1["n"], 24,
        "every example item has an answer and a ground truth"
    );
    for key in [
        "mean",
        "std",
        "median",
        "p25",
        "p75",
        "min",
        "max",
        "share_failing",
        "ci95_low",
        "ci95_high",
    ] {
        assert!(
            f1[key].is_number(),
            "summary statistic {key} is present: {f1}"
        );
    }
    let first = &items[0]["results"]["citation.strict_accuracy"];
    assert_eq!(first["status"], "ok");
    assert!(
        first["details"].is_object(),
        "each result carries its details"
    );
    let macro_f1 = json["summary"]["dataset_metrics"]["citation.macro_f1"]
        .as_f64()
        .unwrap();
    assert!(
        macro_f1 > 0.0 && macro_f1 < 1.0,
        "the example mixes right and wrong citations: {macro_f1}"
    );
}

/// The CSV export: a header naming the item and each metric, one row per item.
fn assert_the_csv_export_has_one_row_per_item(path: &Path) {
    let csv = std::fs::read_to_string(path).unwrap();
    let mut lines = csv.lines();
    let header = lines.next().unwrap();
    assert!(
        header.starts_with("position,item_id,id,question,") && header.contains("reference.bleu")
    );
    assert_eq!(lines.count(), 24, "one CSV row per item");
}

/// The Markdown report beside `out`: its sections, its chart, and the action items the
/// terminal printed in `text`, in the same order.
fn assert_the_markdown_report_advises_what_the_terminal_printed(out: &Path, text: &str) {
    let md = std::fs::read_to_string(out.with_extension("md")).unwrap();
    // The report's Markdown (the report crate's, as the PDF), with its charts beside it.
    for heading in [
        "# demo",
        "## Executive summary",
        "## Metrics",
        "## Diagnosis",
        "### Metric definitions",
    ] {
        assert!(md.contains(heading), "markdown has `{heading}`");
    }
    // The short report's one chart: the failure patterns when the run was diagnosed,
    // otherwise the metric means.
    assert!(
        out.with_file_name("example-patterns.svg").exists()
            || out.with_file_name("example-means.svg").exists(),
        "the chart is written beside the Markdown"
    );
    // The terminal advises the fixes the report advises, in the same order.
    let printed: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim_start().split_once(". [").map(|(_, rest)| rest))
        .filter_map(|rest| rest.split_once("] ").map(|(_, title)| title))
        .collect();
    let reported: Vec<&str> = md
        .lines()
        .filter_map(|l| l.strip_prefix("### "))
        .filter_map(|l| l.split_once(". ").map(|(_, rest)| rest))
        .filter_map(|rest| rest.rsplit_once(" (").map(|(title, _)| title))
        .collect();
    assert!(
        !printed.is_empty(),
        "the terminal lists action items: {text}"
    );
    assert_eq!(printed, reported, "one action list for terminal and report");
}

#[test]
fn ask_answers_from_the_run_and_cites_its_items() {
    let home = tempfile::tempdir().unwrap();
    let file = example("ragnosis-example.jsonl");
    let o = ragnosis(home.path(), &["agentic", file.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = ragnosis(home.path(), &["ask", "1", "What should I fix first?"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).starts_with("Fix first: "), "{}", stdout(&o));
    assert!(stderr(&o).contains("no language model"), "{}", stderr(&o));
    let o = ragnosis(
        home.path(),
        &[
            "ask",
            "1",
            "why is it flagged?",
            "--item",
            "nw-015",
            "--json",
        ],
    );
    let answer: Value = serde_json::from_slice(&o.stdout).expect("JSON on stdout");
    assert_eq!(answer["intent"], "why_flagged");
    assert_eq!(answer["items"].as_array().map(Vec::len), Some(1));
    let o = ragnosis(home.path(), &["ask", "1", "why?", "--item", "nw-999"]);
    assert!(!o.status.success(), "an item the run lacks is refused");
    assert!(stderr(&o).contains("nw-999"), "{}", stderr(&o));
}

#[test]
fn ragchecker_example_yields_all_eleven_metrics_without_a_judge() {
    let home = tempfile::tempdir().unwrap();
    let file = example("ragchecker/claims_and_labels.json");
    let out = home.path().join("rc");
    let o = ragnosis(
        home.path(),
        &[
            "eval",
            file.to_str().unwrap(),
            "--metrics",
            "ragchecker",
            "--out-base",
            out.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("judge none asked"),
        "scored from the supplied labels, so no judge is named: {}",
        stdout(&o)
    );
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(out.with_extension("json")).unwrap())
            .unwrap();
    let metrics = json["summary"]["metrics"].as_object().unwrap();
    assert_eq!(metrics.len(), 11);
    for (id, m) in metrics {
        assert_eq!(m["n"], 2, "{id} scored both items from the supplied labels");
        assert_eq!(m["errors"], 0, "{id} has no errors");
    }
    let groups = &json["summary"]["dataset_details"]["ragchecker"];
    assert!(
        groups["overall_metrics"]["f1"].is_number(),
        "RAGChecker-style groups are exported: {groups}"
    );
}

#[test]
fn bad_lines_are_reported_with_their_line_and_the_rest_imported() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("mixed.jsonl");
    std::fs::write(
        &file,
        "{\"question\": \"q1\", \"answer\": \"a1\"}\n{not json}\n{\"answer\": \"no question\"}\n{\"question\": \"q4\"}\n",
    )
    .unwrap();
    let o = ragnosis(home.path(), &["import", file.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(report["items_accepted"], 2);
    let rejected = report["rejected"].as_array().unwrap();
    let lines: Vec<i64> = rejected
        .iter()
        .map(|r| r["line"].as_i64().unwrap())
        .collect();
    assert_eq!(lines, vec![2, 3]);
    let listed = ragnosis(home.path(), &["datasets", "--json"]);
    let rows: Value = serde_json::from_str(&stdout(&listed)).unwrap();
    assert_eq!(rows[0]["item_count"], 2, "the two valid lines were stored");
}

#[test]
fn usage_and_input_errors_exit_2_and_evaluate_nothing() {
    let home = tempfile::tempdir().unwrap();
    let file = example("ragnosis-example.jsonl");
    let unknown = ragnosis(
        home.path(),
        &[
            "eval",
            file.to_str().unwrap(),
            "--metrics",
            "no_such_metric",
        ],
    );
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        stderr(&unknown).contains("no_such_metric"),
        "the message names the bad entry"
    );

    let missing = ragnosis(
        home.path(),
        &["eval", "/nonexistent/file.jsonl", "--metrics", "bleu"],
    );
    assert_eq!(missing.status.code(), Some(2));

    let empty = home.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let o = ragnosis(
        home.path(),
        &["eval", empty.to_str().unwrap(), "--metrics", "bleu"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("empty"), "{}", stderr(&o));

    let no_run = ragnosis(home.path(), &["show", "99"]);
    assert_eq!(no_run.status.code(), Some(2));

    assert_out_of_range_values_are_refused_before_the_file_is_read(home.path());

    let runs = ragnosis(home.path(), &["runs", "--json"]);
    assert_eq!(
        stdout(&runs).trim(),
        "[]",
        "no run was created by any failed command"
    );
}

/// Out of range: exit 2 with the window's sentence and code (tests/shell/ipc/runs.rs pins
/// the same), said before the file is read.
fn assert_out_of_range_values_are_refused_before_the_file_is_read(home: &Path) {
    for (flag, value, sentence) in [
        (
            "--tau",
            "2",
            "invalid input: tau must be between 0 and 1, got 2",
        ),
        (
            "--budget",
            "inf",
            "invalid input: the budget must be an amount of USD, 0 or more; got inf",
        ),
        (
            "--limit",
            "0",
            "invalid input: limit and sample must be at least 1 item",
        ),
    ] {
        let o = ragnosis(
            home,
            &[
                "eval",
                "/nonexistent/file.jsonl",
                "--metrics",
                "bleu",
                flag,
                value,
            ],
        );
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!("error [invalid]: {sentence}")),
            "{}",
            stderr(&o)
        );
    }
}

#[test]
fn list_metrics_json_names_needs_and_judge() {
    let home = tempfile::tempdir().unwrap();
    let o = ragnosis(home.path(), &["list-metrics", "--json"]);
    assert!(o.status.success());
    let list: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let bleu = list
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == "reference.bleu")
        .expect("bleu listed");
    assert_eq!(bleu["family"], "reference");
    assert_eq!(bleu["judge"], false);
    assert_eq!(bleu["needs"], serde_json::json!(["answer", "ground_truth"]));
}

#[test]
fn sample_and_limit_choose_the_evaluated_items() {
    let home = tempfile::tempdir().unwrap();
    let file = example("ragnosis-example.jsonl");
    let o = ragnosis(
        home.path(),
        &[
            "eval",
            file.to_str().unwrap(),
            "--metrics",
            "bleu",
            "--limit",
            "20",
            "--sample",
            "5",
            "--seed",
            "3",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let show = ragnosis(home.path(), &["show", "1", "--json"]);
    let view: Value = serde_json::from_str(&stdout(&show)).unwrap();
    assert_eq!(view["run"]["item_count"], 5);
    assert_eq!(view["summary"]["metrics"]["reference.bleu"]["n"], 5);
}

/// CLI conventions a new user runs into: a closed pipe, a file that is not a list of
/// items, the metric legend, and what `runs` tells about each run.
mod conventions {
    use std::io::Read;
    use std::process::Stdio;

    use super::*;

    #[test]
    fn output_into_a_closed_pipe_ends_quietly_without_a_panic() {
        let home = tempfile::tempdir().unwrap();
        let mut child = crate::support::binary()
            .arg("--home")
            .arg(home.path())
            .args(["list-metrics"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The reader goes away before the first line is written, as `| head -0` would.
        drop(child.stdout.take());
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let status = child.wait().unwrap();
        assert!(
            !err.contains("panicked") && !err.contains("Broken pipe"),
            "{err}"
        );
        assert_ne!(status.code(), Some(101), "no panic exit: {status:?}");
    }

    #[test]
    fn a_json_object_without_items_is_refused_and_stores_nothing() {
        let home = tempfile::tempdir().unwrap();
        let file = home.path().join("settings.json");
        std::fs::write(&file, r#"{"foo": 1}"#).unwrap();
        let o = ragnosis(home.path(), &["import", file.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let said = format!("{}{}", stdout(&o), stderr(&o));
        assert!(
            said.contains("(its fields: foo)") && said.contains("nothing was stored"),
            "{said}"
        );
        let listed = ragnosis(home.path(), &["datasets", "--json"]);
        let datasets: Value = serde_json::from_slice(&listed.stdout).unwrap();
        assert_eq!(
            datasets,
            Value::Array(vec![]),
            "no empty dataset is left behind"
        );
    }

    #[test]
    fn list_metrics_explains_the_needs_letters() {
        let home = tempfile::tempdir().unwrap();
        let o = ragnosis(home.path(), &["list-metrics"]);
        let text = stdout(&o);
        assert!(
            text.contains("GT = a ground-truth answer") && text.contains("C = retrieved contexts"),
            "{text}"
        );
    }

    #[test]
    fn runs_names_mode_judge_and_cost_and_a_plan_stores_no_run() {
        let home = tempfile::tempdir().unwrap();
        let file = example("ragnosis-example.jsonl");
        let planned = ragnosis(home.path(), &["agentic", file.to_str().unwrap(), "--plan"]);
        assert!(planned.status.success(), "{}", stderr(&planned));
        assert!(
            stdout(&planned).contains("no run was stored"),
            "{}",
            stdout(&planned)
        );
        let runs: Value =
            serde_json::from_slice(&ragnosis(home.path(), &["runs", "--json"]).stdout).unwrap();
        assert_eq!(
            runs,
            Value::Array(vec![]),
            "looking at a plan leaves no planned run"
        );

        let o = ragnosis(
            home.path(),
            &["eval", "--dataset", "1", "--metrics", "citation"],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let listed = stdout(&ragnosis(home.path(), &["runs"]));
        let row = listed.lines().nth(1).unwrap_or_default();
        assert!(
            row.contains("manual") && row.contains("none asked") && row.contains("$0.0000"),
            "{listed}"
        );
    }
}

fn export_fixture(name: &str) -> PathBuf {
    repo().join("tests/exports").join(name)
}

#[test]
fn import_map_overrides_a_field_and_the_report_says_so() {
    let home = tempfile::tempdir().unwrap();
    let file = export_fixture("promptfoo-results.json");
    let file = file.to_str().unwrap();
    // Without a mapping: the most specific question-like var, and the choice explained.
    let o = ragnosis(home.path(), &["import", file]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("schema promptfoo"), "{text}");
    assert!(
        text.contains("chose vars.question for question (not vars.query)"),
        "{text}"
    );
    // The user's choice: another dataset (same bytes, other mapping), its report names it.
    let o = ragnosis(
        home.path(),
        &["import", file, "--map", "question=vars.query", "--json"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        report["mapping"]["question"][0],
        "vars.query (your mapping)"
    );
    assert_eq!(report["items_accepted"], 2);
    let o = ragnosis(home.path(), &["datasets", "--json"]);
    let datasets: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        datasets.as_array().unwrap().len(),
        2,
        "a new mapping is a new dataset, not the earlier import reused"
    );
    // A field that does not exist is a usage error naming the fields.
    let o = ragnosis(home.path(), &["import", file, "--map", "query=vars.query"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot map `query`"), "{}", stderr(&o));
}

#[test]
fn a_deepeval_runs_scores_are_compared_with_ours_and_its_errors_left_out() {
    let home = tempfile::tempdir().unwrap();
    let file = export_fixture("deepeval-latest-test-run.json");
    let o = ragnosis(
        home.path(),
        &["eval", file.to_str().unwrap(), "--metrics", "ragvue"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = ragnosis(home.path(), &["prior", "1", "--json"]);
    let names: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        names,
        serde_json::json!([{"name": "Answer Relevancy", "items": 2}, {"name": "Faithfulness", "items": 2}])
    );
    let o = ragnosis(
        home.path(),
        &[
            "prior",
            "1",
            "--pair",
            "Answer Relevancy=ragvue.answer_relevance",
            "--json",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let agreement: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        agreement["figures"]["n"], 1,
        "the errored DeepEval score is not paired"
    );
    assert_eq!(agreement["prior_errors"], 1);
    let o = ragnosis(
        home.path(),
        &["prior", "1", "--pair", "Relevance=ragvue.answer_relevance"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("the items carry Answer Relevancy, Faithfulness"),
        "{}",
        stderr(&o)
    );
}

/// Several Ragnosis processes on one database at once (what the window and a terminal
/// do): writers wait for each other instead of failing, and no write is lost.
#[test]
fn four_processes_on_one_database_all_finish_and_lose_no_write() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let first = dir.path().join("first.jsonl");
    let second = dir.path().join("second.jsonl");
    let third = dir.path().join("third.jsonl");
    std::fs::write(&first, parts("a", 3_000)).unwrap();
    std::fs::write(&second, parts("b", 20_000)).unwrap();
    std::fs::write(&third, parts("c", 20_000)).unwrap();
    let o = ragnosis(&home, &["import", first.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Run 1, to be labelled while the rest goes on.
    let o = ragnosis(
        &home,
        &["eval", "--dataset", "1", "--metrics", "reference.token_f1"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let labels = dir.path().join("labels.jsonl");
    std::fs::write(&labels, pass_fail_labels_of_kit_a()).unwrap();

    let spawn = |args: &[&str]| {
        crate::support::ragnosis(&home)
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    // A run writing results, two imports writing items and labels of run 1, all at once.
    let children = [
        spawn(&[
            "eval",
            "--dataset",
            "1",
            "--metrics",
            "reference.token_f1,reference.exact_match,ragvue.answer_length",
        ]),
        spawn(&["import", second.to_str().unwrap()]),
        spawn(&["import", third.to_str().unwrap()]),
        spawn(&["labels", "import", "1", labels.to_str().unwrap()]),
    ];
    for child in children {
        let o = child.wait_with_output().unwrap();
        let err = stderr(&o);
        assert!(o.status.success(), "{err}");
        assert!(!err.to_lowercase().contains("locked"), "{err}");
    }
    assert_every_item_result_and_label_is_stored(&home);
}

/// `n` items of kit `tag`, one JSONL line each, with a context and a ground truth.
fn parts(tag: &str, n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "{{\"id\": \"{tag}-{i}\", \"question\": \"What is part {tag} {i}?\", \"answer\": \"Part {i} is a bolt.\", \"ground_truth\": \"A bolt.\", \"contexts\": [\"Part {i} of kit {tag} is a bolt.\"]}}\n"
            )
        })
        .collect()
}

/// Pass / fail labels of reference.token_f1 on the 3,000 items of kit `a`, one in
/// three a fail.
fn pass_fail_labels_of_kit_a() -> String {
    (0..3_000)
        .map(|i| {
            let verdict = if i % 3 == 0 { "fail" } else { "pass" };
            format!("{{\"item\": \"a-{i}\", \"metric\": \"reference.token_f1\", \"score\": \"{verdict}\"}}\n")
        })
        .collect()
}

/// What four processes wrote at once is all in the database at `home`: every item of
/// the three imports, every result of run 2 and every label of run 1.
fn assert_every_item_result_and_label_is_stored(home: &Path) {
    let store = ragnosis_core::store::Store::open(home).unwrap();
    let datasets = ragnosis_core::store::datasets::list(store.conn()).unwrap();
    let mut counts: Vec<i64> = datasets.iter().map(|d| d.item_count).collect();
    counts.sort_unstable();
    assert_eq!(
        counts,
        [3_000, 20_000, 20_000],
        "every item of every import"
    );
    let results: i64 = ragnosis_core::store::results::status_counts(store.conn(), 2)
        .unwrap()
        .values()
        .sum();
    assert_eq!(results, 9_000, "every result of the run");
    let alignment: serde_json::Value =
        serde_json::from_str(&stdout(&ragnosis(home, &["alignment", "1", "--json"]))).unwrap();
    assert_eq!(
        alignment["metrics"][0]["n"].as_u64(),
        Some(3_000),
        "every label: {alignment}"
    );
}
