//! The `judge_batches` and `judge_batch_misses` tables: the provider batches a run in
//! batch mode submitted (ids, status, counts, the start of each request's key), and the
//! requests a batch did not answer usably, which the run then asks live. Never a key or a
//! prompt.

use std::collections::HashSet;

use rusqlite::{params, Connection, Row};
use serde::Serialize;

use crate::error::Result;

/// One submitted batch as stored.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BatchRow {
    /// This table's id.
    pub id: i64,
    pub run_id: i64,
    pub provider: String,
    /// The provider's id.
    pub batch_id: String,
    pub input_file_id: Option<String>,
    pub output_file_id: Option<String>,
    pub error_file_id: Option<String>,
    pub status: String,
    pub entries: u64,
    pub completed: u64,
    pub failed: u64,
    /// The first 8 bytes of each request's cache key, in file order.
    #[serde(skip)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub entry_keys: Vec<u64>,
    pub submitted_at: String,
    pub updated_at: String,
    pub ingested_at: Option<String>,
}

/// What a new row needs: written as soon as the provider accepted the batch.
pub struct NewBatch<'a> {
    pub run_id: i64,
    pub provider: &'a str,
    pub batch_id: &'a str,
    pub input_file_id: Option<&'a str>,
    pub status: &'a str,
    pub entry_keys: &'a [u64],
}

/// The status a poll read.
pub struct BatchProgress<'a> {
    pub status: &'a str,
    pub completed: u64,
    pub failed: u64,
    pub output_file_id: Option<&'a str>,
    pub error_file_id: Option<&'a str>,
}

const COLUMNS: &str =
    "id, run_id, provider, batch_id, input_file_id, output_file_id, error_file_id,
    status, entries, completed, failed, entry_keys, submitted_at, updated_at, ingested_at";

fn from_row(row: &Row) -> rusqlite::Result<BatchRow> {
    let keys: Vec<u8> = row.get(11)?;
    Ok(BatchRow {
        id: row.get(0)?,
        run_id: row.get(1)?,
        provider: row.get(2)?,
        batch_id: row.get(3)?,
        input_file_id: row.get(4)?,
        output_file_id: row.get(5)?,
        error_file_id: row.get(6)?,
        status: row.get(7)?,
        entries: row.get::<_, i64>(8)? as u64,
        completed: row.get::<_, i64>(9)? as u64,
        failed: row.get::<_, i64>(10)? as u64,
        entry_keys: unpack(&keys),
        submitted_at: row.get(12)?,
        updated_at: row.get(13)?,
        ingested_at: row.get(14)?,
    })
}

fn pack(keys: &[u64]) -> Vec<u8> {
    keys.iter().flat_map(|k| k.to_le_bytes()).collect()
}

fn unpack(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("chunks of 8")))
        .collect()
}

