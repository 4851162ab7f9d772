//! Datasets: import a file (the bundled example, a dropped file, a file on the command
//! line) with or without the user's field mapping, preview a mapping without storing,
//! and what the Data screen and `datasets` read. Must not print or cap for a screen
//! beyond the views below.
//!
//! One policy for both shells: a file that gives no item is refused (`dataset.no_items`)
//! and leaves no dataset behind (`import::refuse_empty`).

mod view;

use std::path::{Path, PathBuf};

use ragnosis_core::dataset::{self, FieldMap, ImportLimits};
use ragnosis_core::progress::{NoProgress, ProgressSink};
use ragnosis_core::{import, measurable, store, Error, Result};

use serde::Serialize;

use crate::Ctx;

pub use ragnosis_core::dataset::{FieldOverride, Schema, ValidationReport};
pub use ragnosis_core::import::Imported;
pub use ragnosis_core::item::Field;
pub use ragnosis_core::measurable::{Measurable, Reach};
pub use ragnosis_core::pipeline::PipelineProfile;
pub use ragnosis_core::store::datasets::DatasetRow;
pub use ragnosis_core::store::pipeline_profiles::DatasetProfile;
pub use view::{
    DatasetReport, ItemPreview, ItemsPage, MappingPreview, Report, LISTED, MAPPING_PREVIEW_ITEMS,
};

/// The bundled example set, compiled in so "Try the example" works from any install.
const EXAMPLE: &str = include_str!("../../../../assets/examples/ragnosis-example.jsonl");
const EXAMPLE_NAME: &str = "Northwind Cycles help desk (example)";

/// The most preview rows one page holds.
const MAX_PAGE: i64 = 200;

/// A file to import and how to read it.
#[derive(Debug, Clone, Default)]
pub struct ImportRequest {
    /// The file to read: JSONL, JSON, CSV/TSV, Parquet or a trace export.
    pub path: PathBuf,
    /// The dataset's name; the file's name when absent.
    pub name: Option<String>,
    /// The user's field overrides (none: as detected) and a scores file read beside a trace
    /// export.
    pub map: FieldMap,
    /// The dataset whose test set this file is the next version of (`--version-of`):
    /// experiments tried on the earlier version are checked on this one's runs.
    pub version_of: Option<i64>,
}

impl ImportRequest {
    /// A request to import `path` as detected, under the file's name.
    pub fn new(path: impl Into<PathBuf>) -> ImportRequest {
        ImportRequest {
            path: path.into(),
            ..ImportRequest::default()
        }
    }

    /// With `FIELD=PATH` mapping specs as typed (`--map question=vars.query`).
    pub fn with_specs(mut self, specs: &[String]) -> Result<ImportRequest> {
        let scores = self.map.scores_file.take();
        self.map = FieldMap::parse(specs).map_err(Error::Invalid)?;
        self.map.scores_file = scores;
        Ok(self)
    }

    /// With the mapping editor's overrides: a field left empty means "as detected".
    pub fn with_overrides(mut self, overrides: Vec<FieldOverride>) -> Result<ImportRequest> {
        self.map.overrides = overrides
            .into_iter()
            .filter(|o| !o.path.trim().is_empty())
            .collect();
        self.map.check().map_err(Error::Invalid)?;
        Ok(self)
    }
}

/// The datasets ready to evaluate, newest first (an import that stopped is left out).
pub fn list(ctx: &Ctx) -> Result<Vec<DatasetRow>> {
    let store = ctx.store()?;
    store::datasets::list(store.conn())
}

/// Every dataset, with those whose import stopped before the end of the file (status
/// `importing`), which `list` leaves out because nothing can be evaluated on them.
pub fn list_all(ctx: &Ctx) -> Result<Vec<DatasetRow>> {
    let store = ctx.store()?;
    store::datasets::list_all(store.conn())
}

/// What removing a dataset takes with it, to confirm before `remove`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Removal {
    /// The dataset to be removed.
    pub dataset: DatasetRow,
    /// Items stored (for an incomplete import, those stored before it stopped).
    pub items: i64,
    /// Runs of the dataset, removed with it.
    pub runs: i64,
}

/// What `remove` would take: the dataset, its items and its runs.
pub fn removal(ctx: &Ctx, dataset_id: i64) -> Result<Removal> {
    let store = ctx.store()?;
    let dataset = store::datasets::get(store.conn(), dataset_id)?;
    let (items, runs) = store::datasets::footprint(store.conn(), dataset_id)?;
    Ok(Removal {
        dataset,
        items,
        runs,
    })
}

/// Removes a dataset with its items, runs and their results, and gives the space back to
/// the file system. Labels people gave stay (they belong to the item's content and come
/// back if the file is imported again).
pub fn remove(ctx: &Ctx, dataset_id: i64) -> Result<Removal> {
    let removal = removal(ctx, dataset_id)?;
    let mut store = ctx.store()?;
    store.transaction(|tx| store::datasets::delete(tx, dataset_id))?;
    store::datasets::reclaim_space(store.conn())?;
    Ok(removal)
}

/// Imports the file as a new dataset (or reuses the dataset of the same bytes read the
/// same way); a file that gives no item is refused and nothing of it is kept.
pub fn import(ctx: &Ctx, request: &ImportRequest, progress: &dyn ProgressSink) -> Result<Imported> {
    import_inspected(ctx, request, progress, |_| {})
}

