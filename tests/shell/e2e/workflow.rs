//! The whole path a user takes: a file dropped on the window, evaluated, read on Results
//! and in the case view, labelled, and exported as a report. Each step is a function
//! below the test, in the order the test takes them.

use std::path::Path;
use std::time::Duration;

use serde_json::json;

use super::common::{asset, shot, start, Sandbox, Start, LONG, SHORT};
use super::desktop::drop_on_window;
use crate::shell::webdriver::Session;

#[test]
fn workflow_from_a_dropped_file_to_an_exported_report() {
    let Some(Start {
        tauri_driver,
        _display,
        sandbox,
    }) = start()
    else {
        return;
    };
    let file = sandbox.path("northwind-help-desk.jsonl");
    std::fs::copy(asset("ragnosis-example.jsonl"), &file).unwrap();
    let (_driver, session) = sandbox.launch(&tauri_driver);
    session.wait_for("[data-testid=try-example]", 1, Duration::from_secs(30));
    shot(&session, "workflow-1-home.png");

    drop_the_file_and_see_its_validation_report(&session, &file);
    plan_and_start_an_offline_run_labelled_baseline(&session);
    results_open_on_the_verdict_with_the_insights_folded(&session);
    ask_the_run_and_follow_the_cited_item(&session);
    open_the_worst_case_with_its_evidence(&session);
    label_the_case_into_the_agreement_table(&session);
    label_three_cases_from_the_keyboard(&session);
    let markdown = export_markdown_where_asked(&session, &sandbox);
    assert_the_short_report_with_the_window_labels(&markdown);
}

/// 1. Drop the file on the window: a real XDND drop from a GTK drag source.
fn drop_the_file_and_see_its_validation_report(session: &Session, file: &Path) {
    drop_on_window(file);
    let accepted = session.wait_for_text(
        "[data-testid=report-accepted]",
        "24",
        Duration::from_secs(30),
    );
    assert_eq!(accepted.trim(), "24");
    session.wait_for_text("[data-testid=dataset-name]", "northwind-help-desk", SHORT);
    assert_eq!(
        session.text(&session.wait_for("[data-testid=report-format]", 1, SHORT)[0]),
        "JSONL"
    );
    session.wait_for("[data-testid=preview-row]", 20, SHORT);
    session.wait_for_text("[data-testid=measurable]", "retrieval relevance", SHORT);
    shot(session, "workflow-2-data.png");
}

/// 2. Evaluate: agentic with the offline judge is the default; the plan comes first.
fn plan_and_start_an_offline_run_labelled_baseline(session: &Session) {
    session.click_on("[data-testid=to-evaluate]", SHORT);
    session.wait_for_text("[data-testid=plan-items]", "24", SHORT);
    session.wait_for_text("[data-testid=plan-cost]", "$0.00", SHORT);
    let label = session.wait_for("[data-testid=run-label]", 1, SHORT);
    session.type_into(&label[0], "baseline");
    shot(session, "workflow-3-evaluate.png");
    session.click_on("[data-testid=run]:not([disabled])", SHORT);
}

/// 3. Results open when the run is done.
fn results_open_on_the_verdict_with_the_insights_folded(session: &Session) {
    session.wait_for("[data-testid=summary-cards]", 1, LONG);
    session.wait_for_text("[data-testid=results-title]", "baseline", SHORT);
    session.wait_for("[data-testid=run-offline-badge]", 1, SHORT);
    session.wait_for("[data-testid=metric-table]", 1, SHORT);
    let cases = session.wait_for("[data-testid=case-row]", 1, SHORT);
    assert!(!cases.is_empty());
    session.wait_for_text("[data-testid=case-count]", "of 24", SHORT);
    // The verdict opens the Results (the report's headline); the run's insights are
    // folded under the metric table; RAGalyst's taxonomy is counted.
    session.wait_for_text("[data-testid=report-headline]", "checked answers", SHORT);
    // Above it, the report's own executive summary: its headline and a verdict per stage,
    // as the PDF has them.
    let headline = session.wait_for("[data-testid=report-headline]", 1, SHORT);
    assert!(!session.text(&headline[0]).trim().is_empty());
    session.wait_for_text("[data-testid=stage-verdicts]", "Retrieval", SHORT);
    session.wait_for("[data-testid=stage-row]", 3, SHORT);
    session.wait_for_text("[data-testid=report-primary]", "Fix first", SHORT);
    shot(session, "workflow-4a-summary.png");
    session.click_on("[data-testid=show-insights]", SHORT);
    let insight = session.wait_for("[data-testid=metric-insight]", 1, SHORT);
    assert!(
        session.text(&insight[0]).contains("averages"),
        "an insight reads the metric's mean"
    );
    session.wait_for_text("[data-testid=advice-note]", "templates", SHORT);
    let counts = session.wait_for("[data-testid=taxonomy-count]", 10, SHORT);
    let total: u64 = counts
        .iter()
        .map(|c| session.text(c).trim().parse::<u64>().unwrap_or(0))
        .sum();
    assert!(
        total > 0,
        "some example answers are wrong, so a category applies"
    );
    shot(session, "workflow-4-results.png");
}

