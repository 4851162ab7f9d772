//! Settings in the real window: a judge whose key goes into the OS keyring, a local
//! model server found and checked, and a criterion refused until its pattern compiles.

use std::path::{Path, PathBuf};
use std::time::Duration;

use ragnosis_judge_sim::Stats;
use serde_json::json;

use super::common::{shot, skip_or_fail, start, Start, LONG, SHORT};
use crate::shell::webdriver::{screenshot_dir, Session};

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out
}

#[test]
fn settings_store_a_key_in_the_keyring_and_connect_to_a_judge_with_it() {
    let Some(Start {
        tauri_driver,
        _display,
        sandbox,
    }) = start()
    else {
        return;
    };
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
        return skip_or_fail("no D-Bus session: the OS keyring is not reachable".into());
    }
    // A unique key: the judge simulator answers 401 to any request that does not carry it,
    // so "Connected" proves the key went UI → keyring → judge call.
    let key = format!("sk-e2e-{}", std::process::id());
    let sim = ragnosis_judge_sim::Simulator::start(ragnosis_judge_sim::SimConfig {
        require_key: Some(key.clone()),
        watch_key: Some(key.clone()),
        models: vec!["sim-judge-1".into(), "sim-judge-2".into()],
        ..Default::default()
    })
    .unwrap();
    let profile = format!("e2e-sim-{}", std::process::id());
    let (_driver, session) = sandbox.launch(&tauri_driver);
    session.wait_for("[data-testid=try-example]", 1, Duration::from_secs(30));
    session.click_on("[data-testid=nav-settings]", SHORT);

    add_a_judge_refused_by_a_rule_then_saved(&session, &profile, &sim.base_url());
    connect_without_the_key_then_with_it_from_the_keyring(&session, &key);
    shot(&session, "settings-judge.png");

    // The dark theme applies at once and is remembered.
    session.click_on("[data-testid=theme-dark]", SHORT);
    let theme = session.execute(
        "return document.documentElement.dataset.theme ?? null",
        json!([]),
    );
    assert_eq!(theme, json!("dark"));
    shot(&session, "settings-dark.png");

    assert_the_key_travelled_only_in_its_header(&sim.stats(), &key, &sandbox.home());
    // Leave the shared test keyring as we found it.
    ragnosis_core::secrets::SecretStore::delete(&ragnosis_core::secrets::KeyringStore, &profile)
        .ok();
}

/// A new OpenAI-compatible judge `profile` pointing at the simulator at `base_url`: a
/// rule of the core refuses it first, in the core's words (the CLI and IPC tests expect
/// the same sentence), and nothing is saved; corrected, it is listed with no key stored.
fn add_a_judge_refused_by_a_rule_then_saved(session: &Session, profile: &str, base_url: &str) {
    session.click_until("[data-testid=add-judge]", "[data-testid=judge-form]", SHORT);
    let field = |id: &str| session.wait_for(&format!("[data-testid={id}]"), 1, SHORT)[0].clone();
    session.type_into(&field("judge-name"), profile);
    session.type_into(&field("judge-base-url"), base_url);
    session.type_into(&field("judge-model"), "sim-judge-1");
    session.type_into(&field("judge-temperature"), "7");
    session.click_on("[data-testid=save-judge]:not([disabled])", SHORT);
    session.wait_for_text(
        "[data-testid=error]",
        "the temperature must be between 0 and 2",
        SHORT,
    );
    let table = session.wait_for("[data-testid=judge-table]", 1, SHORT)[0].clone();
    assert!(
        !session.text(&table).contains(profile),
        "a refused profile is not listed"
    );
    session.type_into(&field("judge-temperature"), "0");
    session.click_on("[data-testid=save-judge]:not([disabled])", SHORT);
    session.wait_for_text("[data-testid=judge-table]", profile, SHORT);
    session.wait_for_text("[data-testid=key-status]", "not stored", SHORT);
}

/// Without its key the judge refuses the call, and the window says so; the key goes
/// into the OS keyring, the page never shows it again, and the judge connects and lists
/// its models.
fn connect_without_the_key_then_with_it_from_the_keyring(session: &Session, key: &str) {
    session.click_on("[data-testid=test-judge]:not([disabled])", SHORT);
    session.wait_for_text("[data-testid=judge-check]", "Not connected", LONG);

    let field = |id: &str| session.wait_for(&format!("[data-testid={id}]"), 1, SHORT)[0].clone();
    session.type_into(&field("judge-key"), key);
    session.click_on("[data-testid=store-key]:not([disabled])", SHORT);
    session.wait_for_text("[data-testid=key-status]", "stored in", SHORT);
    let value = session.execute(
        "return document.querySelector('[data-testid=judge-key]').value",
        json!([]),
    );
    assert_eq!(
        value,
        json!(""),
        "the key field is emptied once the key is stored"
    );
    session.click_on("[data-testid=test-judge]:not([disabled])", SHORT);
    let check = session.wait_for_text("[data-testid=judge-check]", "Connected", LONG);
    assert!(!check.contains("Not connected"), "{check}");
    session.click_on("[data-testid=discover-models]:not([disabled])", SHORT);
    session.wait_for_text("[data-testid=models-found]", "2 models found", LONG);
    let page = session.execute("return document.documentElement.outerHTML", json!([]));
    assert!(
        !page.as_str().unwrap().contains(key),
        "the key is nowhere in the page"
    );
}

