//! Datasets a user can see and remove: an import killed part-way is listed as incomplete
//! (it used to be invisible, its items kept), and `datasets rm` removes it, or any
//! dataset with its runs, after a confirmation, giving the space back.

use std::fmt::Write;
use std::process::Stdio;
use std::time::Duration;

use ragnosis_core::store::{self, Store};

use crate::support::{kill_when, ok, ragnosis, run, stderr, text};

/// A JSONL of `n` distinct items, each with a long context (so the file is worth
/// importing in several batches).
fn items(n: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        let context = format!("Passage {i}: ").repeat(40);
        writeln!(
            out,
            r#"{{"id": "q{i}", "question": "What does item {i} say?", "answer": "It says {i}.", "contexts": ["{context}"]}}"#
        )
        .unwrap();
    }
    out
}

fn size(home: &std::path::Path) -> u64 {
    std::fs::read_dir(home)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with("ragnosis.db"))
        .map(|e| e.metadata().unwrap().len())
        .sum()
}

#[test]
fn a_killed_import_is_listed_as_incomplete_and_rm_removes_it_after_a_confirmation() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let file = dir.path().join("big.jsonl");
    std::fs::write(&file, items(40_000)).unwrap();
    ok(&home, &["datasets"]);
    let mut child = ragnosis(&home)
        .args(["import", file.to_str().unwrap()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Killed once some items are stored and before the import finished.
    kill_when(&mut child, Duration::from_secs(120), "items stored", || {
        let Ok(store) = Store::open(&home) else {
            return false;
        };
        store
            .conn()
            .query_row("SELECT COUNT(*) FROM items", [], |r| r.get::<_, i64>(0))
            .is_ok_and(|n| n >= 5_000)
    });
    let listed = ok(&home, &["datasets"]);
    assert!(
        listed.contains("incomplete (import stopped)"),
        "the half dataset is listed: {listed}"
    );
    let store = Store::open(&home).unwrap();
    let half = store::datasets::list_all(store.conn()).unwrap()[0].clone();
    assert_eq!(half.status, "importing");
    drop(store);
    let id = half.id.to_string();

    // Nobody can answer the question: refused, nothing removed.
    let refused = ragnosis(&home)
        .args(["datasets", "rm", &id])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(stderr(&refused).contains("--yes"), "{}", stderr(&refused));
    assert!(ok(&home, &["datasets"]).contains("incomplete"));

    let before = size(&home);
    let removed = ok(&home, &["datasets", "rm", &id, "--yes"]);
    assert!(removed.contains("removed dataset"), "{removed}");
    assert!(!ok(&home, &["datasets"]).contains("incomplete"));
    let store = Store::open(&home).unwrap();
    let left: i64 = store
        .conn()
        .query_row("SELECT COUNT(*) FROM items", [], |r| r.get(0))
        .unwrap();
    assert_eq!(left, 0, "its items are gone");
    drop(store);
    let after = size(&home);
    assert!(
        after * 2 < before,
        "the space is given back: {before} -> {after} bytes"
    );
}

#[test]
fn rm_removes_a_dataset_with_its_runs() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let file = dir.path().join("small.jsonl");
    std::fs::write(&file, items(20)).unwrap();
    ok(
        &home,
        &["eval", file.to_str().unwrap(), "--metrics", "token_overlap"],
    );
    ok(&home, &["show", "1"]);
    let removed = ok(&home, &["datasets", "rm", "1", "--yes"]);
    assert!(removed.contains("1 run(s)"), "{removed}");
    let o = run(&home, &["show", "1"]);
    assert!(
        !o.status.success(),
        "the run went with it: {}",
        text(&o.stdout)
    );
}
