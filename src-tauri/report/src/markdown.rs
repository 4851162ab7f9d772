//! The report as Markdown (GitHub-flavoured), with the charts as SVG files beside it.
//!
//! Owns: Markdown layout. Every string of the `Report` is escaped with the core's
//! Markdown escape (also the fixed sentences: escaping them is harmless and keeps one
//! rule), so text from the data — `#`, `*`, `$`, `]`, backticks, `<script>` — shows
//! literally and can never open a heading, a link, a table cell or an HTML tag.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ragnosis_core::export::escape_markdown as esc;

use crate::charts::Chart;
use crate::model::{Field, Report};
use crate::Error;

/// Writes `path` (the `.md`) and each chart beside it as `<stem>-<chart>.svg`. Returns
/// every path written, the Markdown first.
pub fn write(report: &Report, charts: &[Chart], path: &Path) -> Result<Vec<PathBuf>, Error> {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "report".into());
    let prefix = format!("{stem}-");
    let mut written = vec![path.to_path_buf()];
    let markdown = render(report, &prefix);
    write_file(path, markdown.as_bytes())?;
    for chart in charts {
        let chart_path = path.with_file_name(format!("{prefix}{}", chart.file));
        write_file(&chart_path, chart.svg.as_bytes())?;
        written.push(chart_path);
    }
    Ok(written)
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    std::fs::write(path, bytes).map_err(|source| Error::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// The Markdown text; chart `file`s are linked as `chart_prefix + file`.
pub fn render(report: &Report, chart_prefix: &str) -> String {
    let mut md = String::new();
    let out = &mut md;
    line(out, &format!("# {}", esc(&report.title)));
    line(out, &format!("*{}*", esc(&report.kind)));
    fields(out, &report.cover);

    line(out, "## Executive summary");
    line(
        out,
        &report
            .summary
            .headline
            .iter()
            .map(|s| esc(s))
            .collect::<Vec<_>>()
            .join(" "),
    );
    let rows: Vec<String> = report
        .summary
        .stages
        .iter()
        .map(|s| {
            format!(
                "| {} | {} | {} {} | {} | {} |",
                esc(&s.stage),
                esc(&s.score),
                light(&s.band_key),
                esc(&s.band),
                esc(&s.question),
                esc(&s.metrics)
            )
        })
        .collect();
    table(
        out,
        "| Stage | Score | Verdict | What it asks | Metrics |\n|---|---:|---|---|---|",
        &rows,
    );
    line(
        out,
        &format!(
            "**Primary failing stage:** {}",
            esc(&report.summary.primary)
        ),
    );
    if !report.summary.top_actions.is_empty() {
        line(out, "**Top action items:**");
        line(out, &numbered(&report.summary.top_actions));
    }

    line(out, "## Metrics");
    let rows: Vec<String> = report
        .metrics
        .rows
        .iter()
        .map(|r| {
            format!(
                "| {}{} | {} | {} | {} | {} | {} | {} | {} | {} |",
                esc(&r.metric),
                if r.lower_is_better { " ↓" } else { "" },
                esc(&r.mean),
                esc(&r.ci),
                esc(&r.median),
                esc(&r.below_half),
                esc(&r.scored),
                esc(&r.errors),
                esc(&r.skipped),
                esc(&r.meaning)
            )
        })
        .collect();
    table(
        out,
        "| Metric | Mean | 95% CI | Median | % below 0.5 | Scored | Errors | Skipped | Meaning |\n\
         |---|---:|---|---:|---:|---:|---:|---:|---|",
        &rows,
    );
    if !report.metrics.dataset_metrics.is_empty() {
        line(out, "### Dataset-level metrics");
        fields(out, &report.metrics.dataset_metrics);
    }
    paragraphs(out, &report.metrics.notes);

    line(out, "## Charts");
    if report.charts.is_empty() {
        line(out, "No chart: the run has no scores to draw.");
    }
    for chart in &report.charts {
        line(out, &format!("### {}", esc(&chart.title)));
        line(
            out,
            &format!(
                "![{}]({})",
                esc(&chart.title),
                link(&format!("{chart_prefix}{}", chart.file))
            ),
        );
        line(out, &format!("*{}*", esc(&chart.caption)));
    }

    line(out, "## Diagnosis");
    line(out, &esc(&report.diagnosis.intro));
    for p in &report.diagnosis.patterns {
        line(out, &format!("### {}", esc(&p.heading)));
        line(
            out,
            &format!(
                "*Stage: {}. {}.* {}",
                esc(&p.stage),
                esc(&p.count),
                esc(&p.description)
            ),
        );
        for (i, c) in p.cases.iter().enumerate() {
            line(
                out,
                &format!("#### Example {}: item {}", i + 1, esc(&c.label)),
            );
            let mut list = vec![
                format!("- **Question:** {}", esc(&c.question)),
                format!("- **Answer (excerpt):** {}", esc(&c.answer)),
                format!("- **Scores:** {}", esc(&c.scores)),
            ];
            for (name, items) in [
                ("Unsupported claims", &c.claims),
                ("Irrelevant chunks", &c.chunks),
                ("Missing aspects", &c.aspects),
            ] {
                if !items.is_empty() {
                    list.push(format!("- **{name}:**"));
                    list.extend(items.iter().map(|s| format!("  - {}", esc(s))));
                }
            }
            line(out, &list.join("\n"));
        }
    }

    line(out, "## Action items");
    if report.actions.is_empty() {
        line(out, "No action items: they are derived from the failure patterns, which were not checked for this run.");
    }
    for a in &report.actions {
        line(
            out,
            &format!(
                "### {}. {} ({})",
                esc(&a.rank),
                esc(&a.title),
                esc(&a.impact)
            ),
        );
        let mut list = vec![
            format!("- **What's wrong:** {}", esc(&a.whats_wrong)),
            format!("- **Why it happened:** {}", esc(&a.why)),
        ];
        if let Some(example) = &a.example {
            list.push(format!("- **Example:** {}", esc(example)));
        }
        list.push(format!("- **How to fix:** {}", esc(&a.how_to_fix)));
        line(out, &list.join("\n"));
    }

    if let Some(c) = &report.comparison {
        line(out, "## Comparison");
        paragraphs(out, &c.intro);
        let rows: Vec<String> = c
            .rows
            .iter()
            .map(|r| {
                format!(
                    "| {}{} | {} | {} | {} | {} | {} | {} | {} | {} {} |",
                    esc(&r.metric),
                    if r.lower_is_better { " ↓" } else { "" },
                    esc(&r.mean_a),
                    esc(&r.mean_b),
                    esc(&r.delta),
                    esc(&r.ci),
                    esc(&r.pairs),
                    esc(&r.to_fail),
                    esc(&r.to_pass),
                    flag_light(&r.flag_key),
                    esc(&r.flag)
                )
            })
            .collect();
        table(
            out,
            "| Metric | Mean A | Mean B | Δ (B − A) | 95% CI | Pairs | Pass → fail | Fail → pass | Flag |\n\
             |---|---:|---:|---:|---|---:|---:|---:|---|",
            &rows,
        );
        if !c.flips.is_empty() {
            line(out, "### Flipped items");
            for group in &c.flips {
                line(out, &format!("**{}**", esc(&group.heading)));
                line(
                    out,
                    &group
                        .items
                        .iter()
                        .map(|s| format!("- {}", esc(s)))
                        .collect::<Vec<_>>()
                        .join("\n"),
                );
            }
        }
        paragraphs(out, &c.notes);
    }

    let m = &report.methodology;
    line(out, "## Methodology");
    line(out, "### Metric definitions");
    line(
        out,
        &m.definitions
            .iter()
            .map(|d| format!("- **{}**: {}", esc(&d.label), esc(&d.value)))
            .collect::<Vec<_>>()
            .join("\n"),
    );
    line(out, "### Stage scores");
    line(out, &esc(&m.stage_rule));
    line(out, "### Judge");
    fields(out, &m.judge);
    if let Some(caveat) = &m.caveat {
        line(out, &format!("> **Offline judge.** {}", esc(caveat)));
    }
    line(out, "### Calibration");
    line(out, &esc(&m.calibration));
    line(out, "### Settings");
    fields(out, &m.settings);
    line(out, "### Cost, tokens and cache");
    fields(out, &m.accounting);
    line(out, "### Errors and skipped items");
    line(
        out,
        &m.errors
            .iter()
            .map(|e| format!("- {}", esc(e)))
            .collect::<Vec<_>>()
            .join("\n"),
    );
    line(out, "### Privacy");
    line(out, &esc(&m.privacy));

    let a = &report.appendix;
    line(out, &format!("## {}", esc(&a.heading)));
    line(out, &esc(&a.intro));
    for item in &a.items {
        line(out, &format!("### {}", esc(&item.heading)));
        let mut block = vec![
            format!("**Question:** {}", esc(&item.question)),
            String::new(),
            format!("**Answer:** {}", esc(&item.answer)),
        ];
        if let Some(gt) = &item.ground_truth {
            block.push(String::new());
            block.push(format!("**Ground truth:** {}", esc(gt)));
        }
        line(out, &block.join("\n"));
        if !item.contexts.is_empty() {
            line(out, "**Contexts:**");
            line(
                out,
                &item
                    .contexts
                    .iter()
                    .map(|c| format!("- {}", esc(c)))
                    .collect::<Vec<_>>()
                    .join("\n"),
            );
        }
        let rows: Vec<String> = item
            .results
            .iter()
            .map(|r| {
                format!(
                    "| {} | {} | {} | {} |",
                    esc(&r.metric),
                    esc(&r.score),
                    esc(&r.status),
                    esc(&r.explanation)
                )
            })
            .collect();
        table(
            out,
            "| Metric | Score | Status | Explanation |\n|---|---:|---|---|",
            &rows,
        );
    }
    if !report.generated_at.is_empty() {
        line(
            out,
            &format!(
                "---\n*Generated by Ragnosis on {}.*",
                esc(&report.generated_at)
            ),
        );
    }
    md
}

/// Appends a block followed by a blank line.
fn line(out: &mut String, block: &str) {
    let _ = writeln!(out, "{block}\n");
}

/// A table: the header (with its delimiter row) and the rows, with no blank line
/// between them, which would end the table.
fn table(out: &mut String, header: &str, rows: &[String]) {
    line(out, &format!("{header}\n{}", rows.join("\n")));
}

fn fields(out: &mut String, fields: &[Field]) {
    let rows: Vec<String> = fields
        .iter()
        .map(|f| format!("| {} | {} |", esc(&f.label), esc(&f.value)))
        .collect();
    table(out, "| | |\n|---|---|", &rows);
}

fn paragraphs(out: &mut String, texts: &[String]) {
    for t in texts {
        line(out, &esc(t));
    }
}

fn numbered(items: &[String]) -> String {
    items
        .iter()
        .enumerate()
        .map(|(i, s)| format!("{}. {}", i + 1, esc(s)))
        .collect::<Vec<_>>()
        .join("\n")
}

fn light(band_key: &str) -> &'static str {
    match band_key {
        "good" => "🟢",
        "attention" => "🟡",
        "critical" => "🔴",
        _ => "⚪",
    }
}

fn flag_light(flag_key: &str) -> &'static str {
    match flag_key {
        "green" => "🟢",
        "amber" => "🟡",
        "red" => "🔴",
        _ => "⚪",
    }
}

/// A relative link target: characters outside `[A-Za-z0-9._-]` percent-encoded, so a
/// file name with spaces or parentheses cannot end the link early.
fn link(target: &str) -> String {
    let mut out = String::new();
    for byte in target.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'.' | b'_' | b'-') {
            out.push(byte as char);
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::link;

    #[test]
    fn links_encode_what_could_end_them() {
        assert_eq!(
            link("my report (v2)-means.svg"),
            "my%20report%20%28v2%29-means.svg"
        );
    }
}
