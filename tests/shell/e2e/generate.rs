//! Generate in the real window: a dropped document becomes a test set.

use std::time::Duration;

use ragnosis_core::store::Store;

use super::common::{shot, start, Start, LONG, SHORT};
use super::desktop::drop_on_window;

/// The Generate screen from a real drop: a Markdown document dropped on the window is cut
/// into chunks, the judge simulator (saved as a judge profile before launch) writes and
/// filters test cases into a stored dataset, and the generated set compares BM25 with the
/// embedded model.
#[test]
fn a_dropped_document_becomes_a_generated_test_set() {
    let Some(Start {
        tauri_driver,
        _display,
        sandbox,
    }) = start()
    else {
        return;
    };
    let sim = ragnosis_judge_sim::Simulator::start(Default::default()).unwrap();
    {
        let store = Store::open(&sandbox.home()).unwrap();
        let mut profile = ragnosis_core::judge::open::offline_profile();
        profile.name = "sim".into();
        profile.kind = ragnosis_core::judge::ProviderKind::OpenAi;
        profile.base_url = sim.base_url();
        profile.model = "sim-judge-small".into();
        ragnosis_core::store::judge_profiles::upsert(store.conn(), &profile).unwrap();
    }
    let document = sandbox.copy_in("tests/documents/warranty.md");
    let (_driver, session) = sandbox.launch(&tauri_driver);
    session.wait_for("[data-testid=try-example]", 1, Duration::from_secs(30));
    session.click_on("[data-testid=nav-generate]", SHORT);
    let field = |id: &str| session.wait_for(&format!("[data-testid={id}]"), 1, SHORT)[0].clone();
    session.type_into(&field("chunk-tokens"), "120");
    session.type_into(&field("chunk-overlap"), "20");

    drop_on_window(&document);
    // tests/documents/COUNTS: warranty.md is 4 chunks of 120 words overlapping by 20.
    let report = session.wait_for_text("[data-testid=ingest-report]", "4 chunks", LONG);
    assert!(report.contains("warranty"), "{report}");
    shot(&session, "generate-1-documents.png");

    session.wait_for_text("[data-testid=generation-judge]", "sim", SHORT);
    session.type_into(&field("generation-count"), "2");
    session.click_on("[data-testid=plan-generation]:not([disabled])", SHORT);
    session.wait_for_text("[data-testid=generation-plan]", "10 judge calls", SHORT);
    session.click_on("[data-testid=start-generation]:not([disabled])", SHORT);
    let counts = session.wait_for_text("[data-testid=generation-counts]", "status done", LONG);
    assert!(counts.contains("2 accepted"), "{counts}");
    let outcomes = session.wait_for("[data-testid=candidate-outcome]", 2, SHORT);
    assert!(outcomes.len() >= 2);
    assert!(
        sim.stats().calls >= 10,
        "the simulator wrote and filtered them"
    );
    shot(&session, "generate-2-test-set.png");

    // The generated set ranks its own corpus.
    session.click_on("[data-testid=compare-retrievers]:not([disabled])", SHORT);
    let table = session.wait_for_text("[data-testid=retrieval-table]", "all-MiniLM-L6-v2", LONG);
    assert!(table.contains("BM25"), "{table}");
    shot(&session, "generate-3-retrievers.png");

    // The test set is a dataset like any other, ready to evaluate.
    session.click_on(
        "[data-testid=open-generated-dataset]:not([disabled])",
        SHORT,
    );
    session.wait_for_text(
        "[data-testid=dataset-name]",
        "test set from warranty",
        SHORT,
    );
    session.wait_for("[data-testid=preview-row]", 2, SHORT);
}
