//! The judge (`ragnosis-judge`, its own crate: it never knows the store) and what the
//! core adds to it: opening a profile with its key (`open`), the cache's shelf in the
//! run's SQLite file (`shelf`) and the few-shot examples a run reads from the store
//! (`few_shot`). Everything the judge crate exports is reachable here, so the rest of
//! the core names `crate::judge::…` whichever side a part lives on.

pub use ragnosis_judge::*;

pub mod few_shot;
pub mod open;
pub mod shelf;
