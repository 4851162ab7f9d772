//! The retriever comparison as a Markdown report with its chart beside it: what was
//! compared, on which questions and corpus, each retriever's Recall@K and MRR@K with
//! their intervals and throughput, and how to read them.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ragnosis_core::export::escape_markdown as esc;
use ragnosis_core::judge_check::Estimate;
use ragnosis_core::retrieval::RetrievalEval;
use ragnosis_core::store::{self, Store};

use crate::charts::retrieval::chart;
use crate::Error;

/// Names the report shows for the evaluation's dataset and corpus.
pub struct Names<'a> {
    pub dataset: &'a str,
    pub corpus: &'a str,
    /// The date line (`date_line`).
    pub generated_at: &'a str,
}

/// Writes the comparison to `path` (".md" added when missing) with the chart beside it
/// as `<stem>-retrievers.svg`, naming the dataset and corpus as stored; returns both
/// paths, the Markdown first. The one writer behind the CLI's `--report` and the window.
pub fn write_report(
    store: &Store,
    eval: &RetrievalEval,
    path: &Path,
) -> Result<Vec<PathBuf>, Error> {
    let path = crate::with_extension(path, "md");
    let dataset = store::datasets::get(store.conn(), eval.dataset_id)?.name;
    let corpus = store::corpora::get(store.conn(), eval.corpus_id)?.name;
    let generated_at = crate::date_line(None);
    let names = Names {
        dataset: &dataset,
        corpus: &corpus,
        generated_at: &generated_at,
    };
    write_markdown(eval, &names, &path)
}

/// Writes the chart as `<stem>-retrievers.svg` beside `path`, then `path` (the `.md`);
/// returns both paths, the Markdown first.
fn write_markdown(eval: &RetrievalEval, names: &Names, path: &Path) -> Result<Vec<PathBuf>, Error> {
    let chart = chart(eval)?;
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "retrievers".into());
    let chart_name = format!("{stem}-{}", chart.file);
    let chart_path = path.with_file_name(&chart_name);
    let markdown = render(eval, names, &chart_name, &chart.caption);
    // The chart first: a Markdown under its name always has its picture beside it.
    for (p, bytes) in [
        (chart_path.as_path(), chart.svg.as_bytes()),
        (path, markdown.as_bytes()),
    ] {
        ragnosis_core::output_file::write(p, bytes)?;
    }
    Ok(vec![path.to_path_buf(), chart_path])
}

/// The Markdown text, linking the chart as `chart_file`.
pub fn render(eval: &RetrievalEval, names: &Names, chart_file: &str, caption: &str) -> String {
    let k = eval.k;
    let mut md = String::new();
    let _ = writeln!(md, "# Retriever evaluation\n");
    let _ = writeln!(md, "*{}*\n", esc(names.generated_at));
    let _ = writeln!(
        md,
        "Questions of dataset {} (#{}) ranked against corpus {} (#{}, {} chunks). {} questions name a \
         gold chunk of the corpus and are scored{}.\n",
        esc(names.dataset),
        eval.dataset_id,
        esc(names.corpus),
        eval.corpus_id,
        eval.chunks,
        eval.queries,
        if eval.without_gold > 0 {
            format!(
                "; {} name none and are left out, not counted as misses",
                eval.without_gold
            )
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        md,
        "| Retriever | Recall@{k} | 95% interval | MRR@{k} | 95% interval | Queries/s |\n|---|---:|---|---:|---|---:|"
    );
    for r in &eval.retrievers {
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {} | {:.1} |",
            esc(&r.retriever),
            value(r.recall_at_k),
            interval(r.recall_at_k),
            value(r.mrr_at_k),
            interval(r.mrr_at_k),
            r.queries_per_second
        );
    }
    let _ = writeln!(
        md,
        "\n![Retrievers]({})\n\n{}\n",
        crate::markdown::link(chart_file),
        esc(caption)
    );
    if let Some(best) = leader(eval) {
        let _ = writeln!(md, "{}\n", esc(&best));
    }
    md
}

/// Which retriever leads on Recall@K, and whether the lead is beyond the intervals'
/// overlap — a reader should not switch models on noise.
fn leader(eval: &RetrievalEval) -> Option<String> {
    let mut ranked: Vec<(&str, Estimate)> = eval
        .retrievers
        .iter()
        .filter_map(|r| Some((r.retriever.as_str(), r.recall_at_k?)))
        .collect();
    if ranked.len() < 2 {
        return None;
    }
    ranked.sort_by(|a, b| b.1.value.total_cmp(&a.1.value));
    let (first, a) = ranked[0];
    let (second, b) = ranked[1];
    Some(if a.ci_low > b.ci_high {
        format!(
            "{first} finds a gold chunk in the top {} for more questions than {second} ({:.3} vs {:.3}), and the intervals do not overlap.",
            eval.k, a.value, b.value
        )
    } else {
        format!(
            "{first} and {second} are within each other's intervals on Recall@{} ({:.3} vs {:.3}): on these questions the difference may be noise.",
            eval.k, a.value, b.value
        )
    })
}

fn value(e: Option<Estimate>) -> String {
    e.map_or("–".into(), |e| format!("{:.3}", e.value))
}

fn interval(e: Option<Estimate>) -> String {
    e.map_or("–".into(), |e| {
        format!("[{:.3}, {:.3}]", e.ci_low, e.ci_high)
    })
}
