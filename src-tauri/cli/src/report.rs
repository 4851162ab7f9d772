//! `report` and `compare`: stakeholder reports (PDF, Markdown with SVG charts) of one run,
//! and comparisons of two runs (the same report of run B with a comparison section, or
//! the comparison alone as JSON).
//!
//! The report's date line is the only clock in the output: it is now, or
//! `SOURCE_DATE_EPOCH` when set (the reproducible-builds convention), or `--date`.

use std::path::PathBuf;

use clap::Args;
use ragnosis_api::reports::{
    self, Options, ReportDetail as Detail, ReportFormat, DEFAULT_THRESHOLD,
};
use ragnosis_api::Ctx;

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

pub fn report(ctx: &Ctx, args: ReportArgs) -> Result<(), Failure> {
    use ReportFormat::{Markdown, Pdf};
    let formats = ReportFormat::parse_list(&args.format, &[Pdf, Markdown])?;
    let options = Options {
        generated_at: reports::date_line(args.date),
        worst: args.worst,
        detail: args.detail,
        ..Options::default()
    };
    let base = args
        .out
        .unwrap_or_else(|| PathBuf::from(format!("ragnosis-run-{}", args.run)));
    print_written(reports::write_report(
        ctx, args.run, &options, &formats, &base,
    )?);
    Ok(())
}

pub fn compare(ctx: &Ctx, args: CompareArgs) -> Result<(), Failure> {
    use ReportFormat::{Json, Markdown, Pdf};
    let formats = ReportFormat::parse_list(&args.format, &[Pdf, Markdown, Json])?;
    let base = args.out.unwrap_or_else(|| {
        PathBuf::from(format!("ragnosis-compare-{}-vs-{}", args.run_a, args.run_b))
    });
    let (a, b) = (args.run_a, args.run_b);
    let comparison = reports::compare(ctx, a, b, args.threshold, args.allow_different_judges)?;
    crate::print::comparison(&comparison);
    for check in ragnosis_api::experiments::between(ctx, a, b)? {
        println!("Experiment {}: {}", check.experiment.id, check.sentence);
    }
    let mut written = Vec::new();
    if formats.contains(&Json) {
        written.push(reports::write_comparison(&comparison, &base)?);
    }
    if formats.iter().any(|f| *f != Json) {
        let options = Options {
            generated_at: reports::date_line(args.date),
            worst: args.worst,
            baseline: Some(a),
            threshold: args.threshold,
            allow_different_judges: args.allow_different_judges,
            ..Options::default()
        };
        written.extend(reports::write_report(ctx, b, &options, &formats, &base)?);
    }
    print_written(written);
    if !args.fail_on_regression {
        return Ok(());
    }
    crate::gates::settle(
        &reports::regressions(&comparison),
        args.inconclusive.parse()?,
        "regression gate",
    )
}

fn print_written(paths: Vec<PathBuf>) {
    for path in paths {
        println!("wrote {}", path.display());
    }
}
