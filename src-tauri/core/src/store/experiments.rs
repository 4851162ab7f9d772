//! The `experiments` table: the change a user will try for one failure pattern of a run
//! ("Try this" on an action), and the items it targets. What came of it is read from the
//! runs, never stored here (`analysis::experiment`).

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::Serialize;

use crate::error::{Error, Result};

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ExperimentRow {
    pub id: i64,
    /// The run whose action it tries.
    pub run_id: i64,
    /// The failure pattern's serialised name ("subtle_distortion").
    pub pattern: String,
    pub action_title: String,
    /// What the user will change, in their words.
    pub change: String,
    /// The items the pattern fired on: the user's ids, "#N" by position without one.
    pub targets: Vec<String>,
    pub created_at: String,
}

/// What a new experiment records.
pub struct NewExperiment<'a> {
    pub run_id: i64,
    pub pattern: &'a str,
    pub action_title: &'a str,
    pub change: &'a str,
    pub targets: &'a [String],
}

const COLUMNS: &str = "id, run_id, pattern, action_title, change, targets_json, created_at";

fn from_row(row: &Row) -> rusqlite::Result<ExperimentRow> {
    let targets: String = row.get(5)?;
    Ok(ExperimentRow {
        id: row.get(0)?,
        run_id: row.get(1)?,
        pattern: row.get(2)?,
        action_title: row.get(3)?,
        change: row.get(4)?,
        // Written by `insert` from a Vec<String>: a row that does not parse was edited by
        // hand, and its targets are then unknown rather than a failure to list the rest.
        targets: serde_json::from_str(&targets).unwrap_or_default(),
        created_at: row.get(6)?,
    })
}

pub fn insert(conn: &Connection, new: &NewExperiment) -> Result<i64> {
    conn.execute(
        "INSERT INTO experiments (run_id, pattern, action_title, change, targets_json, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            new.run_id,
            new.pattern,
            new.action_title,
            new.change,
            serde_json::to_string(new.targets)?,
            super::now()
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

pub fn get(conn: &Connection, id: i64) -> Result<ExperimentRow> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM experiments WHERE id = ?1"),
        [id],
        from_row,
    )
    .optional()?
    .ok_or_else(|| Error::NotFound {
        what: "experiment",
        id: id.to_string(),
    })
}

/// The experiments tried from the runs of any of `datasets`, oldest first.
pub fn of_datasets(conn: &Connection, datasets: &[i64]) -> Result<Vec<ExperimentRow>> {
    let list = datasets
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM experiments
         WHERE run_id IN (SELECT id FROM runs WHERE dataset_id IN ({list})) ORDER BY id"
    ))?;
    let rows = stmt
        .query_map([], from_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}
