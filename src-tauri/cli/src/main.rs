//! `ragnosis`: the command line over `ragnosis-core`. Parses arguments, calls the core,
//! prints. Exit codes: 0 success, 1 a quality gate (`--fail-under` / `--fail-over`) said
//! FAIL, or `compare --fail-on-regression` found a regression, 2 usage or input error
//! (nothing evaluated), 3 runtime failure, 4 a gate was INCONCLUSIVE (the figures cannot
//! tell yet; `--inconclusive pass|fail` folds it into 0 or 1).

mod check;
mod corpora;
mod criteria;
mod evaluate;
mod gates;
mod judges;
mod print;
mod progress_bar;
mod report;
mod trust;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use ragnosis_core::dataset::{FieldMap, ImportLimits};
use ragnosis_core::export::{self, ExportFormat};
use ragnosis_core::metrics;
use ragnosis_core::progress::{CancelToken, NoProgress, ProgressSink};
use ragnosis_core::store::{self, Store};
use ragnosis_core::{import, paths, Error};

#[derive(Parser)]
#[command(
    name = "ragnosis",
    version,
    about = "Tells you why your RAG pipeline fails and what to fix"
)]
struct Cli {
    /// Directory holding Ragnosis's database (default: $RAGNOSIS_HOME or the platform data dir).
    #[arg(long, global = true, value_name = "DIR")]
    home: Option<PathBuf>,
    /// No progress output on stderr.
    #[arg(long, short, global = true)]
    quiet: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate a JSONL / JSON / CSV file and store it as a dataset.
    Import {
        file: PathBuf,
        #[arg(long)]
        name: Option<String>,
        /// Read FIELD from PATH in each record instead of the detected field, e.g.
        /// `--map question=vars.query --map contexts=vars.docs` (repeatable). Fields:
        /// question, answer, contexts, ground_truth, reference_contexts, id,
        /// retrieved_ids, gold_context_ids, citation_label.
        #[arg(long = "map", value_name = "FIELD=PATH")]
        map: Vec<String>,
        /// A Langfuse scores download (`GET /api/public/scores`, a list, or one score per
        /// line) read beside the trace FILE: each score becomes its trace's prior score.
        #[arg(long, value_name = "SCORES")]
        scores: Option<PathBuf>,
        /// Print the validation report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// List stored datasets.
    Datasets {
        #[arg(long)]
        json: bool,
    },
    /// List the metrics this build can compute, and your own criteria.
    ListMetrics {
        #[arg(long)]
        json: bool,
    },
    /// Evaluate a file or a stored dataset with the metrics you choose.
    Eval(evaluate::EvalArgs),
    /// Evaluate with metrics chosen per item from the fields it has.
    Agentic(evaluate::AgenticArgs),
    /// List runs.
    Runs {
        #[arg(long)]
        json: bool,
    },
    /// Show one run's summary.
    Show {
        run: i64,
        #[arg(long)]
        json: bool,
    },
    /// Continue a cancelled, failed or interrupted run without redoing stored results.
    Resume {
        run: i64,
        /// Judge profile to continue with (default: the run's own).
        #[arg(long)]
        judge: Option<String>,
    },
    /// Write a run's exports (json, md, csv).
    Export {
        run: i64,
        #[arg(long, value_name = "PATH")]
        out_base: PathBuf,
        #[arg(long, default_value = "json,md,csv")]
        format: String,
    },
    /// Write a stakeholder report of a run: PDF and/or Markdown with SVG charts.
    Report(report::ReportArgs),
    /// Compare two runs (B against baseline A): deltas with 95% intervals, flipped items, regressions.
    Compare(report::CompareArgs),
    /// Judge profiles: how to reach an LLM judge (keys live in the OS keyring).
    Judges {
        #[command(subcommand)]
        command: judges::JudgesCommand,
    },
    /// API keys in the OS keyring.
    Keys {
        #[command(subcommand)]
        command: judges::KeysCommand,
    },
    /// Measure a judge against human labels on the sample shipped with Ragnosis
    /// (claim support, attribution, answerability, similarity, designed failures) and
    /// keep the figures with the profile.
    JudgeCheck {
        /// Judge profile (default: the built-in offline judge).
        #[arg(default_value = ragnosis_core::judge::open::OFFLINE)]
        profile: String,
        #[arg(long)]
        json: bool,
    },
    /// The judge cache.
    Cache {
        #[command(subcommand)]
        command: judges::CacheCommand,
    },
    /// Cut documents (PDF, Markdown, text, HTML, or a JSONL of chunks) into a corpus of
    /// chunks for retriever evaluation and test-set generation.
    Ingest(corpora::IngestArgs),
    /// List stored corpora.
    Corpora {
        #[arg(long)]
        json: bool,
    },
    /// Rank a corpus for a dataset's questions with BM25 and the embedded model: Recall@K
    /// and MRR@K with 95% intervals, and queries per second.
    RetrievalEval(corpora::RetrievalEvalArgs),
    /// Write a test set from documents with a language-model judge (RAGalyst): a question
    /// and a reference answer per sampled chunk, kept when they pass answerability,
    /// faithfulness and relevance filters; rejected candidates are kept with the reason.
    Generate(corpora::GenerateArgs),
    /// Your own criteria: metrics you define in plain words (or as a regular expression,
    /// phrase list, length or language check), judged and reported like the built-ins.
    Criteria {
        #[command(subcommand)]
        command: criteria::CriteriaCommand,
    },
    /// People's labels on a run's items (kept per item, so they outlive the run).
    Labels {
        #[command(subcommand)]
        command: trust::LabelsCommand,
    },
    /// How far a run's scores agree with people's labels: Spearman ρ ± SE, Kendall τ,
    /// MAE per metric, and which items to label next.
    Alignment {
        run: i64,
        #[arg(long)]
        json: bool,
    },
    /// Scores the source tool gave (RAGAS, DeepEval, promptfoo, trace evaluations) beside
    /// this run's: without --pair, which there are; with --pair THEIRS=METRIC, their
    /// agreement (Spearman ρ ± SE, Kendall τ, MAE) and the items they disagree on most.
    Prior {
        run: i64,
        #[arg(long, value_name = "THEIRS=METRIC")]
        pair: Option<String>,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args, Clone)]
pub struct OutputArgs {
    /// Write exports to PATH.<ext>.
    #[arg(long, value_name = "PATH")]
    pub out_base: Option<PathBuf>,
    #[arg(long, default_value = "json,md,csv")]
    pub format: String,
}

/// Why the CLI stops with a non-zero code.
pub enum Failure {
    Core(Error),
    /// A quality gate was missed, or compare found a regression it was told to fail on (exit 1).
    Threshold(String),
    /// A gate could not be decided from the figures (exit 4).
    Inconclusive(String),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Core(e)
    }
}

