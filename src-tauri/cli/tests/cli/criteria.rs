//! Your own criteria end to end: the `ragnosis` binary defines, stores, versions,
//! exports and imports criteria, scores them through the judge simulator (a real HTTP
//! server on 127.0.0.1) or without a judge, and every output shows them; a criterion in
//! plain words under the offline judge is not measured, with the reason. A real SQLite
//! file per test.

use std::path::{Path, PathBuf};

use ragnosis_judge_sim::{SimConfig, SimHandle, Simulator};
use serde_json::Value;

use crate::support::*;

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/examples/ragnosis-example.jsonl")
}

fn simulator_judge(home: &Path) -> SimHandle {
    let sim = Simulator::start(SimConfig::default()).expect("simulator starts");
    add_judge(home, "sim", &sim.base_url(), &["--timeout", "10"]);
    sim
}

/// The criterion the simulator scores by the passages' words it finds in the answer.
fn add_grounded(home: &Path) {
    ok(
        home,
        &[
            "criteria",
            "add",
            "grounded_words",
            "--question",
            "Does the answer say only what the passages say, in their words?",
            "--scale",
            "1-5",
            "--reads",
            "question,answer,contexts",
            "--threshold",
            "4",
            "--anchor",
            "1=Mostly words the passages do not use.",
            "--anchor",
            "5=Every word comes from the passages.",
        ],
    );
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A run of `grounded_words` on the example through the simulator, with its JSON, CSV
/// and Markdown written to `out/run.*`: what the terminal printed, and the simulator.
fn scored_through_the_simulator(home: &Path) -> (SimHandle, String) {
    let sim = simulator_judge(home);
    add_grounded(home);
    let out = home.join("out/run");
    let printed = ok(
        home,
        &[
            "eval",
            example().to_str().unwrap(),
            "--metrics",
            "criteria.grounded_words",
            "--judge",
            "sim",
            "--out-base",
            out.to_str().unwrap(),
            "--format",
            "json,md,csv",
        ],
    );
    (sim, printed)
}

#[test]
fn a_criterion_defined_from_the_cli_is_scored_through_the_simulator_with_its_reasons() {
    let home = tempfile::tempdir().unwrap();
    let (sim, printed) = scored_through_the_simulator(home.path());
    let stats = sim.stats();
    assert_eq!(
        stats.by_task.get("criterion"),
        Some(&24),
        "one criterion call per item: {:?}",
        stats.by_task
    );
    // The terminal: how items did, and the text and version that scored them.
    assert!(
        printed.contains("Your criterion grounded_words (version 1): "),
        "{printed}"
    );
    assert!(
        printed.contains("of 24 scored items pass (passes at 4 or more on 1–5)"),
        "{printed}"
    );
    assert!(
        printed.contains("grounded_words version 1: “Does the answer say only"),
        "{printed}"
    );
    // JSON: every item scored, the judge's reasoning kept as the explanation.
    let export = json(&home.path().join("out/run.json"));
    let items = export["items"].as_array().unwrap();
    assert_eq!(items.len(), 24);
    for item in items {
        let r = &item["results"]["criteria.grounded_words"];
        assert_eq!(r["status"], "ok", "{r}");
        let score = r["score"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&score));
        assert!(
            r["explanation"]
                .as_str()
                .unwrap()
                .starts_with("Simulated judge: "),
            "{r}"
        );
        assert_eq!(r["details"]["version"], 1);
        let raw = r["details"]["raw_score"].as_f64().unwrap();
        assert_eq!(score, (raw - 1.0) / 4.0, "1–5 maps onto 0–1");
    }
    assert_eq!(export["criteria"][0]["version"], 1);
    assert_eq!(export["criteria"][0]["scored"], 24);
    let shown: Value = serde_json::from_str(&ok(home.path(), &["show", "1", "--json"])).unwrap();
    assert_eq!(
        shown["criteria"][0]["metric"], "criteria.grounded_words",
        "show --json too"
    );
}

#[test]
fn every_output_format_shows_the_criterion_with_its_text_and_version() {
    let home = tempfile::tempdir().unwrap();
    scored_through_the_simulator(home.path());
    let out = home.path().join("out");
    // CSV: a column of its own.
    let csv = std::fs::read_to_string(out.join("run.csv")).unwrap();
    assert!(
        csv.lines()
            .next()
            .unwrap()
            .contains("criteria.grounded_words"),
        "{csv}"
    );
    // Markdown report: the insight, the methodology line and the criteria chart.
    let md = std::fs::read_to_string(out.join("run.md")).unwrap();
    assert!(
        md.contains("Your criterion grounded\\_words \\(version 1\\)"),
        "{md}"
    );
    assert!(
        md.contains("grounded\\_words version 1: “Does the answer say only"),
        "{md}"
    );
    let chart = std::fs::read_to_string(out.join("run-criteria.svg")).unwrap();
    assert!(
        chart.contains("grounded_words v1") && chart.contains("of 24 pass"),
        "{chart}"
    );
    // The PDF is written from the same report.
    ok(
        home.path(),
        &[
            "report",
            "1",
            "--out",
            out.join("report").to_str().unwrap(),
            "--format",
            "pdf",
        ],
    );
    let pdf = std::fs::read(out.join("report.pdf")).unwrap();
    assert!(pdf.starts_with(b"%PDF"), "a PDF was written");
}

