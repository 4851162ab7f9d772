//! The shapes commands take and return that the core does not have. Whatever the core
//! already describes (a dataset, a run, a judge profile, a metric's statistics, a
//! validation line) is sent as the core type itself, its TypeScript derived in the core
//! behind the `ts` feature; what stays here is input parsing (a request as the form sends
//! it), what only the window needs (capped lists, excerpts, badges, labels) and what is
//! assembled from several core values (a run with its totals and headline scores).

pub mod cases;
pub mod compare;
pub mod criteria;
pub mod datasets;
pub mod generate;
pub mod reports;
pub mod runs;
pub mod settings;
