//! The case list and the case view of the Results screen. Pages come from SQLite
//! (`ragnosis_core::cases`): the window never holds a whole run.

use ragnosis_core::analysis::alignment::{self, Alignment};
use ragnosis_core::analysis::calibration::{Calibration, CALIBRATION};
use ragnosis_core::analysis::diagnosis;
use ragnosis_core::analysis::prior::{self, PriorAgreement};
use ragnosis_core::export::ItemView;
use ragnosis_core::judge::open::OFFLINE;
use ragnosis_core::labels::{self, LabelImport};
use ragnosis_core::store::human_labels::HumanLabel;
use ragnosis_core::ErrorCode;
use ragnosis_core::{cases, store};
use tauri::State;

use crate::error::{CommandError, CommandResult};
use crate::models::cases::{CaseDetail, CaseList, CaseQueryInput, PriorName};
use crate::state::AppState;

#[tauri::command(async)]
pub fn list_cases(
    state: State<'_, AppState>,
    run_id: i64,
    query: CaseQueryInput,
) -> CommandResult<CaseList> {
    let query = query.into_query()?;
    let mut store = state.store()?;
    Ok(cases::page(&mut store, run_id, &query)?.into())
}

/// One item of a run with every result, its evidence and its failure patterns.
#[tauri::command(async)]
pub fn get_case(
    state: State<'_, AppState>,
    run_id: i64,
    item_id: i64,
) -> CommandResult<CaseDetail> {
    let store = state.store()?;
    let run = store::runs::get(store.conn(), run_id)?;
    if !store::run_items::item_ids(store.conn(), run_id)?.contains(&item_id) {
        return Err(CommandError::new(
            ErrorCode::NotFound,
            format!("item {item_id} is not part of run {run_id}"),
        ));
    }
    let view = ItemView::load(&store, run_id, item_id)?;
    let patterns = diagnosis::item_patterns(&store, run_id, item_id)?;
    let labels = store::human_labels::for_item(store.conn(), &view.content_hash)?;
    Ok(CaseDetail::new(
        run_id,
        view,
        patterns,
        run.judge == OFFLINE,
        labels,
    ))
}

/// Labels one item of a run on one metric (0–1; pass is 1, fail 0), replacing its
/// earlier label; `score` null removes the label. Returns the item's labels.
#[tauri::command(async)]
pub fn label_case(
    state: State<'_, AppState>,
    run_id: i64,
    item_id: i64,
    metric: String,
    score: Option<f64>,
    note: Option<String>,
) -> CommandResult<Vec<HumanLabel>> {
    let store = state.store()?;
    match score {
        Some(score) => {
            labels::set(
                &store,
                run_id,
                item_id,
                &metric,
                score,
                note.as_deref(),
                "window",
            )?;
        }
        None => {
            labels::clear(&store, run_id, item_id, &metric)?;
        }
    }
    let item = store::items::get(store.conn(), item_id)?;
    Ok(store::human_labels::for_item(
        store.conn(),
        &item.content_hash,
    )?)
}

/// Imports a labels file (CSV or JSONL: item or question, metric, score, note) for the
/// items of a run; rows it cannot use are listed by line.
#[tauri::command(async)]
pub fn import_labels(
    state: State<'_, AppState>,
    run_id: i64,
    path: String,
) -> CommandResult<LabelImport> {
    let path = std::path::Path::new(&path);
    if !path.is_absolute() {
        return Err(CommandError::invalid(format!(
            "'{}' is not an absolute path",
            path.display()
        )));
    }
    let mut store = state.store()?;
    Ok(labels::import(&mut store, run_id, path)?)
}

/// The run's calibration (re-judged under other configurations, or repeated), when it
/// has one: agreement per metric and the items to review, each judge's score side by side.
#[tauri::command(async)]
pub fn run_calibration(
    state: State<'_, AppState>,
    run_id: i64,
) -> CommandResult<Option<Calibration>> {
    let store = state.store()?;
    store::runs::get(store.conn(), run_id)?;
    Ok(store::analyses::get(store.conn(), run_id, CALIBRATION)?
        .and_then(|json| serde_json::from_value(json).ok()))
}

/// How far the run's scores agree with people's labels, and what to label next.
#[tauri::command(async)]
pub fn run_alignment(state: State<'_, AppState>, run_id: i64) -> CommandResult<Alignment> {
    let store = state.store()?;
    Ok(alignment::align(&store, run_id)?)
}

/// The source tool's scores on a run's items: each name with how many items carry it.
#[tauri::command(async)]
pub fn prior_score_names(state: State<'_, AppState>, run_id: i64) -> CommandResult<Vec<PriorName>> {
    let store = state.store()?;
    Ok(prior::names(&store, run_id)?
        .into_iter()
        .map(|(name, items)| PriorName { name, items })
        .collect())
}

/// How the source tool's `prior` agrees with the run's `metric`.
#[tauri::command(async)]
pub fn prior_agreement(
    state: State<'_, AppState>,
    run_id: i64,
    prior: String,
    metric: String,
) -> CommandResult<PriorAgreement> {
    let store = state.store()?;
    Ok(prior::agreement(&store, run_id, &prior, &metric)?)
}
