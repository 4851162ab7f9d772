//! TODO(helper): being written.
//! CONTRACT used by analysis (keep these signatures): compile_pattern, extract_cited,
//! summarize -> CitationSummary { macro_precision, macro_recall, macro_f1: f64, .. } (Serialize).
use super::{MetricConfig, MetricResult};
use crate::item::Item;
pub const DEFAULT_PATTERN: &str = r"\[(?:ID:\s*)?(\w+)\]";
pub fn compute(id: &str, _item: &Item, _config: &MetricConfig) -> MetricResult { MetricResult::error(id, "not yet implemented") }
pub fn compile_pattern(pattern: &str) -> Result<regex::Regex, String> { regex::Regex::new(pattern).map_err(|e| e.to_string()) }
pub fn extract_cited(_answer: &str, _pattern: &regex::Regex) -> Vec<String> { Vec::new() }
#[derive(Debug, Clone, serde::Serialize)]
pub struct CitationSummary { pub macro_precision: f64, pub macro_recall: f64, pub macro_f1: f64 }
pub fn summarize(_pairs: impl IntoIterator<Item = (String, Vec<String>)>, _top_n: usize) -> CitationSummary { CitationSummary { macro_precision: 0.0, macro_recall: 0.0, macro_f1: 0.0 } }
