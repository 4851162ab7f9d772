//! The case list and the case view of the Results screen, people's labels on cases,
//! and how far the run can be trusted (alignment, the source tool's scores,
//! calibration).

use ragnosis_api::cases::{self, CaseDetail, CaseList, CaseQueryInput};
use ragnosis_api::paths;
use ragnosis_api::trust::{
    self, Alignment, Calibration, HumanLabel, Label, LabelImport, PriorAgreement, PriorName,
};
use tauri::State;

use crate::error::CommandResult;
use crate::state::AppState;

#[tauri::command(async)]
pub fn list_cases(
    state: State<'_, AppState>,
    run_id: i64,
    query: CaseQueryInput,
) -> CommandResult<CaseList> {
    Ok(cases::list(&state, run_id, query)?)
}

/// One item of a run with every result, its evidence and its failure patterns.
#[tauri::command(async)]
pub fn get_case(
    state: State<'_, AppState>,
    run_id: i64,
    item_id: i64,
) -> CommandResult<CaseDetail> {
    Ok(cases::get(&state, run_id, item_id)?)
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
    let label = Label {
        run_id,
        item_id,
        metric: &metric,
        score,
        note: note.as_deref(),
        source: "window",
    };
    Ok(trust::label(&state, &label)?.1)
}

/// Imports a labels file for the items of a run; rows it cannot use are listed by line.
#[tauri::command(async)]
pub fn import_labels(
    state: State<'_, AppState>,
    run_id: i64,
    path: String,
) -> CommandResult<LabelImport> {
    let path = paths::absolute(&path)?;
    Ok(trust::import_labels(&state, run_id, &path, |_| {})?)
}

/// The run's calibration, when it has one.
#[tauri::command(async)]
pub fn run_calibration(
    state: State<'_, AppState>,
    run_id: i64,
) -> CommandResult<Option<Calibration>> {
    Ok(trust::calibration(&state, run_id)?)
}

/// How far the run's scores agree with people's labels, and what to label next.
#[tauri::command(async)]
pub fn run_alignment(state: State<'_, AppState>, run_id: i64) -> CommandResult<Alignment> {
    Ok(trust::alignment(&state, run_id)?)
}

/// The source tool's scores on a run's items: each name with how many items carry it.
#[tauri::command(async)]
pub fn prior_score_names(state: State<'_, AppState>, run_id: i64) -> CommandResult<Vec<PriorName>> {
    Ok(trust::prior_names(&state, run_id)?)
}

/// How the source tool's `prior` agrees with the run's `metric`.
#[tauri::command(async)]
pub fn prior_agreement(
    state: State<'_, AppState>,
    run_id: i64,
    prior: String,
    metric: String,
) -> CommandResult<PriorAgreement> {
    Ok(trust::prior_agreement(&state, run_id, &prior, &metric)?)
}
