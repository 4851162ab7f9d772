//! The `datasets` table: one row per imported file.

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::Serialize;

use crate::error::{Error, Result};

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DatasetRow {
    pub id: i64,
    pub name: String,
    pub source_path: Option<String>,
    pub file_hash: Option<String>,
    pub imported_at: String,
    pub item_count: i64,
    pub schema: Option<String>,
    /// `importing` while items are being stored, `ready` after.
    pub status: String,
    /// The first version of the test set this file is a later version of (`import
    /// --version-of`); none for a first version.
    pub version_of: Option<i64>,
}

const COLUMNS: &str =
    "id, name, source_path, file_hash, imported_at, item_count, schema, status, version_of";

fn from_row(row: &Row) -> rusqlite::Result<DatasetRow> {
    Ok(DatasetRow {
        id: row.get(0)?,
        name: row.get(1)?,
        source_path: row.get(2)?,
        file_hash: row.get(3)?,
        imported_at: row.get(4)?,
        item_count: row.get(5)?,
        schema: row.get(6)?,
        status: row.get(7)?,
        version_of: row.get(8)?,
    })
}

pub fn insert(conn: &Connection, name: &str, source_path: Option<&str>) -> Result<i64> {
    conn.execute(
        "INSERT INTO datasets (name, source_path, imported_at) VALUES (?1, ?2, ?3)",
        params![name, source_path, super::now()],
    )?;
    Ok(conn.last_insert_rowid())
}

/// Marks an import complete with what the importer found.
pub fn finish(
    conn: &Connection,
    id: i64,
    item_count: i64,
    file_hash: Option<&str>,
    schema: Option<&str>,
    mapping_json: &str,
    report_json: &str,
) -> Result<()> {
    conn.execute(
        "UPDATE datasets SET item_count = ?2, file_hash = ?3, schema = ?4, mapping_json = ?5,
                report_json = ?6, status = 'ready' WHERE id = ?1",
        params![id, item_count, file_hash, schema, mapping_json, report_json],
    )?;
    Ok(())
}

pub fn get(conn: &Connection, id: i64) -> Result<DatasetRow> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM datasets WHERE id = ?1"),
        [id],
        from_row,
    )
    .optional()?
    .ok_or_else(|| Error::NotFound {
        what: "dataset",
        id: id.to_string(),
    })
}

/// A dataset whose import finished. One whose import stopped part-way (the process
/// was killed) holds only some of its items: it is refused, never evaluated as if whole.
pub fn get_ready(conn: &Connection, id: i64) -> Result<DatasetRow> {
    let row = get(conn, id)?;
    if row.status != "ready" {
        return Err(Error::Invalid(format!(
            "dataset {id} is incomplete: its import stopped before the end of the file; import the file again and use the new dataset"
        )));
    }
    Ok(row)
}

/// Ready datasets, newest first.
pub fn list(conn: &Connection) -> Result<Vec<DatasetRow>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM datasets WHERE status = 'ready' ORDER BY id DESC"
    ))?;
    let rows = stmt
        .query_map([], from_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Every dataset, newest first, with those whose import never finished (status
/// `importing`: stopped part-way, or still going in another process) beside the ready.
pub fn list_all(conn: &Connection) -> Result<Vec<DatasetRow>> {
    let mut stmt = conn.prepare(&format!("SELECT {COLUMNS} FROM datasets ORDER BY id DESC"))?;
    let rows = stmt
        .query_map([], from_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// How many items a dataset holds now (an incomplete one holds what was stored before
/// its import stopped) and how many runs read it.
pub fn footprint(conn: &Connection, id: i64) -> Result<(i64, i64)> {
    Ok(conn.query_row(
        "SELECT (SELECT COUNT(*) FROM items WHERE dataset_id = ?1),
                (SELECT COUNT(*) FROM runs WHERE dataset_id = ?1)",
        [id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?)
}

/// Gives the space freed pages hold back to the file system (after removing a dataset).
pub fn reclaim_space(conn: &Connection) -> Result<()> {
    conn.execute_batch("PRAGMA wal_checkpoint(TRUNCATE); VACUUM;")?;
    Ok(())
}

/// The validation report stored with the dataset, as JSON text.
pub fn report_json(conn: &Connection, id: i64) -> Result<String> {
    conn.query_row(
        "SELECT report_json FROM datasets WHERE id = ?1",
        [id],
        |r| r.get(0),
    )
    .optional()?
    .ok_or_else(|| Error::NotFound {
        what: "dataset",
        id: id.to_string(),
    })
}

pub fn delete(conn: &Connection, id: i64) -> Result<()> {
    // The search index holds no foreign key (it is a virtual table): clear it first.
    conn.execute(
        "DELETE FROM item_search WHERE rowid IN (SELECT id FROM items WHERE dataset_id = ?1)",
        [id],
    )?;
    conn.execute("DELETE FROM datasets WHERE id = ?1", [id])?;
    Ok(())
}

/// The ready dataset imported from a file with these bytes, if any (the newest).
pub fn find_by_file_hash(conn: &Connection, file_hash: &str) -> Result<Option<DatasetRow>> {
    Ok(conn
        .query_row(
            &format!(
                "SELECT {COLUMNS} FROM datasets WHERE file_hash = ?1 AND status = 'ready' ORDER BY id DESC LIMIT 1"
            ),
            [file_hash],
            from_row,
        )
        .optional()?)
}

pub fn set_question_set(conn: &Connection, id: i64, fingerprint: &str) -> Result<()> {
    conn.execute(
        "UPDATE datasets SET question_set = ?2 WHERE id = ?1",
        params![id, fingerprint],
    )?;
    Ok(())
}

/// Records `id` as a later version of `of`'s test set: linked to the first version of
/// `of`'s family, so a family is one level deep however many versions follow; `None`
/// makes `id` a first version again.
pub fn set_version_of(conn: &Connection, id: i64, of: Option<i64>) -> Result<()> {
    let Some(of) = of else {
        conn.execute("UPDATE datasets SET version_of = NULL WHERE id = ?1", [id])?;
        return Ok(());
    };
    let first = get_ready(conn, of)?.version_of.unwrap_or(of);
    if first == id {
        return Err(Error::Invalid(format!(
            "dataset {of} is already a version of dataset {id}'s test set"
        )));
    }
    // Versions that named `id` as their first follow it into `first`'s family.
    conn.execute(
        "UPDATE datasets SET version_of = ?2 WHERE id = ?1 OR version_of = ?1",
        params![id, first],
    )?;
    Ok(())
}

/// Every ready version of `id`'s test set (itself included), oldest first: the datasets
/// linked to the same first version, and those with the same questions.
pub fn versions(conn: &Connection, id: i64) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare(
        "SELECT other.id FROM datasets this JOIN datasets other
           ON other.id = this.id
           OR other.question_set = this.question_set
           OR COALESCE(other.version_of, other.id) = COALESCE(this.version_of, this.id)
         WHERE this.id = ?1 AND other.status = 'ready' ORDER BY other.id",
    )?;
    let ids = stmt
        .query_map([id], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<i64>>>()?;
    Ok(ids)
}

/// Ready datasets imported before question sets were kept.
pub fn missing_question_set(conn: &Connection) -> Result<Vec<i64>> {
    let mut stmt =
        conn.prepare("SELECT id FROM datasets WHERE question_set IS NULL AND status = 'ready'")?;
    let ids = stmt
        .query_map([], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<i64>>>()?;
    Ok(ids)
}
