//! From an action to a verified fix in the window: "Try this…" under an action of run 1,
//! the next version of the test set marked on the Data screen with the pipeline it came
//! from, evaluated, and its Results saying what the change did to each targeted item.

use std::path::PathBuf;

use super::common::{import, offline_run, shot, start, Start, LONG, SHORT};
use crate::shell::webdriver::Session;

fn town(file: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/compare")
        .join(file)
}

#[test]
fn an_action_tried_on_v1_is_checked_item_by_item_on_v2_in_the_window() {
    let Some(Start {
        tauri_driver,
        _display,
        sandbox,
    }) = start()
    else {
        return;
    };
    // v1 evaluated; v2 (the same questions, answers mended) imported but not evaluated.
    let v1 = import(&sandbox.home(), &town("town-v1.jsonl"), Some("town v1"));
    let run = offline_run(&sandbox.home(), v1, "v1");
    let v2 = import(&sandbox.home(), &town("town-v2.jsonl"), Some("town v2"));
    let (_driver, session) = sandbox.launch(&tauri_driver);
    session.wait_for(
        "[data-testid=try-example]",
        1,
        std::time::Duration::from_secs(30),
    );

    try_the_distortion_action_of_run_1(&session, run);
    mark_v2_as_the_next_version_with_its_pipeline(&session, v1, v2);
    evaluate_v2_and_read_what_the_change_did(&session);
}

/// Results of run 1: "Try this…" under the action for F records the change.
fn try_the_distortion_action_of_run_1(session: &Session, run: i64) {
    session.click_on("[data-testid=nav-runs]", SHORT);
    session.click_on(
        &format!("[data-testid=run-row][data-run-id=\"{run}\"] button.link"),
        SHORT,
    );
    session.wait_for("[data-testid=action-items]", 1, SHORT);
    session.click_on("[data-testid=try-this]", SHORT);
    let change = session.wait_for("[data-testid=try-change]", 1, SHORT);
    session.type_into(&change[0], "keep numbers verbatim in the prompt");
    session.click_on("[data-testid=try-record]:not([disabled])", SHORT);
    let sentence = session.wait_for_text(
        "[data-testid=experiment-sentence]",
        "not checked yet",
        SHORT,
    );
    assert!(sentence.contains("t-02, t-04"), "{sentence}");
    shot(session, "experiments-1-tried.png");
}

/// Data screen of v2, opened from Home: the next version of v1, and the pipeline behind its answers.
fn mark_v2_as_the_next_version_with_its_pipeline(session: &Session, v1: i64, v2: i64) {
    // Home lists every dataset (the Data screen reopens the last one).
    session.click_on("[data-testid=nav-home]", SHORT);
    session.click_on(
        &format!("[data-testid=dataset-row][data-dataset-id=\"{v2}\"] button.open"),
        SHORT,
    );
    session.wait_for_text("[data-testid=dataset-name]", "town v2", SHORT);
    session.click_on(
        &format!("[data-testid=version-of] option[value=\"{v1}\"]"),
        SHORT,
    );
    let top_k = session.wait_for("[data-testid=pipeline-top_k]", 1, SHORT);
    session.type_into(&top_k[0], "3");
    let reranker = session.wait_for("[data-testid=pipeline-reranker]", 1, SHORT);
    session.type_into(&reranker[0], "none");
    session.click_on("[data-testid=pipeline-save]", SHORT);
    session.wait_for_text("[data-testid=pipeline-saved]", "Saved", SHORT);
    shot(session, "experiments-2-version.png");
}

/// Evaluate v2: its Results list the experiment, both targets fixed, t-05 broken.
fn evaluate_v2_and_read_what_the_change_did(session: &Session) {
    session.click_on("[data-testid=to-evaluate]", SHORT);
    let label = session.wait_for("[data-testid=run-label]", 1, SHORT);
    session.type_into(&label[0], "v2");
    session.click_on("[data-testid=run]:not([disabled])", SHORT);
    session.wait_for_text("[data-testid=results-title]", "v2", LONG);
    let sentence = session.wait_for_text(
        "[data-testid=experiment-sentence]",
        "2 of 2 items fixed",
        SHORT,
    );
    assert!(
        sentence.contains("t-05"),
        "the item broken elsewhere: {sentence}"
    );
    let outcomes: Vec<String> = session
        .wait_for("[data-testid=experiment-outcome]", 2, SHORT)
        .iter()
        .map(|o| session.text(o))
        .collect();
    assert_eq!(outcomes, ["fixed", "fixed"]);
    session.wait_for_text("[data-testid=experiment-elsewhere]", "t-05", SHORT);
    session.execute(
        "document.querySelector('[data-testid=experiments]').scrollIntoView()",
        serde_json::json!([]),
    );
    shot(session, "experiments-3-checked.png");
    // A target opens in the case view: the item of this run.
    session.click_until(
        "[data-testid=experiment-target] button",
        "[data-testid=close-case]",
        SHORT,
    );
    session.wait_for_text(
        "[data-testid=case-question]",
        "second parking permit",
        SHORT,
    );
}
