//! `report` and `compare`: stakeholder reports (PDF, Markdown with SVG charts) of one run,
//! and comparisons of two runs (the same report of run B with a comparison section, or
//! the comparison alone as JSON).
//!
//! The report's date line is the only clock in the output: it is now, or
//! `SOURCE_DATE_EPOCH` when set (the reproducible-builds convention), or `--date`.

use std::path::{Path, PathBuf};

use clap::Args;
use ragnosis_core::analysis::compare::{self, DEFAULT_THRESHOLD};
use ragnosis_core::export::{Detail, ReportOptions, ReportView};
use ragnosis_core::store::Store;
use ragnosis_core::Error;
use ragnosis_report::Format;

use crate::Failure;

#[derive(Args, Clone)]
pub struct ReportArgs {
    /// The run to report on.
    run: i64,
    /// Comma-separated: pdf, md.
    #[arg(long, default_value = "pdf,md")]
    format: String,
    /// Output path without extension (default: ./ragnosis-run-RUN); charts go beside the .md.
    #[arg(long, value_name = "PATH")]
    out: Option<PathBuf>,
    /// Items shown in full in the appendix.
    #[arg(long, value_name = "N", default_value_t = 10)]
    worst: usize,
    /// Text of the report's date line (default: now, or SOURCE_DATE_EPOCH).
    #[arg(long, value_name = "TEXT")]
    date: Option<String>,
    /// short (default): headline metrics, failure patterns with examples, action items;
    /// full: every metric and chart, the insights and the worst items in full.
    #[arg(long, value_name = "short|full", default_value = "short", value_parser = parse_detail)]
    detail: Detail,
}

fn parse_detail(s: &str) -> Result<Detail, String> {
    Detail::parse(s).ok_or_else(|| format!("unknown detail \"{s}\": use short or full"))
}

#[derive(Args, Clone)]
pub struct CompareArgs {
    /// The baseline run (A).
    run_a: i64,
    /// The run compared with it (B); a pdf or md report is a report of this run.
    run_b: i64,
    /// Comma-separated: pdf, md, json.
    #[arg(long, default_value = "md,json")]
    format: String,
    /// Output path without extension (default: ./ragnosis-compare-A-vs-B).
    #[arg(long, value_name = "PATH")]
    out: Option<PathBuf>,
    /// A metric that got worse by more than this is flagged.
    #[arg(long, value_name = "T", default_value_t = DEFAULT_THRESHOLD)]
    threshold: f64,
    /// Items shown in full in the appendix.
    #[arg(long, value_name = "N", default_value_t = 10)]
    worst: usize,
    /// Text of the report's date line (default: now, or SOURCE_DATE_EPOCH).
    #[arg(long, value_name = "TEXT")]
    date: Option<String>,
    /// Exit with code 1 when a metric regressed (worse by more than the threshold with
    /// its whole 95% interval on the worse side; a change within noise never fails).
    #[arg(long)]
    fail_on_regression: bool,
    /// Compare runs judged differently (another judge, model, prompt version or metric
    /// list): refused without it, because their differences would be the judges'. Every
    /// output then carries the warning.
    #[arg(long)]
    allow_different_judges: bool,
    /// With --fail-on-regression, what a metric the comparison cannot decide does to the
    /// exit status: `exit` (code 4, the default), or counted as a `pass` or a `fail`.
    #[arg(long, value_name = "exit|pass|fail", default_value = "exit")]
    inconclusive: String,
}

pub fn report(home: &Path, args: ReportArgs) -> Result<(), Failure> {
    let (formats, _) = parse(&args.format, false)?;
    let mut store = Store::open(home)?;
    let options = ReportOptions {
        generated_at: ragnosis_report::date_line(args.date),
        worst: args.worst,
        detail: args.detail,
        ..ReportOptions::default()
    };
    let view = ReportView::load(&mut store, args.run, &options)?;
    let base = args
        .out
        .unwrap_or_else(|| PathBuf::from(format!("ragnosis-run-{}", args.run)));
    print_written(ragnosis_report::write(&view, &formats, &base).map_err(|e| failure(e, &base))?);
    Ok(())
}

