//! `RunView`: one run as every output reads it (the window, `show`, JSON, Markdown, PDF),
//! part of the `ReportView` built from the run's facts; holds the summary and the worst
//! items, never the whole run.

use serde::Serialize;

use crate::analysis::{self, RunSummary};
use crate::error::Result;
use crate::item::Item;
use crate::metrics::MetricResult;
use crate::store::{self, datasets::DatasetRow, runs::RunRow, Store};

#[derive(Debug, Clone, Serialize)]
pub struct ItemView {
    pub item_id: i64,
    pub ordinal: i64,
    pub content_hash: String,
    #[serde(flatten)]
    pub item: Item,
    pub results: Vec<MetricResult>,
}

impl ItemView {
    pub fn load(store: &Store, run_id: i64, item_id: i64) -> Result<ItemView> {
        let stored = store::items::get(store.conn(), item_id)?;
        let results = store::results::for_item(store.conn(), run_id, item_id)?
            .into_iter()
            .map(|r| r.result)
            .collect();
        Ok(ItemView {
            item_id,
            ordinal: stored.ordinal,
            content_hash: stored.content_hash,
            item: stored.item,
            results,
        })
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct RunView {
    pub run: RunRow,
    pub dataset: DatasetRow,
    /// The actions' fixes open with what they mean for this pipeline, where it says.
    pub summary: RunSummary,
    pub worst: Vec<ItemView>,
    /// The user's description of the pipeline behind the answers (empty when none).
    pub pipeline: store::pipeline_profiles::DatasetProfile,
}

/// Stores what every view of a finished run reads, where it is missing or stale: its
/// summary and its case index (each item's goodness and pattern letters). A run stores
/// both when it ends; this is the explicit step for a run stored before they were (or
/// before the diagnosis rules changed), taken when a run is opened, so that reading a
/// run never writes.
pub fn materialise(store: &mut Store, run_id: i64) -> Result<()> {
    let run = store::runs::get(store.conn(), run_id)?;
    if run.status == store::runs::RunStatus::Done {
        analysis::load_summary(store, run_id)?;
    }
    crate::cases::ensure_index(store, run_id)
}