#[test]
fn a_criterion_in_plain_words_run_offline_is_not_measured_and_says_why() {
    let home = tempfile::tempdir().unwrap();
    add_grounded(home.path());
    let out = home.path().join("offline");
    let printed = ok(
        home.path(),
        &[
            "eval",
            example().to_str().unwrap(),
            "--metrics",
            "criteria",
            "--out-base",
            out.to_str().unwrap(),
            "--format",
            "json,csv",
        ],
    );
    assert!(
        printed.contains("Your criterion grounded_words (version 1) was not measured on any of its 24 items: needs a language model judge"),
        "{printed}"
    );
    let export = json(&out.with_extension("json"));
    for item in export["items"].as_array().unwrap() {
        let r = &item["results"]["criteria.grounded_words"];
        assert_eq!(r["status"], "skipped", "never a made-up score: {r}");
        assert!(r["score"].is_null());
        assert!(
            r["explanation"]
                .as_str()
                .unwrap()
                .starts_with("needs a language model judge"),
            "{r}"
        );
    }
    let summary = &export["summary"]["metrics"]["criteria.grounded_words"];
    assert_eq!(
        (summary["n"].as_u64(), summary["skipped"].as_u64()),
        (Some(0), Some(24)),
        "{summary}"
    );
    let csv = std::fs::read_to_string(out.with_extension("csv")).unwrap();
    assert!(
        csv.contains("criteria.grounded_words skipped: needs a language model judge"),
        "{csv}"
    );
}

