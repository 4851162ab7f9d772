//! The `judge_cache` table: parsed verdicts keyed by a hash of everything that shapes a
//! judge's answer (provider, base URL, model, temperature, prompt version, messages).

use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

use crate::error::Result;

pub use ragnosis_types::cached_verdict::{CachedVerdict, NewCacheEntry};

pub fn get(conn: &Connection, key: &str) -> Result<Option<CachedVerdict>> {
    let mut stmt = conn.prepare_cached(
        "SELECT verdict_json, input_tokens, output_tokens FROM judge_cache WHERE key = ?1",
    )?;
    Ok(stmt
        .query_row([key], |r| {
            Ok(CachedVerdict {
                verdict_json: r.get(0)?,
                input_tokens: r.get::<_, i64>(1)? as u64,
                output_tokens: r.get::<_, i64>(2)? as u64,
            })
        })
        .optional()?)
}

pub fn contains(conn: &Connection, key: &str) -> Result<bool> {
    let mut stmt = conn.prepare_cached("SELECT 1 FROM judge_cache WHERE key = ?1")?;
    Ok(stmt.exists([key])?)
}

pub fn put(conn: &Connection, e: &NewCacheEntry) -> Result<()> {
    conn.execute(
        "INSERT INTO judge_cache (key, provider, model, task, prompt_version, request_json, verdict_json,
                                  input_tokens, output_tokens, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
         ON CONFLICT (key) DO NOTHING",
        params![
            e.key,
            e.provider,
            e.model,
            e.task,
            e.prompt_version,
            e.request_json,
            e.verdict_json,
            e.input_tokens as i64,
            e.output_tokens as i64,
            super::now()
        ],
    )?;
    Ok(())
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CacheStats {
    pub entries: u64,
    pub bytes: u64,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

pub fn stats(conn: &Connection) -> Result<CacheStats> {
    Ok(conn.query_row(
        "SELECT COUNT(*), COALESCE(SUM(LENGTH(request_json) + LENGTH(verdict_json)), 0),
                COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0) FROM judge_cache",
        [],
        |r| {
            Ok(CacheStats {
                entries: r.get::<_, i64>(0)? as u64,
                bytes: r.get::<_, i64>(1)? as u64,
                input_tokens: r.get::<_, i64>(2)? as u64,
                output_tokens: r.get::<_, i64>(3)? as u64,
            })
        },
    )?)
}

/// Deletes every entry; returns how many were removed.
pub fn clear(conn: &Connection) -> Result<u64> {
    Ok(conn.execute("DELETE FROM judge_cache", [])? as u64)
}
