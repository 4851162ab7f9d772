//! `RunView`: one run as every output reads it (Markdown, JSON header, later the UI and
//! the PDF). Built once from the store; holds the summary and the worst items, never
//! the whole run.

use serde::Serialize;

use crate::analysis::{self, RunSummary};
use crate::error::Result;
use crate::item::Item;
use crate::metrics::MetricResult;
use crate::store::{self, datasets::DatasetRow, runs::RunRow, Store};

/// How many worst items a view carries.
pub const WORST_ITEMS: usize = 5;

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

impl RunView {
    pub fn load(store: &Store, run_id: i64) -> Result<RunView> {
        Self::load_with_worst(store, run_id, WORST_ITEMS)
    }

    /// The view with the `worst` lowest-scoring items (a report's appendix asks for N).
    /// Reads only: `materialise` first makes it fast on a run stored before its summary
    /// and case index were.
    pub fn load_with_worst(store: &Store, run_id: i64, worst: usize) -> Result<RunView> {
        let run = store::runs::get(store.conn(), run_id)?;
        let dataset = store::datasets::get(store.conn(), run.dataset_id)?;
        let mut summary = analysis::current_summary(store, &run)?;
        let pipeline = store::pipeline_profiles::for_dataset(store.conn(), dataset.id)?;
        if let Some(d) = summary.diagnosis.as_mut() {
            analysis::diagnosis::tailor::tailor(&mut d.actions, &pipeline.profile);
        }
        let worst = crate::cases::worst(store, &run, worst)?
            .into_iter()
            .map(|(item_id, _)| ItemView::load(store, run_id, item_id))
            .collect::<Result<Vec<_>>>()?;
        Ok(RunView {
            run,
            dataset,
            summary,
            worst,
            pipeline,
        })
    }
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