/// The simulator saw `key` in an authorization header and nowhere else, and no file
/// under the app's `home` holds it.
fn assert_the_key_travelled_only_in_its_header(stats: &Stats, key: &str, home: &Path) {
    assert!(
        stats
            .authorization_headers_seen
            .iter()
            .any(|h| h == &format!("authorization: Bearer {key}")),
        "{:?}",
        stats.authorization_headers_seen
    );
    assert_eq!(stats.key_leaks, 0, "the key only travelled in its header");
    for file in files_under(home) {
        let bytes = std::fs::read(&file).unwrap_or_default();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(key),
            "the key reached the disk in {}",
            file.display()
        );
    }
}

#[test]
fn settings_find_a_local_model_server_and_save_it_as_a_judge() {
    let Some(Start {
        tauri_driver,
        _display,
        sandbox,
    }) = start()
    else {
        return;
    };
    // The judge simulator plays Ollama on its default port, 11434, of this machine; the
    // CLI's detection test, in another process, waits until this one is done.
    let _ports = ragnosis_judge_sim::DefaultPorts::hold().unwrap();
    let sim = ragnosis_judge_sim::Simulator::start(ragnosis_judge_sim::SimConfig {
        port: 11434,
        ..Default::default()
    })
    .expect("port 11434 (Ollama's default) must be free for this test");
    let (_driver, session) = sandbox.launch(&tauri_driver);
    session.wait_for("[data-testid=try-example]", 1, Duration::from_secs(30));
    let home = session.wait_for_text("[data-testid=home-judge]", "offline judge", SHORT);
    if std::env::var("RAGNOSIS_MODEL").as_deref() == Ok("required") {
        assert!(
            home.contains("all-MiniLM-L6-v2"),
            "Home names the semantic model in use: {home}"
        );
    }
    session.click_on("[data-testid=nav-settings]", SHORT);
    session.wait_for_text("[data-testid=offline-status]", "semantic model", SHORT);
    session.click_on("[data-testid=find-local]:not([disabled])", SHORT);
    let found = session.wait_for_text(
        "[data-testid=local-servers]",
        "Ollama at http://127.0.0.1:11434/v1",
        LONG,
    );
    assert!(
        found.contains("sim-judge-large, sim-judge-small"),
        "its models are listed: {found}"
    );
    session.click_on("[data-testid=add-local]", SHORT);
    session.wait_for_text("[data-testid=judge-table]", "ollama", SHORT);
    session.wait_for_text("[data-testid=local-servers]", "saved as ollama", SHORT);
    shot(&session, "settings-local-server.png");

    // The judge check of the new profile: the shipped sample through the server.
    session.click_on("[data-testid=run-check-ollama]:not([disabled])", SHORT);
    let headline = session.wait_for_text(
        "[data-testid=check-headline]",
        "agreed with human labels on",
        LONG,
    );
    assert!(
        headline.contains("n = 180"),
        "the claim figure says how many claims: {headline}"
    );
    let figures = session.wait_for_text("[data-testid=check-figures]", "retrieval miss", SHORT);
    assert!(
        figures.contains("Can the passage answer the question?"),
        "{figures}"
    );
    session.wait_for_text("[data-testid=check-ollama]", "of claims", SHORT);
    // Every case's tasks (840 for the sample: see the CLI's judge-check test).
    assert!(
        sim.stats().by_task.values().sum::<u64>() >= 840,
        "the check went through the server"
    );
    shot(&session, "settings-judge-check.png");

    // The offline judge's check is what Home quotes beside the judge runs use.
    session.click_on("[data-testid=run-check-offline]:not([disabled])", SHORT);
    session.wait_for_text("[data-testid=check-offline]", "of claims", LONG);
    session.click_on("[data-testid=nav-home]", SHORT);
    session.wait_for_text(
        "[data-testid=home-judge]",
        "Its last judge check: it agrees with people on",
        SHORT,
    );
    drop(sim);
}

#[test]
fn a_criterion_scoped_by_applies_when_is_refused_while_its_pattern_is_broken_then_saved() {
    let Some(Start {
        tauri_driver,
        _display,
        sandbox,
    }) = start()
    else {
        return;
    };
    let (_driver, session) = sandbox.launch(&tauri_driver);
    session.wait_for("[data-testid=try-example]", 1, Duration::from_secs(30));
    session.click_on("[data-testid=nav-settings]", SHORT);
    session.click_until(
        "[data-testid=criterion-new]",
        "[data-testid=criterion-form]",
        SHORT,
    );
    let field = |id: &str| session.wait_for(&format!("[data-testid={id}]"), 1, SHORT)[0].clone();
    session.type_into(&field("criterion-name"), "quotes_price");
    session.type_into(
        &field("criterion-question"),
        "Does the answer give the price the passages give?",
    );
    session.type_into(&field("criterion-applies-when"), "cost|price(");
    session.click_on("[data-testid=criterion-save]", SHORT);
    // The core's own sentence, the one the CLI prints, in the screen's error alert.
    session.wait_for_text(
        "[data-testid=criteria] [data-testid=error]",
        "\"applies when\" is not a regular expression that compiles",
        SHORT,
    );
    session.screenshot(&screenshot_dir().join("criteria-applies-when.png"));
    session.press_key(&field("criterion-applies-when"), "\u{E003}"); // Backspace
    session.click_on("[data-testid=criterion-save]", SHORT);
    session.wait_for_text(
        "[data-testid=criterion-saved]",
        "criteria.quotes_price",
        SHORT,
    );
    let listed = session.wait_for_text(
        "[data-testid=criteria-list]",
        "only where the question matches /cost|price/",
        SHORT,
    );
    assert!(listed.contains("quotes_price"), "{listed}");
}
