//! Settings: judge profiles, their keys, connection tests and a local model server found
//! on its default port, the offline judge's model, the theme and the few-shot file.

use serde_json::{json, Value};

use super::common::{assert_error, finished_run, profile, request, shell};

#[test]
fn judge_profiles_are_saved_listed_and_deleted() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let saved = s.ok(
        "save_judge",
        json!({ "profile": profile(" gpt ", "https://api.openai.com/v1") }),
    );
    assert_eq!(saved["name"], "gpt", "the name is trimmed");
    assert_eq!(saved["price_output"], 0.6);
    let judges = s.ok("list_judges", Value::Null);
    assert_eq!(
        judges
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["name"].clone())
            .collect::<Vec<_>>(),
        vec![json!("offline"), json!("gpt")]
    );
    s.ok("delete_judge", json!({ "name": "gpt" }));
    assert_eq!(
        s.ok("list_judges", Value::Null).as_array().unwrap().len(),
        1
    );
}

#[test]
fn judge_profile_errors() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    assert_error(
        &s.invoke(
            "save_judge",
            json!({ "profile": profile("offline", "https://x.test/v1") }),
        )
        .unwrap_err(),
        "invalid",
    );
    assert_error(
        &s.invoke(
            "save_judge",
            json!({ "profile": profile("  ", "https://x.test/v1") }),
        )
        .unwrap_err(),
        "invalid",
    );
    let mut bad_kind = profile("k", "https://x.test/v1");
    bad_kind["kind"] = json!("telepathy");
    let refused = s
        .invoke("save_judge", json!({ "profile": bad_kind }))
        .unwrap_err();
    assert_error(&refused, "invalid");
    assert_eq!(
        refused["message"],
        "invalid input: unknown judge kind 'telepathy' (use openai, azure or anthropic)"
    );
    // The other checks of a profile (temperature, prices) and their sentences are the
    // api's, pinned in its tests (judges.rs): typed or sent as JSON, one rule.
    assert_error(
        &s.invoke("delete_judge", json!({ "name": "nobody" }))
            .unwrap_err(),
        "not_found",
    );
    // Stopping a judge check that is not running (the api's tests stop a running one).
    assert_error(
        &s.invoke("cancel_judge_check", json!({ "profile": "offline" }))
            .unwrap_err(),
        "not_running",
    );
}

#[test]
fn a_key_is_stored_reported_and_forgotten_but_never_returned() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    s.ok(
        "save_judge",
        json!({ "profile": profile("gpt", "https://api.openai.com/v1") }),
    );
    let before = s.ok("judge_key_status", json!({ "name": "gpt" }));
    assert_eq!(
        (before["stored"].clone(), before["backend"].clone()),
        (json!(false), json!("memory"))
    );
    assert_eq!(before["env_var"], "RAGNOSIS_GPT_API_KEY");
    let stored = s.ok(
        "store_judge_key",
        json!({ "name": "gpt", "key": "sk-test-secret-123456" }),
    );
    assert_eq!(stored["stored"], true);
    for answer in [
        &stored,
        &s.ok("judge_key_status", json!({ "name": "gpt" })),
        &s.ok("list_judges", Value::Null),
    ] {
        assert!(
            !answer.to_string().contains("secret-123456"),
            "the key never comes back: {answer}"
        );
    }
    let forgotten = s.ok("forget_judge_key", json!({ "name": "gpt" }));
    assert_eq!(forgotten["stored"], false);
    assert_error(
        &s.invoke("store_judge_key", json!({ "name": "gpt", "key": "   " }))
            .unwrap_err(),
        "invalid",
    );
}