fn main() -> ExitCode {
    restore_sigpipe();
    let cli = Cli::parse();
    let database = paths::database_path(&paths::home_dir(cli.home.as_deref()));
    match dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Threshold(message)) => {
            eprintln!("{message}");
            ExitCode::from(1)
        }
        Err(Failure::Inconclusive(message)) => {
            eprintln!("{message}");
            ExitCode::from(4)
        }
        Err(Failure::Core(e)) => {
            // The code in brackets is `ErrorCode`'s: stable, for scripts to branch on.
            eprintln!("error [{}]: {e}", e.code());
            // Where: a database failure (a full disk, a read-only folder) names the file
            // it concerns, unless the message already does.
            let store_failure = matches!(
                e.code(),
                ragnosis_core::ErrorCode::Store | ragnosis_core::ErrorCode::DatasetAborted
            );
            if store_failure && !e.to_string().contains(&*database.to_string_lossy()) {
                eprintln!("the database: {}", database.display());
            }
            if let Some(raw) = e.detail() {
                eprintln!("the judge's reply was:\n{raw}");
            }
            ExitCode::from(if e.is_input_error() { 2 } else { 3 })
        }
    }
}

fn dispatch(cli: Cli) -> Result<(), Failure> {
    let home = paths::home_dir(cli.home.as_deref());
    let progress: std::sync::Arc<dyn ProgressSink> = if cli.quiet {
        std::sync::Arc::new(NoProgress)
    } else {
        std::sync::Arc::new(progress_bar::Bars::default())
    };
    match cli.command {
        Command::Import {
            file,
            name,
            map,
            scores,
            json,
        } => {
            let mut map = FieldMap::parse(&map).map_err(Error::Invalid)?;
            map.scores_file = scores;
            let mut store = Store::open(&home)?;
            let imported =
                import_checked(&mut store, &file, name.as_deref(), &map, progress.as_ref())?;
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&imported.report).map_err(Error::from)?
                );
            } else {
                print::import_report(&imported);
            }
        }
        Command::Datasets { json } => {
            let store = Store::open(&home)?;
            let rows = store::datasets::list(store.conn())?;
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&rows).map_err(Error::from)?
                );
            } else {
                print::datasets(&rows);
            }
        }
        Command::ListMetrics { json } => {
            let mut specs: Vec<metrics::MetricSpec> = metrics::catalogue().to_vec();
            if let Some(store) = existing_store(&home)? {
                let own = ragnosis_core::run::criteria::current(&store)?;
                specs.extend(own.into_iter().map(|(_, spec)| spec.clone()));
            }
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&specs).map_err(Error::from)?
                );
            } else {
                print::metric_list(&specs);
            }
        }
        Command::Eval(args) => evaluate::eval(&home, args, progress)?,
        Command::Agentic(args) => evaluate::agentic(&home, args, progress)?,
        Command::Runs { json } => {
            let store = Store::open(&home)?;
            let runs = store::runs::list(store.conn())?;
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&runs).map_err(Error::from)?
                );
            } else {
                let mut rows = Vec::with_capacity(runs.len());
                for run in runs {
                    let totals = store::runs::totals(store.conn(), run.id)?;
                    let status = ragnosis_core::run::owner::shown_status(&store, &run);
                    rows.push((run, totals, status));
                }
                print::runs(&rows);
            }
        }
        Command::Show { run, json } => {
            let mut store = Store::open(&home)?;
            let report =
                export::ReportView::load(&mut store, run, &export::ReportOptions::default())?;
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&ShowJson::of(&report)).map_err(Error::from)?
                );
            } else {
                let totals: ragnosis_core::run::RunTotals = store::runs::totals(store.conn(), run)?;
                print::run_summary(
                    &report,
                    totals.calls + totals.cache_hits + totals.failures > 0,
                );
            }
        }
        Command::Resume { run, judge } => evaluate::resume(&home, run, judge, progress)?,
        Command::Export {
            run,
            out_base,
            format,
        } => {
            let mut store = Store::open(&home)?;
            let outputs = parse_formats(&format)?;
            for path in write_outputs(&mut store, run, &out_base, &outputs)? {
                println!("wrote {}", path.display());
            }
        }
        Command::Report(args) => report::report(&home, args)?,
        Command::Compare(args) => report::compare(&home, args)?,
        Command::Judges { command } => judges::judges(&home, command)?,
        Command::Keys { command } => judges::keys(&home, command)?,
        Command::Cache { command } => judges::cache(&home, command)?,
        Command::JudgeCheck { profile, json } => {
            check::judge_check(&home, &profile, json, progress)?
        }
        Command::Labels { command } => trust::labels(&home, command)?,
        Command::Criteria { command } => criteria::criteria(&home, command)?,
        Command::Ingest(args) => corpora::ingest(&home, args, progress)?,
        Command::Corpora { json } => corpora::corpora(&home, json)?,
        Command::RetrievalEval(args) => corpora::retrieval_eval(&home, args, progress)?,
        Command::Generate(args) => corpora::generate(&home, args, progress)?,
        Command::Alignment { run, json } => trust::alignment(&home, run, json)?,
        Command::Prior { run, pair, json } => trust::prior(&home, run, pair.as_deref(), json)?,
    }
    Ok(())
}

