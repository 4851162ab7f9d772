//! Fuzzing every parser that reads outside bytes, on the stable toolchain: proptest
//! generates mutations of the repository's real files (structure-aware JSON edits, then
//! byte edits), each case runs in-process and timed, and a failure shrinks to a small
//! input (`fuzz/engine.rs`). Each test is one campaign; its regressions live as named
//! tests next to the code they fixed.
//!
//! The normal suite runs each campaign's small default count. The long run sets every
//! campaign's count and treats a case over one second as a finding:
//!
//! ```sh
//! RAGNOSIS_FUZZ_CASES=1000000 nice -n 10 cargo test -p ragnosis-core --test core fuzz:: -- --nocapture --test-threads 1
//! ```
//!
//! Figures of every campaign are appended to `$CARGO_TARGET_TMPDIR/fuzz-findings/summary.txt`.

mod database;
mod dictionary;
mod documents;
mod engine;
mod importer;
mod judge_reply;
mod mutate;
mod seeds;
mod small_parsers;

#[test]
fn importer_survives_mutated_datasets_exports_and_traces() {
    importer::run(&seeds::datasets(), 2_000);
}

#[test]
fn importer_stores_what_it_accepts_from_mutated_files() {
    importer::run_stored(&seeds::datasets(), 300);
}

#[test]
fn judge_replies_are_parsed_or_refused_with_a_reason() {
    judge_reply::run(2_000);
}

#[test]
fn retry_after_values_never_panic() {
    small_parsers::retry_after(3_000);
}

#[test]
fn map_specs_and_paths_are_parsed_or_refused() {
    small_parsers::field_map(&seeds::datasets(), 2_000);
}

#[test]
fn label_files_are_read_or_refused_by_line() {
    small_parsers::labels(2_000);
}

#[test]
fn documents_are_read_or_named_as_unreadable() {
    documents::run(800);
}

#[test]
fn chunk_files_are_ingested_or_refused() {
    documents::run_chunk_files(300);
}

#[test]
fn damaged_databases_are_refused_or_read_without_a_panic() {
    database::run(200);
}
