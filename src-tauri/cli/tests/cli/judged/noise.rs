//! Judge noise: comparing runs, and repeating one to measure its spread.

use super::*;

/// Two runs of the same data with a judge that never answers the same twice: every
/// change is within noise and nothing is called a regression. A third run, of a
/// pipeline version whose answers went off-topic on 8 of 24 items, is a regression that
/// `--fail-on-regression` turns into exit 1.
#[test]
fn compare_tells_judge_noise_from_a_real_regression() {
    let sim = Simulator::start(SimConfig {
        faults: FaultRules {
            score_jitter: 0.05,
            ..Default::default()
        },
        ..Default::default()
    })
    .expect("simulator starts");
    let home = tempfile::tempdir().unwrap();
    add_sim_judge(home.path(), &sim, 4);
    let example = repo().join("assets/examples/ragnosis-example.jsonl");
    let eval = |file: &str, extra: &[&str]| eval_with_the_jittery_judge(home.path(), file, extra);
    eval(example.to_str().unwrap(), &[]);
    eval(example.to_str().unwrap(), &["--no-cache"]); // the same file: dataset 1 again
    let asked = sim.stats().calls;
    assert!(asked >= 48, "both runs asked the judge: {asked} calls");

    assert_runs_1_and_2_differ_only_by_noise(home.path());

    let v2_file = off_topic_on_8_of_24(&example, home.path());
    eval(v2_file.to_str().unwrap(), &[]);
    assert_run_3_is_a_regression_that_fails_the_gate(home.path());
}

/// `file` evaluated with the jittery judge `sim` on four judged metrics, with `extra`
/// flags; the run must succeed.
fn eval_with_the_jittery_judge(home: &Path, file: &str, extra: &[&str]) {
    let metrics =
        "ragvue.clarity,ragvue.answer_relevance,ragvue.coherence,ragvue.answer_conciseness";
    let mut args = vec![
        "eval",
        file,
        "--metrics",
        metrics,
        "--judge",
        "sim",
        "--format",
        "json",
    ];
    args.extend_from_slice(extra);
    let out_base = home.join("out");
    let mut owned: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    owned.extend(["--out-base".to_string(), out_base.display().to_string()]);
    let refs: Vec<&str> = owned.iter().map(String::as_str).collect();
    let o = run(home, &refs);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

/// Runs 1 and 2, the same data judged twice, compare as noise: every change within it,
/// the judge's own movement named, no metric flagged red.
fn assert_runs_1_and_2_differ_only_by_noise(home: &Path) {
    let same = run(
        home,
        &[
            "compare",
            "1",
            "2",
            "--format",
            "json",
            "--out",
            home.join("c12").to_str().unwrap(),
        ],
    );
    assert_eq!(same.status.code(), Some(0), "{}", text(&same.stderr));
    let printed = text(&same.stdout);
    assert!(printed.contains("24 items matched by item id"), "{printed}");
    assert!(printed.contains("within noise"), "{printed}");
    // The jittery judge moved scores of items whose output did not change: that is its
    // own variation, and the headline names it.
    assert!(
        printed.contains("0 of 24 matched items have another output")
            && printed.contains("the judge moved"),
        "{printed}"
    );
    assert!(printed.contains("No metric regressed"), "{printed}");
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join("c12.json")).unwrap()).unwrap();
    assert!(
        json["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["flag"] != "red"),
        "noise is never a regression: {json}"
    );
}

/// Version 2 of the pipeline: the example with 8 of its 24 answers replaced by an
/// off-topic sentence, written to `dir/v2.jsonl`.
fn off_topic_on_8_of_24(example: &Path, dir: &Path) -> PathBuf {
    let v2: String = std::fs::read_to_string(example)
        .unwrap()
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let mut row: Value = serde_json::from_str(line).unwrap();
            if i % 3 == 0 {
                row["answer"] = "Our shop is open from nine to five on weekdays.".into();
            }
            format!("{row}\n")
        })
        .collect();
    let v2_file = dir.join("v2.jsonl");
    std::fs::write(&v2_file, v2).unwrap();
    v2_file
}

/// Run 3 (version 2) against run 1 is a regression of answer relevance that
/// `--fail-on-regression` turns into exit 1, said on the terminal.
fn assert_run_3_is_a_regression_that_fails_the_gate(home: &Path) {
    let worse = run(
        home,
        &[
            "compare",
            "1",
            "3",
            "--format",
            "json",
            "--out",
            home.join("c13").to_str().unwrap(),
            "--fail-on-regression",
        ],
    );
    let printed = text(&worse.stdout);
    assert_eq!(
        worse.status.code(),
        Some(1),
        "{printed}\n{}",
        text(&worse.stderr)
    );
    assert!(
        printed.contains("8 of 24 matched items have another output"),
        "{printed}"
    );
    let relevance = printed
        .lines()
        .find(|l| l.trim_start().starts_with("ragvue.answer_relevance"))
        .unwrap();
    assert!(
        relevance.trim_end().ends_with("regression") && !relevance.contains("no regression"),
        "{relevance}"
    );
    let said = text(&worse.stderr);
    assert!(
        said.contains("gate FAIL: ragvue.answer_relevance")
            && said.contains("regression gate missed:")
            && said.contains("ragvue.answer_relevance"),
        "{said}"
    );
}

/// `--repeat N` judges the same items N times without the cache and reports how far the
/// scores moved: nothing with a deterministic judge, something with a jittery one.
#[test]
fn repeat_measures_run_to_run_spread() {
    let sim = Simulator::start(SimConfig {
        faults: FaultRules {
            score_jitter: 0.1,
            ..Default::default()
        },
        ..Default::default()
    })
    .expect("simulator starts");
    let home = tempfile::tempdir().unwrap();
    add_sim_judge(home.path(), &sim, 4);
    let example = repo().join("assets/examples/ragnosis-example.jsonl");
    let file = example.to_str().unwrap();
    let repeated = |judge: &str| {
        let o = run(
            home.path(),
            &[
                "eval",
                file,
                "--metrics",
                "clarity",
                "--judge",
                judge,
                "--repeat",
                "3",
                "--format",
                "json",
                "--out-base",
                home.path().join("r").to_str().unwrap(),
            ],
        );
        assert!(o.status.success(), "{}", text(&o.stderr));
        text(&o.stdout)
    };
    let steady = repeated("offline");
    assert!(
        steady.contains("ragvue.clarity") && steady.contains("agreement 1.000"),
        "{steady}"
    );
    assert!(steady.contains("the mean moved 0.000"), "{steady}");
    let calls_before = sim.stats().calls;
    let jittery = repeated("sim");
    assert!(
        sim.stats().calls - calls_before >= 3 * 24,
        "each repeat asked the judge afresh"
    );
    let line = jittery
        .lines()
        .find(|l| l.contains("agreement") && l.contains("ragvue.clarity"))
        .unwrap();
    assert!(!line.contains("agreement 1.000"), "{line}");
    let runs = text(&run(home.path(), &["runs"]).stdout);
    assert!(runs.contains("repeat 3 of #4"), "{runs}");
    let refused = run(
        home.path(),
        &["eval", file, "--metrics", "clarity", "--repeat", "1"],
    );
    assert_eq!(refused.status.code(), Some(2));
}
