//! The `judge_profiles` table: how to reach each configured judge. Never a key.

use rusqlite::{params, Connection, OptionalExtension, Row};

use crate::error::{Error, Result};
use crate::judge_profile::JudgeProfile;

const COLUMNS: &str =
    "name, kind, base_url, model, temperature, concurrency, rpm, tpm, timeout_secs, price_input, price_output, api_version";

fn from_row(row: &Row) -> rusqlite::Result<JudgeProfile> {
    Ok(JudgeProfile {
        name: row.get(0)?,
        kind: {
            let kind: String = row.get(1)?;
            kind.parse().map_err(|e: String| {
                rusqlite::Error::FromSqlConversionFailure(1, rusqlite::types::Type::Text, e.into())
            })?
        },
        base_url: row.get(2)?,
        model: row.get(3)?,
        temperature: row.get(4)?,
        concurrency: row.get(5)?,
        rpm: row.get(6)?,
        tpm: row.get(7)?,
        timeout_secs: row.get(8)?,
        price_input: row.get(9)?,
        price_output: row.get(10)?,
        api_version: row.get(11)?,
    })
}

/// Inserts or replaces the profile with this name, after `JudgeProfile::checked`.
pub fn upsert(conn: &Connection, p: &JudgeProfile) -> Result<()> {
    let p = &p.clone().checked()?;
    conn.execute(
        &format!(
            "INSERT INTO judge_profiles ({COLUMNS}, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
             ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, base_url = excluded.base_url,
               model = excluded.model, temperature = excluded.temperature, concurrency = excluded.concurrency,
               rpm = excluded.rpm, tpm = excluded.tpm, timeout_secs = excluded.timeout_secs,
               price_input = excluded.price_input, price_output = excluded.price_output,
               api_version = excluded.api_version"
        ),
        params![
            p.name,
            p.kind.as_str(),
            p.base_url,
            p.model,
            p.temperature,
            p.concurrency,
            p.rpm,
            p.tpm,
            p.timeout_secs,
            p.price_input,
            p.price_output,
            p.api_version,
            super::now()
        ],
    )?;
    Ok(())
}

pub fn get(conn: &Connection, name: &str) -> Result<JudgeProfile> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM judge_profiles WHERE name = ?1"),
        [name],
        from_row,
    )
    .optional()?
    .ok_or_else(|| Error::NotFound {
        what: "judge profile",
        id: name.to_string(),
    })
}

pub fn list(conn: &Connection) -> Result<Vec<JudgeProfile>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM judge_profiles ORDER BY name"
    ))?;
    let rows = stmt
        .query_map([], from_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Removes a profile; returns whether it existed.
pub fn delete(conn: &Connection, name: &str) -> Result<bool> {
    Ok(conn.execute("DELETE FROM judge_profiles WHERE name = ?1", [name])? == 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile() -> JudgeProfile {
        JudgeProfile::sample()
    }

    #[test]
    fn the_store_refuses_a_profile_that_fails_the_check() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::store::Store::open(dir.path()).unwrap();
        let mut bad = profile();
        bad.temperature = 7.0;
        assert!(upsert(store.conn(), &bad).is_err());
        assert!(list(store.conn()).unwrap().is_empty(), "nothing was stored");
        upsert(store.conn(), &profile()).unwrap();
        assert_eq!(
            get(store.conn(), "gpt").unwrap().name,
            "gpt",
            "stored as checked"
        );
    }
}