/// Ask the run: the advisor's answer cites an item, which opens in the case view.
fn ask_the_run_and_follow_the_cited_item(session: &Session) {
    let question = session.wait_for("[data-testid=ask-question]", 1, SHORT);
    session.type_into(&question[0], "What should I fix first?");
    session.click_on("[data-testid=ask-submit]:not([disabled])", SHORT);
    session.wait_for_text("[data-testid=ask-answer]", "Fix first", SHORT);
    session.wait_for_text("[data-testid=ask-note]", "no language model", SHORT);
    shot(session, "workflow-4b-ask.png");
    session.click_until("[data-testid=ask-cited]", "[data-testid=close-case]", SHORT);
    session.wait_for("[data-testid=case-question]", 1, SHORT);
    // The cited item is the example of a pattern: the case explains why it is flagged.
    session.click_on("[data-testid=case-why]", SHORT);
    session.wait_for_text("[data-testid=case-why-answer]", "Read from", SHORT);
    session.click_on("[data-testid=close-case]", SHORT);
}

/// 4. The worst case, with its evidence.
fn open_the_worst_case_with_its_evidence(session: &Session) {
    session.click_on("[data-testid=worst-cases]", SHORT);
    std::thread::sleep(Duration::from_millis(500));
    session.click_on("[data-testid=case-row] button.open", SHORT);
    let question = session.text(&session.wait_for("[data-testid=case-question]", 1, SHORT)[0]);
    assert!(!question.trim().is_empty(), "the case shows its question");
    session.wait_for("[data-testid=contexts] li", 1, SHORT);
    session.wait_for("[data-testid=case-results] tbody tr", 1, SHORT);
    session.wait_for("[data-testid=offline-badge]", 1, SHORT);
    shot(session, "workflow-5-case.png");
    session.click_on("[data-testid=inspect-json]", SHORT);
    session.wait_for_text("[data-testid=case-json]", "\"results\"", SHORT);
    shot(session, "workflow-6-case-json.png");
}

/// 4b. Label the case: the label reaches the agreement table, and the trust
/// statement at the top says what was measured.
fn label_the_case_into_the_agreement_table(session: &Session) {
    let trust = session.text(&session.wait_for("[data-testid=trust]", 1, SHORT)[0]);
    assert!(
        trust.contains("Measured on 24 items") && trust.contains("offline judge"),
        "{trust}"
    );
    let score = session.wait_for("[data-testid=label-score]", 1, SHORT);
    session.type_into(&score[0], "0.9");
    let note = session.wait_for("[data-testid=label-note]", 1, SHORT);
    session.type_into(&note[0], "checked by hand");
    session.click_on("[data-testid=label-save]:not([disabled])", SHORT);
    session.wait_for_text("[data-testid=labels-list]", "checked by hand", SHORT);
    let row = session.wait_for("[data-testid=alignment-table] tbody tr", 1, SHORT);
    let row = session.text(&row[0]);
    assert!(
        row.contains('1'),
        "one labelled item in the agreement table: {row}"
    );
    shot(session, "workflow-6b-labels.png");
    session.execute(
        "document.querySelector('[data-testid=alignment]').scrollIntoView()",
        json!([]),
    );
    shot(session, "workflow-6c-agreement.png");
}

/// 4c. Label from the keyboard: P, F, P on the suggested cases, each saved at once;
/// the agreement table counts them as they come in.
fn label_three_cases_from_the_keyboard(session: &Session) {
    session.click_on("[data-testid=label-with-keyboard]", SHORT);
    session.wait_for("[data-testid=queue-question]", 1, SHORT);
    for key in ["p", "f", "p"] {
        let queue = session.wait_for("[data-testid=label-queue]", 1, SHORT);
        session.press_key(&queue[0], key);
        std::thread::sleep(Duration::from_millis(400));
    }
    session.wait_for_text("[data-testid=queue-done]", "3", SHORT);
    let table = session.text(&session.wait_for("[data-testid=alignment-table]", 1, SHORT)[0]);
    assert!(
        table.contains('3') || table.contains('4'),
        "the keyboard labels reach the agreement table: {table}"
    );
    shot(session, "workflow-6d-label-queue.png");
}

/// 5. Export Markdown to a file: the report's text, read from where the user asked.
fn export_markdown_where_asked(session: &Session, sandbox: &Sandbox) -> String {
    session.click_on("[data-testid=to-reports]", SHORT);
    let target = sandbox.path("out/baseline-report.md");
    let field = session.wait_for("[data-testid=export-path]", 1, SHORT);
    session.type_into(&field[0], &target.display().to_string());
    session.click_on("[data-testid=export-to-path]:not([disabled])", SHORT);
    session.wait_for_text("[data-testid=export-done]", "baseline-report.md", SHORT);
    shot(session, "workflow-7-reports.png");
    std::fs::read_to_string(&target).expect("the exported report exists where the user asked")
}

/// The report the window writes is the short one (action items, no insight paragraphs),
/// with its diagnosis, methodology and the trust statement counting the window's labels.
fn assert_the_short_report_with_the_window_labels(markdown: &str) {
    assert!(
        markdown.contains("# baseline") && markdown.contains("## Executive summary"),
        "{markdown}"
    );
    assert!(
        markdown.contains("## Diagnosis") && markdown.contains("## Methodology"),
        "the report has its diagnosis and methodology"
    );
    assert!(
        markdown.contains("## Action items") && !markdown.contains("## Insights"),
        "the window writes the short report: action items, no insight paragraphs"
    );
    assert!(
        markdown.contains("detail full"),
        "the short report says where the rest is"
    );
    assert!(
        markdown.contains("**How far to trust this run:**")
            && markdown.contains("4 labelled items"),
        "the summary carries the trust statement with the window's labels (one from the case view, three from the keyboard)"
    );
}
