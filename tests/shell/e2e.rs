//! The real window, driven like a person would: under Xvfb through tauri-driver and
//! WebKitWebDriver, with an isolated RAGNOSIS_HOME (and HOME / XDG dirs) per test.
//!
//! Needs a display and the two drivers. `scripts/test.sh` provides them and sets
//! RAGNOSIS_E2E=required, so there a missing piece fails the test; elsewhere the test
//! says why it did not run. The tests share one display and one pointer, so they run
//! one at a time (`DISPLAY_LOCK`). Each saves screenshots under target/e2e-screenshots/.
//!
//! One file per screen (or path through the screens) the tests walk; what every test
//! starts from is in `common`, the drop and the open dialog made on the X display in
//! `desktop`.

mod common;
mod datasets;
mod desktop;
mod experiments;
mod generate;
mod layout;
mod runs;
mod settings;
mod workflow;
