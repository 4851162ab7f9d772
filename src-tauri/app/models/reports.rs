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
    /// The stakeholder report typeset by the report crate (typst), with its charts.
    Pdf,
}

impl ReportFormat {
    /// The core's export format; `None` for the PDF, which the report crate writes.
    pub fn export_format(self) -> Option<ExportFormat> {
        match self {
            ReportFormat::Markdown => Some(ExportFormat::Markdown),
            ReportFormat::Json => Some(ExportFormat::Json),
            ReportFormat::Csv => Some(ExportFormat::Csv),
            ReportFormat::Pdf => None,
        }
    }

    pub fn extension(self) -> &'static str {
        match self.export_format() {
            Some(f) => f.extension(),
            None => "pdf",
        }
    }
}

/// The files an export wrote.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Exported {
    pub paths: Vec<String>,
}
