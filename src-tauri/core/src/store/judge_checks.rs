//! The `judge_checks` table: every finished judge check, whole, as JSON.

use rusqlite::{params, Connection, OptionalExtension};

use crate::error::Result;
use crate::judge_check::JudgeCheck;

pub fn insert(conn: &Connection, check: &JudgeCheck) -> Result<i64> {
    conn.execute(
        "INSERT INTO judge_checks (profile, judge_config, prompt_version, sample_version, json, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            check.profile,
            check.judge_config,
            check.prompt_versions.join(","),
            check.sample_version,
            serde_json::to_string(check)?,
            super::now()
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

fn one(conn: &Connection, sql: &str, key: &str) -> Result<Option<JudgeCheck>> {
    let text: Option<String> = conn.query_row(sql, params![key], |r| r.get(0)).optional()?;
    Ok(match text {
        Some(t) => Some(serde_json::from_str(&t)?),
        None => None,
    })
}

/// The latest check of the judge with this `config_key`.
pub fn latest_for_config(conn: &Connection, judge_config: &str) -> Result<Option<JudgeCheck>> {
    one(
        conn,
        "SELECT json FROM judge_checks WHERE judge_config = ?1 ORDER BY id DESC LIMIT 1",
        judge_config,
    )
}

/// The latest check run through the profile called `profile`, whatever it pointed at.
pub fn latest_for_profile(conn: &Connection, profile: &str) -> Result<Option<JudgeCheck>> {
    one(
        conn,
        "SELECT json FROM judge_checks WHERE profile = ?1 ORDER BY id DESC LIMIT 1",
        profile,
    )
}
