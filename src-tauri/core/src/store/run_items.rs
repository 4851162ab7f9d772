//! The `run_items` table: which items a run evaluates, in order. Fixed at planning time
//! so a resumed run evaluates exactly the same sample.

use rusqlite::{params, Connection};

use crate::error::Result;

pub fn insert_all(conn: &Connection, run_id: i64, item_ids: &[i64]) -> Result<()> {
    let mut stmt = conn.prepare_cached("INSERT INTO run_items (run_id, position, item_id) VALUES (?1, ?2, ?3)")?;
    for (position, item_id) in item_ids.iter().enumerate() {
        stmt.execute(params![run_id, position as i64, item_id])?;
    }
    Ok(())
}

pub fn item_ids(conn: &Connection, run_id: i64) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare("SELECT item_id FROM run_items WHERE run_id = ?1 ORDER BY position")?;
    let ids = stmt.query_map([run_id], |r| r.get(0))?.collect::<rusqlite::Result<Vec<i64>>>()?;
    Ok(ids)
}
