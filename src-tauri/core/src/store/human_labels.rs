//! The `human_labels` table: people's scores of items per metric, keyed by the item's
//! content hash so they survive re-runs and re-imports of the same item (and never
//! carry over to an item whose answer changed). One label per item and metric.

use std::collections::HashMap;

use rusqlite::{params, Connection};
use serde::{Deserialize, Serialize};

use crate::error::Result;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct HumanLabel {
    pub content_hash: String,
    pub metric: String,
    /// In [0, 1]; pass/fail labels are 1 and 0.
    pub score: f64,
    pub note: Option<String>,
    /// Where it came from: "window", or the labels file's name.
    pub source: String,
    pub labelled_at: String,
}

/// Stores a label, replacing the item's earlier label for the same metric. Returns
/// whether one was replaced.
pub fn upsert(
    conn: &Connection,
    content_hash: &str,
    metric: &str,
    score: f64,
    note: Option<&str>,
    source: &str,
) -> Result<bool> {
    let replaced = conn.execute(
        "DELETE FROM human_labels WHERE content_hash = ?1 AND metric = ?2",
        params![content_hash, metric],
    )? > 0;
    conn.execute(
        "INSERT INTO human_labels (content_hash, metric, score, note, source, labelled_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![content_hash, metric, score, note, source, super::now()],
    )?;
    Ok(replaced)
}

pub fn remove(conn: &Connection, content_hash: &str, metric: &str) -> Result<bool> {
    Ok(conn.execute(
        "DELETE FROM human_labels WHERE content_hash = ?1 AND metric = ?2",
        params![content_hash, metric],
    )? > 0)
}

/// Every label of the items of `run_id`, keyed by (content hash, metric).
pub fn for_run(conn: &Connection, run_id: i64) -> Result<HashMap<(String, String), HumanLabel>> {
    // Most homes hold no label at all: a million-item run need not list its items'
    // hashes (seconds) to find that out.
    let any: bool = conn.query_row("SELECT EXISTS (SELECT 1 FROM human_labels)", [], |r| {
        r.get(0)
    })?;
    if !any {
        return Ok(HashMap::new());
    }
    let mut stmt = conn.prepare(
        "SELECT h.content_hash, h.metric, h.score, h.note, h.source, h.labelled_at
         FROM human_labels h
         WHERE h.content_hash IN (
             SELECT i.content_hash FROM run_items ri JOIN items i ON i.id = ri.item_id
             WHERE ri.run_id = ?1)",
    )?;
    let rows = stmt
        .query_map([run_id], from_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows
        .into_iter()
        .map(|l| ((l.content_hash.clone(), l.metric.clone()), l))
        .collect())
}

/// The labelled scores of the items of `run_id`, by item id: (metric, score) each.
pub fn scores_by_item(conn: &Connection, run_id: i64) -> Result<HashMap<i64, Vec<(String, f64)>>> {
    let any: bool = conn.query_row("SELECT EXISTS (SELECT 1 FROM human_labels)", [], |r| {
        r.get(0)
    })?;
    if !any {
        return Ok(HashMap::new());
    }
    let mut stmt = conn.prepare(
        "SELECT ri.item_id, h.metric, h.score
         FROM run_items ri JOIN items i ON i.id = ri.item_id
         JOIN human_labels h ON h.content_hash = i.content_hash
         WHERE ri.run_id = ?1",
    )?;
    let mut out: HashMap<i64, Vec<(String, f64)>> = HashMap::new();
    let mut rows = stmt.query([run_id])?;
    while let Some(row) = rows.next()? {
        out.entry(row.get(0)?)
            .or_default()
            .push((row.get(1)?, row.get(2)?));
    }
    Ok(out)
}

/// The labels of one item.
pub fn for_item(conn: &Connection, content_hash: &str) -> Result<Vec<HumanLabel>> {
    let mut stmt = conn.prepare(
        "SELECT content_hash, metric, score, note, source, labelled_at FROM human_labels
         WHERE content_hash = ?1 ORDER BY metric",
    )?;
    let rows = stmt
        .query_map([content_hash], from_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

fn from_row(r: &rusqlite::Row) -> rusqlite::Result<HumanLabel> {
    Ok(HumanLabel {
        content_hash: r.get(0)?,
        metric: r.get(1)?,
        score: r.get(2)?,
        note: r.get(3)?,
        source: r.get(4)?,
        labelled_at: r.get(5)?,
    })
}
