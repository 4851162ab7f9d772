//! The `analyses` table: derived JSON per run (statistics, dataset-level metrics, ...),
//! replaced whenever it is recomputed.

use rusqlite::{params, Connection, OptionalExtension};

use crate::error::Result;

pub fn put(conn: &Connection, run_id: i64, kind: &str, json: &serde_json::Value) -> Result<()> {
    conn.execute(
        "INSERT INTO analyses (run_id, kind, json, created_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (run_id, kind) DO UPDATE SET json = excluded.json, created_at = excluded.created_at",
        params![run_id, kind, serde_json::to_string(json)?, super::now()],
    )?;
    Ok(())
}

pub fn get(conn: &Connection, run_id: i64, kind: &str) -> Result<Option<serde_json::Value>> {
    let text: Option<String> = conn
        .query_row(
            "SELECT json FROM analyses WHERE run_id = ?1 AND kind = ?2",
            params![run_id, kind],
            |r| r.get(0),
        )
        .optional()?;
    Ok(match text {
        Some(t) => Some(serde_json::from_str(&t)?),
        None => None,
    })
}
