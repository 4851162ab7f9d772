//! The CSV export: one row per item, one column per metric holding its score. A cell is
//! empty when the metric did not score the item; the `problems` column says why.
//!
//! Text from a dataset or a judge can open with `=`, `+`, `-`, `@`, a tab or a carriage
//! return, which a spreadsheet reads as a formula (CSV injection). Such a text cell is
//! written with a leading `'`, as OWASP advises, so it opens as the text it is; scores are
//! numbers and stay as they are. The JSON export keeps every text exact.

use std::io::Write;

use crate::error::{Error, Result};
use crate::metrics::Status;
use crate::store::{self, Store};
use crate::view::{ItemView, RunView};

pub fn write(store: &Store, view: &RunView, out: &mut impl Write) -> Result<()> {
    let mut csv = csv::Writer::from_writer(out);
    // The only way writing a CSV record fails is the writer's I/O (a full disk): a failed
    // write of the file, whose path `output_file::write_with` fills in.
    let bad = |e: csv::Error| match e.into_kind() {
        csv::ErrorKind::Io(source) => Error::Write {
            path: Default::default(),
            source,
        },
        other => Error::Invalid(format!("writing CSV export failed: {other:?}")),
    };
    let metrics = &view.run.metrics;
    let mut header = vec![
        "position".to_string(),
        "item_id".into(),
        "id".into(),
        "question".into(),
    ];
    header.extend(metrics.iter().map(|m| neutralise(m)));
    header.push("problems".into());
    csv.write_record(&header).map_err(bad)?;
    let item_ids = store::run_items::item_ids(store.conn(), view.run.id)?;
    for (position, item_id) in item_ids.iter().enumerate() {
        let item = ItemView::load(store, view.run.id, *item_id)?;
        let mut row = vec![
            position.to_string(),
            item_id.to_string(),
            neutralise(item.item.id.as_deref().unwrap_or_default()),
            neutralise(&item.item.question),
        ];
        let mut problems = Vec::new();
        for metric in metrics {
            match item.results.iter().find(|r| &r.metric == metric) {
                Some(r) if r.status == Status::Ok => {
                    row.push(r.score.map(|s| format!("{s:.4}")).unwrap_or_default())
                }
                Some(r) => {
                    row.push(String::new());
                    problems.push(format!("{metric} {}: {}", r.status.as_str(), r.explanation));
                }
                None => row.push(String::new()),
            }
        }
        row.push(neutralise(&problems.join("; ")));
        csv.write_record(&row).map_err(bad)?;
    }
    csv.flush().map_err(|source| Error::Write {
        path: Default::default(),
        source,
    })?;
    Ok(())
}

/// A text cell a spreadsheet will not run: one opening with a formula character gets a
/// leading `'` (see the module documentation).
fn neutralise(text: &str) -> String {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::neutralise;

    #[test]
    fn a_text_that_opens_like_a_formula_is_written_as_text() {
        for cell in [
            "=HYPERLINK(\"http://x\")",
            "+1+1",
            "-2+3",
            "@SUM(A1)",
            "\tx",
            "\rx",
        ] {
            assert_eq!(neutralise(cell), format!("'{cell}"), "{cell:?}");
        }
        for cell in ["What is =?", "q-17", "", "0.5000"] {
            assert_eq!(neutralise(cell), cell);
        }
    }
}
