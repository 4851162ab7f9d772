//! The case list and the case view of the Results screen. The case view carries the
//! evidence the metrics stored in their details (per-chunk relevance, claim verdicts,
//! aspects) as the core reads it (`view::CaseEvidence`); text stays text and is rendered
//! as text by the UI.

use ragnosis_core::analysis::diagnosis::FailurePattern;
use ragnosis_core::cases::{CasePage, Cursor};
use ragnosis_core::metrics::{self, MetricResult};
use ragnosis_core::store::cases::{CaseRow, Cell};
use ragnosis_core::store::human_labels::HumanLabel;
use ragnosis_core::trust::prior::{self, PriorScore};
use ragnosis_core::view::{CaseEvidence, ItemView};
use serde::Serialize;

/// A case of the list with the cells of the requested columns (a column the run has
/// no result for has no cell).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ListedCase {
    /// The case as the store lists it: position, excerpts, mean score, error count, pattern
    /// letters and its cursor.
    #[serde(flatten)]
    pub row: CaseRow,
    /// This item's cells of the requested columns.
    pub cells: Vec<Cell>,
}

/// One page of the case list.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CaseList {
    /// How many cases match the filter in all, not just on this page; a text search
    /// counts up to 10,000 (`total_capped` says there are more).
    pub total: i64,
    /// More cases than `total` match: the list says "10,000+".
    pub total_capped: bool,
    /// The number of the page's first row among the matching cases.
    pub offset: i64,
    /// The page's cases, in the requested order.
    pub rows: Vec<ListedCase>,
    /// Where the next page starts, when this one was full.
    pub next: Option<Cursor>,
}

impl From<CasePage> for CaseList {
    fn from(page: CasePage) -> Self {
        let mut cells = page.cells;
        let rows = page
            .rows
            .into_iter()
            .map(|row| {
                let (mine, rest): (Vec<Cell>, Vec<Cell>) = std::mem::take(&mut cells)
                    .into_iter()
                    .partition(|c| c.item_id == row.item_id);
                cells = rest;
                ListedCase { row, cells: mine }
            })
            .collect();
        CaseList {
            total: page.total,
            total_capped: page.total_capped,
            offset: page.offset,
            rows,
            next: page.next,
        }
    }
}

/// One metric's result for the case, with how to read it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ResultView {
    /// The result as stored: metric, score, status, explanation and its details.
    #[serde(flatten)]
    pub result: MetricResult,
    /// A higher score is worse (hallucination-style metrics).
    pub lower_is_better: bool,
    /// The metric asks the run's judge (it is not computed from the item alone).
    pub judged: bool,
}

/// One case with all its evidence.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CaseDetail {
    /// The run the case was scored in.
    pub run_id: i64,
    /// The item's row id in the store (not the user's id: that is `external_id`).
    pub item_id: i64,
    /// The item's 0-based position among its dataset's items, in file order.
    pub ordinal: i64,
    /// The id the user's file gave the item, if any.
    pub external_id: Option<String>,
    /// The item's full question.
    pub question: String,
    /// The answer the pipeline gave, when the dataset has one.
    pub answer: Option<String>,
    /// The reference answer, when the dataset has one.
    pub ground_truth: Option<String>,
    /// Its chunks, claims, aspects, grading note and failure taxonomy, as the metrics'
    /// details say (the one reader of them, which the reports quote too).
    #[serde(flatten)]
    pub evidence: CaseEvidence,
    /// Every metric result stored for the item in this run.
    pub results: Vec<ResultView>,
    /// The failure patterns that fired on the item; their letters, names, stages and
    /// descriptions are in `ui/src/lib/bindings/labels.ts`.
    pub patterns: Vec<FailurePattern>,
    /// Judged by the built-in offline judge.
    pub offline: bool,
    /// People's labels on this item, per metric (they outlive the run).
    pub labels: Vec<HumanLabel>,
    /// Scores the tool the data came from gave this item (RAGAS, DeepEval, traces...).
    pub prior_scores: Vec<PriorScore>,
    /// The stored item and its results as pretty-printed JSON ("Inspect JSON").
    pub json: String,
}

impl CaseDetail {
    /// An item and its results as the case view shows them, with the evidence in the
    /// metrics' details; `labels` are the item's human labels.
    pub fn new(
        run_id: i64,
        view: ItemView,
        patterns: Vec<FailurePattern>,
        offline: bool,
        labels: Vec<HumanLabel>,
    ) -> Self {
        let json = serde_json::to_string_pretty(&view)
            .unwrap_or_else(|e| format!("(cannot show this item as JSON: {e})"));
        let evidence = CaseEvidence::read(&view.item, &view.results);
        let prior_scores = prior::prior_scores(&view.item);
        CaseDetail {
            evidence,
            results: view.results.into_iter().map(ResultView::from).collect(),
            run_id,
            item_id: view.item_id,
            ordinal: view.ordinal,
            external_id: view.item.id,
            question: view.item.question,
            answer: view.item.answer,
            ground_truth: view.item.ground_truth,
            patterns,
            offline,
            labels,
            prior_scores,
            json,
        }
    }
}

impl From<MetricResult> for ResultView {
    fn from(result: MetricResult) -> Self {
        let spec = metrics::find(&result.metric);
        ResultView {
            lower_is_better: spec.is_some_and(|s| s.lower_is_better),
            judged: spec.is_some_and(|s| s.judge),
            result,
        }
    }
}
