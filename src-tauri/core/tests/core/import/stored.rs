//! What an import leaves in SQLite: every item read back as it was in the file, each
//! distinct context text stored once per dataset.

use ragnosis_core::store::{self, Store};
use serde_json::json;

/// Six chunks of one corpus, retrieved by many questions in turn.
fn corpus(k: usize) -> String {
    format!(
        "Chunk {k}: the warranty covers the frame for {} months.",
        12 + k
    )
}

fn log_line(i: usize) -> serde_json::Value {
    let contexts: Vec<_> = (0..3)
        .map(|k| json!({"doc_id": format!("D{}", (i + k) % 6), "text": corpus((i + k) % 6)}))
        .collect();
    json!({"question": format!("Question {i}?"), "answer": format!("Answer {i}."), "contexts": contexts})
}

fn import(
    store: &mut Store,
    dir: &std::path::Path,
    name: &str,
    lines: &[serde_json::Value],
) -> i64 {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    crate::import_text(store, dir, name, &text)
}

#[test]
fn repeated_contexts_are_stored_once_and_every_item_reads_back_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("home")).unwrap();
    let lines: Vec<_> = (0..40).map(log_line).collect();
    let dataset = import(&mut store, dir.path(), "log", &lines);

    let conn = store.conn();
    assert_eq!(
        store::context_chunks::count(conn, dataset).unwrap(),
        6,
        "120 contexts name 6 distinct chunks"
    );
    let items = store::items::page(conn, dataset, 0, 100).unwrap();
    assert_eq!(items.len(), 40);
    for (stored, line) in items.iter().zip(&lines) {
        let contexts: Vec<_> = stored
            .item
            .contexts
            .iter()
            .map(|c| json!({"doc_id": c.id, "text": c.text}))
            .collect();
        assert_eq!(
            json!(contexts),
            line["contexts"],
            "item {} has its contexts, ids and order",
            stored.ordinal
        );
    }
    let one = store::items::get(conn, items[7].id).unwrap();
    assert_eq!(
        one, items[7],
        "one item read alone is the same as in a page"
    );
}

/// An import commits every 5,000 items; the chunks the writer remembers stay valid across
/// those commits.
#[test]
fn an_import_over_several_commits_shares_chunks_across_them() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("home")).unwrap();
    let lines: Vec<_> = (0..12_001).map(log_line).collect();
    let dataset = import(&mut store, dir.path(), "big", &lines);
    let conn = store.conn();
    assert_eq!(store::context_chunks::count(conn, dataset).unwrap(), 6);
    for at in [0, 4_999, 5_000, 12_000] {
        let stored = &store::items::page(conn, dataset, at, 1).unwrap()[0];
        let texts: Vec<_> = stored
            .item
            .contexts
            .iter()
            .map(|c| c.text.clone())
            .collect();
        assert_eq!(
            texts,
            [
                corpus(at as usize % 6),
                corpus((at as usize + 1) % 6),
                corpus((at as usize + 2) % 6)
            ]
        );
    }
}

#[test]
fn datasets_keep_their_own_chunks_and_deleting_one_leaves_the_other_whole() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("home")).unwrap();
    let first = import(
        &mut store,
        dir.path(),
        "first",
        &(0..10).map(log_line).collect::<Vec<_>>(),
    );
    let second = import(
        &mut store,
        dir.path(),
        "second",
        &(5..15).map(log_line).collect::<Vec<_>>(),
    );
    let conn = store.conn();
    assert_eq!(store::context_chunks::count(conn, first).unwrap(), 6);
    assert_eq!(store::context_chunks::count(conn, second).unwrap(), 6);

    store::datasets::delete(conn, first).unwrap();
    assert_eq!(
        store::context_chunks::count(conn, first).unwrap(),
        0,
        "its chunks went with it"
    );
    let mut texts = Vec::new();
    store::items::for_each(conn, second, |stored| {
        texts.extend(stored.item.contexts.into_iter().map(|c| c.text))
    })
    .unwrap();
    assert_eq!(texts.len(), 30);
    assert!(texts.iter().all(|t| t.starts_with("Chunk ")), "{texts:?}");
}

/// Databases written before migration 0016 keep each context's text inside the item.
#[test]
fn an_item_stored_with_its_context_text_inline_still_reads() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("home")).unwrap();
    let dataset = import(&mut store, dir.path(), "log", &[log_line(0), log_line(1)]);
    let conn = store.conn();
    conn.execute(
        "UPDATE items SET contexts_json = ?1 WHERE dataset_id = ?2 AND ordinal = 0",
        rusqlite::params![
            r#"[{"id":"old","text":"Written by an older version."},{"text":"No id."}]"#,
            dataset
        ],
    )
    .unwrap();
    let both = store::items::page(conn, dataset, 0, 2).unwrap();
    assert_eq!(
        both[1].item.contexts[0].text,
        corpus(1),
        "the item beside it still reads its chunks"
    );
    let item = &both[0].item;
    assert_eq!(item.contexts.len(), 2);
    assert_eq!(item.contexts[0].id.as_deref(), Some("old"));
    assert_eq!(item.contexts[0].text, "Written by an older version.");
    assert_eq!(item.contexts[1].id, None);
    assert_eq!(item.contexts[1].text, "No id.");
}

/// Generation adds one accepted item at a time to its dataset, each with a new writer.
#[test]
fn an_item_added_to_a_stored_dataset_reuses_the_chunks_it_already_has() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("home")).unwrap();
    let dataset = import(
        &mut store,
        dir.path(),
        "log",
        &(0..6).map(log_line).collect::<Vec<_>>(),
    );
    let conn = store.conn();
    let mut item = store::items::page(conn, dataset, 0, 1)
        .unwrap()
        .remove(0)
        .item;
    item.contexts.push(ragnosis_core::item::Context {
        id: None,
        text: "A chunk no item had.".into(),
    });
    let id = store::items::insert(conn, dataset, 6, 7, "h", &item).unwrap();
    assert_eq!(
        store::context_chunks::count(conn, dataset).unwrap(),
        7,
        "three known chunks found, one new one stored"
    );
    assert_eq!(store::items::get(conn, id).unwrap().item, item);
}
