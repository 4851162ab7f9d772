//! `ragnosis ingest`, `ragnosis corpora` and `ragnosis retrieval-eval`: documents cut into
//! chunks, and retrievers ranked on them.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use ragnosis_api::generate::{
    self, GenerationExport, GenerationOutcome, GenerationRequest, GenerationSettings, IngestRequest,
};
use ragnosis_api::retrieval::{self, RetrievalRequest};
use ragnosis_api::{Ctx, Error, ProgressSink};

use crate::{print, print_json, Failure};

#[derive(Args)]
pub struct IngestArgs {
    /// PDF, Markdown, text or HTML files, folders of them, or a JSONL of ready chunks
    /// (`{"id", "text"}` per line).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    #[arg(long)]
    name: Option<String>,
    #[command(flatten)]
    chunking: ChunkArgs,
    #[arg(long)]
    json: bool,
}

/// How documents are cut; shared by `ingest` and `generate`.
#[derive(Args)]
pub struct ChunkArgs {
    /// Words per chunk (default: RAGalyst's 800).
    #[arg(long)]
    chunk_tokens: Option<u32>,
    /// Words shared by consecutive chunks (default: 400).
    #[arg(long)]
    overlap: Option<u32>,
}

impl ChunkArgs {
    fn request(&self, paths: &[PathBuf], name: Option<String>) -> IngestRequest {
        IngestRequest {
            paths: paths
                .iter()
                .map(|p| p.to_string_lossy().into_owned())
                .collect(),
            name,
            chunk_tokens: self.chunk_tokens,
            overlap: self.overlap,
        }
    }
}

#[derive(Args)]
pub struct RetrievalEvalArgs {
    /// The dataset whose questions name their gold chunks (gold_context_ids).
    #[arg(long)]
    dataset: i64,
    /// The corpus to rank.
    #[arg(long)]
    corpus: i64,
    /// Comma-separated: bm25, embedded, endpoint:PROFILE[@MODEL] (an OpenAI-compatible
    /// /v1/embeddings service saved as a judge profile).
    #[arg(long, default_value = "bm25,embedded")]
    retrievers: String,
    #[arg(long, default_value_t = 10)]
    k: u32,
    /// Also write the comparison as a Markdown report (its chart beside it).
    #[arg(long, value_name = "FILE.md")]
    report: Option<PathBuf>,
    #[arg(long)]
    json: bool,
}

pub fn ingest(ctx: &Ctx, args: IngestArgs, progress: Arc<dyn ProgressSink>) -> Result<(), Failure> {
    let request = args.chunking.request(&args.paths, args.name.clone());
    let report = generate::ingest(ctx, &request, progress.as_ref())?;
    if args.json {
        print_json(&report)?;
    } else {
        print::ingest_report(&report);
    }
    Ok(())
}

pub fn corpora(ctx: &Ctx, json: bool) -> Result<(), Failure> {
    let rows = generate::corpora(ctx)?;
    if json {
        print_json(&rows)?;
    } else if rows.is_empty() {
        println!("No corpora yet. Ingest documents with `ragnosis ingest FILES...`.");
    } else {
        for c in rows {
            println!(
                "{:>4}  {:<32} {:>6} documents {:>8} chunks  ({} words, {} overlap)",
                c.id, c.name, c.documents, c.chunks, c.chunk_tokens, c.overlap
            );
        }
    }
    Ok(())
}

pub fn retrieval_eval(
    ctx: &Ctx,
    args: RetrievalEvalArgs,
    progress: Arc<dyn ProgressSink>,
) -> Result<(), Failure> {
    let request = RetrievalRequest {
        dataset_id: args.dataset,
        corpus_id: args.corpus,
        retrievers: args.retrievers.split(',').map(str::to_string).collect(),
        k: args.k,
    };
    let eval = retrieval::evaluate(ctx, &request, progress.as_ref())?.eval;
    if args.json {
        print_json(&eval)?;
    } else {
        print::retrieval_eval(&eval);
    }
    if let Some(path) = &args.report {
        for p in retrieval::write_report(ctx, &eval, path)? {
            eprintln!("wrote {}", p.display());
        }
    }
    Ok(())
}

