//! Damaged database files: a real Ragnosis database (a dataset and a finished run) with
//! bytes flipped, pages overwritten or the file cut short, opened and read the ways the
//! CLI reads it (list datasets and runs, read items, load a run's report view). SQLite
//! checks its own structures; this checks Ragnosis's: no panic on any content, and
//! every failure is an error with a code.

use std::sync::Arc;

use proptest::collection::vec;
use proptest::prelude::*;
use ragnosis_core::dataset::ImportLimits;
use ragnosis_core::judge::offline::OfflineJudge;
use ragnosis_core::progress::{CancelToken, NoProgress};
use ragnosis_core::run::{self, RunRequest};
use ragnosis_core::store::{self, Store};
use ragnosis_core::view::{ReportOptions, ReportView};

use super::engine::campaign;
use super::importer::scratch;
use super::seeds::repo;

/// A database holding the example dataset and a judge-free run over it, folded into one
/// file (no WAL).
fn database() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(dir.path()).unwrap();
    let file = repo().join("assets/examples/ragnosis-example.jsonl");
    let dataset = ragnosis_core::import::import_file(
        &mut store,
        &file,
        Some("example"),
        &ImportLimits::default(),
        &NoProgress,
    )
    .unwrap()
    .dataset
    .id;
    let request = RunRequest {
        dataset_id: dataset,
        metrics: vec!["reference".into(), "citation".into()],
        ..Default::default()
    };
    run::evaluate(
        &mut store,
        &request,
        Arc::new(OfflineJudge::default()),
        Arc::new(NoProgress),
        &CancelToken::new(),
    )
    .unwrap();
    store
        .conn()
        .pragma_update(None, "journal_mode", "DELETE")
        .unwrap();
    let path = store.path().to_path_buf();
    drop(store);
    std::fs::read(path).unwrap()
}

#[derive(Debug, Clone)]
enum Damage {
    Flip { at: u32, bit: u8 },
    Overwrite { at: u32, len: u16, byte: u8 },
    Truncate { at: u32 },
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        4 => (any::<u32>(), 0u8..8).prop_map(|(at, bit)| Damage::Flip { at, bit }),
        2 => (any::<u32>(), 1u16..4096, any::<u8>())
            .prop_map(|(at, len, byte)| Damage::Overwrite { at, len, byte }),
        1 => any::<u32>().prop_map(|at| Damage::Truncate { at }),
    ]
}

fn damaged(clean: &[u8], edits: &[Damage]) -> Vec<u8> {
    let mut bytes = clean.to_vec();
    for e in edits {
        match *e {
            Damage::Flip { at, bit } => {
                let i = at as usize % bytes.len().max(1);
                if let Some(b) = bytes.get_mut(i) {
                    *b ^= 1 << bit;
                }
            }
            Damage::Overwrite { at, len, byte } => {
                let i = at as usize % bytes.len().max(1);
                let end = (i + len as usize).min(bytes.len());
                bytes[i..end].fill(byte);
            }
            Damage::Truncate { at } => {
                let i = at as usize % (bytes.len() + 1);
                bytes.truncate(i);
            }
        }
    }
    bytes
}

/// Reads everything the CLI shows; the first error, as `[code] message`.
fn read_all(store: &mut Store) -> Result<(), String> {
    let shown = |e: ragnosis_core::Error| format!("[{}] {e}", e.code());
    let datasets = store::datasets::list(store.conn()).map_err(shown)?;
    for d in &datasets {
        store::items::for_each(store.conn(), d.id, |_| {}).map_err(shown)?;
        store::datasets::report_json(store.conn(), d.id).map_err(shown)?;
    }
    let runs = store::runs::list(store.conn()).map_err(shown)?;
    for r in &runs {
        ReportView::load(store, r.id, &ReportOptions::default()).map_err(shown)?;
    }
    Ok(())
}

pub fn run(default_cases: u32) {
    let clean = database();
    let dir = scratch();
    let path = dir.path().join("ragnosis.db");
    campaign(
        "database",
        default_cases,
        vec(damage(), 1..6),
        |edits: &Vec<Damage>| damaged(&clean, edits),
        |bytes, _| {
            for suffix in ["-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
            }
            std::fs::write(&path, bytes).unwrap();
            match Store::open_file(&path) {
                Ok(mut store) => {
                    // Errors are fine (a damaged page is found when read); panics are not.
                    let _ = read_all(&mut store);
                    Ok(())
                }
                Err(e) if !e.to_string().is_empty() => Ok(()),
                Err(e) => Err(format!("an empty error [{}]", e.code())),
            }
        },
    );
}
