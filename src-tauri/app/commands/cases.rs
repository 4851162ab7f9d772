//! The case list and the case view of the Results screen. Pages come from SQLite
//! (`ragnosis_core::cases`): the window never holds a whole run.

use ragnosis_core::analysis::diagnosis;
use ragnosis_core::export::ItemView;
use ragnosis_core::judge::open::OFFLINE;
use ragnosis_core::ErrorCode;
use ragnosis_core::{cases, store};
use tauri::State;

use crate::error::{CommandError, CommandResult};
use crate::models::cases::{CaseDetail, CaseList, CaseQueryInput};
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
    Ok(CaseDetail::new(
        run_id,
        view,
        patterns,
        run.judge == OFFLINE,
    ))
}
