//! Generate commands: ingest documents into a corpus, generate a test set from it
//! (plan, start, resume, cancel, read, export) in the background like a run, and
//! compare retrievers.

use ragnosis_api::generate::{
    self, CorpusRow, GenerationDetail, GenerationExport, GenerationRequest, GenerationSummary,
    IngestReport, IngestRequest, JudgePlan, WrittenFile,
};
use ragnosis_api::jobs::JobEvent;
use ragnosis_api::reports::Exported;
use ragnosis_api::retrieval::{self, RetrievalEval, RetrievalRequest, RetrievalView};
use ragnosis_api::{paths, NoProgress};
use tauri::ipc::Channel;
use tauri::State;

use crate::error::CommandResult;
use crate::progress::watcher;
use crate::state::AppState;

#[tauri::command(async)]
pub fn ingest_documents(
    state: State<'_, AppState>,
    input: IngestRequest,
) -> CommandResult<IngestReport> {
    Ok(generate::ingest(&state, &input, &NoProgress)?)
}

#[tauri::command(async)]
pub fn list_corpora(state: State<'_, AppState>) -> CommandResult<Vec<CorpusRow>> {
    Ok(generate::corpora(&state)?)
}

#[tauri::command(async)]
pub fn list_generations(state: State<'_, AppState>) -> CommandResult<Vec<GenerationSummary>> {
    Ok(generate::generations(&state)?)
}

#[tauri::command(async)]
pub fn preview_generation(
    state: State<'_, AppState>,
    input: GenerationRequest,
) -> CommandResult<JudgePlan> {
    Ok(generate::preview(&state, &input)?)
}

#[tauri::command(async)]
pub fn start_generation(
    state: State<'_, AppState>,
    input: GenerationRequest,
    on_progress: Channel<JobEvent>,
) -> CommandResult<i64> {
    Ok(generate::start(&state, &input, watcher(on_progress))?)
}

#[tauri::command(async)]
pub fn resume_generation(
    state: State<'_, AppState>,
    generation_id: i64,
    judge: String,
    on_progress: Channel<JobEvent>,
) -> CommandResult<()> {
    Ok(generate::resume(
        &state,
        generation_id,
        &judge,
        watcher(on_progress),
    )?)
}

#[tauri::command(async)]
pub fn cancel_generation(state: State<'_, AppState>, generation_id: i64) -> CommandResult<()> {
    Ok(generate::cancel(&state, generation_id)?)
}

#[tauri::command(async)]
pub fn get_generation(
    state: State<'_, AppState>,
    generation_id: i64,
) -> CommandResult<GenerationDetail> {
    Ok(generate::detail(&state, generation_id)?)
}

/// Writes the accepted test cases ("test_set") or every candidate ("candidates").
#[tauri::command(async)]
pub fn export_generation(
    state: State<'_, AppState>,
    generation_id: i64,
    what: String,
    path: String,
) -> CommandResult<WrittenFile> {
    let path = paths::output_file(&path)?;
    let what = GenerationExport::parse(&what)?;
    Ok(generate::export(&state, generation_id, what, &path)?)
}

#[tauri::command]
pub async fn evaluate_retrievers(
    state: State<'_, AppState>,
    input: RetrievalRequest,
) -> CommandResult<RetrievalView> {
    state
        .blocking(move |ctx| retrieval::evaluate(ctx, &input, &NoProgress))
        .await
}

/// Writes the comparison the window shows as a Markdown report, its chart beside it.
#[tauri::command(async)]
pub fn export_retrieval_report(
    state: State<'_, AppState>,
    eval: RetrievalEval,
    path: String,
) -> CommandResult<Exported> {
    let path = paths::output_file(&path)?;
    Ok(retrieval::write_report(&state, &eval, &path)?.into())
}
