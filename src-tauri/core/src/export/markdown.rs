//! The Markdown export: what a stakeholder reads. Every piece of text that came from the
//! dataset is escaped, so a question containing `|`, `*` or `<script>` shows literally.

use std::io::{self, Write};

use super::view::RunView;
use crate::metrics::{self, Status};

pub fn write(view: &RunView, out: &mut impl Write) -> io::Result<()> {
    let run = &view.run;
    let title = run.name();
    writeln!(out, "# Ragnosis evaluation: {}\n", escape(&title))?;
    writeln!(
        out,
        "- Dataset: {} ({} items evaluated)",
        escape(&view.dataset.name),
        run.item_count
    )?;
    if let Some(version) = &run.version {
        writeln!(out, "- Pipeline version: {}", escape(version))?;
    }
    writeln!(
        out,
        "- Run: #{} ({}), mode {}, judge: {}",
        run.id,
        run.status.as_str(),
        run.mode,
        run.judge
    )?;
    writeln!(
        out,
        "- Started: {}",
        run.started_at.as_deref().unwrap_or("not started")
    )?;
    if let Some(notes) = &run.notes {
        writeln!(out, "- Notes: {}", escape(notes))?;
    }
    writeln!(out)?;

    writeln!(out, "## Summary\n")?;
    writeln!(
        out,
        "| Metric | Mean | 95% CI | Median | % below 0.5 | Scored | Skipped | Errors |"
    )?;
    writeln!(out, "|---|---:|---|---:|---:|---:|---:|---:|")?;
    for id in &run.metrics {
        let Some(m) = view.summary.metrics.get(id) else {
            continue;
        };
        let s = &m.stats;
        let arrow = if s.lower_is_better {
            " (lower is better)"
        } else {
            ""
        };
        let ci = match (s.ci95_low, s.ci95_high) {
            (Some(lo), Some(hi)) => format!("{lo:.3} – {hi:.3}"),
            _ => "–".into(),
        };
        writeln!(
            out,
            "| {id}{arrow} | {} | {ci} | {} | {} | {} | {} | {} |",
            num(s.mean),
            num(s.median),
            s.share_below_half
                .map(|p| format!("{:.0}%", p * 100.0))
                .unwrap_or_else(|| "–".into()),
            s.n,
            s.skipped,
            s.errors
        )?;
    }
    writeln!(out)?;
    if !view.summary.dataset_metrics.is_empty() {
        writeln!(out, "### Dataset-level metrics\n")?;
        writeln!(out, "| Metric | Value |\n|---|---:|")?;
        for (id, value) in &view.summary.dataset_metrics {
            writeln!(out, "| {id} | {value:.3} |")?;
        }
        writeln!(out)?;
    }
    if !view.summary.errors.is_empty() {
        writeln!(out, "### Items that could not be scored\n")?;
        for e in &view.summary.errors {
            writeln!(
                out,
                "- {} on {} item(s): {}",
                e.metric,
                e.count,
                escape(&e.message)
            )?;
        }
        writeln!(out)?;
    }
    write_diagnosis(view, out)?;
    write_worst(view, out)?;
    writeln!(out, "## Metric definitions\n")?;
    for id in &run.metrics {
        if let Some(spec) = metrics::find(id) {
            writeln!(out, "- **{id}**: {}", spec.description)?;
        }
    }
    Ok(())
}

fn write_diagnosis(view: &RunView, out: &mut impl Write) -> io::Result<()> {
    let Some(d) = &view.summary.diagnosis else {
        return Ok(());
    };
    writeln!(out, "## Diagnosis\n")?;
    match d.primary_stage {
        Some(stage) => writeln!(
            out,
            "{} of {} checked items show a failure pattern. The stage to fix first: **{}**.\n",
            d.items_with_patterns,
            d.items_checked,
            stage.label()
        )?,
        None => writeln!(
            out,
            "No systematic failure pattern was found in {} checked items.\n",
            d.items_checked
        )?,
    }
    if !d.patterns.is_empty() {
        writeln!(
            out,
            "| Pattern | Stage | Items | Share |\n|---|---|---:|---:|"
        )?;
        for p in &d.patterns {
            writeln!(
                out,
                "| {} {} | {} | {} | {:.0}% |",
                p.letter,
                p.name,
                p.stage.label(),
                p.count,
                p.share * 100.0
            )?;
        }
        writeln!(out)?;
    }
    if !d.actions.is_empty() {
        writeln!(out, "## Action items\n")?;
        for (rank, a) in d.actions.iter().enumerate() {
            writeln!(
                out,
                "### {}. {} ({:?} impact)\n",
                rank + 1,
                a.title,
                a.impact
            )?;
            writeln!(out, "- **What's wrong:** {}", a.whats_wrong)?;
            writeln!(out, "- **Why it happened:** {}", a.why)?;
            if let Some(example) = &a.example {
                writeln!(out, "- **Example:** {}", escape(&example.question))?;
            }
            writeln!(out, "- **How to fix:** {}\n", a.how_to_fix)?;
        }
    }
    Ok(())
}

fn write_worst(view: &RunView, out: &mut impl Write) -> io::Result<()> {
    if view.worst.is_empty() {
        return Ok(());
    }
    writeln!(out, "## Worst items\n")?;
    for item in &view.worst {
        let label = item
            .item
            .id
            .clone()
            .unwrap_or_else(|| format!("#{}", item.ordinal + 1));
        writeln!(out, "### Item {}\n", escape(&label))?;
        writeln!(out, "**Question:** {}\n", escape(&item.item.question))?;
        match &item.item.answer {
            Some(answer) => writeln!(out, "**Answer:** {}\n", escape(&excerpt(answer, 400)))?,
            None => writeln!(out, "**Answer:** (none)\n")?,
        }
        let mut scored: Vec<_> = item
            .results
            .iter()
            .filter(|r| r.status == Status::Ok)
            .collect();
        scored.sort_by(|a, b| a.score.unwrap_or(1.0).total_cmp(&b.score.unwrap_or(1.0)));
        for r in scored.iter().take(4) {
            writeln!(
                out,
                "- {} = {}: {}",
                r.metric,
                num(r.score),
                escape(&r.explanation)
            )?;
        }
        for r in item.results.iter().filter(|r| r.status == Status::Error) {
            writeln!(
                out,
                "- {} could not be scored: {}",
                r.metric,
                escape(&r.explanation)
            )?;
        }
        writeln!(out)?;
    }
    Ok(())
}

fn num(v: Option<f64>) -> String {
    v.map(|v| format!("{v:.3}")).unwrap_or_else(|| "–".into())
}

fn excerpt(text: &str, max_chars: usize) -> String {
    let mut chars = text.chars();
    let cut: String = chars.by_ref().take(max_chars).collect();
    if chars.next().is_some() {
        format!("{cut}…")
    } else {
        cut
    }
}

/// Escapes Markdown and HTML so data text renders literally; newlines become spaces so
/// a value never breaks a table row or a list item.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\\' | '`' | '*' | '_' | '{' | '}' | '[' | ']' | '(' | ')' | '#' | '+' | '-' | '!'
            | '|' | '~' | '$' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\r' => {}
            '\n' => out.push(' '),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn escape_neutralises_markdown_and_html() {
        assert_eq!(escape("a|b"), "a\\|b");
        assert_eq!(
            escape("<script>x</script>"),
            "&lt;script&gt;x&lt;/script&gt;"
        );
        assert_eq!(escape("*bold* [link](u)"), "\\*bold\\* \\[link\\]\\(u\\)");
        assert_eq!(escape("line1\nline2"), "line1 line2");
    }
}
