//! A run's summary on the terminal (`show`, and `eval` / `agentic` / `resume` when the
//! run ends): header, metric table, the user's criteria, the diagnosis with its action
//! items and failing items, how far to trust the run, and what could not be scored.

use ragnosis_api::judges;
use ragnosis_api::reports::{ReportView, RunView};
use ragnosis_api::runs::Diagnosis;

use super::{num, truncate};

/// What the built-in judge is in this process: with or without the semantic model.
fn offline_judge_description() -> String {
    let status = judges::offline_status();
    match (status.semantic_model, status.absent_reason) {
        (Some(model), _) => {
            format!("offline (built-in judge: word and anchor rules + embedded {model}, no LLM)")
        }
        (None, reason) => format!(
            "offline (built-in judge: word and anchor rules only; semantic model not in use: {})",
            reason.unwrap_or_default()
        ),
    }
}

/// `judge_asked`: whether any judge call was made (or answered from the cache) for the
/// run; a run scored from supplied labels and judge-free metrics names no judge.
pub fn run_summary(report: &ReportView, judge_asked: bool) {
    let view = &report.run;
    run_header(view, judge_asked);
    // The verdict first: what a reader repeats (`diagnosis::verdict`).
    if let Some(line) = report.headline.first() {
        println!("\nIn short: {line}");
    }
    metric_table(view);
    own_criteria(report);
    if let Some(d) = &view.summary.diagnosis {
        diagnosis(d);
        actions(report);
        failing_items(report);
    }
    trust(report);
    failures(view);
}

/// The user's own criteria: how the items did against each one's threshold, and the
/// version of the text that scored them.
fn own_criteria(report: &ReportView) {
    if report.criteria.is_empty() {
        return;
    }
    println!("\nYour criteria");
    for c in &report.criteria {
        println!("  - {}", c.insight);
        println!("    {}", c.methodology);
    }
}

/// The items behind each pattern, worst first, so a reader can open them
/// (`ragnosis show RUN --json`, or the case view in the window).
fn failing_items(report: &ReportView) {
    if report.patterns.is_empty() {
        return;
    }
    println!("\nFailing items by pattern, worst first");
    for p in &report.patterns {
        println!("  {} ({}):", p.summary.letter, p.summary.name);
        for case in &p.cases {
            println!("    {:<14} {}", case.label, truncate(&case.question, 90));
        }
        let more = p.summary.count.saturating_sub(p.cases.len() as u64);
        if more > 0 {
            println!("    … and {more} more");
        }
    }
}

fn trust(report: &ReportView) {
    if report.trust.sentences.is_empty() {
        return;
    }
    println!("\nHow far to trust this run");
    for sentence in &report.trust.sentences {
        println!("  - {sentence}");
    }
}

fn run_header(view: &RunView, judge_asked: bool) {
    let run = &view.run;
    println!(
        "\nRun #{} on \"{}\": {} items, status {}, judge {}{}",
        run.id,
        view.dataset.name,
        run.item_count,
        run.status.as_str(),
        if !judge_asked && run.status.as_str() == "done" {
            "none asked (supplied labels and judge-free metrics only)".to_string()
        } else if run.judge == "offline" {
            offline_judge_description()
        } else {
            run.judge.clone()
        },
        run.label
            .as_deref()
            .map(|l| format!(", label {l}"))
            .unwrap_or_default()
    );
}

