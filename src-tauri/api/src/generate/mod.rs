//! Test-set generation: documents ingested into a corpus of chunks, a generation's plan,
//! starting it (in the background for the window, in the foreground for the CLI),
//! resuming, cancelling, reading what it decided, and exporting the test set or every
//! candidate. Must not judge anything itself (the core's `generate` does).
//!
//! Policies both shells follow:
//! - chunking is RAGalyst's default (800 words, 400 shared) unless asked otherwise, and
//!   a corpus is named after its first document unless named;
//! - the judge is opened (and the offline judge refused) before anything is stored;
//! - resume refuses a finished generation; a budget given with it replaces the stored
//!   one (it caps the whole generation, what earlier executions spent included).

mod request;
mod view;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ragnosis_core::generate;
use ragnosis_core::generate::corpus::{self, Chunking};
use ragnosis_core::judge::{open, Judge};
use ragnosis_core::progress::{CancelToken, ProgressSink};
use ragnosis_core::store::{self, Store};
use ragnosis_core::{Error, Result};

use crate::jobs::{self, JobKind, JobSink};
use crate::Ctx;

pub use ragnosis_core::generate::corpus::IngestReport;
pub use ragnosis_core::generate::{GenerationOutcome, GenerationSettings};
pub use ragnosis_core::judge::plan::JudgePlan;
pub use ragnosis_core::store::corpora::CorpusRow;
pub use ragnosis_core::store::generations::{Candidate, GenerationSummary};
pub use request::{GenerationRequest, IngestRequest};
pub use view::{GenerationDetail, WrittenFile};

/// Cuts the files (and folders) into chunks of a new corpus. Files that cannot be read
/// are in the report with their reason; the others are stored.
pub fn ingest(
    ctx: &Ctx,
    request: &IngestRequest,
    progress: &dyn ProgressSink,
) -> Result<IngestReport> {
    let paths: Vec<PathBuf> = request
        .paths
        .iter()
        .map(|p| PathBuf::from(p.trim()))
        .filter(|p| !p.as_os_str().is_empty())
        .collect();
    let defaults = Chunking::default();
    let chunking = Chunking {
        size: request.chunk_tokens.map_or(defaults.size, |n| n as usize),
        overlap: request.overlap.map_or(defaults.overlap, |n| n as usize),
    };
    let name = request
        .name
        .as_deref()
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map_or_else(|| corpus::default_name(&paths), str::to_string);
    // Its own connection: a large PDF must not stop the window from reading.
    corpus::ingest(&mut ctx.own_store()?, &name, &paths, chunking, progress)
}

/// Every finished corpus, newest first.
pub fn corpora(ctx: &Ctx) -> Result<Vec<CorpusRow>> {
    store::corpora::list(ctx.store()?.conn())
}

/// Every generation with its corpus name and counts, newest first.
pub fn generations(ctx: &Ctx) -> Result<Vec<GenerationSummary>> {
    store::generations::list(ctx.store()?.conn())
}

/// Calls, tokens and cost the generation would take at least. Stores nothing.
pub fn preview(ctx: &Ctx, request: &GenerationRequest) -> Result<JudgePlan> {
    let store = ctx.store()?;
    let profile = open::profile(&store, &request.judge)?;
    generate::plan(&store, request.corpus_id, &request.settings, &profile)
}

/// A stored generation with its judge open, ready to execute.
pub struct OpenGeneration {
    /// The generation's id in the store, for `execute`, progress and `cancel`.
    pub generation_id: i64,
    judge: Arc<dyn Judge>,
}

/// The judge that writes and filters must be a language model: the offline judge
/// cannot write test cases. Checked before anything is ingested or stored.
pub fn check_writer(ctx: &Ctx, judge: &str) -> Result<()> {
    refuse_offline(&*ctx.store()?, judge)
}

fn refuse_offline(store: &Store, name: &str) -> Result<()> {
    if crate::judges::is_offline(&open::profile(store, name)?) {
        return Err(Error::Invalid(
            ragnosis_core::judge::offline::NO_GENERATION.into(),
        ));
    }
    Ok(())
}

/// The writer's judge, opened (its key found) before anything is stored.
fn writer(ctx: &Ctx, store: &Store, name: &str) -> Result<Arc<dyn Judge>> {
    refuse_offline(store, name)?;
    open::open_judge(store, name, ctx.secrets())
}

/// Opens the judge, then stores the generation and its empty dataset.
pub fn create(ctx: &Ctx, request: &GenerationRequest) -> Result<OpenGeneration> {
    let mut store = ctx.store()?;
    let judge = writer(ctx, &store, &request.judge)?;
    let generation_id = generate::create(
        &mut store,
        request.corpus_id,
        request.name.as_deref(),
        request.settings.clone(),
        judge.as_ref(),
    )?;
    Ok(OpenGeneration {
        generation_id,
        judge,
    })
}

