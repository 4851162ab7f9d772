//! The `judge_batches` and `judge_batch_misses` tables: the provider batches a run or a
//! judge check in batch mode submitted (ids, status, counts, the start of each request's
//! key), and the requests a batch did not answer usably, which are then asked live. Never
//! a key or a prompt.

use std::collections::HashSet;

use rusqlite::{params, Connection, Row};
use serde::Serialize;

use crate::error::Result;

/// Whose batches: a run's, or the judge check's of one judge (its `config_key`), which
/// has no stored row until it finishes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BatchOwner {
    Run(i64),
    Check { judge: String },
}

impl BatchOwner {
    /// The owner as the tables hold it: (run_id, check_judge), one of them NULL.
    fn columns(&self) -> (Option<i64>, Option<&str>) {
        match self {
            BatchOwner::Run(id) => (Some(*id), None),
            BatchOwner::Check { judge } => (None, Some(judge)),
        }
    }
}

/// One submitted batch as stored.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct BatchRow {
    /// This table's id.
    pub id: i64,
    #[serde(skip)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub owner: BatchOwner,
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
    pub owner: &'a BatchOwner,
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
    "id, run_id, check_judge, provider, batch_id, input_file_id, output_file_id, error_file_id,
    status, entries, completed, failed, entry_keys, submitted_at, updated_at, ingested_at";

/// The owner condition on ?1 (run_id) and ?2 (check_judge); `IS` matches the NULL one.
const OWNED: &str = "run_id IS ?1 AND check_judge IS ?2";

