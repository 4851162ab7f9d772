//! Run history, one run's summary (the Runs screen and the top of Results), and a
//! question asked of a run (the advisor on Results).

use ragnosis_api::advisor::{self, Answer};
use ragnosis_api::runs::{self, RunDetail, RunInfo};
use tauri::State;

use crate::error::CommandResult;
use crate::state::AppState;

/// Every run, newest first, with its key scores when it has finished.
#[tauri::command(async)]
pub fn list_runs(state: State<'_, AppState>) -> CommandResult<Vec<RunInfo>> {
    Ok(runs::list(&state)?)
}

/// One run with its statistics and diagnosis (partial for a run not finished).
#[tauri::command(async)]
pub fn get_run(state: State<'_, AppState>, run_id: i64) -> CommandResult<RunDetail> {
    Ok(runs::detail(&state, run_id)?)
}

/// The advisor's answer to a question about the run (`item`: the item asked about;
/// `judge`: the profile whose model answers, none for the rules).
#[tauri::command(async)]
pub fn ask_run(
    state: State<'_, AppState>,
    run_id: i64,
    question: String,
    item: Option<String>,
    judge: Option<String>,
) -> CommandResult<Answer> {
    let asked = advisor::Asked {
        item: item.as_deref(),
        against: None,
        judge: judge.as_deref(),
    };
    Ok(advisor::ask(&state, run_id, &question, &asked)?)
}
