//! Test-set generation from a corpus (RAGalyst §III-A/B): sample chunks in a seeded
//! order; for each, a question agent drafts one question the chunk answers and an answer
//! agent drafts the reference answer from the chunk alone (two calls); three filters then
//! judge the candidate — answerability (the chunk alone suffices), faithfulness of the
//! answer to the chunk, and answer relevance — against thresholds the user sets.
//!
//! Owns: the sampling, the agents' calls, the filters and the bookkeeping. Every
//! candidate is committed as it is decided: an accepted one becomes an item of the
//! generation's dataset (question, reference answer, the chunk as reference context and
//! its id as gold context), a rejected one is kept with the reason. The chunks come from
//! a corpus (`corpus`: documents read, chunked and stored). A resumed generation
//! skips every position already decided. The built-in offline judge cannot write test
//! cases and is refused before anything is stored: nothing is ever fabricated.

mod budget;
pub mod corpus;
mod waves;

use std::sync::Arc;
use std::time::Instant;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::error_code::ErrorCode;
use crate::judge::offline::NO_GENERATION;
use crate::judge::task::Verdict;
use crate::judge::{CallContext, Judge, Task};
use crate::progress::{CancelToken, Progress, ProgressSink};
use crate::run::JudgeDown;
use crate::store::{self, corpora::Chunk, generations::Candidate, Store};
use budget::Budget;
use waves::{Failures, Waves};

/// Calls one candidate costs when it passes every step: two drafts and three filters.
pub const CALLS_PER_CANDIDATE: u64 = 5;
/// Candidates in a row whose calls fail before the generation stops: a judge that is
/// down or cannot follow the prompts would otherwise be asked about every chunk.
pub const FAILURES_IN_A_ROW: u32 = 5;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct GenerationSettings {
    /// Accepted test cases wanted.
    pub count: u64,
    pub seed: u64,
    /// Reject unless the filter judges the chunk alone sufficient for the answer.
    pub require_answerable: bool,
    /// Reject below this share of the answer's claims supported by the chunk.
    pub min_faithfulness: f64,
    /// Reject below this answer relevance to the question.
    pub min_relevance: f64,
    /// Stop before the judge's cost would pass this many USD.
    pub budget_usd: Option<f64>,
}

impl Default for GenerationSettings {
    fn default() -> Self {
        GenerationSettings {
            count: 20,
            seed: 0,
            require_answerable: true,
            min_faithfulness: 0.8,
            min_relevance: 0.7,
            budget_usd: None,
        }
    }
}