#[test]
fn test_judge_and_discover_models_answer_for_offline_and_explain_an_unreachable_server() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let mut offline = profile("offline", "");
    offline["kind"] = json!("offline");
    let check = s.ok("test_judge", json!({ "profile": offline.clone() }));
    assert_eq!(
        (
            check["ok"].clone(),
            check["structured_output_parsed"].clone()
        ),
        (json!(true), json!(true))
    );
    assert_eq!(
        s.ok("discover_judge_models", json!({ "profile": offline }))
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // Nothing listens on port 9 of this machine: the test says so instead of failing the call.
    let down = profile("down", "http://127.0.0.1:9/v1");
    let check = s.ok("test_judge", json!({ "profile": down.clone() }));
    assert_eq!(check["ok"], false);
    assert!(!check["message"].as_str().unwrap().is_empty());
    assert_error(
        &s.invoke("discover_judge_models", json!({ "profile": down }))
            .unwrap_err(),
        "judge.unreachable",
    );
    assert_error(
        &s.invoke("test_judge", json!({ "profile": profile("", "http://x") }))
            .unwrap_err(),
        "invalid",
    );
}

/// A failed connection test carries the error code the window offers a fix by: a refused
/// key, a rate limit with the wait the service asked for, an unreadable reply with the
/// reply itself.
#[test]
fn a_failed_connection_test_names_its_error_code_with_what_the_window_needs() {
    use ragnosis_judge_sim::{ContainsRule, Fault, FaultRules, SimConfig, Simulator};
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let check_with = |fault: Fault| {
        let sim = Simulator::start(SimConfig {
            faults: FaultRules {
                when_contains: vec![ContainsRule {
                    text: "2+2".into(),
                    fault,
                }],
                ..Default::default()
            },
            ..Default::default()
        })
        .unwrap();
        s.ok(
            "test_judge",
            json!({ "profile": profile("sim", &sim.base_url()) }),
        )
    };

    let auth = check_with(Fault::Status {
        status: 401,
        retry_after: None,
        body: None,
    });
    assert_eq!(auth["ok"], false);
    assert_eq!(auth["error"]["code"], "judge.auth", "{auth}");
    assert!(
        auth["error"].get("retry_helps").is_none(),
        "the same key will not work: {auth}"
    );

    let limited = check_with(Fault::Status {
        status: 429,
        retry_after: Some("7".into()),
        body: None,
    });
    assert_eq!(limited["error"]["code"], "judge.rate_limited", "{limited}");
    assert_eq!(limited["error"]["retry_after_secs"], 7, "{limited}");
    assert_eq!(limited["error"]["retry_helps"], true);

    let garbled = check_with(Fault::MalformedJson);
    assert_eq!(garbled["error"]["code"], "judge.bad_reply", "{garbled}");
    assert!(
        !garbled["error"]["detail"]
            .as_str()
            .unwrap_or_default()
            .is_empty(),
        "the reply itself is there to inspect: {garbled}"
    );

    let fine = s.ok(
        "test_judge",
        json!({ "profile": profile("down", "http://127.0.0.1:9/v1") }),
    );
    assert_eq!(fine["error"]["code"], "judge.unreachable", "{fine}");
}

#[test]
fn a_model_server_on_a_default_local_port_is_offered_as_a_ready_profile() {
    // The judge simulator plays vLLM on its default port, 8000, of this machine.
    let sim = ragnosis_judge_sim::Simulator::start(ragnosis_judge_sim::SimConfig {
        port: 8000,
        ..Default::default()
    })
    .expect("port 8000 (vLLM's default) must be free for this test");
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let found = s.ok("detect_local_judges", Value::Null);
    let servers = found.as_array().unwrap();
    let vllm = servers
        .iter()
        .find(|f| f["product"] == "vLLM")
        .unwrap_or_else(|| panic!("vLLM found: {found}"));
    assert_eq!(vllm["base_url"], "http://127.0.0.1:8000/v1");
    assert_eq!(
        vllm["models"],
        json!(["sim-judge-large", "sim-judge-small"])
    );
    assert_eq!(vllm["already_saved"], false);
    let profile = vllm["profile"].clone();
    assert_eq!(
        (profile["name"].clone(), profile["model"].clone()),
        (json!("vllm"), json!("sim-judge-large"))
    );

    // Saving the offered profile as it is works, and the next search says so.
    s.ok("save_judge", json!({ "profile": profile }));
    let again = s.ok("detect_local_judges", Value::Null);
    let vllm = again
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["product"] == "vLLM")
        .unwrap();
    assert_eq!(vllm["already_saved"], true);
    drop(sim);
}

