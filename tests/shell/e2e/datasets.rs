//! Home and Data in the real window: datasets listed and imported (the example, a real
//! drop, the open dialog, trace and promptfoo exports, a file mapped by hand), and
//! hostile text shown as text.

use std::path::Path;
use std::time::Duration;

use ragnosis_core::store::Store;
use serde_json::json;

use super::common::{asset, import, offline_run, shot, start, Start, LONG, SHORT};
use super::desktop::{answer_open_dialog, launch_and_drop};

#[test]
fn window_lists_imported_datasets_and_imports_the_example() {
    let Some(Start {
        tauri_driver,
        _display,
        sandbox,
    }) = start()
    else {
        return;
    };
    // A dataset imported beforehand, as the CLI would have left it.
    import(
        &sandbox.home(),
        &asset("ragvue/agentic.jsonl"),
        Some("RAGVUE agentic"),
    );
    let (_driver, session) = sandbox.launch(&tauri_driver);

    let rows = session.wait_for("[data-testid=dataset-row]", 1, Duration::from_secs(30));
    assert_eq!(
        rows.len(),
        1,
        "exactly the one dataset imported before launch is listed"
    );
    let text = session.text(&rows[0]);
    assert!(
        text.contains("RAGVUE agentic") && text.contains('8'),
        "the row shows the name and the 8 items: {text}"
    );
    shot(&session, "home-one-dataset.png");

    session.click_on("[data-testid=try-example]", SHORT);
    // The example opens straight on its validation report.
    session.wait_for_text("[data-testid=report-accepted]", "24", SHORT);
    session.click_on("[data-testid=nav-home]", SHORT);
    let rows = session.wait_for("[data-testid=dataset-row]", 2, Duration::from_secs(30));
    let texts: Vec<String> = rows.iter().map(|r| session.text(r)).collect();
    assert!(
        texts.iter().any(|t| t.contains("Northwind")),
        "the example dataset appears in the list: {texts:?}"
    );
    shot(&session, "home-after-example.png");

    // What the window showed is what the database holds.
    let store = Store::open(&sandbox.home()).unwrap();
    assert_eq!(
        ragnosis_core::store::datasets::list(store.conn())
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn hostile_text_in_a_dataset_is_shown_as_text_and_runs_no_script() {
    let Some(Start {
        tauri_driver,
        _display,
        sandbox,
    }) = start()
    else {
        return;
    };
    let img = "<img src=x onerror=window.__pwned=1>";
    let script = "<script>window.__pwned=1</script>";
    let file = sandbox.path("hostile.jsonl");
    let line = json!({
        "question": format!("What is {img} and {script}?"),
        "answer": format!("It is {img} {script} here."),
        "contexts": [format!("A context with {img} and {script} inside.")],
        "ground_truth": format!("{script}"),
    });
    std::fs::write(&file, format!("{line}\n")).unwrap();
    let dataset = import(&sandbox.home(), &file, Some("hostile <b>name</b>"));
    let run_id = offline_run(&sandbox.home(), dataset, "seeded");
    let (_driver, session) = sandbox.launch(&tauri_driver);
    let pwned = || session.execute("return typeof window.__pwned", json!([]));

    session.wait_for_text(
        "[data-testid=dataset-table]",
        "hostile <b>name</b>",
        Duration::from_secs(30),
    );
    session.click_until(
        "[data-testid=dataset-row] button.open",
        "[data-testid=preview-table]",
        SHORT,
    );
    let preview = session.wait_for_text("[data-testid=preview-table]", img, SHORT);
    assert!(
        preview.contains(script),
        "the question's markup is visible as text: {preview}"
    );
    shot(&session, "hostile-data.png");

    session.click_on("[data-testid=nav-results]", SHORT);
    session.click_on(
        &format!("[data-testid=run-row][data-run-id=\"{run_id}\"] button"),
        SHORT,
    );
    session.click_on(
        "[data-testid=case-row] button.open",
        Duration::from_secs(30),
    );
    let question = session.wait_for_text("[data-testid=case-question]", img, SHORT);
    assert_eq!(
        question,
        format!("What is {img} and {script}?"),
        "exactly the text, nothing parsed"
    );
    session.wait_for_text("[data-testid=case-answer]", script, SHORT);
    session.wait_for_text("[data-testid=contexts]", img, SHORT);
    let injected = session.execute(
        "return document.querySelectorAll('[onerror], img[src=\"x\"]').length
              + [...document.scripts].filter((s) => s.textContent.includes('__pwned')).length",
        json!([]),
    );
    assert_eq!(injected, json!(0), "no element was created from the data");
    shot(&session, "hostile-case.png");
    assert_eq!(pwned(), json!("undefined"), "no script from the data ran");
}

#[test]
fn a_file_chosen_in_the_open_dialog_is_imported_as_a_dropped_one() {
    let Some(Start {
        tauri_driver,
        _display,
        sandbox,
    }) = start()
    else {
        return;
    };
    let file = sandbox.path("town-services.jsonl");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/compare/town-v1.jsonl"),
        &file,
    )
    .unwrap();
    let (_driver, session) = sandbox.launch(&tauri_driver);
    session.wait_for("[data-testid=try-example]", 1, Duration::from_secs(30));
    session.click_on("[data-testid=choose-file]", SHORT);
    if let Err(why) = answer_open_dialog("Import a dataset", &file) {
        let page = session.execute("return document.body.innerText", json!([]));
        panic!("the open dialog could not be answered: {why}; page: {page}");
    }
    let accepted = session.wait_for_text(
        "[data-testid=report-accepted]",
        "8",
        Duration::from_secs(30),
    );
    assert_eq!(accepted.trim(), "8");
    session.wait_for_text("[data-testid=dataset-name]", "town-services", SHORT);
}

/// A Phoenix span export dropped on the window imports one item per trace (the format
/// and the trace count in the validation report) and evaluates like any dataset.
#[test]
fn a_dropped_phoenix_span_export_is_evaluated() {
    let Some(Start {
        tauri_driver,
        _display,
        sandbox,
    }) = start()
    else {
        return;
    };
    let file = sandbox.copy_in("tests/traces/phoenix-spans.jsonl");
    let (_driver, session) = launch_and_drop(&sandbox, &tauri_driver, &file);
    session.wait_for_text(
        "[data-testid=report-accepted]",
        "3",
        Duration::from_secs(30),
    );
    let format = session.text(&session.wait_for("[data-testid=report-format]", 1, SHORT)[0]);
    assert_eq!(format, "OpenInference spans (10 spans in 3 traces)");
    session.wait_for_text("[data-testid=measurable]", "retrieval relevance", SHORT);
    shot(&session, "traces-1-data.png");
    session.click_on("[data-testid=to-evaluate]", SHORT);
    session.wait_for_text("[data-testid=plan-items]", "3", SHORT);
    session.click_on("[data-testid=run]:not([disabled])", SHORT);
    session.wait_for("[data-testid=summary-cards]", 1, LONG);
    session.wait_for_text("[data-testid=case-count]", "of 3", SHORT);
    shot(&session, "traces-2-results.png");
}

/// A promptfoo results file is dropped: the report names the var it took as the
/// question and why; the user maps another var in the mapping editor, the preview shows
/// the result before anything is stored, and the file is imported again with it; after a
/// run, promptfoo's own scores stand beside Ragnosis's with their agreement.
#[test]
fn a_dropped_promptfoo_export_is_remapped_and_compared_with_its_own_scores() {
    let Some(Start {
        tauri_driver,
        _display,
        sandbox,
    }) = start()
    else {
        return;
    };
    let file = sandbox.copy_in("tests/exports/promptfoo-results.json");
    let (_driver, session) = launch_and_drop(&sandbox, &tauri_driver, &file);
    session.wait_for_text(
        "[data-testid=report-schema]",
        "promptfoo",
        Duration::from_secs(30),
    );
    session.wait_for_text("[data-testid=mapping-choices]", "vars.query", SHORT);
    session.click_on("[data-testid=edit-mapping]", SHORT);
    let input = session.wait_for("[data-testid=map-question]", 1, SHORT);
    session.type_into(&input[0], "vars.query");
    session.click_on("[data-testid=preview-mapping]", SHORT);
    session.wait_for_text(
        "[data-testid=mapping-preview-items]",
        "how long is the frame warranty?",
        Duration::from_secs(30),
    );
    session.wait_for_text(
        "[data-testid=mapping-preview-summary]",
        "2 of 2 records",
        SHORT,
    );
    shot(&session, "mapping-1-preview.png");
    session.click_on("[data-testid=import-mapped]:not([disabled])", SHORT);
    session.wait_for_text(
        "[data-testid=mapping-choices]",
        "your mapping",
        Duration::from_secs(30),
    );
    session.wait_for_text(
        "[data-testid=preview-table]",
        "how long is the frame warranty?",
        SHORT,
    );
    session.click_on("[data-testid=to-evaluate]", SHORT);
    session.wait_for_text("[data-testid=plan-items]", "2", SHORT);
    session.click_on("[data-testid=run]:not([disabled])", SHORT);
    session.wait_for("[data-testid=summary-cards]", 1, LONG);
    session.wait_for_text("[data-testid=prior-scores]", "faithfulness", SHORT);
    session.wait_for_text("[data-testid=prior-figures]", "Spearman", SHORT);
    session.execute(
        "document.querySelector('[data-testid=prior-scores]').scrollIntoView()",
        serde_json::json!([]),
    );
    shot(&session, "mapping-2-prior-scores.png");
}

/// A dropped file whose fields Ragnosis does not recognise gives no item: the window
/// refuses it as the CLI does (nothing stored), says why, and offers the mapping editor
/// on the file itself; mapped, it imports.
#[test]
fn a_dropped_file_with_unknown_fields_is_refused_then_mapped_in_the_window() {
    let Some(Start {
        tauri_driver,
        _display,
        sandbox,
    }) = start()
    else {
        return;
    };
    let file = sandbox.path("support-log.jsonl");
    std::fs::write(
        &file,
        "{\"ask\": \"When does the office open?\", \"reply\": \"At 9 on weekdays.\"}\n\
         {\"ask\": \"Is parking free?\", \"reply\": \"Yes, for visitors.\"}\n\
         {\"ask\": \"Can I bring my dog?\", \"reply\": \"Only guide dogs.\"}\n",
    )
    .unwrap();
    let (_driver, session) = launch_and_drop(&sandbox, &tauri_driver, &file);
    let alert = session.wait_for_text("[role=alert]", "nothing was stored", LONG);
    assert!(alert.contains("none of its 3 records"), "{alert}");
    session.wait_for_text("[data-testid=mapping-preview-summary]", "0 of 3", SHORT);
    shot(&session, "mapping-3-refused-file.png");
    let store = Store::open(&sandbox.home()).unwrap();
    assert!(
        ragnosis_core::store::datasets::list(store.conn())
            .unwrap()
            .is_empty(),
        "no empty dataset is stored"
    );

    let field = |id: &str| session.wait_for(&format!("[data-testid={id}]"), 1, SHORT)[0].clone();
    session.type_into(&field("map-question"), "ask");
    session.type_into(&field("map-answer"), "reply");
    session.click_on("[data-testid=preview-mapping]:not([disabled])", SHORT);
    session.wait_for_text("[data-testid=mapping-preview-summary]", "3 of 3", SHORT);
    session.click_on("[data-testid=import-mapped]:not([disabled])", SHORT);
    session.wait_for_text("[data-testid=report-accepted]", "3", SHORT);
    session.wait_for_text("[data-testid=dataset-name]", "support-log", SHORT);
    shot(&session, "mapping-4-mapped-file.png");
}
