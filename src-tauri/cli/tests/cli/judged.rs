//! Judged runs end to end: the `ragnosis` binary against the judge simulator (a real
//! HTTP server on 127.0.0.1 answering with the offline judge) and the offline judge
//! itself, with a real SQLite file per test.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use ragnosis_core::store::{self, runs::RunStatus, Store};
use ragnosis_judge_sim::{ContainsRule, Fault, FaultRules, SimConfig, SimHandle, Simulator};
use serde_json::Value;

use crate::support::*;

fn simulator(latency_ms: u64) -> SimHandle {
    Simulator::start(SimConfig {
        faults: FaultRules {
            latency_ms,
            ..Default::default()
        },
        ..Default::default()
    })
    .expect("simulator starts")
}

fn add_sim_judge(home: &Path, sim: &SimHandle, concurrency: u32) {
    add_judge(
        home,
        "sim",
        &sim.base_url(),
        &["--concurrency", &concurrency.to_string(), "--timeout", "10"],
    );
}

/// The RAGVUE agentic examples, each made distinct `copies` times (so no two prompts are
/// identical and the cache cannot answer for a neighbour).
fn replicated_ragvue(dir: &Path, copies: usize) -> PathBuf {
    let source =
        std::fs::read_to_string(repo().join("assets/examples/ragvue/agentic.jsonl")).unwrap();
    let mut out = String::new();
    for copy in 0..copies {
        for line in source.lines().filter(|l| !l.trim().is_empty()) {
            let mut item: Value = serde_json::from_str(line).unwrap();
            let q = item["question"].as_str().unwrap().to_string();
            item["question"] = Value::String(format!("{q} (case {copy})"));
            out.push_str(&item.to_string());
            out.push('\n');
        }
    }
    let path = dir.join(format!("ragvue-x{copies}.jsonl"));
    std::fs::write(&path, out).unwrap();
    path
}

fn result_count(home: &Path, run_id: i64) -> i64 {
    let store = Store::open(home).unwrap();
    store::results::status_counts(store.conn(), run_id)
        .unwrap()
        .values()
        .sum()
}

