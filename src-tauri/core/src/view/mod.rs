//! One run as every reader sees it: the window's Results, `show`, the JSON and CSV
//! exports, and the Markdown and PDF reports (the `ragnosis-report` crate).
//!
//! Owns: the read model of a run (`RunView`, the summary and the worst items;
//! `ReportView`, what a report says: headline, stage verdicts, patterns and actions,
//! methodology, trust statement, criteria) and the one reader of a result's evidence
//! (`CaseEvidence`).
//! Reads a `&Store` in one place, `RunFacts::load`, and never writes; every section is
//! built from those facts with no store (`ReportView::build`). `materialise` is the one
//! explicit step that stores what an older run lacks, taken when a run is opened. Must
//! not: write files (`export` does) or recompute a metric.

pub mod case;
pub mod criteria;
pub mod evidence;
mod facts;
mod methodology;
mod options;
pub mod report;
mod run;
pub mod trust;

pub use case::CaseEvidence;
pub use criteria::CriterionReport;
pub use facts::host_of;
pub use facts::RunFacts;
pub use report::{Detail, ReportOptions, ReportView, HEADLINE_METRICS};
pub use run::{materialise, ItemView, RunView};
pub use trust::TrustStatement;
