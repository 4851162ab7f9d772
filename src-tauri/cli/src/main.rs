//! `ragnosis`: the command line over `ragnosis-api`. Parses arguments, calls one use case,
//! prints. Exit codes: 0 success, 1 a quality gate (`--fail-under` / `--fail-over`) said
//! FAIL, or `compare --fail-on-regression` found a regression, 2 usage or input error
//! (nothing evaluated), 3 runtime failure, 4 a gate was INCONCLUSIVE (the figures cannot
//! tell yet; `--inconclusive pass|fail` folds it into 0 or 1).

mod check;
mod corpora;
mod criteria;
mod evaluate;
mod experiments;
mod gates;
mod judges;
mod print;
mod profile;
mod progress_bar;
mod report;
mod trust;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use ragnosis_api::datasets::{self, ImportRequest};
use ragnosis_api::reports::{self, ReportFormat};
use ragnosis_api::{runs, CancelToken, Ctx, Error, ErrorCode, NoProgress, ProgressSink};

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
    Import(ImportArgs),
    /// Check the database file whole and keep a copy of it (in the home's `backups/`).
    Doctor {
        /// Check only; write no copy.
        #[arg(long)]
        no_backup: bool,
        #[arg(long)]
        json: bool,
    },
    /// List stored datasets (with those whose import stopped), or remove one.
    Datasets {
        #[arg(long)]
        json: bool,
        #[command(subcommand)]
        action: Option<DatasetAction>,
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
    /// Ask a run a question: why an item is flagged, what to fix first, which items show
    /// a pattern, how far to trust it. Answered by rules from the run's stored facts
    /// (no language model), citing the run's own items.
    Ask(AskArgs),
    /// Try an action: record the change you will make for one failure pattern of a run;
    /// the next evaluated version of the test set says what it did to each item.
    Try(experiments::TryArgs),
    /// A test set over its versions: every finished run with its scores and regressions,
    /// and what each experiment did (fixed, still failing, worse).
    History(experiments::HistoryArgs),
    /// Show or edit a dataset's pipeline profile (retriever, chunk size, top-k, reranker,
    /// models, temperature, prompt notes): reports show it, actions read it.
    Profile(profile::ProfileArgs),
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
        /// Text of the Markdown or PDF report's date line (default: now, or
        /// SOURCE_DATE_EPOCH).
        #[arg(long, value_name = "TEXT")]
        date: Option<String>,
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
        #[arg(default_value = ragnosis_api::judges::OFFLINE)]
        profile: String,
        #[arg(long)]
        json: bool,
        /// Send the check's calls through the provider's batch API (OpenAI, Azure
        /// OpenAI, Anthropic): half price, results within 24 h. Running the same
        /// command again picks up a batch an interrupted check left waiting.
        #[arg(long)]
        batch: bool,
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
    let ctx = Ctx::new(cli.home.as_deref());
    let database = ctx.database_path();
    match dispatch(&ctx, cli) {
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
            let store_failure = matches!(e.code(), ErrorCode::Store | ErrorCode::DatasetAborted);
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

fn dispatch(ctx: &Ctx, cli: Cli) -> Result<(), Failure> {
    let progress: std::sync::Arc<dyn ProgressSink> = if cli.quiet {
        std::sync::Arc::new(NoProgress)
    } else {
        std::sync::Arc::new(progress_bar::Bars::default())
    };
    match cli.command {
        Command::Import(args) => import_file(ctx, args, progress.as_ref())?,
        Command::Doctor { no_backup, json } => doctor(ctx, !no_backup, json)?,
        Command::Datasets {
            action: Some(DatasetAction::Rm { id, yes }),
            ..
        } => remove_dataset(ctx, id, yes)?,
        Command::Datasets { json, action: None } => {
            let rows = datasets::list_all(ctx)?;
            if json {
                print_json(&rows)?;
            } else {
                print::datasets(&rows);
            }
        }
        Command::ListMetrics { json } => {
            let specs = runs::metrics(ctx)?;
            if json {
                print_json(&specs)?;
            } else {
                print::metric_list(&specs);
            }
        }
        Command::Eval(args) => evaluate::eval(ctx, args, progress)?,
        Command::Agentic(args) => evaluate::agentic(ctx, args, progress)?,
        Command::Runs { json } => list_runs(ctx, json)?,
        Command::Show { run, json } => show(ctx, run, json)?,
        Command::Ask(args) => ask(ctx, args)?,
        Command::Try(args) => experiments::try_action(ctx, args)?,
        Command::History(args) => experiments::history(ctx, args)?,
        Command::Profile(args) => profile::profile(ctx, args)?,
        Command::Resume { run, judge } => evaluate::resume(ctx, run, judge, progress)?,
        Command::Export {
            run,
            out_base,
            format,
            date,
        } => {
            let formats = export_formats(&format)?;
            for path in reports::export(ctx, run, &out_base, &formats, date)? {
                println!("wrote {}", path.display());
            }
        }
        Command::Report(args) => report::report(ctx, args)?,
        Command::Compare(args) => report::compare(ctx, args)?,
        Command::Judges { command } => judges::judges(ctx, command)?,
        Command::Keys { command } => judges::keys(ctx, command)?,
        Command::Cache { command } => judges::cache(ctx, command)?,
        Command::JudgeCheck {
            profile,
            json,
            batch,
        } => check::judge_check(ctx, &profile, json, batch, progress)?,
        Command::Labels { command } => trust::labels(ctx, command)?,
        Command::Criteria { command } => criteria::criteria(ctx, command)?,
        Command::Ingest(args) => corpora::ingest(ctx, args, progress)?,
        Command::Corpora { json } => corpora::corpora(ctx, json)?,
        Command::RetrievalEval(args) => corpora::retrieval_eval(ctx, args, progress)?,
        Command::Generate(args) => corpora::generate(ctx, args, progress)?,
        Command::Alignment { run, json } => trust::alignment(ctx, run, json)?,
        Command::Prior { run, pair, json } => trust::prior(ctx, run, pair.as_deref(), json)?,
    }
    Ok(())
}

#[derive(Args)]
struct ImportArgs {
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
    /// The file is the next version of dataset ID's test set (the same item ids,
    /// another pipeline's answers): experiments tried on the earlier version are
    /// checked on this one's runs, and `history` follows both.
    #[arg(long, value_name = "ID")]
    version_of: Option<i64>,
    /// Print the validation report as JSON.
    #[arg(long)]
    json: bool,
}

/// `import`: the file stored as a dataset, its report printed.
fn import_file(ctx: &Ctx, args: ImportArgs, progress: &dyn ProgressSink) -> Result<(), Error> {
    let mut request = ImportRequest {
        name: args.name,
        version_of: args.version_of,
        ..ImportRequest::new(args.file)
    }
    .with_specs(&args.map)?;
    request.map.scores_file = args.scores;
    let imported = import(ctx, &request, progress)?;
    if args.json {
        print_json(&imported.report)
    } else {
        print::import_report(&imported);
        Ok(())
    }
}

fn list_runs(ctx: &Ctx, json: bool) -> Result<(), Error> {
    let rows = runs::list(ctx)?;
    if json {
        let rows: Vec<_> = rows.iter().map(|info| &info.run).collect();
        print_json(&rows)
    } else {
        print::runs(&rows);
        Ok(())
    }
}

fn show(ctx: &Ctx, run: i64, json: bool) -> Result<(), Error> {
    let shown = reports::show(ctx, run)?;
    if json {
        print_json(&ShowJson::of(&shown.report))
    } else {
        print::run_summary(&shown.report, shown.judge_asked);
        Ok(())
    }
}

/// Pretty JSON on stdout: what `--json` prints.
/// `doctor`: the check's verdict, the copy's path, and what to do; exit 3 when damaged.
fn doctor(ctx: &Ctx, backup: bool, json: bool) -> Result<(), Error> {
    let health = ragnosis_api::settings::doctor(ctx, backup)?;
    if json {
        print_json(&health)?;
    } else {
        println!(
            "database {} ({} bytes)",
            health.path.display(),
            health.size_bytes
        );
        if let Some(copy) = &health.backup {
            println!("copied to {}", copy.display());
        }
        if health.is_whole() {
            println!("whole: SQLite's integrity check found nothing wrong");
        }
        for problem in &health.problems {
            println!("damaged: {problem}");
        }
    }
    if health.is_whole() {
        Ok(())
    } else {
        Err(Error::DatabaseUnusable {
            path: health.path.clone(),
            reason: format!(
                "the file is damaged ({} problem(s) above). {}",
                health.problems.len(),
                ragnosis_api::DAMAGED_DATABASE
            ),
        })
    }
}

#[derive(Subcommand)]
enum DatasetAction {
    /// Remove a dataset with its items, runs and results, and give the space back.
    Rm {
        id: i64,
        /// Remove without asking (asked otherwise; required when no one can answer).
        #[arg(long)]
        yes: bool,
    },
}

/// `datasets rm`: says what goes, asks unless `--yes`, removes.
fn remove_dataset(ctx: &Ctx, id: i64, yes: bool) -> Result<(), Error> {
    use std::io::{BufRead, IsTerminal, Write};
    let removal = datasets::removal(ctx, id)?;
    let what = format!(
        "dataset {id} \"{}\" ({}{} items) and its {} run(s) with their results",
        removal.dataset.name,
        if removal.dataset.status == "ready" {
            ""
        } else {
            "incomplete, "
        },
        removal.items,
        removal.runs
    );
    if !yes {
        if !std::io::stdin().is_terminal() {
            return Err(Error::Invalid(format!(
                "removing {what} needs a confirmation: add --yes"
            )));
        }
        print!("Remove {what}? This cannot be undone. [y/N] ");
        std::io::stdout().flush().ok();
        let mut answer = String::new();
        std::io::stdin().lock().read_line(&mut answer).ok();
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            println!("nothing removed");
            return Ok(());
        }
    }
    datasets::remove(ctx, id)?;
    println!("removed {what}");
    Ok(())
}

#[derive(clap::Args)]
struct AskArgs {
    run: i64,
    /// The question, e.g. "what should I fix first?" or "why is t-13 flagged?".
    question: String,
    /// The item asked about: its id in your file, or the run's item id.
    #[arg(long, value_name = "ID")]
    item: Option<String>,
    /// An earlier run to compare this one with ("what got worse?").
    #[arg(long, value_name = "RUN")]
    against: Option<i64>,
    /// A judge profile whose model answers from the same facts (its key from the
    /// keyring); without one, rules answer and no data leaves the machine.
    #[arg(long, value_name = "PROFILE")]
    judge: Option<String>,
    #[arg(long)]
    json: bool,
}

/// `ask`: the advisor's answer about one run, printed or as JSON.
fn ask(ctx: &Ctx, args: AskArgs) -> Result<(), Error> {
    let asked = ragnosis_api::advisor::Asked {
        item: args.item.as_deref(),
        against: args.against,
        judge: args.judge.as_deref(),
    };
    let answer = ragnosis_api::advisor::ask(ctx, args.run, &args.question, &asked)?;
    if args.json {
        print_json(&answer)
    } else {
        print::answer(&answer);
        Ok(())
    }
}

pub fn print_json(value: &impl serde::Serialize) -> Result<(), Error> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
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

/// Imports a file; one that gives no item has its report's lines printed, then the
/// refusal says it in one sentence.
pub fn import(
    ctx: &Ctx,
    request: &ImportRequest,
    progress: &dyn ProgressSink,
) -> Result<datasets::Imported, Error> {
    datasets::import_inspected(ctx, request, progress, print::import_report)
}

/// What `--format` of `eval`, `agentic` and `export` may ask: data files (json, csv) and
/// the report as Markdown with its charts (md).
pub fn export_formats(list: &str) -> Result<Vec<ReportFormat>, Error> {
    use ReportFormat::{Csv, Json, Markdown};
    ReportFormat::parse_list(list, &[Json, Markdown, Csv])
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
    run: &'a reports::RunView,
    headline: &'a [String],
    failing_items: &'a [reports::report::PatternView],
    trust: &'a reports::TrustStatement,
    insights: &'a Option<runs::RunInsights>,
    criteria: &'a [reports::CriterionReport],
}

impl<'a> ShowJson<'a> {
    fn of(report: &'a reports::ReportView) -> Self {
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
