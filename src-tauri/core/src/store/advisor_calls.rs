//! The `advisor_calls` table: each question a model answered about a run, with what was
//! sent (counted) and what it cost, for the run's privacy record.

use rusqlite::{params, Connection};

use crate::error::Result;

/// One model call of the advisor.
pub struct AdvisorCall<'a> {
    pub run_id: i64,
    /// The judge configuration that answered.
    pub judge: &'a str,
    /// The service's host, when the profile names one.
    pub host: Option<&'a str>,
    pub question: &'a str,
    /// Fact lines sent, and how many items' questions were among them.
    pub facts: u64,
    pub items: u64,
    /// Tokens in and out (0 when the call failed before the service counted them).
    pub tokens: u64,
    pub cost_usd: f64,
}

pub fn insert(conn: &Connection, call: &AdvisorCall) -> Result<()> {
    conn.execute(
        "INSERT INTO advisor_calls (run_id, judge, host, question, facts, items, tokens,
                                    cost_usd, asked_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            call.run_id,
            call.judge,
            call.host,
            call.question,
            call.facts as i64,
            call.items as i64,
            call.tokens as i64,
            call.cost_usd,
            super::now()
        ],
    )?;
    Ok(())
}

/// What the advisor sent about a run, per judge and host: (judge, host, questions,
/// items named, tokens, cost).
pub type Sent = (String, Option<String>, u64, u64, u64, f64);

pub fn sent(conn: &Connection, run_id: i64) -> Result<Vec<Sent>> {
    let mut stmt = conn.prepare(
        "SELECT judge, host, COUNT(*), SUM(items), SUM(tokens), SUM(cost_usd)
         FROM advisor_calls WHERE run_id = ?1 GROUP BY judge, host ORDER BY judge",
    )?;
    let rows = stmt
        .query_map([run_id], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get::<_, i64>(2)? as u64,
                r.get::<_, i64>(3)? as u64,
                r.get::<_, i64>(4)? as u64,
                r.get(5)?,
            ))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}
