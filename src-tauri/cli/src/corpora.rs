//! `ragnosis ingest`, `ragnosis corpora` and `ragnosis retrieval-eval`: documents cut into
//! chunks, and retrievers ranked on them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clap::Args;
use ragnosis_core::corpus::{self, Chunking};
use ragnosis_core::progress::ProgressSink;
use ragnosis_core::retrieval::{self, Retriever};
use ragnosis_core::store::{self, Store};
use ragnosis_core::Error;

use crate::{print, Failure};

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

/// How documents are cut (RAGalyst's defaults); shared by `ingest` and `generate`.
#[derive(Args)]
pub struct ChunkArgs {
    /// Words per chunk.
    #[arg(long, default_value_t = 800)]
    chunk_tokens: usize,
    /// Words shared by consecutive chunks.
    #[arg(long, default_value_t = 400)]
    overlap: usize,
}

impl ChunkArgs {
    fn chunking(&self) -> Chunking {
        Chunking {
            size: self.chunk_tokens,
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
    k: usize,
    /// Also write the comparison as a Markdown report (its chart beside it).
    #[arg(long, value_name = "FILE.md")]
    report: Option<PathBuf>,
    #[arg(long)]
    json: bool,
}

pub fn ingest(
    home: &Path,
    args: IngestArgs,
    progress: Arc<dyn ProgressSink>,
) -> Result<(), Failure> {
    let mut store = Store::open(home)?;
    let name = args
        .name
        .clone()
        .unwrap_or_else(|| corpus::default_name(&args.paths));
    let report = corpus::ingest(
        &mut store,
        &name,
        &args.paths,
        args.chunking.chunking(),
        progress.as_ref(),
    )?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(Error::from)?
        );
    } else {
        print::ingest_report(&report);
    }
    Ok(())
}

pub fn corpora(home: &Path, json: bool) -> Result<(), Failure> {
    let store = Store::open(home)?;
    let rows = store::corpora::list(store.conn())?;
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&rows).map_err(Error::from)?
        );
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
    home: &Path,
    args: RetrievalEvalArgs,
    progress: Arc<dyn ProgressSink>,
) -> Result<(), Failure> {
    let retrievers: Vec<Retriever> = args
        .retrievers
        .split(',')
        .filter(|s| !s.trim().is_empty())
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let store = Store::open(home)?;
    let eval = retrieval::evaluate(
        &store,
        args.dataset,
        args.corpus,
        &retrievers,
        args.k,
        &ragnosis_core::secrets::KeyringStore,
        progress.as_ref(),
    )?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&eval).map_err(Error::from)?
        );
    } else {
        print::retrieval_eval(&eval);
    }
    if let Some(path) = &args.report {
        let written = ragnosis_report::retrieval::write_report(&store, &eval, path)
            .map_err(|e| crate::report::failure(e, path))?;
        for p in written {
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
    home: &Path,
    args: GenerateArgs,
    progress: Arc<dyn ProgressSink>,
) -> Result<(), Failure> {
    use ragnosis_core::generate::{self, GenerationSettings};
    use ragnosis_core::judge::open;
    use ragnosis_core::secrets::KeyringStore;

    let mut store = Store::open(home)?;
    let profile = open::profile(&store, &args.judge)?;
    if profile.kind == ragnosis_core::judge::ProviderKind::Offline {
        return Err(Error::Invalid(ragnosis_core::judge::offline::NO_GENERATION.into()).into());
    }
    let settings = GenerationSettings {
        count: args.count,
        seed: args.seed,
        require_answerable: !args.allow_unanswerable,
        min_faithfulness: args.min_faithfulness,
        min_relevance: args.min_relevance,
        budget_usd: args.budget,
    };
    let cancel = crate::cancel_on_ctrl_c();
    let outcome = if let Some(generation) = args.resume {
        // A budget given with --resume replaces the stored one; it caps the whole
        // generation, what earlier executions spent included.
        if args.budget.is_some() {
            generate::set_budget(&store, generation, args.budget)?;
        }
        let judge = open::open_judge(&store, &profile.name, &KeyringStore)?;
        crate::judges::runtime()?.block_on(generate::resume(
            &mut store, generation, judge, progress, &cancel,
        ))?
    } else {
        let corpus_id = match (args.corpus, args.paths.is_empty()) {
            (Some(id), _) => store::corpora::get(store.conn(), id)?.id,
            (None, false) => {
                let report = corpus::ingest(
                    &mut store,
                    &corpus::default_name(&args.paths),
                    &args.paths,
                    args.chunking.chunking(),
                    progress.as_ref(),
                )?;
                print::ingest_report(&report);
                report.corpus_id
            }
            (None, true) => {
                return Err(Error::Invalid(
                    "give documents to generate from, or --corpus ID".into(),
                )
                .into())
            }
        };
        if args.plan {
            let plan = generate::plan(&store, corpus_id, &settings, &profile)?;
            println!(
                "Plan for {} test cases from corpus #{corpus_id} with '{}': at least {} judge calls, ~{} input and ~{} output tokens, cost {}",
                settings.count,
                profile.name,
                plan.calls,
                plan.input_tokens,
                plan.output_tokens,
                match (plan.cost_low, plan.cost_high) {
                    (Some(lo), Some(hi)) => format!("${lo:.2}–${hi:.2}"),
                    _ => "unknown (the profile has no price)".into(),
                }
            );
            return Ok(());
        }
        let judge = open::open_judge(&store, &profile.name, &KeyringStore)?;
        crate::judges::runtime()?.block_on(generate::start(
            &mut store,
            corpus_id,
            args.name.as_deref(),
            settings,
            judge,
            progress,
            &cancel,
        ))?
    };
    if let Some(path) = &args.out {
        let mut n = 0;
        ragnosis_core::output_file::write_with(path, |file| {
            n = generate::export_jsonl(&store, outcome.dataset_id, file)?;
            Ok(())
        })?;
        eprintln!("wrote {n} test cases to {}", path.display());
    }
    if args.json {
        let candidates = store::generations::candidates(store.conn(), outcome.generation_id)?;
        println!(
            "{}",
            serde_json::to_string_pretty(
                &serde_json::json!({ "outcome": outcome, "candidates": candidates })
            )
            .map_err(Error::from)?
        );
    } else {
        print::generation(&store, &outcome)?;
    }
    if outcome.status == "failing" {
        return Err(Error::Invalid(format!(
            "generation {} stopped: the judge's calls failed for {} candidates in a row; check the judge with `ragnosis judges test {}` and continue with `ragnosis generate --resume {} --judge {}`",
            outcome.generation_id,
            generate::FAILURES_IN_A_ROW,
            args.judge,
            outcome.generation_id,
            args.judge
        ))
        .into());
    }
    if outcome.status == "cancelled" || outcome.status == "budget" {
        eprintln!(
            "generation {} stopped ({}); continue it with `ragnosis generate --resume {} --judge {}`",
            outcome.generation_id, outcome.status, outcome.generation_id, args.judge
        );
    }
    Ok(())
}
