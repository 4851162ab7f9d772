//! The CSV export: one row per item, one column per metric holding its score. A cell is
//! empty when the metric did not score the item; the `problems` column says why.

use std::io::Write;

use super::view::{ItemView, RunView};
use crate::error::{Error, Result};
use crate::metrics::Status;
use crate::store::{self, Store};

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
    header.extend(metrics.iter().cloned());
    header.push("problems".into());
    csv.write_record(&header).map_err(bad)?;
    let item_ids = store::run_items::item_ids(store.conn(), view.run.id)?;
    for (position, item_id) in item_ids.iter().enumerate() {
        let item = ItemView::load(store, view.run.id, *item_id)?;
        let mut row = vec![
            position.to_string(),
            item_id.to_string(),
            item.item.id.clone().unwrap_or_default(),
            item.item.question.clone(),
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
        row.push(problems.join("; "));
        csv.write_record(&row).map_err(bad)?;
    }
    csv.flush().map_err(|source| Error::Write {
        path: Default::default(),
        source,
    })?;
    Ok(())
}
