//! `ragnosis`: the command line over `ragnosis-core`. Parses arguments, calls the core,
//! prints. Exit codes: 0 success, 2 usage or input error (nothing evaluated),
//! 3 runtime failure.

mod print;
mod progress_bar;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use ragnosis_core::dataset::ImportLimits;
use ragnosis_core::export::{self, ExportFormat};
use ragnosis_core::metrics::{self, MetricConfig};
use ragnosis_core::progress::{CancelToken, NoProgress, ProgressSink};
use ragnosis_core::run::{self, RunRequest, Selection};
use ragnosis_core::store::{self, Store};
use ragnosis_core::{import, paths, Error};

#[derive(Parser)]
#[command(name = "ragnosis", version, about = "Tells you why your RAG pipeline fails and what to fix")]
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
        /// Print the validation report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// List stored datasets.
    Datasets {
        #[arg(long)]
        json: bool,
    },
    /// List the metrics this build can compute.
    ListMetrics {
        #[arg(long)]
        json: bool,
    },
    /// Evaluate a file or a stored dataset with the chosen metrics.
    Eval(EvalArgs),
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
    Resume { run: i64 },
    /// Write a run's exports (json, md, csv).
    Export {
        run: i64,
        #[arg(long, value_name = "PATH")]
        out_base: PathBuf,
        #[arg(long, default_value = "json,md,csv")]
        format: String,
    },
}

#[derive(Args)]
struct EvalArgs {
    /// A file to import and evaluate.
    #[arg(conflicts_with = "dataset", required_unless_present = "dataset")]
    file: Option<PathBuf>,
    /// A stored dataset id instead of a file.
    #[arg(long)]
    dataset: Option<i64>,
    /// Comma-separated metric ids, bare names or families (e.g. `citation,reference.token_f1`).
    #[arg(long, required = true)]
    metrics: String,
    /// Evaluate only the first N items.
    #[arg(long)]
    limit: Option<usize>,
    /// Evaluate a random sample of N items (with --seed).
    #[arg(long)]
    sample: Option<usize>,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[arg(long)]
    label: Option<String>,
    #[arg(long)]
    version: Option<String>,
    #[arg(long)]
    notes: Option<String>,
    /// k for recall_at_k and mrr_at_k.
    #[arg(long, default_value_t = 10)]
    k: usize,
    /// Regex whose first capture group is a cited id.
    #[arg(long)]
    citation_pattern: Option<String>,
    /// Write exports to PATH.<ext>.
    #[arg(long, value_name = "PATH")]
    out_base: Option<PathBuf>,
    #[arg(long, default_value = "json,md,csv")]
    format: String,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match dispatch(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(if e.is_input_error() { 2 } else { 3 })
        }
    }
}

fn dispatch(cli: Cli) -> Result<(), Error> {
    let home = paths::home_dir(cli.home.as_deref());
    let progress: Box<dyn ProgressSink> =
        if cli.quiet { Box::new(NoProgress) } else { Box::new(progress_bar::Bars::default()) };
    match cli.command {
        Command::Import { file, name, json } => {
            let mut store = Store::open(&home)?;
            let imported = import_checked(&mut store, &file, name.as_deref(), progress.as_ref())?;
            if json {
                println!("{}", serde_json::to_string_pretty(&imported.report)?);
            } else {
                print::import_report(&imported);
            }
            Ok(())
        }
        Command::Datasets { json } => {
            let store = Store::open(&home)?;
            let rows = store::datasets::list(store.conn())?;
            if json {
                println!("{}", serde_json::to_string_pretty(&rows)?);
            } else {
                print::datasets(&rows);
            }
            Ok(())
        }
        Command::ListMetrics { json } => {
            if json {
                println!("{}", serde_json::to_string_pretty(metrics::catalogue())?);
            } else {
                print::metric_list(metrics::catalogue());
            }
            Ok(())
        }
        Command::Eval(args) => eval(&home, args, progress.as_ref()),
        Command::Runs { json } => {
            let store = Store::open(&home)?;
            let runs = store::runs::list(store.conn())?;
            if json {
                println!("{}", serde_json::to_string_pretty(&runs)?);
            } else {
                print::runs(&runs);
            }
            Ok(())
        }
        Command::Show { run, json } => {
            let mut store = Store::open(&home)?;
            let view = export::RunView::load(&mut store, run)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&view)?);
            } else {
                print::run_summary(&view);
            }
            Ok(())
        }
        Command::Resume { run } => {
            let mut store = Store::open(&home)?;
            let cancel = cancel_on_ctrl_c();
            let outcome = run::execute(&mut store, run, progress.as_ref(), &cancel)?;
            finish_run(&mut store, outcome, None, "")
        }
        Command::Export { run, out_base, format } => {
            let mut store = Store::open(&home)?;
            let formats = parse_formats(&format)?;
            for path in export::write_all(&mut store, run, &out_base, &formats)? {
                println!("wrote {}", path.display());
            }
            Ok(())
        }
    }
}