fn from_row(row: &Row) -> rusqlite::Result<BatchRow> {
    let keys: Vec<u8> = row.get(12)?;
    let owner = match (
        row.get::<_, Option<i64>>(1)?,
        row.get::<_, Option<String>>(2)?,
    ) {
        (Some(run_id), _) => BatchOwner::Run(run_id),
        (None, judge) => BatchOwner::Check {
            judge: judge.unwrap_or_default(),
        },
    };
    Ok(BatchRow {
        id: row.get(0)?,
        owner,
        provider: row.get(3)?,
        batch_id: row.get(4)?,
        input_file_id: row.get(5)?,
        output_file_id: row.get(6)?,
        error_file_id: row.get(7)?,
        status: row.get(8)?,
        entries: row.get::<_, i64>(9)? as u64,
        completed: row.get::<_, i64>(10)? as u64,
        failed: row.get::<_, i64>(11)? as u64,
        entry_keys: unpack(&keys),
        submitted_at: row.get(13)?,
        updated_at: row.get(14)?,
        ingested_at: row.get(15)?,
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
        "INSERT INTO judge_batches (run_id, check_judge, provider, batch_id, input_file_id,
                                    status, entries, entry_keys, submitted_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)",
        params![
            b.owner.columns().0,
            b.owner.columns().1,
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
    for_owner(conn, &BatchOwner::Run(run_id))
}

/// Every batch of `owner`, oldest first.
pub fn for_owner(conn: &Connection, owner: &BatchOwner) -> Result<Vec<BatchRow>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM judge_batches WHERE {OWNED} ORDER BY id"
    ))?;
    let (run_id, judge) = owner.columns();
    let rows = stmt
        .query_map(params![run_id, judge], from_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// The owner's batches whose results have not been read back yet.
pub fn waiting(conn: &Connection, owner: &BatchOwner) -> Result<Vec<BatchRow>> {
    Ok(for_owner(conn, owner)?
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

/// Marks a batch's results read and keeps what reading it cost (`spent`, JSON of the
/// accounting). Call inside the transaction that adds that cost to its owner.
pub fn mark_ingested(conn: &Connection, id: i64, spent: &str) -> Result<()> {
    conn.execute(
        "UPDATE judge_batches SET ingested_at = ?2, updated_at = ?2, spent = ?3 WHERE id = ?1",
        params![id, super::now(), spent],
    )?;
    Ok(())
}

/// What the owner's batches that were read cost, as stored by `mark_ingested`.
pub fn spent(conn: &Connection, owner: &BatchOwner) -> Result<Vec<String>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT spent FROM judge_batches WHERE {OWNED} AND spent IS NOT NULL ORDER BY id"
    ))?;
    let (run_id, judge) = owner.columns();
    let rows = stmt
        .query_map(params![run_id, judge], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(rows)
}

/// Forgets the owner's batches and misses: a finished judge check, whose answers are in
/// the cache and whose cost is in its figures, so the next check starts afresh.
pub fn forget(conn: &Connection, owner: &BatchOwner) -> Result<()> {
    let (run_id, judge) = owner.columns();
    conn.execute(
        &format!("DELETE FROM judge_batch_misses WHERE {OWNED}"),
        params![run_id, judge],
    )?;
    conn.execute(
        &format!("DELETE FROM judge_batches WHERE {OWNED}"),
        params![run_id, judge],
    )?;
    Ok(())
}

/// Records a request a batch did not answer usably (`batch` None: one never sent, too
/// large for a batch); a second record of the same request keeps the first reason.
pub fn add_miss(
    conn: &Connection,
    owner: &BatchOwner,
    batch: Option<i64>,
    key: u64,
    reason: &str,
) -> Result<()> {
    let (run_id, judge) = owner.columns();
    conn.prepare_cached(
        "INSERT OR IGNORE INTO judge_batch_misses (run_id, check_judge, key_prefix, batch, reason)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![run_id, judge, key as i64, batch, reason])?;
    Ok(())
}

/// The key prefixes of the owner's requests that batches did not answer usably.
pub fn misses(conn: &Connection, owner: &BatchOwner) -> Result<HashSet<u64>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT key_prefix FROM judge_batch_misses WHERE {OWNED}"
    ))?;
    let (run_id, judge) = owner.columns();
    let keys = stmt
        .query_map(params![run_id, judge], |r| r.get::<_, i64>(0))?
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
        let owner = BatchOwner::Run(run(&store));
        let keys = [u64::MAX, 0, 42];
        let id = insert(
            store.conn(),
            &NewBatch {
                owner: &owner,
                provider: "openai",
                batch_id: "batch_1",
                input_file_id: Some("file-1"),
                status: "validating",
                entry_keys: &keys,
            },
        )
        .unwrap();
        let row = &waiting(store.conn(), &owner).unwrap()[0];
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
        add_miss(store.conn(), &owner, Some(id), 42, "expired").unwrap();
        add_miss(store.conn(), &owner, Some(id), 42, "again").unwrap();
        mark_ingested(store.conn(), id, "{}").unwrap();
        assert!(waiting(store.conn(), &owner).unwrap().is_empty());
        let row = &for_owner(store.conn(), &owner).unwrap()[0];
        assert_eq!(
            (
                row.status.as_str(),
                row.completed,
                row.output_file_id.as_deref()
            ),
            ("completed", 2, Some("file-2"))
        );
        assert_eq!(misses(store.conn(), &owner).unwrap(), HashSet::from([42]));
        assert_eq!(
            miss_count(store.conn(), id).unwrap(),
            1,
            "one record per request"
        );
    }

    #[test]
    fn a_judge_checks_batches_are_its_own_keep_their_cost_and_are_forgotten_together() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let run_owner = BatchOwner::Run(run(&store));
        let check = BatchOwner::Check {
            judge: "openai|gpt|0".into(),
        };
        let new = |owner: &BatchOwner, id: &str| {
            insert(
                store.conn(),
                &NewBatch {
                    owner,
                    provider: "openai",
                    batch_id: id,
                    input_file_id: None,
                    status: "validating",
                    entry_keys: &[7],
                },
            )
            .unwrap()
        };
        let for_run = new(&run_owner, "batch_run");
        let for_check = new(&check, "batch_check");
        // The same request missed by both owners is recorded for each.
        add_miss(store.conn(), &run_owner, Some(for_run), 7, "expired").unwrap();
        add_miss(store.conn(), &check, Some(for_check), 7, "expired").unwrap();
        add_miss(store.conn(), &check, Some(for_check), 7, "again").unwrap();
        let ids = |owner| -> Vec<String> {
            waiting(store.conn(), owner)
                .unwrap()
                .into_iter()
                .map(|b| b.batch_id)
                .collect()
        };
        assert_eq!(ids(&check), ["batch_check"]);
        assert_eq!(ids(&run_owner), ["batch_run"]);
        mark_ingested(store.conn(), for_check, r#"{"calls":1}"#).unwrap();
        assert_eq!(spent(store.conn(), &check).unwrap(), [r#"{"calls":1}"#]);
        assert!(waiting(store.conn(), &check).unwrap().is_empty());

        forget(store.conn(), &check).unwrap();
        assert!(for_owner(store.conn(), &check).unwrap().is_empty());
        assert!(misses(store.conn(), &check).unwrap().is_empty());
        assert_eq!(ids(&run_owner), ["batch_run"], "the run's batch stays");
        assert_eq!(
            misses(store.conn(), &run_owner).unwrap(),
            HashSet::from([7])
        );
    }
}
