//! Ragnosis's use cases: every user action once, called alike by the desktop shell
//! (`src-tauri/app`, a Tauri command per action) and the command line (`src-tauri/cli`,
//! a subcommand per action). A shell parses its input, calls one function here, and
//! shows the result or maps the error; it never names the core's store. So the window
//! and the terminal refuse the same input with the same sentence and the same code.
//!
//! One module per capability, one function per action: `datasets`, `runs`, `evaluate`
//! (a file imported, run, exported and gated in one call: the CLI's `eval`), `cases`,
//! `experiments` (and a test set's history), `reports`, `judges` (and their keys), `generate` (and corpora), `retrieval`, `trust`
//! (labels, alignment, the source tool's scores, calibration), `criteria`, `settings`.
//! `jobs` runs long work in the background (start, progress, cancel, is it active) for
//! the window; the CLI runs the same work in the foreground. Request types own their
//! checks (`runs::RunRequest::checked`). Every function returns the core's `Error`,
//! whose `code()` both shells pass on (`ErrorView` for the window).
//!
//! Where the two shells used to disagree, the policy now is (each module's doc says
//! more): a file with no valid item is refused and stores nothing; a run request is
//! checked in one order with one set of sentences (mode, limit and sample ≥ 1, budget
//! finite and ≥ 0, k ≥ 1, tau in [0, 1], the citation regex, the weight profile, the
//! metrics, the judge) and takes its few-shot examples from its own file, else from
//! Settings; a run's judge is opened before the run is stored; resume refuses a
//! finished run and reads a judge `NAME@TEMP`; a run stored as running that no process
//! evaluates is "interrupted"; a run not finished is summarised from what it stored,
//! never storing that summary; deleting a judge profile forgets its key, and a key is
//! stored only for an existing profile; a key's status says whether the environment
//! gives one; a labels file with no usable label is refused; a report that cannot be
//! made is `report` and a file that cannot be written `write`; two runs compared must
//! differ; an empty retriever list is refused and a retrieval report is written from
//! the evaluation shown; a finished generation is not resumed.
//!
//! Must not: depend on Tauri or clap, print, or hold a run's results in memory.

#![deny(missing_docs)]

mod ctx;
mod error;

pub mod advisor;
pub mod cases;
pub mod criteria;
pub mod datasets;
pub mod evaluate;
pub mod experiments;
pub mod generate;
pub mod jobs;
pub mod judges;
pub mod paths;
pub mod reports;
pub mod retrieval;
pub mod runs;
pub mod settings;
pub mod trust;

pub use ctx::Ctx;
pub use error::ErrorView;
pub use ragnosis_core::error::DAMAGED_DATABASE;
pub use ragnosis_core::progress::{CancelToken, NoProgress, Progress, ProgressSink};
pub use ragnosis_core::secrets::{MemoryStore, SecretStore};
pub use ragnosis_core::{Error, ErrorCode, Result};
