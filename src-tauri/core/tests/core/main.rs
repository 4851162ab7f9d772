//! ragnosis-core's integration tests, one test binary (one link of the crate and its
//! dependencies instead of one per file) with a module per subject;
//! `cargo test -p ragnosis-core --test core fuzz::` runs one subject.

mod case_search;
mod claim_labels;
mod compare;
mod diagnosis;
mod diagnosis_domains;
mod example_diagnosis;
mod fuzz;
mod import;
mod judge_check;
mod keyring;
mod labelling;
mod offline_judge_learned;
mod offline_judge_quality;
mod runs;
mod seed_families;
mod views;

/// Imports `text` as the JSONL file `NAME.jsonl` under `dir`; the new dataset's id.
pub fn import_text(
    store: &mut ragnosis_core::store::Store,
    dir: &std::path::Path,
    name: &str,
    text: &str,
) -> i64 {
    let file = dir.join(format!("{name}.jsonl"));
    std::fs::write(&file, text).unwrap();
    ragnosis_core::import::import_file(
        store,
        &file,
        Some(name),
        &ragnosis_core::dataset::ImportLimits::default(),
        &ragnosis_core::progress::NoProgress,
    )
    .unwrap()
    .dataset
    .id
}
