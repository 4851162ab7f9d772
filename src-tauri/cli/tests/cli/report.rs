//! `ragnosis report` and `ragnosis compare` end to end on the example dataset, each test
//! with its own home directory.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/examples/ragnosis-example.jsonl")
}

fn ragnosis(home: &Path, args: &[&str]) -> Output {
    let out = crate::support::ragnosis(home)
        .args(args)
        .env_remove("SOURCE_DATE_EPOCH")
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "ragnosis {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn eval(home: &Path, extra: &[&str]) {
    let file = example();
    let mut args = vec![
        "eval",
        file.to_str().unwrap(),
        "--metrics",
        "reference,citation",
    ];
    args.extend_from_slice(extra);
    ragnosis(home, &args);
}

#[test]
fn report_writes_pdf_markdown_and_charts() {
    let home = tempfile::tempdir().unwrap();
    eval(home.path(), &["--label", "baseline"]);
    let out = home.path().join("reports/run-1");
    let o = ragnosis(
        home.path(),
        &[
            "report",
            "1",
            "--format",
            "pdf,md",
            "--out",
            out.to_str().unwrap(),
            "--worst",
            "2",
            "--date",
            "2025-06-01",
            "--detail",
            "full",
        ],
    );
    let printed = String::from_utf8_lossy(&o.stdout);
    for file in [
        "run-1.pdf",
        "run-1.md",
        "run-1-means.svg",
        "run-1-distributions.svg",
    ] {
        let path = home.path().join("reports").join(file);
        assert!(path.exists(), "{file} written");
        assert!(
            printed.contains(&path.display().to_string()),
            "{file} reported on stdout"
        );
    }
    let pdf = std::fs::read(home.path().join("reports/run-1.pdf")).unwrap();
    assert!(pdf.starts_with(b"%PDF-"));
    let md = std::fs::read_to_string(home.path().join("reports/run-1.md")).unwrap();
    assert!(md.contains("## Appendix: the 2 worst items") && md.contains("2025\\-06\\-01"));
}

#[test]
fn compare_writes_json_and_a_comparison_report() {
    let home = tempfile::tempdir().unwrap();
    eval(home.path(), &["--label", "k10"]);
    eval(home.path(), &["--label", "k1", "--k", "1"]);
    let out = home.path().join("cmp");
    let o = ragnosis(
        home.path(),
        &[
            "compare",
            "1",
            "2",
            "--format",
            "md,json",
            "--out",
            out.to_str().unwrap(),
            "--threshold",
            "0.1",
        ],
    );
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(home.path().join("cmp.json")).unwrap())
            .unwrap();
    assert_eq!(json["matched"], 24);
    assert_eq!(json["threshold"], 0.1);
    let recall = json["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == "reference.recall_at_k")
        .unwrap();
    assert!(
        recall["delta"].as_f64().unwrap() < 0.0,
        "k = 1 finds fewer gold documents"
    );
    let md = std::fs::read_to_string(home.path().join("cmp.md")).unwrap();
    assert!(md.contains("## Comparison") && md.contains("### Change per metric"));
    // The terminal says what changed, not only which files were written.
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        said.contains("24 items matched") && said.contains("reference.recall_at_k"),
        "{said}"
    );
    assert!(
        said.lines()
            .any(|l| l.contains("reference.recall_at_k") && l.contains(" -0.")),
        "{said}"
    );
}

#[test]
fn compare_names_the_items_a_change_broke_before_those_it_fixed() {
    // A town-services bot and its "after my fix" version: three answers mended (a wrong
    // figure, a wrong duration, a refusal of what the passages say), one broken (a figure
    // changed), one reworded, three untouched.
    let home = tempfile::tempdir().unwrap();
    let set = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/compare");
    for (version, label) in [("town-v1.jsonl", "v1"), ("town-v2.jsonl", "v2")] {
        let file = set.join(version);
        ragnosis(
            home.path(),
            &[
                "agentic",
                file.to_str().unwrap(),
                "--label",
                label,
                "--quiet",
            ],
        );
    }
    let out = home.path().join("cmp");
    let o = ragnosis(
        home.path(),
        &[
            "compare",
            "1",
            "2",
            "--format",
            "md,json",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(home.path().join("cmp.json")).unwrap())
            .unwrap();
    let labels = |key: &str| -> Vec<String> {
        json["items"][key]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["label"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(labels("worse"), ["t-05"]);
    assert_eq!(labels("improved"), ["t-02", "t-04", "t-08"]);
    assert_eq!(json["items"]["same_output"], 3);
    // The terminal says it before any metric, worse first.
    let said = String::from_utf8_lossy(&o.stdout);
    let short = said.find("In short: 1 item got worse (t-05), 3 improved (t-02, t-04, t-08)");
    let table = said.find("ragvue.retrieval_relevance");
    assert!(
        short.is_some() && short < table,
        "the item verdict comes before the metric table: {said}"
    );
    // The report opens on the comparison, before run B's own summary.
    let md = std::fs::read_to_string(home.path().join("cmp.md")).unwrap();
    let (comparison, summary) = (
        md.find("## Comparison").unwrap(),
        md.find("## Executive summary").unwrap(),
    );
    assert!(comparison < summary, "the comparison comes first");
    assert!(md.contains("- t\\-05: no problem found → "), "{md}");
}

#[test]
fn unknown_formats_are_refused_as_input_errors() {
    let home = tempfile::tempdir().unwrap();
    eval(home.path(), &[]);
    let out = crate::support::binary()
        .arg("--home")
        .arg(home.path())
        .args(["report", "1", "--format", "docx"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "usage errors exit 2");
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown report format 'docx'"));
}

#[test]
fn the_default_report_is_short_and_a_bad_detail_is_a_usage_error() {
    let home = tempfile::tempdir().unwrap();
    eval(home.path(), &["--label", "baseline"]);
    let out = home.path().join("short/run-1");
    ragnosis(
        home.path(),
        &[
            "report",
            "1",
            "--format",
            "md",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let md = std::fs::read_to_string(home.path().join("short/run-1.md")).unwrap();
    assert!(!md.contains("## Appendix") && md.contains("detail full"));
    assert!(
        !home.path().join("short/run-1-distributions.svg").exists(),
        "one chart in a short report"
    );
    let refused = crate::support::binary()
        .args([
            "--home",
            home.path().to_str().unwrap(),
            "report",
            "1",
            "--detail",
            "long",
        ])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("short or full"));
}
