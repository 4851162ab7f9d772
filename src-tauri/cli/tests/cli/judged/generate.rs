//! Synthetic test sets drafted by a judge: filtering, parallel drafts, budgets.

use super::*;

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

    assert_the_offline_judge_is_refused_with_nothing_stored(home.path(), docs);
    assert_a_plan_calls_nothing(home.path(), docs, &sim);

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
    let accepted = assert_every_candidate_is_kept_with_its_reason(home.path(), &report);

    assert_the_export_imports_as_a_dataset_of_the_same_size(home.path(), &out, accepted);

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

/// The offline judge cannot write questions: refused with exit 2, and no corpus stored.
fn assert_the_offline_judge_is_refused_with_nothing_stored(home: &Path, docs: &str) {
    let refused = run(
        home,
        &["generate", docs, "--judge", "offline", "--count", "3"],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("cannot write questions"),
        "{}",
        text(&refused.stderr)
    );
    assert!(
        text(&run(home, &["corpora"]).stdout).contains("No corpora"),
        "nothing stored"
    );
}

/// `--plan` counts the judge calls a generation would make, and makes none.
fn assert_a_plan_calls_nothing(home: &Path, docs: &str, sim: &SimHandle) {
    let plan = run(
        home,
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
}

/// The generation `report` keeps one candidate per chunk of corpus 1: most accepted, the
/// faulted page's as errors, every rejection with its reason. The number accepted.
fn assert_every_candidate_is_kept_with_its_reason(home: &Path, report: &Value) -> u64 {
    let outcome = &report["outcome"];
    let candidates = report["candidates"].as_array().unwrap();
    let chunks: u64 = text(&run(home, &["corpora", "--json"]).stdout)
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
    accepted
}

/// The export at `out` is the importer's schema: `accepted` questions with their gold
/// contexts, importing as a dataset of the same size.
fn assert_the_export_imports_as_a_dataset_of_the_same_size(home: &Path, out: &Path, accepted: u64) {
    let lines = std::fs::read_to_string(out).unwrap();
    assert_eq!(lines.lines().count() as u64, accepted);
    let first: Value = serde_json::from_str(lines.lines().next().unwrap()).unwrap();
    assert!(first["question"].as_str().unwrap().ends_with('?'));
    assert!(
        first["gold_context_ids"][0].as_str().unwrap().contains('#'),
        "{first}"
    );
    let imported = run(home, &["import", out.to_str().unwrap(), "--json"]);
    let report: Value = serde_json::from_slice(&imported.stdout).unwrap();
    assert_eq!(
        report["items_accepted"].as_u64(),
        Some(accepted),
        "{report}"
    );
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

/// A generation whose judge refuses every call stops after a few candidates with the
/// judge's own code and exit 3, as a run does — it used to end `invalid`, exit 2.
#[test]
fn a_generation_whose_judge_refuses_every_call_ends_with_the_judges_code() {
    let sim = refusing_every_key();
    let home = tempfile::tempdir().unwrap();
    add_sim_judge(home.path(), &sim, 2);
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
        ],
    );
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{stderr}\n{}", text(&o.stdout));
    assert!(stderr.contains("judge.auth"), "{stderr}");
    assert!(stderr.contains("--resume"), "says how to go on: {stderr}");
}
