//! ragnosis-core's integration tests, one test binary (one link of the crate and its
//! dependencies instead of one per file) with a module per subject. Data files stay in
//! `tests/data`; `cargo test -p ragnosis-core --test core fuzz::` runs one subject.

mod case_search;
mod compare;
mod diagnosis;
mod example_diagnosis;
mod fuzz;
mod import;
mod judge_check;
mod keyring;
mod offline_judge_learned;
mod offline_judge_quality;
mod runs;
mod seed_families;