/// The database when one exists in `home` (its criteria then registered), without
/// creating one: what lists and argument checks read before anything is stored.
pub fn existing_store(home: &std::path::Path) -> Result<Option<Store>, Error> {
    if paths::database_path(home).exists() {
        Ok(Some(Store::open(home)?))
    } else {
        Ok(None)
    }
}

/// `ragnosis runs | head`: when the reader goes away, end quietly like other command-line
/// tools instead of panicking on the failed write. Rust ignores SIGPIPE by default, so
/// every print would report "Broken pipe" with a backtrace.
fn restore_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in main, before any thread exists; SIG_DFL is a valid
    // disposition for SIGPIPE.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

pub fn import_checked(
    store: &mut Store,
    file: &std::path::Path,
    name: Option<&str>,
    map: &FieldMap,
    progress: &dyn ProgressSink,
) -> Result<import::Imported, Error> {
    let limits = ImportLimits::default();
    let imported = import::import_file_mapped(store, file, name, &limits, map, progress)?;
    if imported.report.items_accepted == 0 && !imported.reused {
        // The reasons line by line first; the refusal then says it in one sentence.
        print::import_report(&imported);
    }
    import::refuse_empty(store, file, imported)
}

/// What `--format` asks to write: data files (json, csv) from core's export, and the
/// report as Markdown with its charts (md) from the report crate, the one writer of
/// everything meant for people.
pub struct Outputs {
    pub data: Vec<ExportFormat>,
    pub markdown: bool,
}

