//! The user's own criteria in a report: per criterion of the run, the version that
//! scored it with its text (the methodology line) and one plain sentence on how the
//! items did against its pass threshold (the insight), the same in every output.
//!
//! Owns: those sentences. Reads the run's recorded versions (`RunConfig::criteria`) and
//! its stored results; never recomputes a score.

use serde::{Deserialize, Serialize};

use super::facts::RunFacts;
use crate::error::Result;
use crate::run;

/// One criterion of a run, as every output shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CriterionReport {
    /// `criteria.<name>`.
    pub metric: String,
    pub name: String,
    pub version: u32,
    /// "tone version 2: “…” (passes at 4 or more on 1–5; judged; reads question, answer)".
    pub methodology: String,
    /// How the items did, in one sentence.
    pub insight: String,
    /// Items scored, and those of them that pass the threshold.
    pub scored: u64,
    pub passed: u64,
    /// Items not measured (skipped), and the most frequent reason.
    pub skipped: u64,
    pub skip_reason: Option<String>,
}

/// The criteria a run scored, in the order it lists them, from its facts.
pub fn build(facts: &RunFacts) -> Result<Vec<CriterionReport>> {
    let config = run::run_config(&facts.run)?;
    let summary = &facts.summary;
    let mut out = Vec::new();
    for v in &config.criteria {
        let metric = v.definition.metric_id();
        let (scored, passed) = facts
            .criteria_counts
            .get(&metric)
            .copied()
            .unwrap_or((0, 0));
        let stats = summary.metrics.get(&metric);
        let skipped = stats.map_or(0, |s| s.stats.skipped);
        let skip_reason = stats
            .and_then(|s| s.skip_reasons.first())
            .map(|(reason, _)| reason.clone());
        let mut report = CriterionReport {
            metric,
            name: v.definition.name.clone(),
            version: v.version,
            methodology: v.methodology_line(),
            insight: String::new(),
            scored,
            passed,
            skipped,
            skip_reason,
        };
        report.insight = insight(&report, &v.definition, stats.and_then(|s| s.stats.mean));
        out.push(report);
    }
    Ok(out)
}

/// "Your criterion tone (version 2): 7 of 10 scored items pass (passes at 4 or more on
/// 1–5); mean 0.72 on a 0–1 scale. 2 items were not measured: …".
fn insight(r: &CriterionReport, def: &crate::criteria::Definition, mean: Option<f64>) -> String {
    let who = format!("Your criterion {} (version {})", r.name, r.version);
    let not_measured = |n: u64| {
        let reason = r.skip_reason.as_deref().unwrap_or("no reason was recorded");
        format!(
            "{n} item{} not measured: {reason}",
            if n == 1 { " was" } else { "s were" }
        )
    };
    if r.scored == 0 {
        return if r.skipped > 0 {
            let reason = r.skip_reason.as_deref().unwrap_or("no reason was recorded");
            format!(
                "{who} was not measured on any of its {} item{}: {reason}.",
                r.skipped,
                if r.skipped == 1 { "" } else { "s" }
            )
        } else {
            format!("{who} scored no item (see the errors).")
        };
    }
    let rule = match def.scale {
        crate::criteria::Scale::PassFail => String::new(),
        _ => format!(" ({})", def.pass_rule()),
    };
    let mut text = format!(
        "{who}: {} of {} scored item{} pass{rule}",
        r.passed,
        r.scored,
        if r.scored == 1 { "" } else { "s" },
    );
    if let Some(mean) = mean {
        text.push_str(&format!("; mean {mean:.2} on a 0–1 scale"));
    }
    text.push('.');
    if r.skipped > 0 {
        text.push_str(&format!(
            " {}.",
            crate::text::capitalise(&not_measured(r.skipped))
        ));
    }
    text
}
