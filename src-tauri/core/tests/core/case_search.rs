//! The case list's text search: what "contains" finds, through the trigram index and the
//! short-text scan alike, against a real SQLite file.

use ragnosis_core::dataset::ImportLimits;
use ragnosis_core::progress::NoProgress;
use ragnosis_core::store::{self, Store};

fn dataset(
    store: &mut Store,
    dir: &std::path::Path,
    name: &str,
    lines: &[serde_json::Value],
) -> (i64, Vec<i64>) {
    let path = dir.join(format!("{name}.jsonl"));
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    let imported = ragnosis_core::import::import_file(
        store,
        &path,
        Some(name),
        &ImportLimits::default(),
        &NoProgress,
    )
    .unwrap();
    let ids = store::items::ids(store.conn(), imported.dataset.id).unwrap();
    (imported.dataset.id, ids)
}

fn item(q: &str, a: &str) -> serde_json::Value {
    serde_json::json!({ "question": q, "answer": a, "contexts": ["ctx"] })
}

#[test]
fn search_finds_substrings_in_questions_and_answers_case_insensitively_and_literally() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let (id, items) = dataset(
        &mut store,
        dir.path(),
        "a",
        &[
            item("How long is the Warranty?", "Ten years."),
            item("Can I get 50% off?", "No, \"discounts\" are not offered."),
            item("What is part 4242?", "A bolt."),
            item("Where is it?", "In Portland."),
        ],
    );
    let hits = |text: &str| store::cases::text_hits(store.conn(), id, text).unwrap();
    assert_eq!(
        hits("warranty"),
        vec![items[0]],
        "case-insensitive, in the question"
    );
    assert_eq!(hits("portland"), vec![items[3]], "in the answer");
    assert_eq!(
        hits("50%"),
        vec![items[1]],
        "% is a character, not a wildcard"
    );
    assert_eq!(
        hits("\"discounts\""),
        vec![items[1]],
        "quotes are characters too"
    );
    assert_eq!(hits("part 4242"), vec![items[2]], "a phrase across a space");
    assert_eq!(hits("rt 42"), vec![items[2]], "inside words");
    assert!(hits("4243").is_empty());
    assert_eq!(
        hits("ar"),
        vec![items[0], items[1], items[2]],
        "short text scans, in file order"
    );
}

#[test]
fn search_stays_within_its_dataset_and_forgets_a_deleted_one() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let (a, items_a) = dataset(
        &mut store,
        dir.path(),
        "a",
        &[item("Battery storage?", "Cool and dry.")],
    );
    let (b, items_b) = dataset(
        &mut store,
        dir.path(),
        "b",
        &[item("Battery storage?", "Half charged.")],
    );
    assert_eq!(
        store::cases::text_hits(store.conn(), a, "battery").unwrap(),
        items_a
    );
    assert_eq!(
        store::cases::text_hits(store.conn(), b, "battery").unwrap(),
        items_b
    );
    store::datasets::delete(store.conn(), a).unwrap();
    let left: i64 = store
        .conn()
        .query_row(
            "SELECT count(*) FROM item_search WHERE item_search MATCH '\"battery\"'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(left, 1, "only dataset b's item stays in the index");
    assert_eq!(
        store::cases::text_hits(store.conn(), b, "battery").unwrap(),
        items_b
    );
}