pub fn parse_formats(list: &str) -> Result<Outputs, Error> {
    let mut outputs = Outputs {
        data: Vec::new(),
        markdown: false,
    };
    for s in list.split(',').filter(|s| !s.trim().is_empty()) {
        if matches!(s.trim().to_ascii_lowercase().as_str(), "md" | "markdown") {
            outputs.markdown = true;
        } else {
            outputs.data.push(ExportFormat::parse(s).ok_or_else(|| {
                Error::Invalid(format!("unknown export format '{s}' (use json, md, csv)"))
            })?);
        }
    }
    Ok(outputs)
}

/// Writes `base.<ext>` for every output asked for, and returns the paths written.
pub fn write_outputs(
    store: &mut Store,
    run_id: i64,
    base: &std::path::Path,
    outputs: &Outputs,
) -> Result<Vec<PathBuf>, Error> {
    let mut written = export::write_all(store, run_id, base, &outputs.data)?;
    if outputs.markdown {
        written.extend(report::markdown(store, run_id, base)?);
    }
    Ok(written)
}

/// First Ctrl-C cancels the run cleanly (it stays resumable); a second one exits.
pub fn cancel_on_ctrl_c() -> CancelToken {
    let token = CancelToken::new();
    let handler_token = token.clone();
    let _ = ctrlc::set_handler(move || {
        if handler_token.is_cancelled() {
            std::process::exit(130);
        }
        eprintln!("\ncancelling: finishing the items in flight (Ctrl-C again to quit now)");
        handler_token.cancel();
    });
    token
}

/// `ragnosis show RUN --json`: the run's view as before, plus what the terminal prints
/// after the tables — the headline, the failing items of each pattern (worst first),
/// the trust statement, the insights and the user's own criteria.
#[derive(serde::Serialize)]
struct ShowJson<'a> {
    #[serde(flatten)]
    run: &'a export::RunView,
    headline: &'a [String],
    failing_items: &'a [export::report_view::PatternView],
    trust: &'a export::TrustStatement,
    insights: &'a Option<ragnosis_core::analysis::insights::RunInsights>,
    criteria: &'a [export::CriterionReport],
}

impl<'a> ShowJson<'a> {
    fn of(report: &'a export::ReportView) -> Self {
        ShowJson {
            run: &report.run,
            headline: &report.headline,
            failing_items: &report.patterns,
            trust: &report.trust,
            insights: &report.insights,
            criteria: &report.criteria,
        }
    }
}
