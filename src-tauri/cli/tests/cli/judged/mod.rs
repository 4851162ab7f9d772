//! Judged runs end to end: the `ragnosis` binary against the judge simulator (a real
//! HTTP server on 127.0.0.1 answering with the offline judge) and the offline judge
//! itself, with a real SQLite file per test.

mod advisor;
mod generate;
mod noise;
mod profiles;
mod resume;

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
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

    let full = by_shape("answer+contexts");
    assert_the_ragvue_metrics_run_on_a_full_item(&full);

    let no_answer = by_shape("contexts_only_empty_answer");
    assert_the_answer_metrics_skip_an_item_without_answer(&no_answer);

    let answer_only = by_shape("answer_only");
    assert!(ran(&answer_only, "ragvue.answer_relevance") && ran(&answer_only, "ragvue.clarity"));
    for m in ["ragvue.retrieval_relevance", "ragvue.strict_faithfulness"] {
        assert_eq!(answer_only[m]["status"], "skipped", "{m} needs contexts");
    }
    assert_only_metrics_without_ground_truth_run(&json);
    let judge = &json["run"]["judge"];
    assert_eq!(
        judge, "offline",
        "scores are marked as coming from the offline judge"
    );
}

/// Whether metric `m` ran on an item with results `r`.
fn ran(r: &Value, m: &str) -> bool {
    r[m]["status"] != "skipped"
}

/// On an item with an answer and contexts the RAGVUE metrics of both stages run, chosen
/// because the item has retrieved contexts.
fn assert_the_ragvue_metrics_run_on_a_full_item(full: &Value) {
    for m in [
        "ragvue.retrieval_relevance",
        "ragvue.retrieval_coverage",
        "ragvue.answer_relevance",
        "ragvue.strict_faithfulness",
        "ragvue.answer_overall",
        "ragvue.retrieval_overall",
    ] {
        assert!(
            ran(full, m),
            "{m} runs on an item with answer and contexts: {}",
            full[m]
        );
    }
    assert_eq!(
        full["ragvue.retrieval_relevance"]["details"]["chosen_because"],
        "the item has retrieved contexts"
    );
}

/// Retrieval is judged on an item with contexts and an empty answer; what needs an
/// answer is skipped, saying why.
fn assert_the_answer_metrics_skip_an_item_without_answer(no_answer: &Value) {
    assert!(
        ran(no_answer, "ragvue.retrieval_relevance"),
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
}

/// The examples carry no ground truth, citations or ranks: only the metrics that need
/// none of them run (RAGVUE's, and RAGXplain's and RAGalyst's without a ground truth).
fn assert_only_metrics_without_ground_truth_run(json: &Value) {
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
    // RAGVUE's six tasks and RAGXplain's scorecard in one call per phase (the tasks that
    // need no other verdict, then those that need the aspects), and the run's insights.
    assert!(
        first <= 3,
        "at most 3 calls for a run of one full item, made {first}"
    );
    let tasks: u64 = sim.stats().by_task.values().sum();
    assert!(
        tasks >= 6,
        "the judged metrics really asked the judge ({tasks} tasks in {first} calls)"
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
    let plan = agentic_plan(&home, &file, "offline+sim");
    let (planned_sent, planned_total) = cascade_split(&plan);
    assert!(
        planned_sent > 0 && planned_sent * 2 < planned_total,
        "the plan expects some but a minority of tasks to go on:\n{plan}"
    );
    assert!(plan.contains("all sent:"), "{plan}");
    assert_the_model_plan_recommends_the_cascade(&home, &file, planned_sent, planned_total);
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
        versions.iter().any(|v| v.starts_with("offline-12")),
        "offline verdicts are marked as the offline judge's: {versions:?}"
    );
    assert!(
        versions.iter().any(|v| !v.starts_with("offline")),
        "sent-on verdicts carry the stronger judge's version: {versions:?}"
    );
}

/// Planned with the model alone, the plan recommends the cascade with the cascade's own
/// split.
fn assert_the_model_plan_recommends_the_cascade(home: &Path, file: &Path, sent: u64, total: u64) {
    let model_plan = agentic_plan(home, file, "sim");
    let offer = model_plan
        .lines()
        .find(|l| l.trim_start().starts_with("recommended:"))
        .unwrap_or_else(|| panic!("no recommendation in the model's plan:\n{model_plan}"));
    assert!(offer.contains("--judge offline+sim"), "{offer}");
    assert!(
        offer.contains(&format!("about {sent} of {total} tasks")),
        "the offer's split is the cascade's own: {offer}"
    );
}

/// `agentic FILE --judge JUDGE --plan`'s output; the plan sends nothing.
fn agentic_plan(home: &Path, file: &Path, judge: &str) -> String {
    let o = run(
        home,
        &[
            "agentic",
            file.to_str().unwrap(),
            "--judge",
            judge,
            "--plan",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    text(&o.stdout)
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

    assert_a_floor_on_a_lower_is_better_metric_is_refused(home.path());
    assert_an_undecided_gate_exits_4_unless_told_what_it_counts_as(home.path());
}

/// Dataset 1 evaluated again on the citation metrics, with `extra` flags.
fn eval_citation_again(home: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["eval", "--dataset", "1", "--metrics", "citation"];
    args.extend_from_slice(extra);
    run(home, &args)
}

/// A floor on a lower-is-better metric would pass a run that got worse: refused before
/// anything runs, with the flag to use instead; the ceiling passes and fails as a floor
/// would.
fn assert_a_floor_on_a_lower_is_better_metric_is_refused(home: &Path) {
    let eval = |extra: &[&str]| eval_citation_again(home, extra);
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
}

/// A floor just under the mean: the mean clears it, but the interval spans it, so the
/// default gate cannot tell (exit 4, with the items that would settle it) unless told what
/// an undecided gate counts as; an unknown gate or treatment is refused.
fn assert_an_undecided_gate_exits_4_unless_told_what_it_counts_as(home: &Path) {
    let eval = |extra: &[&str]| eval_citation_again(home, extra);
    let shown = run(home, &["show", "2", "--json"]);
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

/// A simulator that answers every chat request with HTTP 401, as a service does to a
/// wrong key.
fn refusing_every_key() -> SimHandle {
    let sim = simulator(0);
    refuse_every_key(&sim);
    sim
}

/// From now on `sim` answers every chat request with HTTP 401 (a key revoked).
fn refuse_every_key(sim: &SimHandle) {
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
}