impl GenerationSettings {
    fn checked(self) -> Result<GenerationSettings> {
        if self.count == 0 {
            return Err(Error::Invalid("ask for at least 1 test case".into()));
        }
        for (name, v) in [
            ("faithfulness", self.min_faithfulness),
            ("relevance", self.min_relevance),
        ] {
            if !(0.0..=1.0).contains(&v) {
                return Err(Error::Invalid(format!(
                    "the {name} threshold must be between 0 and 1, got {v}"
                )));
            }
        }
        if self.budget_usd.is_some_and(|b| b.is_nan() || b < 0.0) {
            return Err(Error::Invalid("the budget must be 0 USD or more".into()));
        }
        Ok(self)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct GenerationOutcome {
    pub generation_id: i64,
    pub dataset_id: i64,
    pub accepted: u64,
    pub rejected: u64,
    pub errors: u64,
    pub calls: u64,
    /// Calls answered from the judge cache (a resumed or repeated generation).
    pub cache_hits: u64,
    pub cost_usd: f64,
    pub seconds: f64,
    /// done (count reached), exhausted (every chunk tried), cancelled, budget, or failing
    /// (the judge's calls kept failing).
    pub status: String,
    /// When failing: the judge's error code and why, as a run's judge going down reports
    /// it (the caller's exit status; the status and stop message say it in words).
    #[serde(skip)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub judge_down: Option<JudgeDown>,
}

/// Starts a generation on `corpus_id`: a new dataset named `name` (blank: "test set
/// from <corpus>") receives the accepted test cases. Refuses the offline judge before
/// storing anything.
pub async fn start(
    store: &mut Store,
    corpus_id: i64,
    name: Option<&str>,
    settings: GenerationSettings,
    judge: Arc<dyn Judge>,
    progress: Arc<dyn ProgressSink>,
    cancel: &CancelToken,
) -> Result<GenerationOutcome> {
    let generation_id = create(store, corpus_id, name, settings, judge.as_ref())?;
    execute(store, generation_id, judge, progress, cancel).await
}

/// Stores a new generation (and its empty dataset) without calling the judge, so a
/// caller can hand its id back before the work starts; `resume` then executes it.
/// Refuses the offline judge and bad settings before storing anything.
pub fn create(
    store: &mut Store,
    corpus_id: i64,
    name: Option<&str>,
    settings: GenerationSettings,
    judge: &dyn Judge,
) -> Result<i64> {
    if judge.identity().is_offline() {
        return Err(Error::Invalid(NO_GENERATION.into()));
    }
    let settings = settings.checked()?;
    let corpus = store::corpora::get(store.conn(), corpus_id)?;
    if corpus.chunks == 0 {
        return Err(Error::Invalid(format!("corpus {corpus_id} has no chunks")));
    }
    let name = name
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map_or_else(|| format!("test set from {}", corpus.name), str::to_string);
    let conn = store.conn();
    let dataset_id = store::datasets::insert(conn, &name, None)?;
    store::datasets::finish(conn, dataset_id, 0, None, Some("generated"), "{}", "{}")?;
    let generation_id = store::generations::insert(
        conn,
        corpus_id,
        dataset_id,
        &judge.identity().config_key(),
        &serde_json::to_value(&settings)?,
    )?;
    Ok(generation_id)
}

/// Continues a generation that stopped (cancelled, over budget, or the app closed): the
/// positions already decided are kept and skipped.
pub async fn resume(
    store: &mut Store,
    generation_id: i64,
    judge: Arc<dyn Judge>,
    progress: Arc<dyn ProgressSink>,
    cancel: &CancelToken,
) -> Result<GenerationOutcome> {
    if judge.identity().is_offline() {
        return Err(Error::Invalid(NO_GENERATION.into()));
    }
    execute(store, generation_id, judge, progress, cancel).await
}

/// Sets a stopped generation's budget before it is resumed (None: no budget). The
/// budget is a ceiling across the whole generation: what it already spent counts.
pub fn set_budget(store: &Store, generation_id: i64, budget_usd: Option<f64>) -> Result<()> {
    let row = store::generations::get(store.conn(), generation_id)?;
    let mut settings: GenerationSettings = serde_json::from_value(row.settings)?;
    settings.budget_usd = budget_usd;
    let settings = settings.checked()?;
    store::generations::set_settings(
        store.conn(),
        generation_id,
        &serde_json::to_value(&settings)?,
    )
}

/// `resume` for a caller without an async runtime (the desktop shell's worker thread).
pub fn resume_blocking(
    store: &mut Store,
    generation_id: i64,
    judge: Arc<dyn Judge>,
    progress: Arc<dyn ProgressSink>,
    cancel: &CancelToken,
) -> Result<GenerationOutcome> {
    crate::run::worker_runtime("the generation")?.block_on(resume(
        store,
        generation_id,
        judge,
        progress,
        cancel,
    ))
}

/// One generation: the chunks in their seeded order, the positions already decided
/// skipped, then the waves until a stop, and the generation's end recorded.
async fn execute(
    store: &mut Store,
    generation_id: i64,
    judge: Arc<dyn Judge>,
    progress: Arc<dyn ProgressSink>,
    cancel: &CancelToken,
) -> Result<GenerationOutcome> {
    let started = Instant::now();
    let row = store::generations::get(store.conn(), generation_id)?;
    let settings: GenerationSettings = serde_json::from_value(row.settings.clone())?;
    let mut chunks = store::corpora::chunks(store.conn(), row.corpus_id)?;
    chunks.shuffle(&mut rand::rngs::StdRng::seed_from_u64(settings.seed));
    let done = store::generations::candidates(store.conn(), generation_id)?;
    let outcome = waves::outcome_so_far(generation_id, row.dataset_id, &done);
    let decided: std::collections::HashSet<i64> = done.iter().map(|c| c.position).collect();
    let (spent, dearest_call) = store::generations::spend(store.conn(), generation_id)?;
    let budget = Arc::new(Budget::new(settings.budget_usd, spent, dearest_call));
    store::generations::set_status(store.conn(), generation_id, "running", None)?;
    progress.report(Progress::Started {
        stage: "generating test cases".into(),
        total: Some(settings.count),
    });
    let ctx = CallContext {
        progress: progress.clone(),
        cancel: cancel.clone(),
        use_cache: true,
    };
    // Candidates are drafted in waves of up to the judge's concurrency, never more than
    // the test cases still wanted, so a generation does not overshoot its count; each
    // wave is committed in position order, so a resumed generation sees the same order.
    let open: Vec<(usize, &Chunk)> = chunks
        .iter()
        .enumerate()
        .filter(|(p, _)| !decided.contains(&(*p as i64)))
        .collect();
    let mut waves = Waves {
        store,
        generation_id,
        dataset_id: row.dataset_id,
        judge,
        ctx,
        settings: &settings,
        budget,
        cancel,
        outcome,
        failures: Failures::default(),
    };
    waves.run(&open, progress.as_ref()).await?;
    if waves.outcome.accepted >= settings.count {
        waves.outcome.status = "done".into();
    }
    waves.record_end()?;
    let judge_down = waves.judge_down();
    let mut outcome = waves.outcome;
    outcome.judge_down = judge_down;
    outcome.seconds = started.elapsed().as_secs_f64();
    progress.report(Progress::Finished {
        stage: format!(
            "{} accepted, {} rejected, {} errors",
            outcome.accepted, outcome.rejected, outcome.errors
        ),
    });
    Ok(outcome)
}

/// One candidate's calls and spend, made against the generation's budget.
#[derive(Debug)]
struct Tally {
    calls: u64,
    cache_hits: u64,
    cost_usd: f64,
    budget: Arc<Budget>,
    /// The code of the judge's last failed call.
    failed_with: Option<ErrorCode>,
}

impl Tally {
    fn new(budget: Arc<Budget>) -> Tally {
        Tally {
            calls: 0,
            cache_hits: 0,
            cost_usd: 0.0,
            budget,
            failed_with: None,
        }
    }
}

/// The reason of a candidate whose next call the budget refused: it decides nothing, and
/// its position stays open for a resume with a larger budget.
const OVER_BUDGET: &str = "the next call would pass the budget";

/// One call, checked against the budget first and with its cost counted; a failed call
/// is the candidate's error.
async fn ask(
    judge: &dyn Judge,
    ctx: &CallContext,
    task: Task,
    outcome: &mut Tally,
) -> std::result::Result<Verdict, String> {
    let Some(reservation) = outcome.budget.reserve(&ctx.cancel).await else {
        return Err(OVER_BUDGET.to_string());
    };
    outcome.calls += 1;
    let result = judge.judge(&task, ctx).await;
    let cost = result.as_ref().map_or(0.0, |j| j.cost_usd);
    outcome.budget.settle(reservation, cost);
    match result {
        Ok(j) => {
            outcome.cost_usd += j.cost_usd;
            outcome.cache_hits += u64::from(j.cached);
            Ok(j.verdict)
        }
        Err(e) => {
            outcome.failed_with = Some(e.code());
            Err(format!("the {} call failed: {e}", task.kind().as_str()))
        }
    }
}

async fn draft_and_filter(
    judge: &dyn Judge,
    ctx: &CallContext,
    chunk: &Chunk,
    settings: &GenerationSettings,
    outcome: &mut Tally,
) -> Candidate {
    let mut candidate = Candidate {
        position: 0,
        chunk_id: chunk.id,
        chunk_key: chunk.key.clone(),
        question: None,
        answer: None,
        status: "error".into(),
        reason: None,
        scores: serde_json::json!({}),
    };
    let result = async {
        let Verdict::DraftQuestion { question } = ask(
            judge,
            ctx,
            Task::DraftQuestion {
                chunk: chunk.text.clone(),
            },
            outcome,
        )
        .await?
        else {
            return Err("the question agent answered another task".to_string());
        };
        if question.is_empty() {
            return Ok(Some(
                "the question agent found nothing in the chunk to ask about".to_string(),
            ));
        }
        candidate.question = Some(question.clone());
        let Verdict::DraftAnswer { answer } = ask(
            judge,
            ctx,
            Task::DraftAnswer {
                question: question.clone(),
                chunk: chunk.text.clone(),
            },
            outcome,
        )
        .await?
        else {
            return Err("the answer agent answered another task".to_string());
        };
        if answer.is_empty() {
            return Ok(Some(
                "the answer agent found no answer in the chunk".to_string(),
            ));
        }
        candidate.answer = Some(answer.clone());
        filters(
            judge,
            ctx,
            chunk,
            &question,
            &answer,
            settings,
            outcome,
            &mut candidate.scores,
        )
        .await
    }
    .await;
    match result {
        Ok(None) => candidate.status = "accepted".into(),
        Ok(Some(reason)) => {
            candidate.status = "rejected".into();
            candidate.reason = Some(reason);
        }
        Err(e) => candidate.reason = Some(e),
    }
    candidate
}

/// Runs the three filters; `Some(reason)` rejects. All three always run, so a rejected
/// candidate shows every score it got.
#[allow(clippy::too_many_arguments)]
async fn filters(
    judge: &dyn Judge,
    ctx: &CallContext,
    chunk: &Chunk,
    question: &str,
    answer: &str,
    settings: &GenerationSettings,
    outcome: &mut Tally,
    scores: &mut serde_json::Value,
) -> std::result::Result<Option<String>, String> {
    let chunks = vec![chunk.text.clone()];
    let mut reasons = Vec::new();
    let Verdict::Reasoning(reasoning) = ask(
        judge,
        ctx,
        Task::Reasoning {
            question: question.into(),
            answer: answer.into(),
            chunks: chunks.clone(),
        },
        outcome,
    )
    .await?
    else {
        return Err("the answerability filter answered another task".into());
    };
    scores["answerable"] = reasoning.contexts_sufficient.into();
    if settings.require_answerable && !reasoning.contexts_sufficient {
        reasons.push("not answerable from the chunk alone".to_string());
    }
    let Verdict::Grounding(grounding) = ask(
        judge,
        ctx,
        Task::Grounding {
            question: question.into(),
            answer: answer.into(),
            chunks: chunks.clone(),
        },
        outcome,
    )
    .await?
    else {
        return Err("the faithfulness filter answered another task".into());
    };
    let faithfulness =
        crate::metrics::ragvue::strict_faithfulness("faithfulness", &grounding, &chunks).score;
    scores["faithfulness"] = faithfulness.into();
    match faithfulness {
        Some(f) if f < settings.min_faithfulness => reasons.push(format!(
            "faithfulness {f:.2} is below {:.2}",
            settings.min_faithfulness
        )),
        None => reasons.push("the answer makes no claim the chunk could support".into()),
        _ => {}
    }
    let Verdict::AnswerReview(review) = ask(
        judge,
        ctx,
        Task::AnswerReview {
            question: question.into(),
            answer: answer.into(),
            aspects: Vec::new(),
        },
        outcome,
    )
    .await?
    else {
        return Err("the relevance filter answered another task".into());
    };
    scores["relevance"] = review.relevance.into();
    if review.relevance < settings.min_relevance {
        reasons.push(format!(
            "answer relevance {:.2} is below {:.2}",
            review.relevance, settings.min_relevance
        ));
    }
    Ok((!reasons.is_empty()).then(|| reasons.join("; ")))
}

/// What a generation would cost before it runs: the five calls of a candidate for as many
/// chunks as test cases are asked for (a lower bound: rejected candidates cost more
/// chunks), with placeholder drafts of a typical length. Stores nothing.
pub fn plan(
    store: &Store,
    corpus_id: i64,
    settings: &GenerationSettings,
    profile: &crate::judge_profile::JudgeProfile,
) -> Result<crate::judge::plan::JudgePlan> {
    if profile.kind == crate::judge::ProviderKind::Offline {
        return Err(Error::Invalid(NO_GENERATION.into()));
    }
    let mut chunks = store::corpora::chunks(store.conn(), corpus_id)?;
    chunks.shuffle(&mut rand::rngs::StdRng::seed_from_u64(settings.seed));
    let question =
        "What is the maximum charge the battery holds after two years of use?".to_string();
    let answer = "After two years the battery holds at least seventy percent of its rated capacity, as the warranty states."
        .to_string();
    let mut tasks = Vec::new();
    for chunk in chunks.iter().take(settings.count as usize) {
        let text = chunk.text.clone();
        tasks.push(Task::DraftQuestion {
            chunk: text.clone(),
        });
        tasks.push(Task::DraftAnswer {
            question: question.clone(),
            chunk: text.clone(),
        });
        for task in [
            Task::Reasoning {
                question: question.clone(),
                answer: answer.clone(),
                chunks: vec![text.clone()],
            },
            Task::Grounding {
                question: question.clone(),
                answer: answer.clone(),
                chunks: vec![text.clone()],
            },
            Task::AnswerReview {
                question: question.clone(),
                answer: answer.clone(),
                aspects: Vec::new(),
            },
        ] {
            tasks.push(task);
        }
    }
    crate::judge::plan::estimate_one_by_one(profile, &tasks, None).map_err(Error::from)
}

/// Every candidate of a generation as JSONL — accepted, rejected (with the reason) and
/// failed — with its source chunk and filter scores, for reading the rejections outside.
pub fn export_candidates_jsonl(
    store: &Store,
    generation_id: i64,
    out: &mut impl std::io::Write,
) -> Result<u64> {
    let candidates = store::generations::candidates(store.conn(), generation_id)?;
    for c in &candidates {
        let row = serde_json::json!({
            "position": c.position,
            "chunk": c.chunk_key,
            "status": c.status,
            "reason": c.reason,
            "question": c.question,
            "answer": c.answer,
            "scores": c.scores,
        });
        writeln!(out, "{row}")
            .map_err(|e| Error::Invalid(format!("writing the candidates failed: {e}")))?;
    }
    Ok(candidates.len() as u64)
}

/// The accepted test cases as JSONL in the importer's schema (question, ground_truth,
/// reference_contexts, gold_context_ids, id), ready to run a pipeline on and import.
pub fn export_jsonl(store: &Store, dataset_id: i64, out: &mut impl std::io::Write) -> Result<u64> {
    let mut n = 0;
    let mut failure = None;
    store::items::for_each(store.conn(), dataset_id, |stored| {
        if failure.is_some() {
            return;
        }
        let row = serde_json::json!({
            "id": stored.item.id,
            "question": stored.item.question,
            "ground_truth": stored.item.ground_truth,
            "reference_contexts": stored.item.reference_contexts,
            "gold_context_ids": stored.item.gold_context_ids,
        });
        match writeln!(out, "{row}") {
            Ok(()) => n += 1,
            Err(e) => failure = Some(e),
        }
    })?;
    match failure {
        Some(e) => Err(Error::Invalid(format!("writing the test set failed: {e}"))),
        None => Ok(n),
    }
}
