//! The dataset importer on mutated real files: JSONL, JSON (arrays, wrappers), CSV and
//! TSV, every tool's export and trace dialect (the seeds are those files), with and
//! without `--map` overrides. Invariants: no panic; a file-level error names the file;
//! every record read is either accepted or rejected (counted once); the report
//! serialises (it is stored as JSON). A share of cases goes through the store too: what
//! was accepted is stored, and reads back.

use std::path::Path;

use proptest::collection::vec;
use proptest::prelude::*;
use ragnosis_core::dataset::{read_items_mapped, DatasetError, FieldMap, ImportLimits};
use ragnosis_core::import;
use ragnosis_core::progress::NoProgress;
use ragnosis_core::store::{self, Store};

use super::dictionary::FIELD_NAMES;
use super::engine::campaign;
use super::mutate::{apply, mutation, Mutation, Seed};

const FIELDS: [&str; 10] = [
    "question",
    "answer",
    "contexts",
    "ground_truth",
    "reference_contexts",
    "id",
    "retrieved_ids",
    "gold_context_ids",
    "citation_label",
    "nonsense",
];

/// A `--map` spec: a field and a dotted path of field names and list positions.
fn map_spec() -> impl Strategy<Value = String> {
    let part = prop_oneof![
        3 => (0..FIELD_NAMES.len()).prop_map(|i| FIELD_NAMES[i].to_string()),
        1 => (0u8..4).prop_map(|i| i.to_string()),
        1 => Just(String::new()),
        1 => "[a-z.]{0,6}",
    ];
    (0..FIELDS.len(), vec(part, 1..5))
        .prop_map(|(f, parts)| format!("{}={}", FIELDS[f], parts.join(".")))
}

pub fn scratch() -> tempfile::TempDir {
    let shm = std::path::Path::new("/dev/shm");
    if shm.is_dir() {
        if let Ok(dir) = tempfile::Builder::new()
            .prefix("ragnosis-fuzz")
            .tempdir_in(shm)
        {
            return dir;
        }
    }
    tempfile::tempdir().unwrap()
}

fn check_read(path: &Path, map: &FieldMap) -> Result<u64, String> {
    let limits = ImportLimits::default();
    let mut accepted = 0u64;
    let outcome = read_items_mapped(path, &limits, map, |item| {
        accepted += 1;
        if item.content_hash.is_empty() {
            return Err("an accepted item without a content hash".into());
        }
        Ok(())
    });
    match outcome {
        Ok(report) => {
            if report.items_accepted != accepted {
                return Err(format!(
                    "the report counts {} accepted items, the callback saw {accepted}",
                    report.items_accepted
                ));
            }
            if report.items_read != report.items_accepted + report.rejected_count {
                return Err(format!(
                    "{} records read, but {} accepted + {} rejected",
                    report.items_read, report.items_accepted, report.rejected_count
                ));
            }
            if report.rejected.len() as u64 > report.rejected_count {
                return Err("more rejected lines listed than counted".into());
            }
            if let Some(r) = report.rejected.iter().find(|r| r.reason.trim().is_empty()) {
                return Err(format!("line {} rejected without a reason", r.line));
            }
            serde_json::to_string(&report)
                .map_err(|e| format!("the report does not serialise: {e}"))?;
            Ok(accepted)
        }
        Err(DatasetError::Aborted(m)) => Err(format!("aborted without a failed write: {m}")),
        Err(e) => {
            let shown = path.display().to_string();
            let message = e.to_string();
            if !message.contains(&shown) {
                return Err(format!("the error does not name the file: {message}"));
            }
            Ok(0)
        }
    }
}

fn dataset_strategy(seeds: usize) -> impl Strategy<Value = (Mutation, Vec<String>)> {
    (
        mutation(seeds),
        prop_oneof![4 => Just(Vec::new()), 1 => vec(map_spec(), 1..3)],
    )
}

pub fn run(seeds: &[Seed], default_cases: u32) {
    let dir = scratch();
    let path = dir.path().join("input.jsonl");
    campaign(
        "importer",
        default_cases,
        dataset_strategy(seeds.len()),
        |(m, _)| apply(seeds, m),
        |bytes, (_, specs)| {
            std::fs::write(&path, bytes).unwrap();
            let map = match FieldMap::parse(specs) {
                Ok(map) => map,
                Err(message) if !message.is_empty() => FieldMap::default(),
                Err(_) => return Err("an empty --map error".into()),
            };
            check_read(&path, &map).map(|_| ())
        },
    );
}

/// Mutated files imported into a real store: the items accepted are the items stored,
/// and every stored item reads back.
pub fn run_stored(seeds: &[Seed], default_cases: u32) {
    let dir = scratch();
    let path = dir.path().join("input.jsonl");
    let store = std::cell::RefCell::new(Store::open(&dir.path().join("home")).unwrap());
    campaign(
        "importer_stored",
        default_cases,
        dataset_strategy(seeds.len()),
        |(m, _)| apply(seeds, m),
        |bytes, (_, specs)| {
            std::fs::write(&path, bytes).unwrap();
            let map = FieldMap::parse(specs).unwrap_or_default();
            let limits = ImportLimits::default();
            // A new name each time: the same bytes are otherwise the earlier dataset.
            let mut store = store.borrow_mut();
            let imported = match import::import_file_mapped(
                &mut store,
                &path,
                None,
                &limits,
                &map,
                &NoProgress,
            ) {
                Ok(i) => i,
                Err(e) => {
                    let message = e.to_string();
                    if message.is_empty() || !e.is_input_error() {
                        return Err(format!("import failed with [{}] {message}", e.code()));
                    }
                    return Ok(());
                }
            };
            let conn = store.conn();
            let mut read_back = 0u64;
            store::items::for_each(conn, imported.dataset.id, |_| read_back += 1)
                .map_err(|e| format!("stored items do not read back: {e}"))?;
            if read_back != imported.report.items_accepted
                || imported.dataset.item_count as u64 != read_back
            {
                return Err(format!(
                    "{} accepted, {} listed, {read_back} read back",
                    imported.report.items_accepted, imported.dataset.item_count
                ));
            }
            store::datasets::delete(conn, imported.dataset.id).map_err(|e| e.to_string())?;
            Ok(())
        },
    );
}
