//! Generate commands: ingest documents into a corpus, generate a test set from it
//! (plan, start, resume, cancel, read the candidates, export), and compare retrievers.
//!
//! A generation executes like a run: on a thread of its own with its own connection,
//! registered with a cancel token while it executes, progress over the window's
//! `Channel` ending with one `Ended` event (whose `run_id` is the generation's id).

use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::Arc;

use ragnosis_core::corpus::{self, Chunking, IngestReport};
use ragnosis_core::generate::{self, GenerationOutcome};
use ragnosis_core::judge::{open as judges, Judge};
use ragnosis_core::progress::NoProgress;
use ragnosis_core::retrieval::{self, Retriever};
use ragnosis_core::store::{self, corpora::CorpusRow, generations::GenerationSummary};
use ragnosis_core::ErrorCode;
use tauri::ipc::Channel;
use tauri::State;

use crate::error::{CommandError, CommandResult};
use crate::models::generate::{
    GenerationDetail, GenerationInput, IngestInput, RetrievalInput, RetrievalView, WrittenFile,
};
use crate::models::runs::RunEvent;
use crate::progress::ChannelSink;
use crate::state::{ActiveRun, AppState};

/// Cuts the files (and folders) into chunks of a new corpus. Files that cannot be read
/// are in the report with their reason; the others are stored.
#[tauri::command(async)]
pub fn ingest_documents(
    state: State<'_, AppState>,
    input: IngestInput,
) -> CommandResult<IngestReport> {
    let paths: Vec<PathBuf> = input
        .paths
        .iter()
        .map(|p| PathBuf::from(p.trim()))
        .filter(|p| !p.as_os_str().is_empty())
        .collect();
    let defaults = Chunking::default();
    let chunking = Chunking {
        size: input.chunk_tokens.map_or(defaults.size, |n| n as usize),
        overlap: input.overlap.map_or(defaults.overlap, |n| n as usize),
    };
    let name = input
        .name
        .map(|n| n.trim().to_string())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| corpus::default_name(&paths));
    // Its own connection: a large PDF must not stop the window from reading.
    let mut store = state.open_store()?;
    Ok(corpus::ingest(
        &mut store,
        &name,
        &paths,
        chunking,
        &NoProgress,
    )?)
}

#[tauri::command(async)]
pub fn list_corpora(state: State<'_, AppState>) -> CommandResult<Vec<CorpusRow>> {
    let store = state.store()?;
    Ok(store::corpora::list(store.conn())?)
}

#[tauri::command(async)]
pub fn list_generations(state: State<'_, AppState>) -> CommandResult<Vec<GenerationSummary>> {
    let store = state.store()?;
    Ok(store::generations::list(store.conn())?)
}

/// Calls, tokens and cost the generation would take at least. Stores nothing.
#[tauri::command(async)]
pub fn preview_generation(
    state: State<'_, AppState>,
    input: GenerationInput,
) -> CommandResult<ragnosis_core::judge::plan::JudgePlan> {
    let store = state.store()?;
    let profile = judges::profile(&store, &input.judge)?;
    Ok(generate::plan(
        &store,
        input.corpus_id,
        &input.settings,
        &profile,
    )?)
}

/// Stores the generation and starts it on a background thread; returns its id at once.
#[tauri::command(async)]
pub fn start_generation(
    state: State<'_, AppState>,
    input: GenerationInput,
    on_progress: Channel<RunEvent>,
) -> CommandResult<i64> {
    let (generation_id, judge) = {
        let mut store = state.store()?;
        // The judge first: a missing key fails before anything is stored.
        let judge = judges::open_judge(&store, &input.judge, state.secrets.as_ref())?;
        let id = generate::create(
            &mut store,
            input.corpus_id,
            input.name.as_deref(),
            input.settings,
            judge.as_ref(),
        )?;
        (id, judge)
    };
    spawn(&state, generation_id, judge, on_progress)?;
    Ok(generation_id)
}

/// Continues a stopped generation with `judge`; what it decided is kept.
#[tauri::command(async)]
pub fn resume_generation(
    state: State<'_, AppState>,
    generation_id: i64,
    judge: String,
    on_progress: Channel<RunEvent>,
) -> CommandResult<()> {
    let judge = {
        let store = state.store()?;
        let row = store::generations::get(store.conn(), generation_id)?;
        if row.status == "done" {
            return Err(CommandError::invalid(format!(
                "generation {generation_id} is done: there is nothing to resume"
            )));
        }
        judges::open_judge(&store, &judge, state.secrets.as_ref())?
    };
    spawn(&state, generation_id, judge, on_progress)
}

/// Asks an executing generation to stop after the candidate in flight; it stays
/// resumable.
#[tauri::command(async)]
pub fn cancel_generation(state: State<'_, AppState>, generation_id: i64) -> CommandResult<()> {
    if state.generations.cancel(generation_id) {
        Ok(())
    } else {
        Err(CommandError::new(
            ErrorCode::NotRunning,
            format!("generation {generation_id} is not running in this window"),
        ))
    }
}