/// As `import`; `before_refusal` sees the report of a file that gave no item before it
/// is refused (the CLI prints its lines).
pub fn import_inspected(
    ctx: &Ctx,
    request: &ImportRequest,
    progress: &dyn ProgressSink,
    before_refusal: impl FnOnce(&Imported),
) -> Result<Imported> {
    // Its own connection: a large import must not stop the window from reading.
    let mut store = ctx.own_store()?;
    if let Some(of) = request.version_of {
        // Checked first: a wrong id must not leave an imported file behind it.
        store::datasets::get_ready(store.conn(), of)?;
    }
    let imported = import::import_file_mapped(
        &mut store,
        &request.path,
        request.name.as_deref(),
        &ImportLimits::default(),
        &request.map,
        progress,
    )?;
    if imported.report.items_accepted == 0 && !imported.reused {
        before_refusal(&imported);
    }
    let mut imported = import::refuse_empty(&store, &request.path, imported)?;
    if let Some(of) = request.version_of {
        store::datasets::set_version_of(store.conn(), imported.dataset.id, Some(of))?;
        imported.dataset = store::datasets::get(store.conn(), imported.dataset.id)?;
    }
    Ok(imported)
}

/// Marks dataset `id` as the next version of `of`'s test set, or (none) as a first
/// version again; experiments and the history follow the link.
pub fn set_version_of(ctx: &Ctx, id: i64, of: Option<i64>) -> Result<DatasetRow> {
    let store = ctx.store()?;
    store::datasets::get_ready(store.conn(), id)?;
    store::datasets::set_version_of(store.conn(), id, of)?;
    store::datasets::get(store.conn(), id)
}

/// The pipeline profile of a dataset: its own, or an earlier version's.
pub fn profile(ctx: &Ctx, dataset_id: i64) -> Result<DatasetProfile> {
    let store = ctx.store()?;
    store::datasets::get(store.conn(), dataset_id)?;
    store::pipeline_profiles::for_dataset(store.conn(), dataset_id)
}

/// Stores `profile` as the dataset's own (checked; an empty one removes it) and returns
/// the profile the dataset now has.
pub fn set_profile(ctx: &Ctx, dataset_id: i64, profile: PipelineProfile) -> Result<DatasetProfile> {
    let profile = profile.checked()?;
    let store = ctx.store()?;
    store::datasets::get(store.conn(), dataset_id)?;
    store::pipeline_profiles::set(store.conn(), dataset_id, &profile)?;
    store::pipeline_profiles::for_dataset(store.conn(), dataset_id)
}

/// Imports the example set shipped with Ragnosis (written to the home folder first).
pub fn import_example(ctx: &Ctx) -> Result<Imported> {
    let dir = ctx.home().join("examples");
    let write = |path: &Path, result: std::io::Result<()>| {
        result.map_err(|source| Error::Write {
            path: path.to_path_buf(),
            source,
        })
    };
    write(&dir, std::fs::create_dir_all(&dir))?;
    let path = dir.join("ragnosis-example.jsonl");
    write(&path, std::fs::write(&path, EXAMPLE))?;
    let request = ImportRequest {
        name: Some(EXAMPLE_NAME.into()),
        ..ImportRequest::new(path)
    };
    import(ctx, &request, &NoProgress)
}

/// What importing the file with this mapping would store: its report and first items.
/// Stores nothing.
pub fn preview_mapping(request: &ImportRequest) -> Result<MappingPreview> {
    let mut items = Vec::new();
    let limits = ImportLimits::default();
    let report = dataset::read_items_mapped(&request.path, &limits, &request.map, |a| {
        if items.len() < MAPPING_PREVIEW_ITEMS {
            items.push(a);
        }
        Ok(())
    })?;
    Ok(MappingPreview::new(report, items))
}

/// A stored dataset with its validation report (none for one stored before reports).
pub fn report(ctx: &Ctx, dataset_id: i64) -> Result<DatasetReport> {
    let store = ctx.store()?;
    let dataset = store::datasets::get(store.conn(), dataset_id)?;
    let json = store::datasets::report_json(store.conn(), dataset_id)?;
    // A dataset stored before reports were kept has "{}": no report rather than an error.
    let report = serde_json::from_str::<ValidationReport>(&json)
        .ok()
        .filter(|r| !r.file.is_empty())
        .map(Report::from);
    Ok(DatasetReport {
        dataset,
        report,
        reused: false,
    })
}

/// What each metric can measure on the dataset's items.
pub fn reach(ctx: &Ctx, dataset_id: i64) -> Result<Measurable> {
    // Reads every item once: its own connection, so a large dataset holds up no one.
    let store = ctx.own_store()?;
    measurable::for_dataset(&store, dataset_id)
}

/// A page of the dataset's items (`limit` within 1..=200).
pub fn items(ctx: &Ctx, dataset_id: i64, offset: i64, limit: i64) -> Result<ItemsPage> {
    let store = ctx.store()?;
    let conn = store.conn();
    store::datasets::get(conn, dataset_id)?;
    let offset = offset.max(0);
    let items = store::items::page(conn, dataset_id, offset, limit.clamp(1, MAX_PAGE))?;
    Ok(ItemsPage {
        total: store::items::count(conn, dataset_id)?,
        offset,
        items: items.into_iter().map(ItemPreview::from).collect(),
    })
}