/// A stopped generation opened again with `judge`; what it decided is kept. `budget`,
/// when given, replaces the stored one.
pub fn reopen(
    ctx: &Ctx,
    generation_id: i64,
    judge: &str,
    budget: Option<f64>,
) -> Result<OpenGeneration> {
    let store = ctx.store()?;
    if store::generations::get(store.conn(), generation_id)?.status == "done" {
        return Err(Error::Invalid(format!(
            "generation {generation_id} is done: there is nothing to resume"
        )));
    }
    let judge = writer(ctx, &store, judge)?;
    if budget.is_some() {
        generate::set_budget(&store, generation_id, budget)?;
    }
    Ok(OpenGeneration {
        generation_id,
        judge,
    })
}

/// Executes the generation here and now, on a connection of its own (the CLI's way).
pub fn execute(
    ctx: &Ctx,
    generation: OpenGeneration,
    progress: Arc<dyn ProgressSink>,
    cancel: &CancelToken,
) -> Result<GenerationOutcome> {
    let mut store = ctx.own_store()?;
    let OpenGeneration {
        generation_id,
        judge,
    } = generation;
    jobs::on_own_thread("the generation", || {
        generate::resume_blocking(&mut store, generation_id, judge, progress, cancel)
    })
}

/// Stores the generation and starts it in the background; returns its id at once.
pub fn start(ctx: &Ctx, request: &GenerationRequest, watcher: Arc<dyn JobSink>) -> Result<i64> {
    let generation = create(ctx, request)?;
    let id = generation.generation_id;
    spawn(ctx, generation, watcher)?;
    Ok(id)
}

/// `reopen` executed in the background as `start` does.
pub fn resume(ctx: &Ctx, generation_id: i64, judge: &str, watcher: Arc<dyn JobSink>) -> Result<()> {
    spawn(ctx, reopen(ctx, generation_id, judge, None)?, watcher)
}

/// Asks a generation executing in this process to stop after the candidate in flight.
pub fn cancel(ctx: &Ctx, generation_id: i64) -> Result<()> {
    ctx.jobs().cancel(JobKind::Generation, generation_id)
}

fn spawn(ctx: &Ctx, generation: OpenGeneration, watcher: Arc<dyn JobSink>) -> Result<()> {
    let OpenGeneration {
        generation_id,
        judge,
    } = generation;
    let kind = JobKind::Generation;
    jobs::spawn(
        ctx,
        kind,
        generation_id,
        watcher,
        move |store, progress, cancel| {
            let outcome = generate::resume_blocking(store, generation_id, judge, progress, cancel)?;
            let message = store::generations::get(store.conn(), generation_id)?.message;
            Ok((outcome.status, message))
        },
    )
}

/// One generation with every candidate it decided, and whether it executes here.
pub fn detail(ctx: &Ctx, generation_id: i64) -> Result<GenerationDetail> {
    let store = ctx.store()?;
    let summary = store::generations::list(store.conn())?
        .into_iter()
        .find(|g| g.generation.id == generation_id)
        .ok_or_else(|| Error::NotFound {
            what: "generation",
            id: generation_id.to_string(),
        })?;
    Ok(GenerationDetail {
        summary,
        active: ctx.jobs().is_active(JobKind::Generation, generation_id),
        candidates: store::generations::candidates(store.conn(), generation_id)?,
    })
}

/// What an export of a generation writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GenerationExport {
    /// The accepted test cases, in the importer's schema.
    TestSet,
    /// Every candidate with its reason and scores.
    Candidates,
}

impl GenerationExport {
    /// "test_set" or "candidates".
    pub fn parse(what: &str) -> Result<GenerationExport> {
        match what {
            "test_set" => Ok(GenerationExport::TestSet),
            "candidates" => Ok(GenerationExport::Candidates),
            other => Err(Error::Invalid(format!(
                "unknown export '{other}': choose test_set or candidates"
            ))),
        }
    }
}

/// Writes the generation's test set or candidates as JSONL to `path`.
pub fn export(
    ctx: &Ctx,
    generation_id: i64,
    what: GenerationExport,
    path: &Path,
) -> Result<WrittenFile> {
    let store = ctx.own_store()?;
    let row = store::generations::get(store.conn(), generation_id)?;
    let mut rows = 0;
    ragnosis_core::output_file::write_with(path, |file| {
        rows = match what {
            GenerationExport::TestSet => generate::export_jsonl(&store, row.dataset_id, file)?,
            GenerationExport::Candidates => {
                generate::export_candidates_jsonl(&store, generation_id, file)?
            }
        };
        Ok(())
    })?;
    Ok(WrittenFile {
        path: path.display().to_string(),
        rows,
    })
}
