//! Evaluate commands: the metric catalogue, the plan of a run before it starts, and
//! starting, resuming and cancelling runs.
//!
//! A run executes on a thread of its own with its own database connection, so the
//! window stays responsive; progress streams over the `Channel` the window passes in,
//! ending with one `Ended` event. Each executing run is registered with a cancel token
//! that is removed when its thread ends. A run whose process died (the app closed
//! mid-run) stays `running` in the store, is not registered, and so shows as resumable.

use ragnosis_core::ErrorCode;
use std::panic::AssertUnwindSafe;
use std::path::Path;
use std::sync::Arc;

use ragnosis_core::judge::{few_shot, open as judges, Judge};
use ragnosis_core::progress::CancelToken;
use ragnosis_core::store::{self, runs::RunStatus};
use ragnosis_core::{metrics, run};
use tauri::ipc::Channel;
use tauri::State;

use crate::error::{CommandError, CommandResult};
use crate::models::runs::{MetricInfo, RunEvent, RunPlan, RunRequestInput};
use crate::progress::ChannelSink;
use crate::state::{ActiveRun, AppState};
use ragnosis_core::judge::ProviderKind;

/// The catalogue, then the user's own criteria (`criteria.<name>`).
#[tauri::command(async)]
pub fn list_metrics(state: State<'_, AppState>) -> CommandResult<Vec<MetricInfo>> {
    let store = state.store()?;
    let mut all: Vec<MetricInfo> = metrics::catalogue().iter().map(MetricInfo::from).collect();
    all.extend(
        run::criteria::current(&store)?
            .into_iter()
            .map(|(_, spec)| MetricInfo::from(spec)),
    );
    Ok(all)
}

/// What the run would do: items, metric evaluations, judge calls, tokens, cost, time.
/// Stores nothing.
#[tauri::command(async)]
pub fn preview_run(state: State<'_, AppState>, request: RunRequestInput) -> CommandResult<RunPlan> {
    let mut request = request.into_request()?;
    let store = state.store()?;
    request.few_shot = few_shot::for_new_run(&store)?;
    let profile = judges::profile(&store, &request.judge)?;
    Ok(RunPlan {
        preview: run::preview(&store, &request, &profile)?,
        offline: profile.kind == ProviderKind::Offline,
    })
}

/// Plans the run, starts it on a background thread and returns its id at once.
#[tauri::command(async)]
pub fn start_run(
    state: State<'_, AppState>,
    request: RunRequestInput,
    on_progress: Channel<RunEvent>,
) -> CommandResult<i64> {
    let mut request = request.into_request()?;
    let (run_id, judge) = {
        let mut store = state.store()?;
        // The Settings choice, read now so an edited file takes effect; a broken one
        // stops the start with its line number.
        request.few_shot = few_shot::for_new_run(&store)?;
        // The judge first: a missing profile or key fails before a run row exists.
        let judge = judges::open_judge(&store, &request.judge, state.secrets.as_ref())?;
        (run::plan(&mut store, &request)?, judge)
    };
    spawn_execution(&state, run_id, judge, on_progress)?;
    Ok(run_id)
}

/// Continues a run that stopped (cancelled, failed, or left running by a closed app):
/// every result already stored is kept, only the missing ones are computed.
#[tauri::command(async)]
pub fn resume_run(
    state: State<'_, AppState>,
    run_id: i64,
    on_progress: Channel<RunEvent>,
) -> CommandResult<()> {
    let judge = {
        let store = state.store()?;
        let run = store::runs::get(store.conn(), run_id)?;
        if run.status == RunStatus::Done {
            return Err(CommandError::invalid(format!(
                "run {run_id} is done: there is nothing to resume"
            )));
        }
        judges::open_judge(&store, &run.judge, state.secrets.as_ref())?
    };
    spawn_execution(&state, run_id, judge, on_progress)
}

/// Asks an executing run to stop after the items in flight; it stays resumable.
#[tauri::command(async)]
pub fn cancel_run(state: State<'_, AppState>, run_id: i64) -> CommandResult<()> {
    if state.runs.cancel(run_id) {
        Ok(())
    } else {
        Err(CommandError::new(
            ErrorCode::NotRunning,
            format!("run {run_id} is not running in this window"),
        ))
    }
}

fn spawn_execution(
    state: &AppState,
    run_id: i64,
    judge: Arc<dyn Judge>,
    channel: Channel<RunEvent>,
) -> CommandResult<()> {
    let active = state.runs.start(run_id)?;
    let home = state.home.clone();
    std::thread::Builder::new()
        .name(format!("ragnosis-run-{run_id}"))
        .spawn(move || execute_in_background(&home, active, judge, channel))
        .map_err(|e| CommandError::internal(format!("cannot start the run's thread: {e}")))?;
    Ok(())
}

fn execute_in_background(
    home: &Path,
    active: ActiveRun,
    judge: Arc<dyn Judge>,
    channel: Channel<RunEvent>,
) {
    let run_id = active.run_id;
    let sink = Arc::new(ChannelSink(channel.clone()));
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
        execute(home, run_id, judge, sink, &active.token)
    }));
    let (status, message) = match outcome {
        Ok(Ok(ended)) => ended,
        Ok(Err(e)) => ("failed".to_string(), Some(e.message)),
        Err(_) => (
            "failed".to_string(),
            Some("the run stopped on an internal error; it can be resumed".to_string()),
        ),
    };
    // Unregister before the last event, so a window reacting to it sees the run inactive.
    drop(active);
    let _ = channel.send(RunEvent::Ended {
        run_id,
        status,
        message,
    });
}

/// Executes the run on its own connection. Returns the status and message the store
/// recorded.
fn execute(
    home: &Path,
    run_id: i64,
    judge: Arc<dyn Judge>,
    sink: Arc<ChannelSink>,
    cancel: &CancelToken,
) -> Result<(String, Option<String>), CommandError> {
    let mut store = ragnosis_core::store::Store::open(home)?;
    let executed = run::execute(&mut store, run_id, judge, sink, cancel);
    let row = store::runs::get(store.conn(), run_id)?;
    match executed {
        Ok(_) => Ok((row.status.as_str().to_string(), row.message)),
        Err(e) => Ok((
            "failed".to_string(),
            Some(row.message.unwrap_or_else(|| e.to_string())),
        )),
    }
}