#[test]
fn the_offline_judge_says_whether_its_semantic_model_is_in_use() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let status = s.ok("offline_judge_status", Value::Null);
    let notice = status["notice"].as_str().unwrap();
    match status["semantic_model"].as_str() {
        Some(model) => assert!(
            notice.contains(model) && notice.contains("in use"),
            "{status}"
        ),
        None => {
            assert!(notice.contains("not in use"), "{status}");
            assert_ne!(
                std::env::var("RAGNOSIS_MODEL").as_deref(),
                Ok("required"),
                "the model must load here: {status}"
            );
        }
    }
}

#[test]
fn the_theme_is_remembered() {
    let home = tempfile::tempdir().unwrap();
    {
        let s = shell(home.path());
        assert_eq!(s.ok("get_theme", Value::Null), "system");
        assert_eq!(s.ok("set_theme", json!({ "theme": "dark" })), "dark");
    }
    let s = shell(home.path());
    assert_eq!(
        s.ok("get_theme", Value::Null),
        "dark",
        "kept in the store across launches"
    );
    let err = s
        .invoke("set_theme", json!({ "theme": "neon" }))
        .unwrap_err();
    assert!(
        err.is_string() || err.get("code").is_some(),
        "an unknown theme is rejected: {err}"
    );
}

#[test]
fn a_few_shot_file_chosen_in_settings_reaches_the_next_run() {
    let home = tempfile::tempdir().unwrap();
    let s = shell(home.path());
    let shipped = s.ok("get_few_shot", Value::Null);
    assert_eq!(shipped["path"], Value::Null);
    assert_eq!(shipped["examples"], 8, "the shipped set: {shipped}");

    // A bad line is refused with its number; nothing is chosen.
    let broken = home.path().join("broken.jsonl");
    std::fs::write(
        &broken,
        "{\"answer\":\"a\",\"reference\":\"r\",\"score\":0.5}\n{\"answer\":\"a\"}\n",
    )
    .unwrap();
    let err = s
        .invoke("set_few_shot", json!({ "path": broken.to_str().unwrap() }))
        .unwrap_err();
    assert_error(&err, "invalid");
    assert!(err["message"].as_str().unwrap().contains("line 2"), "{err}");
    assert_eq!(s.ok("get_few_shot", Value::Null)["path"], Value::Null);

    let mine = home.path().join("mine.jsonl");
    std::fs::write(
        &mine,
        "{\"answer\":\"Paris\",\"reference\":\"The capital is Paris.\",\"score\":0.95}\n",
    )
    .unwrap();
    let chosen = s.ok("set_few_shot", json!({ "path": mine.to_str().unwrap() }));
    assert_eq!(
        (chosen["examples"].as_u64(), chosen["problem"].clone()),
        (Some(1), Value::Null)
    );

    let dataset = s.example();
    let run_id = finished_run(&s, dataset, 41);
    let store = ragnosis_core::store::Store::open(home.path()).unwrap();
    let row = ragnosis_core::store::runs::get(store.conn(), run_id).unwrap();
    let config = ragnosis_core::run::run_config(&row).unwrap();
    assert_eq!(
        config.few_shot.len(),
        1,
        "the run keeps the chosen examples"
    );
    assert_eq!(config.few_shot[0].answer, "Paris");

    // The file breaks after it was chosen: Settings says why, and a run does not start.
    std::fs::write(&mine, "not json\n").unwrap();
    let now = s.ok("get_few_shot", Value::Null);
    assert!(now["problem"].as_str().unwrap().contains("line 1"), "{now}");
    let err = s
        .invoke(
            "start_run",
            json!({ "request": request(dataset, "agentic"), "onProgress": "__CHANNEL__:42" }),
        )
        .unwrap_err();
    assert_error(&err, "invalid");

    let reset = s.ok("set_few_shot", json!({ "path": null }));
    assert_eq!(
        (reset["path"].clone(), reset["examples"].as_u64()),
        (Value::Null, Some(8))
    );
}