#[derive(Args)]
pub struct GenerateArgs {
    /// Documents or folders to ingest first (or use --corpus).
    #[arg(conflicts_with_all = ["corpus", "resume"])]
    paths: Vec<PathBuf>,
    /// An ingested corpus instead of documents.
    #[arg(long)]
    corpus: Option<i64>,
    /// Continue a generation that stopped.
    #[arg(long, value_name = "GENERATION")]
    resume: Option<i64>,
    /// The judge profile that writes and filters (a language model; the offline judge
    /// cannot write test cases).
    #[arg(long)]
    judge: String,
    /// Accepted test cases wanted.
    #[arg(long, default_value_t = 20)]
    count: u64,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Keep candidates the filter finds not answerable from their chunk alone.
    #[arg(long)]
    allow_unanswerable: bool,
    #[arg(long, default_value_t = 0.8)]
    min_faithfulness: f64,
    #[arg(long, default_value_t = 0.7)]
    min_relevance: f64,
    /// Stop before the judge's cost would pass this many USD.
    #[arg(long, value_name = "USD")]
    budget: Option<f64>,
    /// Show calls, tokens and cost without calling the judge.
    #[arg(long)]
    plan: bool,
    /// Name of the dataset the test cases go into.
    #[arg(long)]
    name: Option<String>,
    /// Also write the accepted test cases as JSONL here.
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    #[command(flatten)]
    chunking: ChunkArgs,
    #[arg(long)]
    json: bool,
}

pub fn generate(
    ctx: &Ctx,
    args: GenerateArgs,
    progress: Arc<dyn ProgressSink>,
) -> Result<(), Failure> {
    // The writer first: nothing is ingested for a judge that cannot write test cases.
    generate::check_writer(ctx, &args.judge)?;
    let cancel = crate::cancel_on_ctrl_c();
    let generation = match args.resume {
        Some(id) => generate::reopen(ctx, id, &args.judge, args.budget)?,
        None => {
            let request = GenerationRequest {
                corpus_id: corpus(ctx, &args, progress.as_ref())?,
                judge: args.judge.clone(),
                name: args.name.clone(),
                settings: settings(&args),
            };
            if args.plan {
                print_plan(&request, &generate::preview(ctx, &request)?);
                return Ok(());
            }
            generate::create(ctx, &request)?
        }
    };
    let outcome = generate::execute(ctx, generation, progress, &cancel)?;
    report(ctx, &args, &outcome)
}

fn settings(args: &GenerateArgs) -> GenerationSettings {
    GenerationSettings {
        count: args.count,
        seed: args.seed,
        require_answerable: !args.allow_unanswerable,
        min_faithfulness: args.min_faithfulness,
        min_relevance: args.min_relevance,
        budget_usd: args.budget,
    }
}

/// `--corpus ID`, or the documents given, ingested first.
fn corpus(ctx: &Ctx, args: &GenerateArgs, progress: &dyn ProgressSink) -> Result<i64, Error> {
    match (args.corpus, args.paths.is_empty()) {
        (Some(id), _) => Ok(id),
        (None, false) => {
            let request = args.chunking.request(&args.paths, None);
            let report = generate::ingest(ctx, &request, progress)?;
            print::ingest_report(&report);
            Ok(report.corpus_id)
        }
        (None, true) => Err(Error::Invalid(
            "give documents to generate from, or --corpus ID".into(),
        )),
    }
}

fn print_plan(request: &GenerationRequest, plan: &generate::JudgePlan) {
    println!(
        "Plan for {} test cases from corpus #{} with '{}': at least {} judge calls, ~{} input and ~{} output tokens, cost {}",
        request.settings.count,
        request.corpus_id,
        request.judge,
        plan.calls,
        plan.input_tokens,
        plan.output_tokens,
        match (plan.cost_low, plan.cost_high) {
            (Some(lo), Some(hi)) => format!("${lo:.2}–${hi:.2}"),
            _ => "unknown (the profile has no price)".into(),
        }
    );
}

/// The test set written where asked, what the generation decided, and how it stopped.
fn report(ctx: &Ctx, args: &GenerateArgs, outcome: &GenerationOutcome) -> Result<(), Failure> {
    let id = outcome.generation_id;
    if let Some(path) = &args.out {
        let written = generate::export(ctx, id, GenerationExport::TestSet, path)?;
        eprintln!("wrote {} test cases to {}", written.rows, path.display());
    }
    let candidates = generate::detail(ctx, id)?.candidates;
    if args.json {
        print_json(&serde_json::json!({ "outcome": outcome, "candidates": candidates }))?;
    } else {
        print::generation(outcome, &candidates);
    }
    let judge = &args.judge;
    if let Some(down) = &outcome.judge_down {
        // The judge's own code and exit status, as a run whose judge goes down gives them.
        eprintln!(
            "generation {id} stopped: check the judge with `ragnosis judges test {judge}` and continue with `ragnosis generate --resume {id} --judge {judge}`"
        );
        return Err(Error::JudgeDown {
            code: down.code,
            message: down.message.clone(),
        }
        .into());
    }
    if outcome.status == "cancelled" || outcome.status == "budget" {
        eprintln!(
            "generation {id} stopped ({}); continue it with `ragnosis generate --resume {id} --judge {judge}`",
            outcome.status
        );
    }
    Ok(())
}