fn eval(home: &Path, args: EvalArgs, progress: &dyn ProgressSink) -> Result<(), Error> {
    // Check everything the user typed before touching any file or the database.
    let selected = metrics::resolve_selection(&args.metrics.split(',').collect::<Vec<_>>())?;
    let formats = parse_formats(&args.format)?;
    if args.k == 0 {
        return Err(Error::Invalid("--k must be at least 1".into()));
    }
    let mut config = MetricConfig { k: args.k, ..MetricConfig::default() };
    if let Some(pattern) = args.citation_pattern {
        metrics::citation::compile_pattern(&pattern)
            .map_err(|e| Error::Invalid(format!("--citation-pattern is not a valid regex: {e}")))?;
        config.citation_pattern = pattern;
    }
    let mut store = Store::open(home)?;
    let dataset_id = match (&args.file, args.dataset) {
        (Some(file), _) => {
            let imported = import_checked(&mut store, file, None, progress)?;
            print::import_report_short(&imported);
            imported.dataset.id
        }
        (None, Some(id)) => store::datasets::get(store.conn(), id)?.id,
        (None, None) => return Err(Error::Invalid("give a FILE or --dataset ID".into())),
    };
    let request = RunRequest {
        dataset_id,
        metrics: selected.iter().map(|m| m.id.to_string()).collect(),
        label: args.label,
        version: args.version,
        notes: args.notes,
        selection: Selection { limit: args.limit, sample: args.sample, seed: args.seed },
        metric_config: config,
    };
    let run_id = run::plan(&mut store, &request)?;
    let cancel = cancel_on_ctrl_c();
    let outcome = run::execute(&mut store, run_id, progress, &cancel)?;
    let out_base = args.out_base.as_deref();
    finish_run(&mut store, outcome, out_base, &formats_to_string(&formats))
}

fn finish_run(
    store: &mut Store,
    outcome: run::RunOutcome,
    out_base: Option<&Path>,
    formats: &str,
) -> Result<(), Error> {
    let view = export::RunView::load(store, outcome.run_id)?;
    print::run_summary(&view);
    if outcome.status == store::runs::RunStatus::Cancelled {
        eprintln!("run {} was cancelled; continue it with `ragnosis resume {}`", outcome.run_id, outcome.run_id);
        return Err(Error::Cancelled);
    }
    if let Some(base) = out_base {
        for path in export::write_all(store, outcome.run_id, base, &parse_formats(formats)?)? {
            eprintln!("wrote {}", path.display());
        }
    }
    Ok(())
}

fn import_checked(
    store: &mut Store,
    file: &Path,
    name: Option<&str>,
    progress: &dyn ProgressSink,
) -> Result<import::Imported, Error> {
    let imported = import::import_file(store, file, name, &ImportLimits::default(), progress)?;
    if imported.report.items_accepted == 0 {
        print::import_report(&imported);
        return Err(Error::Invalid(format!("{} has no valid items", file.display())));
    }
    Ok(imported)
}

fn parse_formats(list: &str) -> Result<Vec<ExportFormat>, Error> {
    list.split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| ExportFormat::parse(s).ok_or_else(|| Error::Invalid(format!("unknown export format '{s}' (use json, md, csv)"))))
        .collect()
}

fn formats_to_string(formats: &[ExportFormat]) -> String {
    formats.iter().map(|f| f.extension()).collect::<Vec<_>>().join(",")
}

/// First Ctrl-C cancels the run cleanly (it stays resumable); a second one exits.
fn cancel_on_ctrl_c() -> CancelToken {
    let token = CancelToken::new();
    let handler_token = token.clone();
    let _ = ctrlc::set_handler(move || {
        if handler_token.is_cancelled() {
            std::process::exit(130);
        }
        eprintln!("\ncancelling after the current batch (Ctrl-C again to quit now)");
        handler_token.cancel();
    });
    token
}