#[test]
fn killed_run_resumes_with_exactly_one_result_per_cell() {
    // 50 ms a call keeps the run several seconds long (hundreds of calls, four at a time),
    // so the kill at its first committed result lands mid-run.
    let sim = simulator(50);
    let home = tempfile::tempdir().unwrap();
    add_sim_judge(home.path(), &sim, 4);
    let file = replicated_ragvue(home.path(), 10);
    let mut child = ragnosis(home.path())
        .args(["agentic", file.to_str().unwrap(), "--judge", "sim"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill (SIGKILL) as soon as some results are committed, well before the end.
    let start = Instant::now();
    while result_count(home.path(), 1) == 0 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no result was committed within a minute"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before it could be killed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();

    let store = Store::open(home.path()).unwrap();
    let killed = store::runs::get(store.conn(), 1).unwrap();
    assert_eq!(
        killed.status,
        RunStatus::Running,
        "a killed run is left as it was: running, unfinished"
    );
    // Dataset-level metrics (citation macro scores) have no per-item cells.
    let item_metrics = killed
        .metrics
        .iter()
        .filter(|m| {
            ragnosis_core::metrics::find(m)
                .is_some_and(|s| s.scope == ragnosis_core::metrics::Scope::Item)
        })
        .count();
    let cells = killed.item_count * item_metrics as i64;
    let listed = run(home.path(), &["runs"]);
    let row = text(&listed.stdout)
        .lines()
        .find(|l| l.trim_start().starts_with("1 "))
        .unwrap_or_default()
        .to_string();
    assert!(
        row.contains("interrupted"),
        "no process holds it any more, so the list says interrupted, not running: {row}"
    );
    let before = result_count(home.path(), 1);
    assert!(
        before > 0 && before < cells,
        "the kill happened mid-run ({before} of {cells} cells)"
    );
    drop(store);

    let o = run(home.path(), &["resume", "1"]);
    assert!(o.status.success(), "resume succeeds: {}", text(&o.stderr));
    let store = Store::open(home.path()).unwrap();
    assert_eq!(
        store::runs::get(store.conn(), 1).unwrap().status,
        RunStatus::Done
    );
    let pairs = store::results::done_pairs(store.conn(), 1).unwrap();
    assert_eq!(
        result_count(home.path(), 1),
        cells,
        "every (item, metric) has a result"
    );
    assert_eq!(pairs.len() as i64, cells, "and exactly one: no duplicates");
}

#[test]
fn agentic_on_the_ragvue_examples_picks_metrics_by_shape() {
    let home = tempfile::tempdir().unwrap();
    let out = home.path().join("agentic");
    let file = repo().join("assets/examples/ragvue/agentic.jsonl");
    let o = run(
        home.path(),
        &[
            "agentic",
            file.to_str().unwrap(),
            "--out-base",
            out.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(out.with_extension("json")).unwrap())
            .unwrap();
    let by_shape = |shape: &str| -> Value {
        json["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|i| i["metadata"]["shape"] == shape)
            .unwrap()["results"]
            .clone()
    };
    let ran = |r: &Value, m: &str| r[m]["status"] != "skipped";

    let full = by_shape("answer+contexts");
    for m in [
        "ragvue.retrieval_relevance",
        "ragvue.retrieval_coverage",
        "ragvue.answer_relevance",
        "ragvue.strict_faithfulness",
        "ragvue.answer_overall",
        "ragvue.retrieval_overall",
    ] {
        assert!(
            ran(&full, m),
            "{m} runs on an item with answer and contexts: {}",
            full[m]
        );
    }
    assert_eq!(
        full["ragvue.retrieval_relevance"]["details"]["chosen_because"],
        "the item has retrieved contexts"
    );

    let no_answer = by_shape("contexts_only_empty_answer");
    assert!(
        ran(&no_answer, "ragvue.retrieval_relevance"),
        "retrieval is judged without an answer"
    );
    for m in [
        "ragvue.answer_relevance",
        "ragvue.strict_faithfulness",
        "ragvue.clarity",
    ] {
        assert_eq!(no_answer[m]["status"], "skipped", "{m} needs an answer");
        assert_eq!(
            no_answer[m]["explanation"],
            "not chosen: the item has no answer"
        );
    }

    let answer_only = by_shape("answer_only");
    assert!(ran(&answer_only, "ragvue.answer_relevance") && ran(&answer_only, "ragvue.clarity"));
    for m in ["ragvue.retrieval_relevance", "ragvue.strict_faithfulness"] {
        assert_eq!(answer_only[m]["status"], "skipped", "{m} needs contexts");
    }
    for item in json["items"].as_array().unwrap() {
        for (m, r) in item["results"].as_object().unwrap() {
            // RAGXplain's and RAGalyst's metrics that need no ground truth run too.
            let needs_no_gt = m.starts_with("ragvue.")
                || [
                    "ragxplain.context_relevancy",
                    "ragxplain.context_adherence",
                    "ragxplain.answer_relevancy",
                    "ragxplain.grading_note",
                    "ragalyst.answerability",
                ]
                .contains(&m.as_str());
            assert!(
                needs_no_gt || r["status"] == "skipped",
                "no GT, citation or ranks: {m} is skipped"
            );
        }
    }
    let judge = &json["run"]["judge"];
    assert_eq!(
        judge, "offline",
        "scores are marked as coming from the offline judge"
    );
}

#[test]
fn a_full_item_needs_at_most_eight_judge_calls_and_a_second_run_none() {
    let sim = simulator(0);
    let home = tempfile::tempdir().unwrap();
    add_sim_judge(home.path(), &sim, 4);
    let file = home.path().join("one.jsonl");
    std::fs::write(
        &file,
        r#"{"question": "Which two noble gases have atomic numbers 2 and 10?", "answer": "Helium and Neon.", "contexts": ["Helium is a noble gas with atomic number 2.", "Neon is a noble gas with atomic number 10."]}"#,
    )
    .unwrap();
    let o = run(
        home.path(),
        &["agentic", file.to_str().unwrap(), "--judge", "sim"],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let first = sim.stats().calls;
    println!(
        "judge calls for one item with question, answer and contexts (full agentic set): {first}"
    );
    // RAGVUE's six, RAGXplain's scorecard, and the run's one insights call.
    assert!(
        first <= 8,
        "at most 8 calls for a run of one full item, made {first}"
    );
    assert!(
        first >= 5,
        "the judged metrics really asked the judge ({first} calls)"
    );

    let o = run(
        home.path(),
        &["agentic", "--dataset", "1", "--judge", "sim"],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        sim.stats().calls,
        first,
        "an identical second run is answered from the cache"
    );
}

/// A cascade (`--judge offline+sim`): the offline judge decides the tasks it is sure of
/// and sends the rest to the server, so the server sees some calls but fewer than when
/// it judges everything, and the stored results name both judges' versions.
#[test]
fn a_cascade_sends_only_the_offline_judges_unsure_tasks_to_the_stronger_judge() {
    let dir = tempfile::tempdir().unwrap();
    let file = replicated_ragvue(dir.path(), 1);
    let everything = {
        let sim = simulator(0);
        let home = dir.path().join("all");
        add_sim_judge(&home, &sim, 4);
        let o = run(
            &home,
            &["agentic", file.to_str().unwrap(), "--judge", "sim"],
        );
        assert!(o.status.success(), "{}", text(&o.stderr));
        sim.stats().calls
    };
    let sim = simulator(0);
    let home = dir.path().join("cascade");
    add_sim_judge(&home, &sim, 4);
    // The plan routes the tasks before anything is sent: how many go on, and what
    // sending everything would take.
    let o = run(
        &home,
        &[
            "agentic",
            file.to_str().unwrap(),
            "--judge",
            "offline+sim",
            "--plan",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let plan = text(&o.stdout);
    let (planned_sent, planned_total) = cascade_split(&plan);
    assert!(
        planned_sent > 0 && planned_sent * 2 < planned_total,
        "the plan expects some but a minority of tasks to go on:\n{plan}"
    );
    assert!(plan.contains("all sent:"), "{plan}");
    assert_eq!(sim.stats().calls, 0, "a plan sends nothing");
    let o = run(
        &home,
        &["agentic", file.to_str().unwrap(), "--judge", "offline+sim"],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let sent = sim.stats().calls;
    println!(
        "judge calls: {everything} when the server judges everything, {sent} through the cascade"
    );
    // The run's summary says which judges scored it, not "a language model" alone.
    assert!(
        text(&o.stdout).contains("The built-in offline judge scored what it was sure of"),
        "{}",
        text(&o.stdout)
    );
    assert!(sent > 0, "unsure tasks reach the stronger judge");
    assert!(
        sent * 2 < everything,
        "most tasks stay offline: {sent} of {everything} calls sent"
    );
    let store = Store::open(&home).unwrap();
    let run = store::runs::list(store.conn()).unwrap().remove(0);
    assert_eq!(run.judge, "offline+sim");
    let versions = store::results::prompt_versions(store.conn(), run.id).unwrap();
    assert!(
        versions.iter().any(|v| v.starts_with("offline-7")),
        "offline verdicts are marked as the offline judge's: {versions:?}"
    );
    assert!(
        versions.iter().any(|v| !v.starts_with("offline")),
        "sent-on verdicts carry the stronger judge's version: {versions:?}"
    );
}

/// (tasks sent on, all tasks) from a cascade plan's "of N judge tasks, about M go to" line.
fn cascade_split(plan: &str) -> (u64, u64) {
    let line = plan
        .lines()
        .find(|l| l.trim_start().starts_with("cascade:"))
        .unwrap_or_else(|| panic!("no cascade line in the plan:\n{plan}"));
    let numbers: Vec<u64> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .collect();
    (numbers[1], numbers[0])
}

#[test]
fn an_item_whose_judge_always_fails_is_a_visible_error_and_the_rest_complete() {
    let sim = simulator(0);
    sim.set_faults(FaultRules {
        when_contains: vec![ContainsRule {
            text: "POISON".into(),
            fault: Fault::MalformedJson,
        }],
        ..Default::default()
    });
    let home = tempfile::tempdir().unwrap();
    add_sim_judge(home.path(), &sim, 4);
    let file = home.path().join("mixed.jsonl");
    std::fs::write(
        &file,
        concat!(
            r#"{"id": "ok1", "question": "What is the symbol for gold?", "answer": "Au.", "contexts": ["Gold has the symbol Au."]}"#, "\n",
            r#"{"id": "bad", "question": "POISON: what is the symbol for iron?", "answer": "Fe.", "contexts": ["Iron has the symbol Fe."]}"#, "\n",
            r#"{"id": "ok2", "question": "What is the symbol for copper?", "answer": "Cu.", "contexts": ["Copper has the symbol Cu."]}"#, "\n",
        ),
    )
    .unwrap();
    let out = home.path().join("r");
    let o = run(
        home.path(),
        &[
            "eval",
            file.to_str().unwrap(),
            "--metrics",
            "ragvue.strict_faithfulness,ragvue.answer_length",
            "--judge",
            "sim",
            "--out-base",
            out.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    assert!(o.status.success(), "the run completes: {}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("could not be scored"),
        "the summary says so: {}",
        text(&o.stdout)
    );
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(out.with_extension("json")).unwrap())
            .unwrap();
    for item in json["items"].as_array().unwrap() {
        let sf = &item["results"]["ragvue.strict_faithfulness"];
        if item["id"] == "bad" {
            assert_eq!(sf["status"], "error");
            assert!(sf["score"].is_null(), "a failed metric has no score, not 0");
            assert!(
                sf["explanation"]
                    .as_str()
                    .unwrap()
                    .contains("not valid JSON"),
                "{sf}"
            );
            assert!(
                sf["details"]["raw_output"].is_string(),
                "the judge's raw output is kept"
            );
            assert_eq!(
                item["results"]["ragvue.answer_length"]["status"], "ok",
                "judge-free metrics still score"
            );
        } else {
            assert_eq!(sf["status"], "ok", "{}: {sf}", item["id"]);
        }
    }
    assert_eq!(
        json["run"]["status"], "done",
        "one failing item does not fail the run"
    );
    assert!(
        json["run"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("done with errors: 1 result could not be scored")),
        "but the run says so: {}",
        json["run"]
    );
    assert_eq!(
        sf_error_code(&json, "bad"),
        Some("judge.bad_reply".to_string()),
        "the error carries its code into the export"
    );
    assert_eq!(
        json["summary"]["metrics"]["ragvue.strict_faithfulness"]["errors"],
        1
    );
    assert_eq!(
        json["summary"]["metrics"]["ragvue.strict_faithfulness"]["n"],
        2
    );
}

#[test]
fn the_key_goes_only_into_the_auth_header_and_never_to_disk_or_output() {
    let key = "rk-test-SECRET-9d8c7b6a5f4e3d2c";
    let sim = Simulator::start(SimConfig {
        watch_key: Some(key.into()),
        require_key: Some(key.into()),
        ..Default::default()
    })
    .unwrap();
    let home = tempfile::tempdir().unwrap();
    add_sim_judge(home.path(), &sim, 2);
    let file = repo().join("assets/examples/ragvue/agentic.jsonl");
    let out = home.path().join("exports/run");
    let o = ragnosis(home.path())
        .env("RAGNOSIS_SIM_API_KEY", key)
        .args([
            "agentic",
            file.to_str().unwrap(),
            "--judge",
            "sim",
            "--out-base",
            out.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let stats = sim.stats();
    assert!(stats.calls > 0);
    assert_eq!(stats.unauthorised, 0, "every request carried the key");
    assert_eq!(
        stats.key_leaks, 0,
        "the key never appeared in a URL, body or other header"
    );
    assert_eq!(
        stats.authorization_headers_seen,
        vec![format!("authorization: Bearer {key}")],
        "the OpenAI-compatible profile sends the key as a bearer token and in no other credential header"
    );
    // Nothing written anywhere holds the key: database, WAL, exports, terminal output.
    let mut files = vec![];
    let mut dirs = vec![home.path().to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                dirs.push(p)
            } else {
                files.push(p)
            }
        }
    }
    assert!(files.iter().any(|f| f.ends_with("ragnosis.db")));
    let needle = key.as_bytes();
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        assert!(
            !bytes.windows(needle.len()).any(|w| w == needle),
            "{} contains the key",
            f.display()
        );
    }
    assert!(!text(&o.stdout).contains(key) && !text(&o.stderr).contains(key));
}

#[test]
fn plan_reports_calls_and_cost_without_calling_the_judge() {
    let sim = simulator(0);
    let home = tempfile::tempdir().unwrap();
    add_sim_judge(home.path(), &sim, 4);
    let file = replicated_ragvue(home.path(), 1);
    let o = run(
        home.path(),
        &[
            "agentic",
            file.to_str().unwrap(),
            "--judge",
            "sim",
            "--plan",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let printed = text(&o.stdout);
    assert!(
        printed.contains("judge calls:") && printed.contains("cost:"),
        "{printed}"
    );
    assert_eq!(sim.stats().calls, 0, "planning sends nothing");
    let calls: u64 = printed
        .lines()
        .find(|l| l.contains("judge calls:"))
        .and_then(|l| l.split_whitespace().nth(2))
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(
        calls > 8 && calls <= 8 * 7,
        "a plausible number of calls for 8 items: {calls}"
    );
}

#[test]
fn fail_under_exits_1_when_a_mean_is_below_the_threshold() {
    let home = tempfile::tempdir().unwrap();
    let file = repo().join("assets/examples/ragnosis-example.jsonl");
    let pass = run(
        home.path(),
        &[
            "eval",
            file.to_str().unwrap(),
            "--metrics",
            "citation",
            "--fail-under",
            "citation.lenient_accuracy=0.1",
        ],
    );
    assert_eq!(pass.status.code(), Some(0), "{}", text(&pass.stderr));
    let fail = run(
        home.path(),
        &[
            "eval",
            "--dataset",
            "1",
            "--metrics",
            "citation",
            "--fail-under",
            "citation.lenient_accuracy=0.99",
        ],
    );
    assert_eq!(fail.status.code(), Some(1));
    assert!(
        text(&fail.stderr).contains("citation.lenient_accuracy"),
        "{}",
        text(&fail.stderr)
    );

    // A floor on a lower-is-better metric would pass a run that got worse: refused
    // before anything runs, with the flag to use instead.
    let eval = |extra: &[&str]| {
        let mut args = vec!["eval", "--dataset", "1", "--metrics", "citation"];
        args.extend_from_slice(extra);
        run(home.path(), &args)
    };
    let wrong = eval(&["--fail-under", "no_citation_rate=0.1"]);
    assert_eq!(wrong.status.code(), Some(2));
    assert!(
        text(&wrong.stderr).contains("--fail-over citation.no_citation_rate=0.1"),
        "{}",
        text(&wrong.stderr)
    );
    let ceiling = eval(&["--fail-over", "no_citation_rate=0.99"]);
    assert_eq!(ceiling.status.code(), Some(0), "{}", text(&ceiling.stderr));
    let exceeded = eval(&["--fail-over", "no_citation_rate=-0.5"]);
    assert_eq!(exceeded.status.code(), Some(1));
    assert!(text(&exceeded.stderr).contains("citation.no_citation_rate mean"));

    // A floor just under the mean: the mean clears it, but the interval spans it, so the
    // default gate cannot tell (exit 4, with the items that would settle it) unless told
    // what an undecided gate counts as.
    let shown = run(home.path(), &["show", "2", "--json"]);
    let view: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    let stats = &view["summary"]["metrics"]["citation.lenient_accuracy"];
    let (mean, low) = (
        stats["mean"].as_f64().unwrap(),
        stats["ci95_low"].as_f64().unwrap(),
    );
    assert!(low < mean - 0.02, "{stats}");
    let floor = format!("lenient_accuracy={:.3}", mean - 0.01);
    assert_eq!(
        eval(&["--fail-under", &floor, "--gate", "mean"])
            .status
            .code(),
        Some(0)
    );
    let by_ci = eval(&["--fail-under", &floor]);
    assert_eq!(by_ci.status.code(), Some(4), "{}", text(&by_ci.stderr));
    let said = text(&by_ci.stderr);
    assert!(
        said.contains("gate INCONCLUSIVE: citation.lenient_accuracy mean")
            && said.contains("items would settle it"),
        "{said}"
    );
    for (treat, code) in [("pass", 0), ("fail", 1)] {
        let o = eval(&["--fail-under", &floor, "--inconclusive", treat]);
        assert_eq!(o.status.code(), Some(code), "{treat}: {}", text(&o.stderr));
    }
    assert_eq!(eval(&["--gate", "median"]).status.code(), Some(2));
    assert_eq!(eval(&["--inconclusive", "maybe"]).status.code(), Some(2));
}

#[test]
fn calibration_sends_each_temperature_and_stores_every_judges_verdicts() {
    let sim = simulator(0);
    let home = tempfile::tempdir().unwrap();
    add_sim_judge(home.path(), &sim, 4);
    let file = replicated_ragvue(home.path(), 1);
    let o = run(
        home.path(),
        &[
            "eval",
            file.to_str().unwrap(),
            "--metrics",
            "ragvue.clarity,ragvue.answer_relevance",
            "--judge",
            "sim",
            "--calibrate",
            "sim@0.7,offline",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("Calibration across"),
        "{}",
        text(&o.stdout)
    );
    let temps = sim.stats().temperatures_seen;
    assert!(
        temps.contains(&0.0) && temps.contains(&0.7),
        "both temperatures were really sent: {temps:?}"
    );
    let store = Store::open(home.path()).unwrap();
    let runs = store::runs::list(store.conn()).unwrap();
    assert_eq!(
        runs.len(),
        3,
        "the main run and one run per calibration configuration"
    );
    let cal = store::analyses::get(store.conn(), 1, "calibration")
        .unwrap()
        .expect("stored with the main run");
    let clarity = cal["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == "ragvue.clarity")
        .unwrap();
    assert_eq!(
        clarity["items"], 7,
        "the 7 items with an answer were scored by all three configurations"
    );
    // The simulator answers with the offline judge, so all three agree exactly.
    assert_eq!(clarity["mean_agreement"], 1.0);
}

#[test]
fn a_local_server_on_a_default_port_is_detected_and_becomes_a_profile() {
    // The simulator plays LM Studio on its default port, 1234, of this machine.
    let sim = Simulator::start(SimConfig {
        port: 1234,
        ..Default::default()
    })
    .expect("port 1234 (LM Studio's default) must be free for this test");
    let home = tempfile::tempdir().unwrap();

    let listed = run(home.path(), &["judges", "detect"]);
    let out = text(&listed.stdout);
    assert!(listed.status.success(), "{}", text(&listed.stderr));
    assert!(
        out.contains("LM Studio at http://127.0.0.1:1234/v1: sim-judge-large, sim-judge-small"),
        "the server and its models are listed: {out}"
    );
    assert!(
        !out.contains("Ollama at"),
        "nothing listens on 11434 here: {out}"
    );
    assert!(
        !run(home.path(), &["judges", "list"])
            .stdout
            .windows(9)
            .any(|w| w == b"lm-studio"),
        "listing saves nothing"
    );

    let added = run(home.path(), &["judges", "detect", "--add"]);
    assert!(added.status.success(), "{}", text(&added.stderr));
    let list = text(&run(home.path(), &["judges", "list"]).stdout);
    let row = list
        .lines()
        .find(|l| l.starts_with("lm-studio"))
        .unwrap_or_else(|| panic!("profile saved: {list}"));
    assert!(
        row.contains("http://127.0.0.1:1234/v1") && row.contains("sim-judge-large"),
        "{row}"
    );

    // The saved profile judges for real.
    let tested = run(home.path(), &["judges", "test", "lm-studio"]);
    assert!(
        tested.status.success(),
        "{} {}",
        text(&tested.stdout),
        text(&tested.stderr)
    );
    drop(sim);
}

/// `judge-check` through a model server: every case goes over HTTP, a case whose calls
/// keep failing is an error left out of its figure (never a disagreement), and the
/// figures are stored with the profile.
#[test]
fn judge_check_through_a_server_keeps_failed_cases_out_of_the_figures() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let sim = Simulator::start(SimConfig {
        faults: FaultRules {
            // One WiCE claim of the shipped sample: its judge calls always come back
            // as prose, even when repaired.
            when_contains: vec![ContainsRule {
                text: "The panel in Bruges is in the best condition".into(),
                fault: Fault::MalformedJson,
            }],
            ..Default::default()
        },
        ..Default::default()
    })
    .expect("simulator starts");
    add_sim_judge(&home, &sim, 8);

    let o = run(&home, &["judge-check", "sim", "--json"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let check: Value = serde_json::from_slice(&o.stdout).expect("--json prints the check");
    let task = |name: &str| {
        check["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["task"] == name)
            .unwrap()
            .clone()
    };
    let wice = task("claim_support");
    assert_eq!(
        (wice["n"].as_u64(), wice["errors"].as_u64()),
        (Some(59), Some(1)),
        "{wice}"
    );
    assert!(
        wice["first_error"]
            .as_str()
            .unwrap()
            .contains("not valid JSON"),
        "{wice}"
    );
    for name in [
        "attribution",
        "expert_claims",
        "answerability",
        "similarity",
    ] {
        assert_eq!(task(name)["n"], 60, "{name}");
        assert!(task(name)["estimate"]["value"].is_number(), "{name}");
    }
    assert_eq!(check["judge_config"], "sim:sim-judge-small@0");
    assert!(
        check["accounting"]["input_tokens"].as_u64().unwrap() > 0,
        "tokens are counted"
    );
    let stats = sim.stats();
    // Two calls per claim or answerability case, one per similarity case (the
    // correctness scorecard), and the designed items' agentic calls: 840 when every
    // case reaches the server.
    assert!(
        stats.calls >= 840,
        "every case went to the server: {} calls",
        stats.calls
    );

    let store = Store::open(&home).unwrap();
    let stored = ragnosis_core::judge_check::latest_for_profile(store.conn(), "sim")
        .unwrap()
        .expect("the check is stored");
    assert_eq!(stored.checked_at, check["checked_at"].as_str().unwrap());

    // The human-readable table names the tasks and the designed shapes.
    let o = run(&home, &["judge-check", "sim"]);
    let out = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    for expected in [
        "Is a reply backed by its source?",
        "retrieval_miss",
        "first error:",
        "agreed with human labels on",
    ] {
        assert!(out.contains(expected), "{expected} missing from:\n{out}");
    }

    // `judges list` shows each profile's latest check beside it.
    let list = text(&run(&home, &["judges", "list"]).stdout);
    let line = |name: &str| {
        list.lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("{name} missing from:\n{list}"))
            .to_string()
    };
    let claims = check["claims"]["value"].as_f64().expect("a claims figure");
    assert!(
        line("sim").contains(&format!("claims {claims:.2} on 20")),
        "{}",
        line("sim")
    );
    // The offline judge was never checked in this home, but its build ships the check
    // of this very judge (assets/offline-judge/check.json), so it is listed as current.
    let shipped: serde_json::Value =
        serde_json::from_str(include_str!("../../../../assets/offline-judge/check.json")).unwrap();
    let offline_claims = shipped["claims"]["value"]
        .as_f64()
        .expect("a claims figure");
    assert!(
        line("offline").contains(&format!("claims {offline_claims:.2} on 20"))
            && !line("offline").contains("stale"),
        "{}",
        line("offline")
    );
}

/// A refused key fails every call alike: the check stops at the first, says why with the
/// error code, and stores nothing.
/// A simulator that answers every chat request with HTTP 401, as a service does to a
/// wrong key.
fn refusing_every_key() -> SimHandle {
    let sim = simulator(0);
    sim.set_faults(FaultRules {
        when_contains: vec![ContainsRule {
            text: "".into(),
            fault: Fault::Status {
                status: 401,
                retry_after: None,
                body: None,
            },
        }],
        ..Default::default()
    });
    sim
}

fn sf_error_code(json: &Value, id: &str) -> Option<String> {
    json["items"].as_array()?.iter().find(|i| i["id"] == id)?["results"]
        ["ragvue.strict_faithfulness"]["details"]["error_code"]
        .as_str()
        .map(str::to_string)
}

#[test]
fn a_run_whose_judge_never_answers_stops_with_its_code_and_a_resume_retries_every_failed_cell() {
    let sim = refusing_every_key();
    let home = tempfile::tempdir().unwrap();
    add_sim_judge(home.path(), &sim, 2);
    let file = replicated_ragvue(home.path(), 5);
    let items = std::fs::read_to_string(&file).unwrap().lines().count();
    let metrics = "ragvue.strict_faithfulness,ragvue.answer_length";
    let o = run(
        home.path(),
        &[
            "eval",
            file.to_str().unwrap(),
            "--metrics",
            metrics,
            "--judge",
            "sim",
        ],
    );
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("error [judge.auth]") && text(&o.stderr).contains("keys set"),
        "the code and what to do: {}",
        text(&o.stderr)
    );
    let store = Store::open(home.path()).unwrap();
    let failed = store::runs::get(store.conn(), 1).unwrap();
    assert_eq!(failed.status, RunStatus::Failed, "not done");
    assert!(failed.message.unwrap_or_default().contains("judge.auth"));
    let errors_before = store::results::error_pairs(store.conn(), 1).unwrap().len();
    assert!(
        errors_before > 0 && errors_before < items,
        "it stopped after a few items ({errors_before} of {items} failed)"
    );
    drop(store);

    // The key is fixed (the server accepts again): a resume redoes every failed cell.
    sim.set_faults(FaultRules::default());
    let o = run(home.path(), &["resume", "1"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let store = Store::open(home.path()).unwrap();
    let done = store::runs::get(store.conn(), 1).unwrap();
    assert_eq!(done.status, RunStatus::Done);
    assert_eq!(done.message, None, "no errors left to mention");
    assert!(store::results::error_pairs(store.conn(), 1)
        .unwrap()
        .is_empty());
    assert_eq!(
        result_count(home.path(), 1),
        (items * 2) as i64,
        "exactly one result per cell: the errors were replaced, not joined"
    );
}

#[test]
fn judge_check_with_a_refused_key_stops_with_the_auth_code_and_stores_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let sim = refusing_every_key();
    add_sim_judge(&home, &sim, 4);
    let o = run(&home, &["judge-check", "sim"]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("error [judge.auth]"),
        "{}",
        text(&o.stderr)
    );
    assert!(
        sim.stats().calls < 100,
        "it stopped early: {} calls",
        sim.stats().calls
    );
    let store = Store::open(&home).unwrap();
    assert!(
        ragnosis_core::judge_check::latest_for_profile(store.conn(), "sim")
            .unwrap()
            .is_none()
    );
}

#[test]
fn judge_check_against_a_server_that_is_not_there_stops_early_and_stores_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    // A port that was free a moment ago: nothing listens on it.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    add_judge(&home, "gone", &format!("http://127.0.0.1:{port}/v1"), &[]);
    let started = Instant::now();
    let o = run(&home, &["judge-check", "gone"]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("error [judge.unreachable]"),
        "{}",
        text(&o.stderr)
    );
    eprintln!("stopped after {:?}", started.elapsed());
    let store = Store::open(&home).unwrap();
    assert!(
        ragnosis_core::judge_check::latest_for_profile(store.conn(), "gone")
            .unwrap()
            .is_none(),
        "an all-empty check is not kept as the profile's latest"
    );
}

/// `judges add` refuses what the window and the IPC layer refuse, in the same words.
#[test]
fn an_invalid_profile_is_refused_with_the_shared_rule() {
    let home = tempfile::tempdir().unwrap();
    let o = run(
        home.path(),
        &[
            "judges",
            "add",
            "hot",
            "--kind",
            "openai",
            "--base-url",
            "https://x.test/v1",
            "--model",
            "m",
            "--temperature",
            "7",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr)
            .contains("error [invalid]: invalid input: the temperature must be between 0 and 2"),
        "{}",
        text(&o.stderr)
    );
    let o = run(
        home.path(),
        &[
            "judges",
            "add",
            "t",
            "--kind",
            "openai",
            "--base-url",
            "x.test",
            "--model",
            "m",
            "--timeout",
            "0",
        ],
    );
    assert!(text(&o.stderr).contains("http://"), "{}", text(&o.stderr));
    let o = run(
        home.path(),
        &[
            "judges",
            "add",
            "k",
            "--kind",
            "telepathy",
            "--base-url",
            "https://x.test/v1",
            "--model",
            "m",
        ],
    );
    assert!(
        text(&o.stderr).contains(
            "error [invalid]: invalid input: unknown judge kind 'telepathy' (use openai, azure or anthropic)"
        ),
        "the window says the same (tests/shell/ipc.rs): {}",
        text(&o.stderr)
    );
    let listed = run(home.path(), &["judges", "list"]);
    assert!(
        !text(&listed.stdout).contains("hot"),
        "nothing stored: {}",
        text(&listed.stdout)
    );
}

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
    let metrics =
        "ragvue.clarity,ragvue.answer_relevance,ragvue.coherence,ragvue.answer_conciseness";
    let eval = |file: &str, extra: &[&str]| {
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
        let out_base = home.path().join("out");
        let mut owned: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        owned.extend(["--out-base".to_string(), out_base.display().to_string()]);
        let refs: Vec<&str> = owned.iter().map(String::as_str).collect();
        let o = run(home.path(), &refs);
        assert!(o.status.success(), "{}", text(&o.stderr));
    };
    eval(example.to_str().unwrap(), &[]);
    eval(example.to_str().unwrap(), &["--no-cache"]); // the same file: dataset 1 again
    let asked = sim.stats().calls;
    assert!(asked >= 48, "both runs asked the judge: {asked} calls");

    let same = run(
        home.path(),
        &[
            "compare",
            "1",
            "2",
            "--format",
            "json",
            "--out",
            home.path().join("c12").to_str().unwrap(),
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
        serde_json::from_str(&std::fs::read_to_string(home.path().join("c12.json")).unwrap())
            .unwrap();
    assert!(
        json["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["flag"] != "red"),
        "noise is never a regression: {json}"
    );

    // Version 2 of the pipeline: 8 answers replaced by an off-topic sentence.
    let v2: String = std::fs::read_to_string(&example)
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
    let v2_file = home.path().join("v2.jsonl");
    std::fs::write(&v2_file, v2).unwrap();
    eval(v2_file.to_str().unwrap(), &[]);
    let worse = run(
        home.path(),
        &[
            "compare",
            "1",
            "3",
            "--format",
            "json",
            "--out",
            home.path().join("c13").to_str().unwrap(),
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

/// Test-set generation through a model judge (the simulator plays one): drafts pass or
/// fail the filters, every candidate is kept with its reason, the accepted ones form a
/// dataset exported in the importer's own schema; a failing judge call is an error
/// candidate, not a lost one; the offline judge is refused before anything is stored.
#[test]
fn generate_writes_a_filtered_test_set_and_keeps_the_rejected() {
    let sim = Simulator::start(SimConfig {
        faults: FaultRules {
            // Every call about the manual's riding-modes page fails (after the repair).
            when_contains: vec![ContainsRule {
                text: "Walk Assist".into(),
                fault: Fault::MalformedJson,
            }],
            ..Default::default()
        },
        ..Default::default()
    })
    .expect("simulator starts");
    let home = tempfile::tempdir().unwrap();
    add_sim_judge(home.path(), &sim, 2);
    let documents = repo().join("tests/documents");
    let docs = documents.to_str().unwrap();

    let refused = run(
        home.path(),
        &["generate", docs, "--judge", "offline", "--count", "3"],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("cannot write questions"),
        "{}",
        text(&refused.stderr)
    );
    assert!(
        text(&run(home.path(), &["corpora"]).stdout).contains("No corpora"),
        "nothing stored"
    );

    let plan = run(
        home.path(),
        &[
            "generate",
            docs,
            "--judge",
            "sim",
            "--count",
            "4",
            "--chunk-tokens",
            "120",
            "--overlap",
            "20",
            "--plan",
        ],
    );
    assert!(plan.status.success(), "{}", text(&plan.stderr));
    assert!(
        text(&plan.stdout).contains("at least 20 judge calls"),
        "{}",
        text(&plan.stdout)
    );
    assert_eq!(sim.stats().calls, 0, "a plan calls nothing");

    let out = home.path().join("test-set.jsonl");
    let o = run(
        home.path(),
        &[
            "generate",
            "--corpus",
            "1",
            "--judge",
            "sim",
            "--count",
            "100",
            "--out",
            out.to_str().unwrap(),
            "--json",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let outcome = &report["outcome"];
    let candidates = report["candidates"].as_array().unwrap();
    let chunks: u64 = text(&run(home.path(), &["corpora", "--json"]).stdout)
        .parse::<Value>()
        .unwrap()[0]["chunks"]
        .as_u64()
        .unwrap();
    assert_eq!(
        outcome["status"], "exhausted",
        "100 asked, fewer chunks: {outcome}"
    );
    assert_eq!(
        candidates.len() as u64,
        chunks,
        "one candidate per chunk, every one kept"
    );
    let accepted = outcome["accepted"].as_u64().unwrap();
    assert!(
        accepted >= chunks / 2,
        "most drafts pass the filters: {outcome}"
    );
    let failed: Vec<&Value> = candidates
        .iter()
        .filter(|c| c["status"] == "error")
        .collect();
    assert!(!failed.is_empty(), "the faulted page is an error candidate");
    assert!(
        failed
            .iter()
            .all(|c| c["reason"].as_str().unwrap().contains("call failed")),
        "{failed:?}"
    );
    for c in candidates.iter().filter(|c| c["status"] == "rejected") {
        assert!(
            !c["reason"].as_str().unwrap().is_empty(),
            "a rejection says why: {c}"
        );
    }

    // The export is the importer's schema: it imports as a dataset of the same size.
    let lines = std::fs::read_to_string(&out).unwrap();
    assert_eq!(lines.lines().count() as u64, accepted);
    let first: Value = serde_json::from_str(lines.lines().next().unwrap()).unwrap();
    assert!(first["question"].as_str().unwrap().ends_with('?'));
    assert!(
        first["gold_context_ids"][0].as_str().unwrap().contains('#'),
        "{first}"
    );
    let imported = run(home.path(), &["import", out.to_str().unwrap(), "--json"]);
    let report: Value = serde_json::from_slice(&imported.stdout).unwrap();
    assert_eq!(
        report["items_accepted"].as_u64(),
        Some(accepted),
        "{report}"
    );

    // The generated set evaluates retrieval on its own corpus.
    let eval = run(
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
    assert!(eval.status.success(), "{}", text(&eval.stderr));
    let e: Value = serde_json::from_slice(&eval.stdout).unwrap();
    assert_eq!(e["queries"].as_u64(), Some(accepted));
}

/// Candidates are drafted as many at a time as the judge profile allows, and a
/// generation still stops at its count: a wave never asks for more than is missing.
#[test]
fn generation_drafts_candidates_in_parallel_without_overshooting_the_count() {
    let sim = simulator(150);
    let home = tempfile::tempdir().unwrap();
    add_sim_judge(home.path(), &sim, 4);
    let documents = repo().join("tests/documents");
    let o = run(
        home.path(),
        &[
            "generate",
            documents.to_str().unwrap(),
            "--judge",
            "sim",
            "--count",
            "3",
            "--chunk-tokens",
            "120",
            "--overlap",
            "20",
            "--json",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let stdout = text(&o.stdout);
    let report: Value = serde_json::from_str(&stdout[stdout.find('{').unwrap()..]).unwrap();
    assert_eq!(report["outcome"]["status"], "done", "{report}");
    assert_eq!(report["outcome"]["accepted"], 3);
    let stats = sim.stats();
    assert!(
        stats.max_in_flight >= 2,
        "candidates were drafted together: {} at most",
        stats.max_in_flight
    );
    let accepted = report["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["status"] == "accepted")
        .count();
    assert_eq!(
        accepted, 3,
        "no accepted candidate beyond the count is stored"
    );
}

#[test]
fn a_generation_budget_is_a_ceiling_across_calls_and_resumes() {
    let sim = simulator(0);
    let home = tempfile::tempdir().unwrap();
    // A priced judge: every call costs about half a cent.
    add_judge(
        home.path(),
        "priced",
        &sim.base_url(),
        &[
            "--concurrency",
            "4",
            "--price-input",
            "10",
            "--price-output",
            "10",
        ],
    );
    let docs = repo().join("tests/documents");
    let spent = |home: &Path| -> f64 {
        let store = Store::open(home).unwrap();
        store::generations::spent(store.conn(), 1).unwrap()
    };
    let o = run(
        home.path(),
        &[
            "generate",
            docs.to_str().unwrap(),
            "--judge",
            "priced",
            "--count",
            "50",
            "--budget",
            "0.02",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let first = spent(home.path());
    assert!(
        first > 0.0 && first <= 0.02,
        "stopped before the call that would pass $0.02: spent ${first:.4}"
    );
    // Resuming with the same budget spends nothing more: it is already used up.
    let calls = sim.stats().calls;
    let o = run(
        home.path(),
        &[
            "generate", "--resume", "1", "--judge", "priced", "--budget", "0.02",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        sim.stats().calls <= calls + 1 && spent(home.path()) <= 0.02,
        "the spend of the first execution counts: ${:.4}",
        spent(home.path())
    );
    // A larger budget on resume is taken, and caps the whole generation.
    let o = run(
        home.path(),
        &[
            "generate", "--resume", "1", "--judge", "priced", "--budget", "0.04",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let total = spent(home.path());
    assert!(
        total > first && total <= 0.04,
        "went on, and stopped under the new ceiling: ${total:.4}"
    );
}

/// 504 items judged through a simulator that fails about 30 % of calls in mixed ways at
/// once: every cell ends scored or with an error naming its cause, none twice, and the
/// tokens Ragnosis counted are the ones the simulator answered with.
#[test]
fn a_run_through_a_fault_storm_completes_with_every_cell_accounted_for() {
    let status = |status: u16, retry_after: Option<&str>| Fault::Status {
        status,
        retry_after: retry_after.map(str::to_string),
        body: None,
    };
    let sim = Simulator::start(SimConfig {
        faults: FaultRules {
            storm_rate: 0.3,
            storm: vec![
                status(429, Some("0")),
                status(429, None),
                status(500, None),
                status(503, Some("0")),
                Fault::Hang,
                Fault::MalformedJson,
                Fault::TruncatedJson,
                Fault::EmptyBody,
                Fault::ProseAroundJson,
            ],
            ..Default::default()
        },
        ..Default::default()
    })
    .expect("simulator starts");
    let home = tempfile::tempdir().unwrap();
    add_judge(
        home.path(),
        "stormy",
        &sim.base_url(),
        &["--concurrency", "16", "--timeout", "2"],
    );
    let file = replicated_ragvue(home.path(), 63);
    let items = std::fs::read_to_string(&file).unwrap().lines().count() as i64;
    assert!(items >= 500);
    let metrics = [
        "ragvue.strict_faithfulness",
        "ragvue.answer_relevance",
        "ragvue.answer_length",
    ];
    let o = run(
        home.path(),
        &[
            "eval",
            file.to_str().unwrap(),
            "--judge",
            "stormy",
            "--metrics",
            &metrics.join(","),
            "--no-cache",
        ],
    );
    assert!(o.status.success(), "the run completes: {}", text(&o.stderr));

    let store = Store::open(home.path()).unwrap();
    assert_eq!(
        store::runs::get(store.conn(), 1).unwrap().status,
        RunStatus::Done
    );
    let scored = store::results::done_pairs(store.conn(), 1).unwrap();
    let failed = store::results::error_pairs(store.conn(), 1).unwrap();
    assert_eq!(
        result_count(home.path(), 1),
        items * metrics.len() as i64,
        "one result per cell"
    );
    assert_eq!(
        scored.len() + failed.len(),
        (items * 3) as usize,
        "no cell twice"
    );
    assert!(
        scored.len() > failed.len() * 4,
        "retries and repairs recover most calls: {} scored, {} failed",
        scored.len(),
        failed.len()
    );
    for item_id in store::run_items::item_ids(store.conn(), 1).unwrap() {
        for stored in store::results::for_item(store.conn(), 1, item_id).unwrap() {
            let r = stored.result;
            if r.status == ragnosis_core::metrics::Status::Error {
                assert!(
                    r.explanation
                        .starts_with("The judge could not score this item: ")
                        && r.details["error_code"]
                            .as_str()
                            .is_some_and(|c| c.starts_with("judge.")),
                    "an error names its cause and code: {} {}",
                    r.explanation,
                    r.details
                );
            }
        }
    }
    // Every token the simulator answered with is counted, those of replies that could
    // not be read included: a provider bills them though they decided nothing.
    let totals: ragnosis_core::run::RunTotals = store::runs::totals(store.conn(), 1).unwrap();
    let stats = sim.stats();
    assert_eq!(
        (totals.input_tokens, totals.output_tokens),
        (stats.input_tokens, stats.output_tokens),
        "tokens counted are the tokens answered"
    );
}