#[test]
fn a_deterministic_criterion_runs_offline_and_a_gate_reads_it() {
    let home = tempfile::tempdir().unwrap();
    ok(
        home.path(),
        &[
            "criteria",
            "add",
            "cites_id",
            "--question",
            "Does the answer cite its source as [ID: …]?",
            "--regex",
            r"\[ID: *W\d+\]",
        ],
    );
    let out = home.path().join("det");
    ok(
        home.path(),
        &[
            "eval",
            example().to_str().unwrap(),
            "--metrics",
            "cites_id",
            "--out-base",
            out.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    let export = json(&out.with_extension("json"));
    let results: Vec<&Value> = export["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| &i["results"]["criteria.cites_id"])
        .collect();
    assert!(
        results.iter().all(|r| r["status"] == "ok"),
        "a regular expression needs no judge"
    );
    let first = results[0];
    assert_eq!(first["score"], 1.0, "nw-001 cites [ID: W01]: {first}");
    assert!(
        first["explanation"].as_str().unwrap().contains("[ID: W01]"),
        "{first}"
    );
    let passed = results.iter().filter(|r| r["score"] == 1.0).count();
    assert!(
        passed > 0 && passed < 24,
        "some answers cite, some do not: {passed}"
    );
    // A gate on the criterion: the mean is below 0.99, so the run fails the gate.
    let gated = run(
        home.path(),
        &[
            "eval",
            "--dataset",
            "1",
            "--metrics",
            "criteria.cites_id",
            "--fail-under",
            "cites_id=0.99",
            "--gate",
            "mean",
        ],
    );
    assert_eq!(gated.status.code(), Some(1), "{}", text(&gated.stderr));
    assert!(
        text(&gated.stderr).contains("criteria.cites_id"),
        "{}",
        text(&gated.stderr)
    );
}

#[test]
fn criteria_files_carry_a_team_s_criteria_between_homes_and_edits_make_versions() {
    let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    add_grounded(a.path());
    ok(
        a.path(),
        &[
            "criteria",
            "add",
            "short",
            "--question",
            "Is the answer short?",
            "--max-words",
            "60",
        ],
    );
    let file = a.path().join("team-criteria.toml");
    ok(
        a.path(),
        &["criteria", "export", "--out", file.to_str().unwrap()],
    );
    let imported = ok(b.path(), &["criteria", "import", file.to_str().unwrap()]);
    assert!(
        imported.contains("criterion grounded_words: version 1 stored"),
        "{imported}"
    );
    let show = |home: &Path| ok(home, &["criteria", "show", "grounded_words", "--json"]);
    let (in_a, in_b): (Value, Value) = (
        serde_json::from_str(&show(a.path())).unwrap(),
        serde_json::from_str(&show(b.path())).unwrap(),
    );
    assert_eq!(
        in_a["definition"], in_b["definition"],
        "the file carries the whole definition"
    );
    // Importing the same file again changes nothing; an edited text is version 2.
    assert!(
        ok(b.path(), &["criteria", "import", file.to_str().unwrap()])
            .contains("unchanged (version 1)")
    );
    let edited = std::fs::read_to_string(&file)
        .unwrap()
        .replace("Is the answer short?", "Is the answer brief?");
    std::fs::write(&file, edited).unwrap();
    let again = ok(b.path(), &["criteria", "import", file.to_str().unwrap()]);
    assert!(
        again.contains("criterion short: version 2 stored"),
        "{again}"
    );
    // A file with a typo is refused with the field named, and nothing changes.
    let bad = a.path().join("bad.toml");
    std::fs::write(&bad, "name = \"x\"\nquestion = \"?\"\ntreshold = 4\n").unwrap();
    let refused = run(b.path(), &["criteria", "import", bad.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("unknown field `treshold`"),
        "{}",
        text(&refused.stderr)
    );
}

#[test]
fn compare_refuses_runs_scored_by_different_versions_of_a_criterion() {
    let home = tempfile::tempdir().unwrap();
    let add = |pattern: &str| {
        ok(
            home.path(),
            &[
                "criteria",
                "add",
                "cites",
                "--question",
                "Does the answer cite?",
                "--regex",
                pattern,
            ],
        )
    };
    add(r"\[ID:");
    let eval = || {
        ok(
            home.path(),
            &[
                "eval",
                example().to_str().unwrap(),
                "--metrics",
                "criteria.cites",
            ],
        )
    };
    eval();
    assert!(add(r"\[ID: *W0\d\]").contains("version 2 stored"));
    eval();
    let out = home.path().join("cmp");
    let out = out.to_str().unwrap();
    let refused = run(home.path(), &["compare", "1", "2", "--out", out]);
    assert!(!refused.status.success());
    let why = text(&refused.stderr);
    assert!(why.contains("compare.judged_differently"), "{why}");
    assert!(
        why.contains("criteria.cites was scored with version 1 of the criterion in run 1 and version 2 in run 2"),
        "{why}"
    );
    let allowed = run(
        home.path(),
        &[
            "compare",
            "1",
            "2",
            "--allow-different-judges",
            "--out",
            out,
        ],
    );
    assert!(allowed.status.success(), "{}", text(&allowed.stderr));
    let said = format!("{}{}", text(&allowed.stdout), text(&allowed.stderr));
    assert!(
        said.contains("version 1 of the criterion"),
        "the comparison still says so: {said}"
    );
    let md = std::fs::read_to_string(home.path().join("cmp.md")).unwrap();
    assert!(
        md.contains("version 1 of the criterion"),
        "and so does its report"
    );
}

#[test]
fn labels_on_a_criterion_measure_the_judge_against_people() {
    let home = tempfile::tempdir().unwrap();
    let _sim = simulator_judge(home.path());
    ok(
        home.path(),
        &[
            "criteria",
            "add",
            "uses_passages",
            "--question",
            "Does the answer use the passages?",
            "--reads",
            "answer,contexts",
        ],
    );
    ok(
        home.path(),
        &[
            "eval",
            example().to_str().unwrap(),
            "--metrics",
            "uses_passages",
            "--judge",
            "sim",
            "--limit",
            "8",
        ],
    );
    let export = home.path().join("labels");
    ok(
        home.path(),
        &[
            "export",
            "1",
            "--out-base",
            export.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    let items = json(&export.with_extension("json"))["items"]
        .as_array()
        .unwrap()
        .clone();
    // People agree with the judge on every item but the first.
    for (i, item) in items.iter().enumerate() {
        let judged = item["results"]["criteria.uses_passages"]["score"]
            .as_f64()
            .unwrap();
        let label = if (i == 0) == (judged >= 0.5) {
            "fail"
        } else {
            "pass"
        };
        ok(
            home.path(),
            &[
                "labels",
                "set",
                "1",
                &item["item_id"].to_string(),
                "criteria.uses_passages",
                label,
            ],
        );
    }
    let alignment: Value =
        serde_json::from_str(&ok(home.path(), &["alignment", "1", "--json"])).unwrap();
    let m = &alignment["metrics"][0];
    assert_eq!(m["metric"], "criteria.uses_passages", "{alignment}");
    assert_eq!(m["n"], 8);
    let mae = m["mae"].as_f64().unwrap();
    assert!(
        (mae - 1.0 / 8.0).abs() < 1e-9,
        "one of eight pass/fail labels disagrees: {mae}"
    );
}

#[test]
fn agentic_runs_score_the_stored_criteria_with_a_judge_that_can() {
    let home = tempfile::tempdir().unwrap();
    let sim = simulator_judge(home.path());
    add_grounded(home.path());
    let printed = ok(
        home.path(),
        &[
            "agentic",
            example().to_str().unwrap(),
            "--judge",
            "sim",
            "--limit",
            "3",
        ],
    );
    assert_eq!(
        sim.stats().by_task.get("criterion"),
        Some(&3),
        "{:?}",
        sim.stats().by_task
    );
    assert!(
        printed.contains("Your criterion grounded_words (version 1): "),
        "{printed}"
    );
    let list: Value = serde_json::from_str(&ok(home.path(), &["list-metrics", "--json"])).unwrap();
    assert!(
        list.as_array()
            .unwrap()
            .iter()
            .any(|m| m["id"] == "criteria.grounded_words" && m["family"] == "criteria"),
        "list-metrics names the criterion"
    );
}

#[test]
fn the_plan_counts_one_call_per_item_for_a_criterion_and_none_with_the_offline_judge() {
    let home = tempfile::tempdir().unwrap();
    add_grounded(home.path());
    let file = example();
    let file = file.to_str().unwrap();
    let offline = ok(
        home.path(),
        &["eval", file, "--metrics", "criteria", "--plan"],
    );
    assert!(
        offline.contains("judge calls:   0 "),
        "the offline judge is asked nothing: {offline}"
    );
    ok(
        home.path(),
        &[
            "judges",
            "add",
            "priced",
            "--kind",
            "openai",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
        ],
    );
    let judged = ok(
        home.path(),
        &[
            "eval",
            file,
            "--metrics",
            "criteria",
            "--plan",
            "--judge",
            "priced",
        ],
    );
    assert!(
        judged.contains("judge calls:   24 "),
        "one call per item: {judged}"
    );
}

/// How many of the example's questions speak of the warranty.
fn warranty_questions() -> usize {
    std::fs::read_to_string(example())
        .unwrap()
        .lines()
        .filter(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            v["question"]
                .as_str()
                .unwrap()
                .to_lowercase()
                .contains("warranty")
        })
        .count()
}

#[test]
fn a_criterion_with_applies_when_scores_only_the_questions_it_names() {
    let home = tempfile::tempdir().unwrap();
    let add = |pattern: &str| {
        run(
            home.path(),
            &[
                "criteria",
                "add",
                "cites_warranty",
                "--question",
                "Does a warranty answer cite its source?",
                "--regex",
                r"\[ID: *W\d+\]",
                "--applies-when",
                pattern,
            ],
        )
    };
    let refused = add("warranty(");
    assert_ne!(refused.status.code(), Some(0));
    assert!(
        text(&refused.stderr)
            .contains("\"applies when\" is not a regular expression that compiles"),
        "{}",
        text(&refused.stderr)
    );
    assert_eq!(add("WARRANTY").status.code(), Some(0));
    let shown = ok(home.path(), &["criteria", "show", "cites_warranty"]);
    assert!(shown.contains("/WARRANTY/"), "{shown}");
    let out = home.path().join("scoped");
    ok(
        home.path(),
        &[
            "eval",
            example().to_str().unwrap(),
            "--metrics",
            "criteria.cites_warranty",
            "--out-base",
            out.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    let export = json(&out.with_extension("json"));
    let mut scored = 0;
    for item in export["items"].as_array().unwrap() {
        let question = item["question"].as_str().unwrap();
        let result = &item["results"]["criteria.cites_warranty"];
        // Case aside: the pattern is upper case, the questions lower.
        if question.to_lowercase().contains("warranty") {
            assert_eq!(result["status"], "ok", "{question}: {result}");
            scored += 1;
        } else {
            assert_eq!(result["status"], "skipped", "{question}: {result}");
            let why = result["explanation"].as_str().unwrap();
            assert!(
                why.contains("does not apply: the question does not match /WARRANTY/"),
                "{result}"
            );
        }
    }
    assert_eq!(scored, warranty_questions());
    assert!(scored >= 2, "the example has warranty questions");
}

#[test]
fn the_plan_counts_calls_only_for_the_questions_a_criterion_applies_to() {
    let home = tempfile::tempdir().unwrap();
    ok(
        home.path(),
        &[
            "criteria",
            "add",
            "warranty_tone",
            "--question",
            "Is a warranty answer courteous?",
            "--applies-when",
            "warranty",
        ],
    );
    ok(
        home.path(),
        &[
            "judges",
            "add",
            "priced",
            "--kind",
            "openai",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
        ],
    );
    let planned = ok(
        home.path(),
        &[
            "eval",
            example().to_str().unwrap(),
            "--metrics",
            "criteria.warranty_tone",
            "--plan",
            "--judge",
            "priced",
        ],
    );
    let calls = warranty_questions();
    assert!(
        planned.contains(&format!("judge calls:   {calls} ")),
        "one call per warranty question ({calls}): {planned}"
    );
}
