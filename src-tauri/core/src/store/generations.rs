//! The `generations` and `candidates` tables: test-set generations from a corpus and every
//! candidate test case each one drafted, accepted or rejected with its reason.

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct GenerationRow {
    pub id: i64,
    pub corpus_id: i64,
    pub dataset_id: i64,
    pub judge: String,
    pub settings: serde_json::Value,
    /// running | done | cancelled | stopped
    pub status: String,
    pub message: Option<String>,
    pub created_at: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Candidate {
    pub position: i64,
    pub chunk_id: i64,
    /// The source chunk's id in the corpus (`document#n`), the test case's gold context.
    pub chunk_key: String,
    pub question: Option<String>,
    pub answer: Option<String>,
    /// accepted | rejected | error
    pub status: String,
    pub reason: Option<String>,
    pub scores: serde_json::Value,
}

pub fn insert(
    conn: &Connection,
    corpus_id: i64,
    dataset_id: i64,
    judge: &str,
    settings: &serde_json::Value,
) -> Result<i64> {
    conn.execute(
        "INSERT INTO generations (corpus_id, dataset_id, judge, settings_json, status, created_at)
         VALUES (?1, ?2, ?3, ?4, 'running', ?5)",
        params![
            corpus_id,
            dataset_id,
            judge,
            settings.to_string(),
            super::now()
        ],
    )?;
    Ok(conn.last_insert_rowid())
}

pub fn get(conn: &Connection, id: i64) -> Result<GenerationRow> {
    conn.query_row(
        "SELECT id, corpus_id, dataset_id, judge, settings_json, status, message, created_at
         FROM generations WHERE id = ?1",
        [id],
        |r| {
            let settings: String = r.get(4)?;
            Ok(GenerationRow {
                id: r.get(0)?,
                corpus_id: r.get(1)?,
                dataset_id: r.get(2)?,
                judge: r.get(3)?,
                settings: serde_json::from_str(&settings).unwrap_or_default(),
                status: r.get(5)?,
                message: r.get(6)?,
                created_at: r.get(7)?,
            })
        },
    )
    .optional()?
    .ok_or_else(|| Error::NotFound {
        what: "generation",
        id: id.to_string(),
    })
}

/// What the generation has spent on judge calls, over all its executions.
pub fn spent(conn: &Connection, id: i64) -> Result<f64> {
    Ok(spend(conn, id)?.0)
}

/// (spent, the most one call has cost) over all the generation's executions.
pub fn spend(conn: &Connection, id: i64) -> Result<(f64, Option<f64>)> {
    Ok(conn.query_row(
        "SELECT spent_usd, dearest_call_usd FROM generations WHERE id = ?1",
        [id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?)
}

/// Adds what calls just cost to the generation's spend, and the dearest call among them.
pub fn add_spent(conn: &Connection, id: i64, usd: f64, dearest_call: Option<f64>) -> Result<()> {
    conn.execute(
        "UPDATE generations SET spent_usd = spent_usd + ?2,
             dearest_call_usd = MAX(COALESCE(dearest_call_usd, ?3), COALESCE(?3, dearest_call_usd))
         WHERE id = ?1",
        params![id, usd, dearest_call],
    )?;
    Ok(())
}

/// Replaces the stored settings (a resume with a new budget).
pub fn set_settings(conn: &Connection, id: i64, settings: &serde_json::Value) -> Result<()> {
    conn.execute(
        "UPDATE generations SET settings_json = ?2 WHERE id = ?1",
        params![id, settings.to_string()],
    )?;
    Ok(())
}

pub fn set_status(conn: &Connection, id: i64, status: &str, message: Option<&str>) -> Result<()> {
    conn.execute(
        "UPDATE generations SET status = ?2, message = ?3 WHERE id = ?1",
        params![id, status, message],
    )?;
    Ok(())
}

pub fn add_candidate(conn: &Connection, generation_id: i64, c: &Candidate) -> Result<()> {
    conn.execute(
        "INSERT OR REPLACE INTO candidates (generation_id, position, chunk_id, question, answer, status, reason, scores_json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            generation_id,
            c.position,
            c.chunk_id,
            c.question,
            c.answer,
            c.status,
            c.reason,
            c.scores.to_string()
        ],
    )?;
    Ok(())
}

/// The generation's candidates in position order.
pub fn candidates(conn: &Connection, generation_id: i64) -> Result<Vec<Candidate>> {
    let mut stmt = conn.prepare(
        "SELECT k.position, k.chunk_id, c.chunk_key, k.question, k.answer, k.status, k.reason, k.scores_json
         FROM candidates k JOIN chunks c ON c.id = k.chunk_id
         WHERE k.generation_id = ?1 ORDER BY k.position",
    )?;
    let rows = stmt
        .query_map([generation_id], |r| {
            let scores: String = r.get(7)?;
            Ok(Candidate {
                position: r.get(0)?,
                chunk_id: r.get(1)?,
                chunk_key: r.get(2)?,
                question: r.get(3)?,
                answer: r.get(4)?,
                status: r.get(5)?,
                reason: r.get(6)?,
                scores: serde_json::from_str(&scores).unwrap_or_default(),
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// A generation as the Generate screen lists it: its row, what it decided so far and the
/// corpus it drew from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct GenerationSummary {
    #[serde(flatten)]
    pub generation: GenerationRow,
    pub corpus_name: String,
    pub accepted: i64,
    pub rejected: i64,
    pub errors: i64,
}

/// Every generation, newest first.
pub fn list(conn: &Connection) -> Result<Vec<GenerationSummary>> {
    let mut stmt = conn.prepare(
        "SELECT g.id, g.corpus_id, g.dataset_id, g.judge, g.settings_json, g.status, g.message,
                g.created_at, c.name,
                (SELECT COUNT(*) FROM candidates k WHERE k.generation_id = g.id AND k.status = 'accepted'),
                (SELECT COUNT(*) FROM candidates k WHERE k.generation_id = g.id AND k.status = 'rejected'),
                (SELECT COUNT(*) FROM candidates k WHERE k.generation_id = g.id AND k.status = 'error')
         FROM generations g JOIN corpora c ON c.id = g.corpus_id ORDER BY g.id DESC",
    )?;
    let rows = stmt
        .query_map([], |r| {
            let settings: String = r.get(4)?;
            Ok(GenerationSummary {
                generation: GenerationRow {
                    id: r.get(0)?,
                    corpus_id: r.get(1)?,
                    dataset_id: r.get(2)?,
                    judge: r.get(3)?,
                    settings: serde_json::from_str(&settings).unwrap_or_default(),
                    status: r.get(5)?,
                    message: r.get(6)?,
                    created_at: r.get(7)?,
                },
                corpus_name: r.get(8)?,
                accepted: r.get(9)?,
                rejected: r.get(10)?,
                errors: r.get(11)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}
