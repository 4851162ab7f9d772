//! The `judge_checks` table: every finished judge check, whole, as JSON. The check's own
//! type belongs to `judge_check`, above the store; this table keeps its JSON and the keys
//! it is looked up by.

use rusqlite::{params, Connection, OptionalExtension};
use serde::{de::DeserializeOwned, Serialize};

use crate::error::Result;

/// What a stored check is looked up by.
pub struct CheckKeys<'a> {
    pub profile: &'a str,
    pub judge_config: &'a str,
    pub prompt_versions: &'a [String],
    pub sample_version: &'a str,
}

pub fn insert(conn: &Connection, keys: &CheckKeys, check: &impl Serialize) -> Result<i64> {
    conn.execute(
        "INSERT INTO judge_checks (profile, judge_config, prompt_version, sample_version, json, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            keys.profile,
            keys.judge_config,
            keys.prompt_versions.join(","),
            keys.sample_version,
            serde_json::to_string(check)?,
            super::now()
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

fn one<T: DeserializeOwned>(conn: &Connection, sql: &str, key: &str) -> Result<Option<T>> {
    let text: Option<String> = conn.query_row(sql, params![key], |r| r.get(0)).optional()?;
    Ok(match text {
        Some(t) => Some(serde_json::from_str(&t)?),
        None => None,
    })
}

/// The latest check of the judge with this `config_key`.
pub fn latest_for_config<T: DeserializeOwned>(
    conn: &Connection,
    judge_config: &str,
) -> Result<Option<T>> {
    one(
        conn,
        "SELECT json FROM judge_checks WHERE judge_config = ?1 ORDER BY id DESC LIMIT 1",
        judge_config,
    )
}

/// The latest check run through the profile called `profile`, whatever it pointed at.
pub fn latest_for_profile<T: DeserializeOwned>(
    conn: &Connection,
    profile: &str,
) -> Result<Option<T>> {
    one(
        conn,
        "SELECT json FROM judge_checks WHERE profile = ?1 ORDER BY id DESC LIMIT 1",
        profile,
    )
}
