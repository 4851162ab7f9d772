//! A test set's runs over time: every finished run of the dataset and of its other
//! versions (imported with `--version-of`, or with the same questions and ground truths:
//! another pipeline version's output for the same test set), oldest first, with each metric's mean from its stored
//! summary. What the Runs screen's trend chart draws.

use rusqlite::Connection;

use super::{RunSummary, SUMMARY};
use crate::error::Result;
use crate::store::{self, runs::RunRow, runs::RunStatus};

/// One finished run on the trend: the run, what people call it, and its metrics' means.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TrendRun {
    /// The stored run: id, dataset, label, version, creation time, …
    #[serde(flatten)]
    pub run: RunRow,
    /// What people call the run: its label, or "Run 3".
    pub title: String,
    /// (metric id, mean) for the metrics that scored at least one item.
    pub means: Vec<(String, f64)>,
}

/// The finished runs over `dataset_id`'s questions, oldest first. A run whose summary is missing or
/// was written in a shape this version no longer reads has no point on the chart; the
/// run itself still opens and reports normally.
pub fn of_dataset(conn: &Connection, dataset_id: i64) -> Result<Vec<TrendRun>> {
    store::datasets::get(conn, dataset_id)?;
    let datasets = store::datasets::versions(conn, dataset_id)?;
    let mut points = Vec::new();
    for run in store::runs::list(conn)?.into_iter().rev() {
        if !datasets.contains(&run.dataset_id) || run.status != RunStatus::Done {
            continue;
        }
        let Some(json) = store::analyses::get(conn, run.id, SUMMARY)? else {
            continue;
        };
        let Ok(summary) = serde_json::from_value::<RunSummary>(json) else {
            continue;
        };
        let means = summary
            .metrics
            .iter()
            .filter_map(|(id, m)| m.stats.mean.map(|mean| (id.clone(), mean)))
            .collect();
        points.push(TrendRun {
            title: run.name(),
            run,
            means,
        });
    }
    Ok(points)
}
