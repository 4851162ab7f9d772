//! The Reports screen: which formats a run can be exported to and what was written.

use ragnosis_core::export::ExportFormat;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ReportFormat {
    Markdown,
    Json,
    Csv,
}

impl From<ReportFormat> for ExportFormat {
    fn from(f: ReportFormat) -> Self {
        match f {
            ReportFormat::Markdown => ExportFormat::Markdown,
            ReportFormat::Json => ExportFormat::Json,
            ReportFormat::Csv => ExportFormat::Csv,
        }
    }
}

/// The files an export wrote.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Exported {
    pub paths: Vec<String>,
}
