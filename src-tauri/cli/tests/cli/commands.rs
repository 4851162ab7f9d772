//! The `ragnosis` binary end to end on the files in `assets/examples/`, each test with
//! its own home directory (a real SQLite file in a temp dir).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn example(rel: &str) -> PathBuf {
    repo().join("assets/examples").join(rel)
}

fn ragnosis(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ragnosis"))
        .arg("--home")
        .arg(home)
        .arg("--quiet")
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

    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(out.with_extension("json")).unwrap())
            .unwrap();
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

    let csv = std::fs::read_to_string(out.with_extension("csv")).unwrap();
    let mut lines = csv.lines();
    let header = lines.next().unwrap();
    assert!(
        header.starts_with("position,item_id,id,question,") && header.contains("reference.bleu")
    );
    assert_eq!(lines.count(), 24, "one CSV row per item");

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

    // Out of range: the window's sentence and code (tests/shell/ipc.rs pins the same),
    // said before the file is read.
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
            home.path(),
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

    let runs = ragnosis(home.path(), &["runs", "--json"]);
    assert_eq!(
        stdout(&runs).trim(),
        "[]",
        "no run was created by any failed command"
    );
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
        let mut child = Command::new(env!("CARGO_BIN_EXE_ragnosis"))
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

/// Human labels and judge–human alignment on real human-labelled data: STS-B similarity
/// scores (graded) against `reference.token_f1`, and WiCE claim support (pass / fail)
/// against `ragvue.token_overlap`. Both metrics are judge-free, so the pairs are fixed;
/// the expected figures were computed by scipy 1.16 (`spearmanr`, `kendalltau`) and
/// numpy on the same pairs (see `scripts/alignment-reference.py`).
mod alignment {
    use super::*;

    // scripts/alignment-reference.py on the pairs of each test (scipy 1.16).
    const STSB_SPEARMAN: f64 = 0.383_152_380_866_702_3;
    const STSB_SPEARMAN_SE: f64 = 0.073_815_618_609_272_66;
    const STSB_KENDALL: f64 = 0.272_117_370_674_268_7;
    const STSB_MAE: f64 = 0.229_530_533_370_998_02;
    const WICE_KENDALL: f64 = 0.458_993_558_518_735_63;
    const WICE_BALANCED: f64 = 0.839_525_283_797_729_6;
    const WICE_THRESHOLD: f64 = 0.044_943_820_224_719_1;

    fn shared() -> PathBuf {
        ragnosis_core::paths::shared_data_dir()
    }

    /// The first 200 STS-B train pairs as items; labels are the gold score / 5.
    fn stsb(dir: &Path) -> (PathBuf, String) {
        let text = std::fs::read_to_string(shared().join("stsb-train/train.tsv")).unwrap();
        let (mut items, mut labels) = (String::new(), String::from("item,metric,score\n"));
        for (i, line) in text.lines().skip(1).take(200).enumerate() {
            let cols: Vec<&str> = line.split('\t').collect();
            let (a, b, gold) = (cols[7], cols[8], cols[9].parse::<f64>().unwrap() / 5.0);
            let row = serde_json::json!({ "id": format!("stsb-{i}"), "question": format!("How alike is pair {i}?"), "answer": a, "ground_truth": b });
            items.push_str(&format!("{row}\n"));
            labels.push_str(&format!("stsb-{i},token_f1,{gold}\n"));
        }
        let file = dir.join("stsb.jsonl");
        std::fs::write(&file, items).unwrap();
        (file, labels)
    }