pub fn compare(home: &Path, args: CompareArgs) -> Result<(), Failure> {
    let (formats, json) = parse(&args.format, true)?;
    let mut store = Store::open(home)?;
    let base = args.out.unwrap_or_else(|| {
        PathBuf::from(format!("ragnosis-compare-{}-vs-{}", args.run_a, args.run_b))
    });
    let mut written = Vec::new();
    let comparison = compare::compare_runs(
        &store,
        args.run_a,
        args.run_b,
        args.threshold,
        args.allow_different_judges,
    )?;
    crate::print::comparison(&comparison);
    if json {
        let path = ragnosis_report::with_extension(&base, "json");
        let text = serde_json::to_string_pretty(&comparison).map_err(Error::from)?;
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|source| Error::Write {
                path: parent.to_path_buf(),
                source,
            })?;
        }
        ragnosis_core::output_file::write(&path, (text + "\n").as_bytes())?;
        written.push(path);
    }
    if !formats.is_empty() {
        let options = ReportOptions {
            generated_at: ragnosis_report::date_line(args.date),
            worst: args.worst,
            baseline: Some(args.run_a),
            threshold: args.threshold,
            allow_different_judges: args.allow_different_judges,
            ..ReportOptions::default()
        };
        let view = ReportView::load(&mut store, args.run_b, &options)?;
        written
            .extend(ragnosis_report::write(&view, &formats, &base).map_err(|e| failure(e, &base))?);
    }
    print_written(written);
    if !args.fail_on_regression {
        return Ok(());
    }
    let verdicts: Vec<_> = comparison
        .metrics
        .iter()
        .map(|m| ragnosis_core::analysis::gate::regression(m, comparison.threshold))
        .collect();
    crate::gates::settle(&verdicts, args.inconclusive.parse()?, "regression gate")
}

/// Report formats, and whether `json` was asked for (only `compare` accepts it).
fn parse(list: &str, json_allowed: bool) -> Result<(Vec<Format>, bool), Failure> {
    let mut formats = Vec::new();
    let mut json = false;
    for entry in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if json_allowed && entry.eq_ignore_ascii_case("json") {
            json = true;
        } else if let Some(format) = Format::parse(entry) {
            if !formats.contains(&format) {
                formats.push(format);
            }
        } else {
            let allowed = if json_allowed {
                "pdf, md, json"
            } else {
                "pdf, md"
            };
            return Err(
                Error::Invalid(format!("unknown report format '{entry}' (use {allowed})")).into(),
            );
        }
    }
    if formats.is_empty() && !json {
        return Err(Error::Invalid("no report format given".into()).into());
    }
    Ok((formats, json))
}

/// The run's report as Markdown with its charts at `base.md` (what `--format md` of
/// `eval`, `agentic` and `export` writes): the same model as the PDF.
pub fn markdown(store: &mut Store, run_id: i64, base: &Path) -> Result<Vec<PathBuf>, Error> {
    let options = ReportOptions {
        generated_at: ragnosis_report::date_line(None),
        ..ReportOptions::default()
    };
    let view = ReportView::load(store, run_id, &options)?;
    if let Some(parent) = base.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| Error::Write {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    ragnosis_report::write(&view, &[Format::Markdown], base).map_err(|e| match failure(e, base) {
        Failure::Core(e) => e,
        Failure::Threshold(m) | Failure::Inconclusive(m) => Error::Invalid(m),
    })
}

/// A report error as the CLI reports it: chart and typesetting failures are runtime
/// failures of writing `base` (exit 3), not input errors.
pub(crate) fn failure(e: ragnosis_report::Error, base: &Path) -> Failure {
    match e {
        ragnosis_report::Error::Core(e) => Failure::Core(e),
        ragnosis_report::Error::Write { path, source } => {
            Failure::Core(Error::Write { path, source })
        }
        other => Failure::Core(Error::Write {
            path: base.to_path_buf(),
            source: std::io::Error::other(other.to_string()),
        }),
    }
}

fn print_written(paths: Vec<PathBuf>) {
    for path in paths {
        println!("wrote {}", path.display());
    }
}
