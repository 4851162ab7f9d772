//! Judge profiles, keys, calibration and the judge check through a real server.

use super::*;

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
fn a_local_server_on_a_default_port_is_detected_and_becomes_a_profile() {
    // The simulator plays LM Studio on its default port, 1234, of this machine; the
    // window's detection test, in another process, waits until this one is done.
    let _ports = ragnosis_judge_sim::DefaultPorts::hold().unwrap();
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
        "the window says the same (tests/shell/ipc/settings.rs): {}",
        text(&o.stderr)
    );
    let listed = run(home.path(), &["judges", "list"]);
    assert!(
        !text(&listed.stdout).contains("hot"),
        "nothing stored: {}",
        text(&listed.stdout)
    );
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

/// `judge-check` through a model server: every case goes over HTTP, a case whose calls
/// keep failing is an error left out of its figure (never a disagreement), and the
/// figures are stored with the profile.
#[test]
fn judge_check_through_a_server_keeps_failed_cases_out_of_the_figures() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let sim = a_judge_that_fails_one_wice_claim();
    add_sim_judge(&home, &sim, 8);

    let o = run(&home, &["judge-check", "sim", "--json"]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let check: Value = serde_json::from_slice(&o.stdout).expect("--json prints the check");
    assert_the_failing_claim_is_an_error_left_out_of_the_figures(&check);
    let stats = sim.stats();
    // Two tasks per claim or answerability case, one per similarity case (the
    // correctness scorecard), and the designed items' agentic tasks: 840 when every
    // case reaches the server (fewer calls: an item's independent tasks share one).
    let tasks: u64 = stats.by_task.values().sum();
    assert!(
        tasks >= 840,
        "every case went to the server: {tasks} tasks in {} calls",
        stats.calls
    );

    let store = Store::open(&home).unwrap();
    let stored = ragnosis_core::judge_check::latest_for_profile(store.conn(), "sim")
        .unwrap()
        .expect("the check is stored");
    assert_eq!(stored.checked_at, check["checked_at"].as_str().unwrap());

    assert_the_table_names_the_tasks_and_the_shapes(&home);
    assert_judges_list_shows_each_profiles_latest_check(&home, &check);
}

/// The judge simulator, with one WiCE claim of the shipped sample whose judge calls
/// always come back as prose, even when repaired.
fn a_judge_that_fails_one_wice_claim() -> SimHandle {
    Simulator::start(SimConfig {
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
    .expect("simulator starts")
}

/// The check's figures: the failing claim is an error left out of claim support's
/// figure (59 of 60, with the first error), every other task has all 60 cases and a
/// figure, and the judge's config and tokens are recorded.
fn assert_the_failing_claim_is_an_error_left_out_of_the_figures(check: &Value) {
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
}

/// The human-readable table names the tasks and the designed shapes.
fn assert_the_table_names_the_tasks_and_the_shapes(home: &Path) {
    let o = run(home, &["judge-check", "sim"]);
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
}

/// `judges list` shows each profile's latest check beside it. With the model on: the
/// offline judge's shipped check describes the judge with its semantics.
fn assert_judges_list_shows_each_profiles_latest_check(home: &Path, check: &Value) {
    let list = ragnosis_with_model(home)
        .args(["judges", "list"])
        .output()
        .expect("the binary runs");
    let list = text(&list.stdout);
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
    let shipped: serde_json::Value = serde_json::from_str(include_str!(
        "../../../../../assets/offline-judge/check.json"
    ))
    .unwrap();
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

/// A server that accepts connections and never answers: the judge check stops once no
/// answer came in its silence deadline (here shortened for the test), naming the host and
/// the time waited, instead of retrying every case for minutes.
#[test]
fn judge_check_against_a_server_that_never_answers_stops_naming_the_host_and_the_wait() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let sim = Simulator::start(SimConfig {
        faults: FaultRules {
            storm_rate: 1.0,
            storm: vec![Fault::Hang],
            ..Default::default()
        },
        ..Default::default()
    })
    .expect("simulator starts");
    add_judge(
        &home,
        "sim",
        &sim.base_url(),
        &["--concurrency", "2", "--timeout", "600"],
    );
    let started = std::time::Instant::now();
    let o = ragnosis(&home)
        .args(["judge-check", "sim"])
        .env(ragnosis_core::judge_check::SILENCE_ENV, "3")
        .output()
        .unwrap();
    let waited = started.elapsed();
    assert!(!o.status.success());
    let said = text(&o.stderr);
    assert!(said.contains(&sim.base_url()), "names the host: {said}");
    assert!(said.contains("nothing answered"), "{said}");
    assert!(
        waited < std::time::Duration::from_secs(300),
        "stopped at its 3 s deadline, not after a call's 600 s timeout: {waited:?}"
    );
}

/// A server on this machine needs no key, and a stopped one is named in words: `judges
/// add` says no key is needed, `judges list` does not report the keyring for it, and
/// `judges test` gives the judge's own code and "nothing answers".
#[test]
fn a_local_server_needs_no_key_and_a_stopped_one_is_named_in_words() {
    let home = tempfile::tempdir().unwrap();
    // Port 9 (discard) is closed on a test machine: nothing answers there.
    let added = ok(
        home.path(),
        &[
            "judges",
            "add",
            "local",
            "--kind",
            "openai",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
        ],
    );
    assert!(
        added.contains("needs no key") && !added.contains("keys set"),
        "{added}"
    );
    let list = ok(home.path(), &["judges", "list"]);
    let row = list.lines().find(|l| l.starts_with("local")).unwrap();
    assert!(row.contains("not needed (on this machine)"), "{row}");
    let o = run(home.path(), &["judges", "test", "local"]);
    assert_eq!(o.status.code(), Some(3), "{}", text(&o.stderr));
    let said = text(&o.stderr);
    assert!(
        said.contains("error [judge.unreachable]")
            && said.contains("nothing answers at 127.0.0.1:9"),
        "{said}"
    );
    assert!(!said.contains("os error"), "{said}");
}