#[tauri::command(async)]
pub fn get_generation(
    state: State<'_, AppState>,
    generation_id: i64,
) -> CommandResult<GenerationDetail> {
    let store = state.store()?;
    let summary = store::generations::list(store.conn())?
        .into_iter()
        .find(|g| g.generation.id == generation_id)
        .ok_or_else(|| {
            CommandError::from(ragnosis_core::Error::NotFound {
                what: "generation",
                id: generation_id.to_string(),
            })
        })?;
    Ok(GenerationDetail {
        summary,
        active: state.generations.is_active(generation_id),
        candidates: store::generations::candidates(store.conn(), generation_id)?,
    })
}

/// Writes the accepted test cases (`what` = "test_set", the importer's schema) or every
/// candidate with its reason and scores (`what` = "candidates") as JSONL to `path`.
#[tauri::command(async)]
pub fn export_generation(
    state: State<'_, AppState>,
    generation_id: i64,
    what: String,
    path: String,
) -> CommandResult<WrittenFile> {
    let path = super::reports::output_path(&path)?;
    let store = state.open_store()?;
    let row = store::generations::get(store.conn(), generation_id)?;
    if !matches!(what.as_str(), "test_set" | "candidates") {
        return Err(CommandError::invalid(format!(
            "unknown export '{what}': choose test_set or candidates"
        )));
    }
    let mut rows = 0;
    ragnosis_core::output_file::write_with(&path, |file| {
        rows = if what == "test_set" {
            generate::export_jsonl(&store, row.dataset_id, file)?
        } else {
            generate::export_candidates_jsonl(&store, generation_id, file)?
        };
        Ok(())
    })?;
    Ok(WrittenFile {
        path: path.display().to_string(),
        rows,
    })
}

/// Ranks the corpus for every question of the dataset with each retriever and returns
/// Recall@K and MRR@K with their intervals, and the chart.
#[tauri::command(async)]
pub fn evaluate_retrievers(
    state: State<'_, AppState>,
    input: RetrievalInput,
) -> CommandResult<RetrievalView> {
    let retrievers: Vec<Retriever> = input
        .retrievers
        .iter()
        .map(|r| r.parse())
        .collect::<Result<_, _>>()?;
    if retrievers.is_empty() {
        return Err(CommandError::invalid("choose at least one retriever"));
    }
    // On a thread of its own: an endpoint's requests run on a runtime of their own,
    // which cannot be started (or dropped) on this command's async worker thread.
    let home = state.home.clone();
    let secrets = state.secrets.clone();
    let eval = std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let store = ragnosis_core::store::Store::open(&home)?;
                retrieval::evaluate(
                    &store,
                    input.dataset_id,
                    input.corpus_id,
                    &retrievers,
                    input.k as usize,
                    secrets.as_ref(),
                    &NoProgress,
                )
            })
            .join()
    })
    .map_err(|_| {
        CommandError::internal("the retriever evaluation stopped on an internal error")
    })??;
    let chart = ragnosis_report::charts::retrieval::chart(&eval)?.into();
    Ok(RetrievalView { eval, chart })
}

/// Evaluates as `evaluate_retrievers` and writes the comparison as a Markdown report
/// (the `.md` at `path`, its chart beside it).
#[tauri::command(async)]
pub fn export_retrieval_report(
    state: State<'_, AppState>,
    input: RetrievalInput,
    path: String,
) -> CommandResult<crate::models::reports::Exported> {
    let path = super::reports::output_path(&path)?;
    let view = evaluate_retrievers(state.clone(), input)?;
    let store = state.open_store()?;
    let written = ragnosis_report::retrieval::write_report(&store, &view.eval, &path)?;
    Ok(crate::models::reports::Exported {
        paths: written.iter().map(|p| p.display().to_string()).collect(),
    })
}

fn spawn(
    state: &AppState,
    generation_id: i64,
    judge: Arc<dyn Judge>,
    channel: Channel<RunEvent>,
) -> CommandResult<()> {
    let active = state.generations.start(generation_id)?;
    let home = state.home.clone();
    std::thread::Builder::new()
        .name(format!("ragnosis-generation-{generation_id}"))
        .spawn(move || execute_in_background(home, active, judge, channel))
        .map_err(|e| {
            CommandError::internal(format!("cannot start the generation's thread: {e}"))
        })?;
    Ok(())
}

fn execute_in_background(
    home: PathBuf,
    active: ActiveRun,
    judge: Arc<dyn Judge>,
    channel: Channel<RunEvent>,
) {
    let generation_id = active.run_id;
    let sink = Arc::new(ChannelSink(channel.clone()));
    let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
        let mut store = ragnosis_core::store::Store::open(&home)?;
        generate::resume_blocking(&mut store, generation_id, judge, sink, &active.token)
    }));
    let (status, message) = match outcome {
        Ok(Ok(GenerationOutcome { status, .. })) => {
            let message = ragnosis_core::store::Store::open(&home)
                .and_then(|s| store::generations::get(s.conn(), generation_id))
                .ok()
                .and_then(|row| row.message);
            (status, message)
        }
        Ok(Err(e)) => ("failed".to_string(), Some(e.to_string())),
        Err(_) => (
            "failed".to_string(),
            Some("the generation stopped on an internal error; it can be resumed".to_string()),
        ),
    };
    // Unregister before the last event, so a window reacting to it sees it inactive.
    drop(active);
    let _ = channel.send(RunEvent::Ended {
        run_id: generation_id,
        status,
        message,
    });
}
