//! The `run_items` table: which items a run evaluates, in order. Fixed at planning time
//! so a resumed run evaluates exactly the same sample.

use rusqlite::{params, Connection};

use crate::error::Result;

pub fn insert_all(conn: &Connection, run_id: i64, item_ids: &[i64]) -> Result<()> {
    let mut stmt = conn
        .prepare_cached("INSERT INTO run_items (run_id, position, item_id) VALUES (?1, ?2, ?3)")?;
    for (position, item_id) in item_ids.iter().enumerate() {
        stmt.execute(params![run_id, position as i64, item_id])?;
    }
    Ok(())
}

pub fn item_ids(conn: &Connection, run_id: i64) -> Result<Vec<i64>> {
    let mut stmt =
        conn.prepare("SELECT item_id FROM run_items WHERE run_id = ?1 ORDER BY position")?;
    let ids = stmt
        .query_map([run_id], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<i64>>>()?;
    Ok(ids)
}

/// Whether `item_id` is one of the run's items.
pub fn contains(conn: &Connection, run_id: i64, item_id: i64) -> Result<bool> {
    let mut stmt = conn.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM run_items WHERE run_id = ?1 AND item_id = ?2)",
    )?;
    Ok(stmt.query_row(params![run_id, item_id], |r| r.get(0))?)
}

/// The run's item whose id in the user's file is `external_id`, if the run has one.
pub fn by_external_id(conn: &Connection, run_id: i64, external_id: &str) -> Result<Option<i64>> {
    let mut stmt = conn.prepare_cached(
        "SELECT ri.item_id FROM run_items ri JOIN items i ON i.id = ri.item_id
         WHERE ri.run_id = ?1 AND i.external_id = ?2 ORDER BY ri.position LIMIT 1",
    )?;
    let mut rows = stmt.query(params![run_id, external_id])?;
    Ok(match rows.next()? {
        Some(row) => Some(row.get(0)?),
        None => None,
    })
}

/// What identifies one of a run's items across runs: its content hash (the same output
/// for the same case), its question key (the same case, whatever the output), and the
/// user's id and file position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunItemKey {
    pub item_id: i64,
    pub ordinal: i64,
    pub external_id: Option<String>,
    pub content_hash: String,
    /// `item::question_key` of the question and ground truth.
    pub question_key: String,
}

/// The run's items with their identities, in run order (for run comparison).
pub fn keys(conn: &Connection, run_id: i64) -> Result<Vec<RunItemKey>> {
    let mut stmt = conn.prepare(
        "SELECT i.id, i.ordinal, i.external_id, i.content_hash, i.question, i.ground_truth
         FROM run_items ri JOIN items i ON i.id = ri.item_id
         WHERE ri.run_id = ?1 ORDER BY ri.position",
    )?;
    let keys = stmt
        .query_map(params![run_id], |r| {
            let question: String = r.get(4)?;
            let ground_truth: Option<String> = r.get(5)?;
            Ok(RunItemKey {
                item_id: r.get(0)?,
                ordinal: r.get(1)?,
                external_id: r.get(2)?,
                content_hash: r.get(3)?,
                question_key: crate::item::question_key(&question, ground_truth.as_deref()),
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(keys)
}