/// One row per measured metric; metrics not applicable to the data, one line per reason.
fn metric_table(view: &RunView) {
    let run = &view.run;
    println!(
        "{:<48} {:>6} {:>13} {:>6} {:>5} {:>6} {:>5} {:>5}",
        "metric", "mean", "95% CI", "median", "<0.5", "scored", "skip", "err"
    );
    // Metrics that scored nothing and failed nowhere were not applicable to this data:
    // one line per reason instead of a row of dashes per metric.
    let mut not_applicable: Vec<(&str, &str)> = Vec::new();
    for id in &run.metrics {
        let Some(m) = view.summary.metrics.get(id) else {
            continue;
        };
        let s = &m.stats;
        if s.n == 0 && s.errors == 0 {
            let reason = m
                .skip_reasons
                .first()
                .map(|(r, _)| r.as_str())
                .unwrap_or("no items");
            not_applicable.push((id, reason));
            continue;
        }
        let ci = match (s.ci95_low, s.ci95_high) {
            (Some(lo), Some(hi)) => format!("{lo:.3}-{hi:.3}"),
            _ => "-".into(),
        };
        let name = if s.lower_is_better {
            format!("{id} ↓")
        } else {
            id.clone()
        };
        println!(
            "{:<48} {:>6} {:>13} {:>6} {:>5} {:>6} {:>5} {:>5}",
            name,
            num(s.mean),
            ci,
            num(s.median),
            s.share_failing
                .map(|p| format!("{:.0}%", p * 100.0))
                .unwrap_or_else(|| "-".into()),
            s.n,
            s.skipped,
            s.errors
        );
    }
    for (id, value) in &view.summary.dataset_metrics {
        println!("{id:<48} {value:>6.3}   (dataset level)");
    }
    if run
        .metrics
        .iter()
        .filter_map(|id| view.summary.metrics.get(id))
        .any(|m| m.stats.lower_is_better && m.stats.n > 0)
    {
        println!("↓ lower is better");
    }
    not_measured(&not_applicable);
}

/// Metrics that scored nothing and failed nowhere, one line per reason.
fn not_measured(not_applicable: &[(&str, &str)]) {
    let mut reasons: Vec<&str> = Vec::new();
    for (_, reason) in not_applicable {
        if !reasons.contains(reason) {
            reasons.push(reason);
        }
    }
    for reason in reasons {
        let ids: Vec<&str> = not_applicable
            .iter()
            .filter(|(_, r)| *r == reason)
            .map(|(id, _)| *id)
            .collect();
        println!("- not measured ({reason}): {}", ids.join(", "));
    }
}

fn diagnosis(d: &Diagnosis) {
    println!(
        "\nDiagnosis ({} of {} checked items show a failure pattern)",
        d.items_with_patterns, d.items_checked
    );
    if let Some(stage) = d.primary_stage {
        println!("  primary failing stage: {}", stage.label());
    }
    for p in &d.patterns {
        println!(
            "  {} {:<22} {:>4} items ({:.0}%)  {}",
            p.letter,
            p.name,
            p.count,
            p.share * 100.0,
            p.stage.label()
        );
    }
    if !d.unchecked.is_empty() && d.items_checked > 0 {
        let names: Vec<String> = d.unchecked.iter().map(|p| p.label()).collect();
        println!("  not checked (metrics not scored): {}", names.join(", "));
    }
    let note = ragnosis_api::runs::uncertainty_note(d);
    if !note.is_empty() {
        println!(" {note}");
    }
}

/// The run's ranked action items: the same list the report and the window show.
fn actions(report: &ReportView) {
    for (rank, a) in report.actions().iter().enumerate() {
        println!("  {}. [{}] {}", rank + 1, a.impact.as_str(), a.title);
        println!("     how to fix: {}", a.how_to_fix);
        if let Some(example) = &a.example {
            println!("     example: {}", example.quoted());
        }
    }
}

fn failures(view: &RunView) {
    // One line per distinct failure, naming the metrics it hit.
    let mut failures: Vec<(&str, Vec<&str>, u64)> = Vec::new();
    for e in &view.summary.errors {
        match failures.iter_mut().find(|(m, _, _)| *m == e.message) {
            Some((_, metrics, count)) => {
                metrics.push(&e.metric);
                *count = (*count).max(e.count);
            }
            None => failures.push((&e.message, vec![&e.metric], e.count)),
        }
    }
    for (message, metrics, count) in failures {
        println!(
            "! {count} item(s) could not be scored ({}): {message}",
            metrics.join(", ")
        );
    }
}
