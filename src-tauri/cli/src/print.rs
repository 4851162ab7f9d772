//! Terminal output: plain aligned text for people; `--json` output is produced by serde.

use ragnosis_core::export::RunView;
use ragnosis_core::import::Imported;
use ragnosis_core::metrics::MetricSpec;
use ragnosis_core::store::{datasets::DatasetRow, runs::RunRow};

pub fn import_report(imported: &Imported) {
    let r = &imported.report;
    import_report_short(imported);
    for rej in &r.rejected {
        eprintln!("  rejected line {} (byte {}): {}", rej.line, rej.byte_offset, rej.reason);
    }
    if r.rejected_count > r.rejected.len() as u64 {
        eprintln!("  ... and {} more rejected lines", r.rejected_count - r.rejected.len() as u64);
    }
    for w in &r.warnings {
        eprintln!("  warning line {}: {}", w.line, w.message);
    }
    for d in &r.duplicates {
        eprintln!("  duplicate: line {} repeats line {}", d.line, d.first_line);
    }
    let c = &r.coverage;
    println!(
        "  fields: question {}, answer {}, contexts {}, ground truth {}, citation label {}, ranking {}, RAGChecker labels {}",
        c.question, c.answer, c.contexts, c.ground_truth, c.citation_label, c.ranking, c.ragchecker_labels
    );
}

pub fn import_report_short(imported: &Imported) {
    let r = &imported.report;
    let format = r.format.as_ref().map(|f| serde_json::to_value(f).unwrap_or_default()["kind"].to_string());
    println!(
        "Imported {} of {} items from {} as dataset #{} \"{}\" (format {}, schema {}); {} rejected, {} warnings, {} duplicates",
        r.items_accepted,
        r.items_read,
        r.file,
        imported.dataset.id,
        imported.dataset.name,
        format.unwrap_or_else(|| "?".into()).trim_matches('"'),
        imported.dataset.schema.as_deref().unwrap_or("?"),
        r.rejected_count,
        r.warning_count,
        r.duplicates.len()
    );
    if r.rejected_count > 0 {
        eprintln!("  {} line(s) were rejected: see `ragnosis import {} --json` for the full report", r.rejected_count, r.file);
    }
}

pub fn datasets(rows: &[DatasetRow]) {
    if rows.is_empty() {
        println!("No datasets yet. Import one with `ragnosis import FILE`.");
        return;
    }
    println!("{:>4}  {:<32} {:>8}  {:<12} imported", "id", "name", "items", "schema");
    for d in rows {
        println!(
            "{:>4}  {:<32} {:>8}  {:<12} {}",
            d.id,
            truncate(&d.name, 32),
            d.item_count,
            d.schema.as_deref().unwrap_or("-"),
            d.imported_at
        );
    }
}

pub fn metric_list(specs: &[MetricSpec]) {
    println!("{:<42} {:<11} {:<22} {:<6} description", "id", "family", "needs", "judge");
    for m in specs {
        let needs: Vec<&str> = m.needs.iter().map(|f| f.badge()).collect();
        println!(
            "{:<42} {:<11} {:<22} {:<6} {}",
            m.id,
            m.family.as_str(),
            needs.join(","),
            if m.judge { "yes" } else { "no" },
            m.description
        );
    }
}

pub fn runs(rows: &[RunRow]) {
    if rows.is_empty() {
        println!("No runs yet. Start one with `ragnosis eval`.");
        return;
    }
    println!("{:>4}  {:>7}  {:<10} {:>6}  {:<24} {:<10} created", "id", "dataset", "status", "items", "label", "version");
    for r in rows {
        println!(
            "{:>4}  {:>7}  {:<10} {:>6}  {:<24} {:<10} {}",
            r.id,
            r.dataset_id,
            r.status.as_str(),
            r.item_count,
            truncate(r.label.as_deref().unwrap_or("-"), 24),
            truncate(r.version.as_deref().unwrap_or("-"), 10),
            r.created_at
        );
    }
}

pub fn run_summary(view: &RunView) {
    let run = &view.run;
    println!(
        "\nRun #{} on \"{}\": {} items, status {}{}",
        run.id,
        view.dataset.name,
        run.item_count,
        run.status.as_str(),
        run.label.as_deref().map(|l| format!(", label {l}")).unwrap_or_default()
    );
    println!(
        "{:<42} {:>6} {:>15} {:>6} {:>6} {:>7} {:>6}",
        "metric", "mean", "95% CI", "median", "<0.5", "scored", "skip/err"
    );
    for id in &run.metrics {
        let Some(m) = view.summary.metrics.get(id) else { continue };
        let s = &m.stats;
        let ci = match (s.ci95_low, s.ci95_high) {
            (Some(lo), Some(hi)) => format!("{lo:.3}-{hi:.3}"),
            _ => "-".into(),
        };
        let name = if s.lower_is_better { format!("{id} (lower=better)") } else { id.clone() };
        println!(
            "{:<42} {:>6} {:>15} {:>6} {:>6} {:>7} {:>3}/{:<3}",
            name,
            num(s.mean),
            ci,
            num(s.median),
            s.share_below_half.map(|p| format!("{:.0}%", p * 100.0)).unwrap_or_else(|| "-".into()),
            s.n,
            s.skipped,
            s.errors
        );
    }
    for (id, value) in &view.summary.dataset_metrics {
        println!("{id:<42} {value:>6.3}   (dataset level)");
    }
    for e in &view.summary.errors {
        println!("! {} could not be computed on {} item(s): {}", e.metric, e.count, e.message);
    }
}

fn num(v: Option<f64>) -> String {
    v.map(|v| format!("{v:.3}")).unwrap_or_else(|| "-".into())
}

fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let cut: String = s.chars().take(max - 1).collect();
        format!("{cut}…")
    }
}
