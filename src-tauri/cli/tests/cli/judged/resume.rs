//! Runs that lose their judge, or are killed, and finish on resume with every cell accounted for.

use super::*;

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
    kill_when(
        &mut child,
        Duration::from_secs(60),
        "a committed result",
        || result_count(home.path(), 1) > 0,
    );

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

fn sf_error_code(json: &Value, id: &str) -> Option<String> {
    json["items"].as_array()?.iter().find(|i| i["id"] == id)?["results"]
        ["ragvue.strict_faithfulness"]["details"]["error_code"]
        .as_str()
        .map(str::to_string)
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
    assert_only_the_poisoned_item_failed_and_kept_its_raw_output(&json);
    assert_the_run_is_done_and_says_one_result_could_not_be_scored(&json);
}

/// The item `bad` has an error for strict faithfulness (no score, the reason, the judge's
/// raw output) and its judge-free metric scored; every other item scored.
fn assert_only_the_poisoned_item_failed_and_kept_its_raw_output(json: &Value) {
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
}

/// One failing item does not fail the run, but the run, its export and its summary say
/// so, with the error's code.
fn assert_the_run_is_done_and_says_one_result_could_not_be_scored(json: &Value) {
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
        sf_error_code(json, "bad"),
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

/// 504 items judged through a simulator that fails about 30 % of calls in mixed ways at
/// once: every cell ends scored or with an error naming its cause, none twice, and the
/// tokens Ragnosis counted are the ones the simulator answered with.
#[test]
fn a_run_through_a_fault_storm_completes_with_every_cell_accounted_for() {
    let sim = a_judge_in_a_fault_storm();
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
    assert_every_error_names_its_cause_and_code(&store);
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

/// The judge simulator failing about 30 % of its calls in mixed ways: 429s, 500, 503,
/// hangs, broken, empty and wrapped replies.
fn a_judge_in_a_fault_storm() -> SimHandle {
    let status = |status: u16, retry_after: Option<&str>| Fault::Status {
        status,
        retry_after: retry_after.map(str::to_string),
        body: None,
    };
    Simulator::start(SimConfig {
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
    .expect("simulator starts")
}

/// Every error result of run 1 says the judge could not score the item, with a `judge.`
/// error code.
fn assert_every_error_names_its_cause_and_code(store: &Store) {
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
}

/// A key revoked in the middle of an agentic run (every metric mix, some skipped on
/// single-fact questions): once the judge refuses ten calls in a row the run stops, ends
/// `failed` with the judge's code and exit 3, and says what to do — it used to end
/// `done`, exit 0, with most of its cells errors.
#[test]
fn a_key_revoked_mid_run_fails_the_run_with_its_code() {
    let sim = simulator(0);
    let home = tempfile::tempdir().unwrap();
    add_sim_judge(home.path(), &sim, 2);
    let file = replicated_ragvue(home.path(), 12);
    let mut child = ragnosis(home.path())
        .args(["agentic", file.to_str().unwrap(), "--judge", "sim"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Revoked once some items are scored.
    let db = home.path().to_path_buf();
    let start = Instant::now();
    loop {
        let scored = Store::open(&db).ok().and_then(|s| {
            s.conn()
                .query_row(
                    "SELECT COUNT(*) FROM results WHERE status = 'ok'",
                    [],
                    |r| r.get::<_, i64>(0),
                )
                .ok()
        });
        if scored.is_some_and(|n| n >= 20) {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "no result was scored"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before the revocation"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    refuse_every_key(&sim);
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("judge.auth"),
        "{}",
        text(&o.stderr)
    );
    let store = Store::open(home.path()).unwrap();
    let run = store::runs::get(store.conn(), 1).unwrap();
    assert_eq!(run.status, RunStatus::Failed, "not done");
    assert!(run.message.unwrap_or_default().contains("judge.auth"));
}

/// A run done with errors says "resume the run to retry them", and `resume` does: it
/// retries every error cell with the profile as it is now, keeps the ok ones, and says
/// how many it retried and how many still fail.
#[test]
fn resume_retries_the_error_cells_of_a_run_done_with_errors() {
    let sim = simulator(0);
    // Every call about one item's question comes back as prose, even when repaired.
    let dir = tempfile::tempdir().unwrap();
    let file = replicated_ragvue(dir.path(), 1);
    let first = std::fs::read_to_string(&file).unwrap();
    let first: Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    let question = first["question"].as_str().unwrap().to_string();
    sim.set_faults(FaultRules {
        when_contains: vec![ContainsRule {
            text: question,
            fault: Fault::MalformedJson,
        }],
        ..Default::default()
    });
    let home = dir.path();
    add_sim_judge(home, &sim, 2);
    let o = run(
        home,
        &[
            "eval",
            file.to_str().unwrap(),
            "--metrics",
            "ragvue.clarity",
            "--judge",
            "sim",
        ],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let store = Store::open(home).unwrap();
    let done = store::runs::get(store.conn(), 1).unwrap();
    assert_eq!(done.status, RunStatus::Done);
    assert!(done
        .message
        .unwrap_or_default()
        .contains("resume the run to retry them"));
    let failed = store::results::error_pairs(store.conn(), 1).unwrap().len();
    let ok_before = ok_results(&store);
    assert!(failed >= 1);
    drop(store);

    sim.set_faults(FaultRules::default());
    let o = run(home, &["resume", "1"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains(&format!("retried {failed} failed result"))
            && text(&o.stderr).contains("0 still failing"),
        "{}",
        text(&o.stderr)
    );
    let store = Store::open(home).unwrap();
    let run_row = store::runs::get(store.conn(), 1).unwrap();
    assert_eq!((run_row.status, run_row.message), (RunStatus::Done, None));
    let ok_after = ok_results(&store);
    assert_eq!(
        ok_after,
        ok_before + failed as i64,
        "the ok results were kept, the failed ones redone"
    );
    drop(store);
    let o = run(home, &["resume", "1"]);
    assert!(!o.status.success(), "nothing left to resume");
    assert!(
        text(&o.stderr).contains("nothing to resume"),
        "{}",
        text(&o.stderr)
    );
}

/// Run 1's results that are scored.
fn ok_results(store: &Store) -> i64 {
    store
        .conn()
        .query_row(
            "SELECT COUNT(*) FROM results WHERE run_id = 1 AND status = 'ok'",
            [],
            |r| r.get(0),
        )
        .unwrap()
}
