//! Reports: a run written as data (JSON, CSV) or as the report for people (Markdown with
//! charts, PDF), the report model `show` and the results read, a run's charts, two runs
//! compared, and a dataset's runs over time. Must not decide what a report says (the
//! core's `ReportView` and the report crate do); every output reads that one model.
//!
//! Policies both shells follow:
//! - a base path already ending in an asked format's extension does not get it twice;
//! - a report that cannot be drawn or typeset is `report`, a file that cannot be
//!   written is `write`, naming the path;
//! - two runs compared must be two different runs; the delta chart is drawn from the
//!   comparison itself (computed once).

mod format;
mod view;

use std::path::{Path, PathBuf};

use ragnosis_core::analysis::{compare, trend};
use ragnosis_core::export;
use ragnosis_core::store::{self, runs::RunStatus};
use ragnosis_core::view::{Detail, ReportOptions};
use ragnosis_core::{Error, Result};

use crate::error::from_report;
use crate::{runs, Ctx};

pub use format::{Exported, ReportFormat};
pub use ragnosis_core::analysis::compare::items::{ItemChange, ItemChanges};
pub use ragnosis_core::analysis::compare::{Comparison, FlippedItem, DEFAULT_THRESHOLD};
pub use ragnosis_core::analysis::trend::TrendRun;
pub use ragnosis_core::view::{report, CriterionReport, ReportView, RunView, TrustStatement};
pub use ragnosis_core::view::{Detail as ReportDetail, ReportOptions as Options};
pub use view::{Chart, ComparisonView, FLIPS_LISTED};

/// The report's date line: `explicit`, else now (or `SOURCE_DATE_EPOCH` when set).
pub fn date_line(explicit: Option<String>) -> String {
    ragnosis_report::date_line(explicit)
}

/// The report model of a run (what `show`, Markdown and PDF read): the run opened
/// (`runs::open`), then read.
pub fn view(ctx: &Ctx, run_id: i64, options: &ReportOptions) -> Result<ReportView> {
    let mut store = ctx.own_store()?;
    runs::open(&mut store, run_id)?;
    ReportView::load(&store, run_id, options)
}

/// A run as `show` prints it: its report model, and whether any judge was asked (a run
/// scored from supplied labels and judge-free metrics names no judge).
pub struct Shown {
    /// The run's report model, read after the run was opened.
    pub report: ReportView,
    /// Some judge call was made or answered from the cache (the run's totals are not all
    /// zero).
    pub judge_asked: bool,
}

/// The run as `show` prints it; refuses a run that does not exist.
pub fn show(ctx: &Ctx, run_id: i64) -> Result<Shown> {
    let report = view(ctx, run_id, &ReportOptions::default())?;
    let totals: runs::RunTotals = store::runs::totals(ctx.store()?.conn(), run_id)?;
    Ok(Shown {
        report,
        judge_asked: totals.calls + totals.cache_hits + totals.failures > 0,
    })
}

/// `base` without the extension of the format asked for, so "r.md" stays "r.md".
fn base_for(base: &Path, formats: &[ReportFormat]) -> PathBuf {
    match base.extension().and_then(|e| e.to_str()) {
        Some(ext)
            if formats
                .iter()
                .any(|f| f.extension().eq_ignore_ascii_case(ext)) =>
        {
            base.with_extension("")
        }
        _ => base.to_path_buf(),
    }
}

/// Writes the run in every format asked for to `base.<ext>` (the report with today's
/// date and the default options) and returns the files written.
pub fn export(
    ctx: &Ctx,
    run_id: i64,
    base: &Path,
    formats: &[ReportFormat],
    date: Option<String>,
) -> Result<Vec<PathBuf>> {
    let base = base_for(base, formats);
    let data: Vec<_> = formats.iter().filter_map(|f| f.export_format()).collect();
    let options = ReportOptions {
        generated_at: date_line(date),
        ..ReportOptions::default()
    };
    // Its own connection: exporting a large run must not stop the window from reading.
    // The run is read once; the data files and the report are written from that one view.
    let mut store = ctx.own_store()?;
    runs::open(&mut store, run_id)?;
    let report = ReportView::load(&store, run_id, &options)?;
    let mut written = export::write_all(&store, &report, &base, &data)?;
    written.extend(write_view(&report, formats, &base)?);
    Ok(written)
}

/// Writes run `b` compared with run `a` at `base`, at the default threshold: the
/// comparison's data (JSON), or B's report opening on the comparison (Markdown, PDF).
/// CSV is refused (it holds one run's results), as are runs judged differently, the
/// same run twice, and anything `compare` refuses.
pub fn export_comparison(
    ctx: &Ctx,
    a: i64,
    b: i64,
    base: &Path,
    format: ReportFormat,
) -> Result<Vec<PathBuf>> {
    let base = base_for(base, &[format]);
    match format {
        ReportFormat::Csv => Err(Error::Invalid(
            "a comparison is written as Markdown, PDF or JSON; CSV holds one run's results, so export each run on its own"
                .into(),
        )),
        ReportFormat::Json => {
            let comparison = compare(ctx, a, b, DEFAULT_THRESHOLD, false)?;
            Ok(vec![write_comparison(&comparison, &base)?])
        }
        ReportFormat::Markdown | ReportFormat::Pdf => {
            if a == b {
                return Err(Error::Invalid(
                    "choose two different runs to compare".into(),
                ));
            }
            let options = ReportOptions {
                generated_at: date_line(None),
                baseline: Some(a),
                threshold: DEFAULT_THRESHOLD,
                ..ReportOptions::default()
            };
            write_report(ctx, b, &options, &[format], &base)
        }
    }
}

