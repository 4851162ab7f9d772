//! The `runs` table: one row per evaluation run and its lifecycle.

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// Where a run is in its life. `Planned`, `Running` (when found on open: the process
/// died), `Cancelled` and `Failed` runs can be resumed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Planned,
    Running,
    Cancelled,
    Failed,
    Done,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Planned => "planned",
            RunStatus::Running => "running",
            RunStatus::Cancelled => "cancelled",
            RunStatus::Failed => "failed",
            RunStatus::Done => "done",
        }
    }

    pub fn parse(s: &str) -> RunStatus {
        match s {
            "planned" => RunStatus::Planned,
            "running" => RunStatus::Running,
            "cancelled" => RunStatus::Cancelled,
            "done" => RunStatus::Done,
            _ => RunStatus::Failed,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RunRow {
    pub id: i64,
    pub dataset_id: i64,
    pub label: Option<String>,
    pub version: Option<String>,
    pub notes: Option<String>,
    pub mode: String,
    pub metrics: Vec<String>,
    pub judge: String,
    pub config: serde_json::Value,
    pub status: RunStatus,
    pub message: Option<String>,
    pub item_count: i64,
    pub created_at: String,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
}

impl RunRow {
    /// What people call the run: its label, or "Run 3".
    pub fn name(&self) -> String {
        self.label
            .clone()
            .unwrap_or_else(|| format!("Run {}", self.id))
    }
}

/// What a new run row needs.
pub struct NewRun<'a> {
    pub dataset_id: i64,
    pub label: Option<&'a str>,
    pub version: Option<&'a str>,
    pub notes: Option<&'a str>,
    pub mode: &'a str,
    pub metrics: &'a [String],
    pub judge: &'a str,
    pub config: &'a serde_json::Value,
    pub item_count: i64,
}

const COLUMNS: &str =
    "id, dataset_id, label, version, notes, mode, metrics_json, judge, config_json, status,
    message, item_count, created_at, started_at, finished_at";

fn from_row(row: &Row) -> rusqlite::Result<RunRow> {
    let metrics: String = row.get(6)?;
    let config: String = row.get(8)?;
    let status: String = row.get(9)?;
    let bad = |idx, e: serde_json::Error| {
        rusqlite::Error::FromSqlConversionFailure(idx, rusqlite::types::Type::Text, Box::new(e))
    };
    Ok(RunRow {
        id: row.get(0)?,
        dataset_id: row.get(1)?,
        label: row.get(2)?,
        version: row.get(3)?,
        notes: row.get(4)?,
        mode: row.get(5)?,
        metrics: serde_json::from_str(&metrics).map_err(|e| bad(6, e))?,
        judge: row.get(7)?,
        config: serde_json::from_str(&config).map_err(|e| bad(8, e))?,
        status: RunStatus::parse(&status),
        message: row.get(10)?,
        item_count: row.get(11)?,
        created_at: row.get(12)?,
        started_at: row.get(13)?,
        finished_at: row.get(14)?,
    })
}

pub fn insert(conn: &Connection, run: &NewRun) -> Result<i64> {
    conn.execute(
        "INSERT INTO runs (dataset_id, label, version, notes, mode, metrics_json, judge, config_json,
                           status, item_count, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'planned', ?9, ?10)",
        params![
            run.dataset_id,
            run.label,
            run.version,
            run.notes,
            run.mode,
            serde_json::to_string(run.metrics)?,
            run.judge,
            serde_json::to_string(run.config)?,
            run.item_count,
            super::now(),
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

pub fn get(conn: &Connection, id: i64) -> Result<RunRow> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM runs WHERE id = ?1"),
        [id],
        from_row,
    )
    .optional()?
    .ok_or_else(|| Error::NotFound {
        what: "run",
        id: id.to_string(),
    })
}

/// All runs, newest first.
pub fn list(conn: &Connection) -> Result<Vec<RunRow>> {
    let mut stmt = conn.prepare(&format!("SELECT {COLUMNS} FROM runs ORDER BY id DESC"))?;
    let rows = stmt
        .query_map([], from_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

pub fn mark_started(conn: &Connection, id: i64) -> Result<()> {
    conn.execute(
        "UPDATE runs SET status = 'running', message = NULL, started_at = COALESCE(started_at, ?2) WHERE id = ?1",
        params![id, super::now()],
    )?;
    Ok(())
}

pub fn mark_ended(
    conn: &Connection,
    id: i64,
    status: RunStatus,
    message: Option<&str>,
) -> Result<()> {
    conn.execute(
        "UPDATE runs SET status = ?2, message = ?3, finished_at = ?4 WHERE id = ?1",
        params![id, status.as_str(), message, super::now()],
    )?;
    Ok(())
}

pub fn set_totals(conn: &Connection, id: i64, totals: &serde_json::Value) -> Result<()> {
    conn.execute(
        "UPDATE runs SET totals_json = ?2 WHERE id = ?1",
        params![id, serde_json::to_string(totals)?],
    )?;
    Ok(())
}

/// The run's accumulated totals (calls, tokens, cost, seconds), zero when none yet.
pub fn totals<T: serde::de::DeserializeOwned + Default>(conn: &Connection, id: i64) -> Result<T> {
    let text: String = conn.query_row("SELECT totals_json FROM runs WHERE id = ?1", [id], |r| {
        r.get(0)
    })?;
    Ok(serde_json::from_str(&text).unwrap_or_default())
}

/// How fast runs judged by one judge went on this machine: wall-clock seconds per
/// evaluated cell (item × metric) over the last few finished runs, and how many runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pace {
    pub secs_per_cell: f64,
    pub runs: u64,
}

/// The pace of the last `limit` finished runs judged by `judge` (with a start, an end and
/// at least one result), or `None` before the first. A resumed run counts the pause in
/// its wall time: the estimate errs long, never short.
pub fn pace(conn: &Connection, judge: &str, limit: u32) -> Result<Option<Pace>> {
    let mut stmt = conn.prepare(
        "SELECT started_at, finished_at, (SELECT COUNT(*) FROM results WHERE results.run_id = runs.id)
         FROM runs
         WHERE judge = ?1 AND status = 'done' AND started_at IS NOT NULL AND finished_at IS NOT NULL
         ORDER BY id DESC LIMIT ?2",
    )?;
    let rows = stmt.query_map(params![judge, limit], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, i64>(2)?,
        ))
    })?;
    let (mut secs, mut cells, mut runs) = (0.0, 0i64, 0u64);
    for row in rows {
        let (started, finished, n) = row?;
        let parse = |t: &str| chrono::DateTime::parse_from_rfc3339(t).ok();
        let (Some(a), Some(b)) = (parse(&started), parse(&finished)) else {
            continue;
        };
        let took = (b - a).num_milliseconds() as f64 / 1000.0;
        if n > 0 && took >= 0.0 {
            secs += took;
            cells += n;
            runs += 1;
        }
    }
    Ok((runs > 0).then(|| Pace {
        secs_per_cell: secs / cells as f64,
        runs,
    }))
}
