//! Where the human-labelled dev sets are (`shared/data` beside the repository): read by
//! the tests and the offline judge's fitting, in whichever crate they run.

use std::path::{Path, PathBuf};

/// Overrides where the dev data sets are (`shared/data` beside the repository), for tests
/// and examples. `scripts/test.sh` sets it, so a test binary compiled in another checkout
/// of the repository (a shared build cache) reads this checkout's data.
pub const SHARED_DATA_ENV: &str = "RAGNOSIS_SHARED_DATA";

/// The human-labelled dev sets: `$RAGNOSIS_SHARED_DATA`, else `../shared/data` beside the
/// repository this crate was compiled from.
pub fn shared_data_dir() -> PathBuf {
    std::env::var_os(SHARED_DATA_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data"))
}