/// Writes the report of a run (with a comparison section when `options.baseline` is
/// set) at `base`, in the report formats among `formats` (Markdown, PDF).
pub fn write_report(
    ctx: &Ctx,
    run_id: i64,
    options: &ReportOptions,
    formats: &[ReportFormat],
    base: &Path,
) -> Result<Vec<PathBuf>> {
    write_view(&view(ctx, run_id, options)?, formats, base)
}

/// Writes `report` at `base` in the report formats among `formats` (none: nothing).
fn write_view(report: &ReportView, formats: &[ReportFormat], base: &Path) -> Result<Vec<PathBuf>> {
    let formats: Vec<_> = formats.iter().filter_map(|f| f.report_format()).collect();
    if formats.is_empty() {
        return Ok(Vec::new());
    }
    ragnosis_report::write(report, &formats, base).map_err(|e| from_report(e, base))
}

/// Run `b` against run `a`: per-metric deltas with 95% intervals, flipped items, flags
/// at `threshold`. Runs judged differently are refused unless `allow_different_judges`.
pub fn compare(
    ctx: &Ctx,
    a: i64,
    b: i64,
    threshold: f64,
    allow_different_judges: bool,
) -> Result<Comparison> {
    if a == b {
        return Err(Error::Invalid(
            "choose two different runs to compare".into(),
        ));
    }
    compare::compare_runs(&*ctx.store()?, a, b, threshold, allow_different_judges)
}

/// The regression gate of a comparison: per metric both runs scored, whether B fell
/// below A by more than the comparison's threshold (`compare --fail-on-regression`).
pub fn regressions(comparison: &Comparison) -> Vec<ragnosis_core::analysis::gate::GateVerdict> {
    comparison
        .metrics
        .iter()
        .map(|m| ragnosis_core::analysis::gate::regression(m, comparison.threshold))
        .collect()
}

/// `compare` with its delta chart, as the Runs screen shows it.
pub fn comparison_view(
    ctx: &Ctx,
    a: i64,
    b: i64,
    threshold: f64,
    allow_different_judges: bool,
) -> Result<ComparisonView> {
    let comparison = compare(ctx, a, b, threshold, allow_different_judges)?;
    let chart = ragnosis_report::charts::deltas::chart(&comparison)
        .map_err(|e| from_report(e, Path::new(ragnosis_report::charts::deltas::FILE)))?;
    let mut view = ComparisonView::new(comparison, chart);
    view.experiments = ragnosis_core::analysis::experiment::between(&*ctx.store()?, a, b)?;
    Ok(view)
}

/// Writes the comparison as JSON at `base.json`.
pub fn write_comparison(comparison: &Comparison, base: &Path) -> Result<PathBuf> {
    let path = ragnosis_report::with_extension(base, "json");
    let text = serde_json::to_string_pretty(comparison)?;
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| Error::Write {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    ragnosis_core::output_file::write(&path, (text + "\n").as_bytes())?;
    Ok(path)
}

/// The charts of one run: metric means with intervals, score distributions, failure
/// patterns. Empty for a run that has not finished.
pub fn charts(ctx: &Ctx, run_id: i64) -> Result<Vec<Chart>> {
    if store::runs::get(ctx.store()?.conn(), run_id)?.status != RunStatus::Done {
        return Ok(Vec::new());
    }
    let options = ReportOptions {
        worst: 0,
        // The Results screen shows every chart; only a report is short by default.
        detail: Detail::Full,
        ..ReportOptions::default()
    };
    let view = view(ctx, run_id, &options)?;
    ragnosis_report::charts::for_report(&view).map_err(|e| from_report(e, Path::new("charts")))
}

/// The finished runs of a dataset, oldest first, with every metric's mean.
pub fn trend(ctx: &Ctx, dataset_id: i64) -> Result<Vec<TrendRun>> {
    trend::of_dataset(ctx.store()?.conn(), dataset_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chosen_name_is_kept_without_a_doubled_extension() {
        let md = [ReportFormat::Markdown];
        assert_eq!(base_for(Path::new("/tmp/r.md"), &md), Path::new("/tmp/r"));
        assert_eq!(base_for(Path::new("/tmp/r.MD"), &md), Path::new("/tmp/r"));
        assert_eq!(
            base_for(Path::new("/tmp/r.v2"), &md),
            Path::new("/tmp/r.v2"),
            "other dots stay"
        );
    }
}