pub fn insert(conn: &Connection, b: &NewBatch) -> Result<i64> {
    let now = super::now();
    conn.execute(
        "INSERT INTO judge_batches (run_id, provider, batch_id, input_file_id, status, entries,
                                    entry_keys, submitted_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8)",
        params![
            b.run_id,
            b.provider,
            b.batch_id,
            b.input_file_id,
            b.status,
            b.entry_keys.len() as i64,
            pack(b.entry_keys),
            now,
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

/// Every batch of a run, oldest first.
pub fn for_run(conn: &Connection, run_id: i64) -> Result<Vec<BatchRow>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM judge_batches WHERE run_id = ?1 ORDER BY id"
    ))?;
    let rows = stmt
        .query_map([run_id], from_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// The run's batches whose results have not been read back yet.
pub fn waiting(conn: &Connection, run_id: i64) -> Result<Vec<BatchRow>> {
    Ok(for_run(conn, run_id)?
        .into_iter()
        .filter(|b| b.ingested_at.is_none())
        .collect())
}

pub fn set_progress(conn: &Connection, id: i64, p: &BatchProgress) -> Result<()> {
    conn.execute(
        "UPDATE judge_batches SET status = ?2, completed = ?3, failed = ?4,
                output_file_id = COALESCE(?5, output_file_id),
                error_file_id = COALESCE(?6, error_file_id), updated_at = ?7
         WHERE id = ?1",
        params![
            id,
            p.status,
            p.completed as i64,
            p.failed as i64,
            p.output_file_id,
            p.error_file_id,
            super::now()
        ],
    )?;
    Ok(())
}

/// Marks a batch's results read. Call inside the transaction that stores what they cost.
pub fn mark_ingested(conn: &Connection, id: i64) -> Result<()> {
    conn.execute(
        "UPDATE judge_batches SET ingested_at = ?2, updated_at = ?2 WHERE id = ?1",
        params![id, super::now()],
    )?;
    Ok(())
}

/// Records a request a batch did not answer usably (`batch` None: one never sent, too
/// large for a batch); a second record of the same request keeps the first reason.
pub fn add_miss(
    conn: &Connection,
    run_id: i64,
    batch: Option<i64>,
    key: u64,
    reason: &str,
) -> Result<()> {
    conn.prepare_cached(
        "INSERT INTO judge_batch_misses (run_id, key_prefix, batch, reason) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (run_id, key_prefix) DO NOTHING",
    )?
    .execute(params![run_id, key as i64, batch, reason])?;
    Ok(())
}

/// The key prefixes of the run's requests that batches did not answer usably.
pub fn misses(conn: &Connection, run_id: i64) -> Result<HashSet<u64>> {
    let mut stmt = conn.prepare("SELECT key_prefix FROM judge_batch_misses WHERE run_id = ?1")?;
    let keys = stmt
        .query_map([run_id], |r| r.get::<_, i64>(0))?
        .map(|k| k.map(|k| k as u64))
        .collect::<rusqlite::Result<HashSet<u64>>>()?;
    Ok(keys)
}

/// How many of a batch's requests were recorded as misses.
pub fn miss_count(conn: &Connection, batch: i64) -> Result<u64> {
    Ok(conn.query_row(
        "SELECT COUNT(*) FROM judge_batch_misses WHERE batch = ?1",
        [batch],
        |r| r.get::<_, i64>(0),
    )? as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    fn run(store: &Store) -> i64 {
        let dataset_id = crate::store::datasets::insert(store.conn(), "d", None).unwrap();
        crate::store::runs::insert(
            store.conn(),
            &crate::store::runs::NewRun {
                dataset_id,
                label: None,
                version: None,
                notes: None,
                mode: "manual",
                metrics: &[],
                judge: "sim",
                config: &serde_json::json!({}),
                item_count: 0,
            },
        )
        .unwrap()
    }

    #[test]
    fn a_batch_row_keeps_its_keys_and_leaves_the_waiting_list_once_ingested() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let run_id = run(&store);
        let keys = [u64::MAX, 0, 42];
        let id = insert(
            store.conn(),
            &NewBatch {
                run_id,
                provider: "openai",
                batch_id: "batch_1",
                input_file_id: Some("file-1"),
                status: "validating",
                entry_keys: &keys,
            },
        )
        .unwrap();
        let row = &waiting(store.conn(), run_id).unwrap()[0];
        assert_eq!((row.entries, row.entry_keys.as_slice()), (3, &keys[..]));
        set_progress(
            store.conn(),
            id,
            &BatchProgress {
                status: "completed",
                completed: 2,
                failed: 1,
                output_file_id: Some("file-2"),
                error_file_id: None,
            },
        )
        .unwrap();
        add_miss(store.conn(), run_id, Some(id), 42, "expired").unwrap();
        add_miss(store.conn(), run_id, Some(id), 42, "again").unwrap();
        mark_ingested(store.conn(), id).unwrap();
        assert!(waiting(store.conn(), run_id).unwrap().is_empty());
        let row = &for_run(store.conn(), run_id).unwrap()[0];
        assert_eq!(
            (
                row.status.as_str(),
                row.completed,
                row.output_file_id.as_deref()
            ),
            ("completed", 2, Some("file-2"))
        );
        assert_eq!(misses(store.conn(), run_id).unwrap(), HashSet::from([42]));
        assert_eq!(
            miss_count(store.conn(), id).unwrap(),
            1,
            "one record per request"
        );
    }
}