    #[test]
    fn alignment_with_imported_labels_matches_scipy_and_bad_rows_are_named() {
        let home = tempfile::tempdir().unwrap();
        let (file, mut labels) = stsb(home.path());
        let o = ragnosis(
            home.path(),
            &[
                "eval",
                file.to_str().unwrap(),
                "--metrics",
                "token_f1",
                "--format",
                "json",
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        // Four bad rows and a repeat: each named by its line, the rest stored.
        labels.push_str("nobody,token_f1,0.5\nstsb-1,token_f1,7\nstsb-2,no_such_metric,0.5\nstsb-3,citation,0.5\nstsb-0,token_f1,1\n");
        let labels_file = home.path().join("labels.csv");
        std::fs::write(&labels_file, labels).unwrap();
        let o = ragnosis(
            home.path(),
            &[
                "labels",
                "import",
                "1",
                labels_file.to_str().unwrap(),
                "--json",
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_eq!(
            (report["rows"].as_u64(), report["stored"].as_u64()),
            (Some(205), Some(200))
        );
        let rejected: Vec<(u64, String)> =
            serde_json::from_value(report["rejected"].clone()).unwrap();
        assert_eq!(
            rejected.iter().map(|r| r.0).collect::<Vec<_>>(),
            vec![202, 203, 204, 205]
        );
        assert!(
            rejected[0]
                .1
                .contains("no item of run 1 has the id or question 'nobody'"),
            "{rejected:?}"
        );
        assert!(rejected[1].1.contains("outside 0 to 1"));
        assert!(rejected[2].1.contains("unknown metric"));
        assert!(rejected[3].1.contains("family"));
        assert!(
            report["warnings"][0][1]
                .as_str()
                .unwrap()
                .contains("line 2"),
            "{report}"
        );

        let o = ragnosis(home.path(), &["alignment", "1", "--json"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let a: Value = serde_json::from_str(&stdout(&o)).unwrap();
        let m = &a["metrics"][0];
        assert_eq!(
            (m["metric"].as_str(), m["n"].as_u64()),
            (Some("reference.token_f1"), Some(200))
        );
        let close = |key: &str, expected: f64| {
            let got = m[key].as_f64().unwrap();
            assert!((got - expected).abs() < 1e-9, "{key}: {got} vs {expected}");
        };
        close("spearman", STSB_SPEARMAN);
        close("spearman_se", STSB_SPEARMAN_SE);
        close("kendall_tau", STSB_KENDALL);
        close("mae", STSB_MAE);

        let printed = stdout(&ragnosis(home.path(), &["alignment", "1"]));
        assert!(
            printed.contains("reference.token_f1")
                && printed.contains(&format!("{STSB_SPEARMAN:.3} ±")),
            "{printed}"
        );
    }

    #[test]
    fn pass_fail_labels_give_balanced_accuracy_at_the_best_threshold() {
        let home = tempfile::tempdir().unwrap();
        let text = std::fs::read_to_string(shared().join("wice-dev/claims_dev.jsonl")).unwrap();
        let (mut items, mut labels) = (String::new(), String::new());
        let mut kept = 0;
        for line in text.lines() {
            let row: Value = serde_json::from_str(line).unwrap();
            let label = match row["label"].as_str().unwrap() {
                "supported" => "pass",
                "not_supported" => "fail",
                _ => continue,
            };
            let id = format!("wice-{kept}");
            let item = serde_json::json!({ "id": id, "question": format!("Is claim {kept} backed by its page?"), "answer": row["claim"], "contexts": row["evidence"] });
            items.push_str(&format!("{item}\n"));
            labels.push_str(&format!(
                "{}\n",
                serde_json::json!({ "item": id, "metric": "token_overlap", "score": label })
            ));
            kept += 1;
            if kept == 80 {
                break;
            }
        }
        let file = home.path().join("wice.jsonl");
        std::fs::write(&file, items).unwrap();
        let o = ragnosis(
            home.path(),
            &[
                "eval",
                file.to_str().unwrap(),
                "--metrics",
                "token_overlap",
                "--format",
                "json",
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let labels_file = home.path().join("labels.jsonl");
        std::fs::write(&labels_file, labels).unwrap();
        let o = ragnosis(
            home.path(),
            &["labels", "import", "1", labels_file.to_str().unwrap()],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        // Ten of the pages have over 200 sentences, the import's limit per item: those
        // items were rejected at import, so their labels find no item and are named.
        let said = stdout(&o);
        assert!(
            said.contains("70 labels stored") && said.contains("10 rejected"),
            "{said}"
        );
        let a: Value = serde_json::from_str(&stdout(&ragnosis(
            home.path(),
            &["alignment", "1", "--json"],
        )))
        .unwrap();
        let m = &a["metrics"][0];
        assert_eq!(m["n"].as_u64(), Some(70));
        assert!(
            (m["kendall_tau"].as_f64().unwrap() - WICE_KENDALL).abs() < 1e-9,
            "{m}"
        );
        assert!(
            (m["binary"]["balanced_accuracy"].as_f64().unwrap() - WICE_BALANCED).abs() < 1e-9,
            "{m}"
        );
        assert!(
            (m["binary"]["threshold"].as_f64().unwrap() - WICE_THRESHOLD).abs() < 1e-9,
            "{m}"
        );
    }
}

/// Documents into a corpus, and retrievers ranked on it: chunk counts and offsets against
/// an independent count, and BM25 on a real qrels collection (the SQuAD 2.0 sample:
/// paragraphs as the corpus, each answerable question's paragraph as its gold) against
/// `rank_bm25` (`scripts/bm25-reference.py`: 294 paragraphs, 1 278 questions, Recall@10
/// 0.9530516431924883, MRR@10 0.8347079389919767).
mod retrieval {
    use super::*;

    // tests/documents/COUNTS.
    const WARRANTY_CHUNKS: u64 = 4;
    const FAQ_CHUNKS: u64 = 3;
    const WARRANTY_SECOND_START: usize = 613;

    fn documents() -> PathBuf {
        repo().join("tests/documents")
    }

    #[test]
    fn ingest_reports_every_file_and_chunks_them_with_offsets() {
        let home = tempfile::tempdir().unwrap();
        let o = ragnosis(
            home.path(),
            &[
                "ingest",
                documents().to_str().unwrap(),
                "--name",
                "northwind",
                "--chunk-tokens",
                "120",
                "--overlap",
                "20",
                "--json",
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let report: Value = serde_json::from_str(&stdout(&o)).unwrap();
        let files = report["files"].as_array().unwrap();
        let by_name = |name: &str| {
            files
                .iter()
                .find(|f| f["path"].as_str().unwrap().ends_with(name))
                .unwrap_or_else(|| panic!("{name} is reported: {report}"))
        };
        // Counted independently (tests/documents/COUNTS): words split on whitespace,
        // windows of 120 stepping by 100, the last ending at the last word.
        assert_eq!(by_name("warranty.md")["chunks"], WARRANTY_CHUNKS);
        assert_eq!(by_name("faq.txt")["chunks"], FAQ_CHUNKS);
        let manual = by_name("manual.pdf");
        assert_eq!(manual["pages"], 3, "{manual}");
        assert!(manual["chunks"].as_u64().unwrap() >= 2, "{manual}");
        assert!(by_name("service.html")["chunks"].as_u64().unwrap() >= 1);
        assert!(by_name("broken.pdf")["error"]
            .as_str()
            .unwrap()
            .contains("not a readable PDF"));
        assert!(by_name("empty.txt")["error"]
            .as_str()
            .unwrap()
            .contains("empty"));
        assert_eq!(files.len(), 6, "every file is named, read or not");

        // The stored chunks are the file's own text at their offsets.
        let store = ragnosis_core::store::Store::open(home.path()).unwrap();
        let chunks = ragnosis_core::store::corpora::chunks(store.conn(), 1).unwrap();
        let warranty = std::fs::read_to_string(documents().join("warranty.md")).unwrap();
        let first: Vec<_> = chunks
            .iter()
            .filter(|c| c.key.starts_with("warranty.md#"))
            .collect();
        for c in &first {
            let (s, e) = (c.start.unwrap() as usize, c.end.unwrap() as usize);
            assert_eq!(&warranty[s..e], c.text, "{}", c.key);
        }
        assert_eq!(first[1].start.unwrap() as usize, WARRANTY_SECOND_START);
        let pages: Vec<i64> = chunks
            .iter()
            .filter(|c| c.key.starts_with("manual.pdf#"))
            .map(|c| c.page.unwrap())
            .collect();
        assert!(
            pages.windows(2).all(|w| w[0] <= w[1]) && pages[0] == 1,
            "{pages:?}"
        );

        // Nothing readable: an error, and no corpus is left behind.
        let bad = ragnosis(
            home.path(),
            &["ingest", documents().join("empty.txt").to_str().unwrap()],
        );
        assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
        let listed = stdout(&ragnosis(home.path(), &["corpora", "--json"]));
        assert_eq!(
            serde_json::from_str::<Value>(&listed)
                .unwrap()
                .as_array()
                .unwrap()
                .len(),
            1
        );
    }

    /// The SQuAD sample's first `limit` paragraphs as a corpus (ids p0, p1, ...) and their
    /// answerable questions as dataset 1, with the paragraph as gold; corpus 1.
    fn squad(home: &Path, limit: usize) {
        let shared = ragnosis_core::paths::shared_data_dir();
        let squad: Value = serde_json::from_str(
            &std::fs::read_to_string(shared.join("squad2-sample/dev-v2.0-articles-1-8.json"))
                .unwrap(),
        )
        .unwrap();
        let (mut corpus, mut questions, mut p) = (String::new(), String::new(), 0);
        let paragraphs = squad["data"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|a| a["paragraphs"].as_array().unwrap())
            .take(limit);
        for paragraph in paragraphs {
            let id = format!("p{p}");
            corpus.push_str(&format!(
                "{}\n",
                serde_json::json!({ "id": id, "text": paragraph["context"] })
            ));
            for qa in paragraph["qas"].as_array().unwrap() {
                if qa["is_impossible"].as_bool() != Some(true) {
                    questions.push_str(&format!(
                        "{}\n",
                        serde_json::json!({ "question": qa["question"], "gold_context_ids": [id] })
                    ));
                }
            }
            p += 1;
        }
        let corpus_file = home.join("paragraphs.jsonl");
        let questions_file = home.join("questions.jsonl");
        std::fs::write(&corpus_file, corpus).unwrap();
        std::fs::write(&questions_file, questions).unwrap();
        assert!(ragnosis(home, &["ingest", corpus_file.to_str().unwrap()])
            .status
            .success());
        assert!(
            ragnosis(home, &["import", questions_file.to_str().unwrap()])
                .status
                .success()
        );
    }

    #[test]
    fn the_embedded_model_ranks_a_corpus_and_keeps_its_vectors() {
        let home = tempfile::tempdir().unwrap();
        squad(home.path(), 40);
        let o = ragnosis(
            home.path(),
            &[
                "retrieval-eval",
                "--dataset",
                "1",
                "--corpus",
                "1",
                "--json",
            ],
        );
        if !o.status.success()
            && stderr(&o).contains("embedded model is not available")
            && std::env::var("RAGNOSIS_MODEL").as_deref() != Ok("required")
        {
            return; // no weights on this machine, and this run does not demand them
        }
        assert!(o.status.success(), "{}", stderr(&o));
        let e: Value = serde_json::from_str(&stdout(&o)).unwrap();
        let names: Vec<&str> = e["retrievers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["retriever"].as_str().unwrap())
            .collect();
        assert_eq!(names, vec!["BM25", "all-MiniLM-L6-v2"], "both are compared");
        let embedded = e["retrievers"][1]["recall_at_k"]["value"].as_f64().unwrap();
        assert!(
            embedded > 0.6,
            "a sentence model finds most paragraphs: {embedded}"
        );
        let store = ragnosis_core::store::Store::open(home.path()).unwrap();
        let first = &ragnosis_core::store::corpora::chunks(store.conn(), 1).unwrap()[0];
        let hash = blake3::hash(first.text.as_bytes()).to_hex().to_string();
        assert!(
            ragnosis_core::store::corpora::embedding(store.conn(), "all-MiniLM-L6-v2", &hash)
                .unwrap()
                .is_some_and(|v| v.len() == 384),
            "the chunk's vector is cached for the next evaluation"
        );
    }

    #[test]
    fn bm25_on_the_squad_sample_matches_rank_bm25() {
        let home = tempfile::tempdir().unwrap();
        squad(home.path(), usize::MAX);
        let o = ragnosis(
            home.path(),
            &[
                "retrieval-eval",
                "--dataset",
                "1",
                "--corpus",
                "1",
                "--retrievers",
                "bm25",
                "--json",
            ],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let e: Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_eq!(
            (e["chunks"].as_u64(), e["queries"].as_u64()),
            (Some(294), Some(1278))
        );
        let bm25 = &e["retrievers"][0];
        let recall = bm25["recall_at_k"]["value"].as_f64().unwrap();
        let mrr = bm25["mrr_at_k"]["value"].as_f64().unwrap();
        assert!(
            (recall - 0.953_051_643_192_488_3).abs() < 1e-12,
            "Recall@10 {recall}"
        );
        assert!((mrr - 0.834_707_938_991_976_7).abs() < 1e-9, "MRR@10 {mrr}");
        let (lo, hi) = (
            bm25["recall_at_k"]["ci_low"].as_f64().unwrap(),
            bm25["recall_at_k"]["ci_high"].as_f64().unwrap(),
        );
        assert!(
            lo < recall && recall < hi,
            "the interval brackets the figure"
        );

        let refused = ragnosis(
            home.path(),
            &[
                "retrieval-eval",
                "--dataset",
                "1",
                "--corpus",
                "1",
                "--retrievers",
                "tfidf",
            ],
        );
        assert_eq!(refused.status.code(), Some(2));
        assert!(stderr(&refused).contains("unknown retriever 'tfidf'"));
    }

    /// An OpenAI-compatible `/v1/embeddings` service (the judge simulator, on 127.0.0.1)
    /// saved as a judge profile ranks the corpus beside BM25; its vectors are cached by
    /// model and endpoint, a malformed reply is an error naming the profile, and the
    /// comparison is written as a Markdown report with its chart.
    #[test]
    fn an_embeddings_endpoint_is_compared_with_bm25_and_its_vectors_are_cached() {
        use ragnosis_judge_sim::{SimConfig, Simulator};
        let sim = Simulator::start(SimConfig::default()).unwrap();
        let home = tempfile::tempdir().unwrap();
        squad(home.path(), 30);
        let added = ragnosis(
            home.path(),
            &[
                "judges",
                "add",
                "sim",
                "--kind",
                "openai",
                "--base-url",
                &sim.base_url(),
                "--model",
                "sim-judge-small",
            ],
        );
        assert!(added.status.success(), "{}", stderr(&added));
        let report = home.path().join("retrievers.md");
        let eval = |retrievers: &str| {
            ragnosis(
                home.path(),
                &[
                    "retrieval-eval",
                    "--dataset",
                    "1",
                    "--corpus",
                    "1",
                    "--retrievers",
                    retrievers,
                    "--report",
                    report.to_str().unwrap(),
                    "--json",
                ],
            )
        };
        let o = eval("bm25,endpoint:sim@sim-embed-1");
        assert!(o.status.success(), "{}", stderr(&o));
        let e: Value = serde_json::from_str(&stdout(&o)).unwrap();
        let endpoint = &e["retrievers"][1];
        assert_eq!(endpoint["retriever"], "sim-embed-1 (sim)");
        let recall = endpoint["recall_at_k"]["value"].as_f64().unwrap();
        assert!(
            recall > 0.5,
            "word-overlap vectors find most paragraphs: {recall}"
        );
        let queries = e["queries"].as_u64().unwrap();
        let batches = |n: u64| n.div_ceil(32);
        let first = sim.stats().embedding_requests;
        assert_eq!(
            first,
            batches(30) + batches(queries),
            "chunks, then questions, in batches of 32"
        );

        // The chunks' vectors come from the cache the second time: only questions are sent.
        assert!(eval("endpoint:sim@sim-embed-1").status.success());
        assert_eq!(sim.stats().embedding_requests - first, batches(queries));
        // Another model on the same endpoint shares nothing with the first.
        assert!(eval("endpoint:sim@sim-embed-2").status.success());
        assert_eq!(
            sim.stats().embedding_requests - first - batches(queries),
            batches(30) + batches(queries)
        );

        let md = std::fs::read_to_string(&report).unwrap();
        assert!(
            md.contains("| sim\\-embed\\-2 \\(sim\\) |"),
            "escaped as text: {md}"
        );
        let chart = std::fs::read_to_string(home.path().join("retrievers-retrievers.svg")).unwrap();
        assert!(
            chart.contains("Recall@10"),
            "the chart is written beside the report"
        );

        let broken = eval("bm25,endpoint:sim@sim-embed-broken");
        assert_eq!(broken.status.code(), Some(2), "{}", stderr(&broken));
        assert!(
            stderr(&broken).contains("embeddings endpoint of profile sim failed")
                && stderr(&broken).contains("vectors for"),
            "{}",
            stderr(&broken)
        );
        let unknown = eval("endpoint:nobody");
        assert!(!unknown.status.success());
        assert!(stderr(&unknown).contains("nobody"), "{}", stderr(&unknown));
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
    let lines = |tag: &str, n: usize| -> String {
        (0..n)
            .map(|i| {
                format!(
                    "{{\"id\": \"{tag}-{i}\", \"question\": \"What is part {tag} {i}?\", \"answer\": \"Part {i} is a bolt.\", \"ground_truth\": \"A bolt.\", \"contexts\": [\"Part {i} of kit {tag} is a bolt.\"]}}\n"
                )
            })
            .collect()
    };
    let first = dir.path().join("first.jsonl");
    let second = dir.path().join("second.jsonl");
    let third = dir.path().join("third.jsonl");
    std::fs::write(&first, lines("a", 3_000)).unwrap();
    std::fs::write(&second, lines("b", 20_000)).unwrap();
    std::fs::write(&third, lines("c", 20_000)).unwrap();
    let o = ragnosis(&home, &["import", first.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Run 1, to be labelled while the rest goes on.
    let o = ragnosis(
        &home,
        &["eval", "--dataset", "1", "--metrics", "reference.token_f1"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let labels = dir.path().join("labels.jsonl");
    let label_lines: String = (0..3_000)
        .map(|i| {
            let verdict = if i % 3 == 0 { "fail" } else { "pass" };
            format!("{{\"item\": \"a-{i}\", \"metric\": \"reference.token_f1\", \"score\": \"{verdict}\"}}\n")
        })
        .collect();
    std::fs::write(&labels, label_lines).unwrap();

    let spawn = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_ragnosis"))
            .arg("--home")
            .arg(&home)
            .arg("--quiet")
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
    let store = ragnosis_core::store::Store::open(&home).unwrap();
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
        serde_json::from_str(&stdout(&ragnosis(&home, &["alignment", "1", "--json"]))).unwrap();
    assert_eq!(
        alignment["metrics"][0]["n"].as_u64(),
        Some(3_000),
        "every label: {alignment}"
    );
}
