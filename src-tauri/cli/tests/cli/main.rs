//! The `ragnosis` binary end to end, one test binary with a module per subject: each test
//! runs the real binary with its own home directory (a real SQLite file in a temp dir),
//! judged ones against the judge simulator on 127.0.0.1. `support` holds what they share.

mod batch;
mod commands;
mod criteria;
mod datasets;
mod experiments;
mod faults;
mod judged;
mod kill;
mod report;
mod support;
