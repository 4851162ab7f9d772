//! Every command called through the real IPC layer with the mock runtime, against a real
//! SQLite file in a temp dir, with keys in memory. Each command has a success case and,
//! where it can fail, an error case pinning the `{code, message}` JSON the UI branches
//! on. Run progress is captured with a channel interceptor, as the window would get it.
//!
//! One file per screen (or pair of screens) the commands serve; what every test starts
//! from (the shell, a finished run, the error shape) is in `common`.

pub(crate) mod common;
mod datasets;
mod experiments;
mod generate;
mod reports;
mod results;
mod runs;
mod settings;
