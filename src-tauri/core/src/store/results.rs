//! The `results` table: one row per (run, item, metric, judge configuration), written
//! as each result is computed. Inserting an existing key is a no-op, so a resumed run
//! can never produce a second result for the same cell.

use std::collections::{BTreeMap, HashMap, HashSet};

use rusqlite::{params, Connection, Row};

use crate::catalogue::{MetricResult, Status};
use crate::error::Result;

/// A result row with the item it belongs to.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredResult {
    pub item_id: i64,
    pub judge_config: String,
    pub result: MetricResult,
}

/// One metric's score on one item, for statistics.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScoreCell {
    pub item_id: i64,
    pub score: Option<f64>,
    pub status: Status,
}

/// One item's `ok` scores in a run, keyed by metric id.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemScores {
    pub item_id: i64,
    pub scores: BTreeMap<String, f64>,
}

pub fn insert(
    conn: &Connection,
    run_id: i64,
    item_id: i64,
    judge_config: &str,
    result: &MetricResult,
) -> Result<bool> {
    insert_versioned(conn, run_id, item_id, judge_config, None, result)
}

/// `insert`, recording the judge's prompt version for a judged result.
pub fn insert_versioned(
    conn: &Connection,
    run_id: i64,
    item_id: i64,
    judge_config: &str,
    prompt_version: Option<&str>,
    result: &MetricResult,
) -> Result<bool> {
    let mut stmt = conn.prepare_cached(
        "INSERT INTO results (run_id, item_id, metric, judge_config, score, status, explanation, details_json, created_at, prompt_version)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
         ON CONFLICT (run_id, item_id, metric, judge_config) DO NOTHING",
    )?;
    let changed = stmt.execute(params![
        run_id,
        item_id,
        result.metric,
        judge_config,
        result.score,
        result.status.as_str(),
        result.explanation,
        serde_json::to_string(&result.details)?,
        super::now(),
        prompt_version,
    ])?;
    Ok(changed == 1)
}

/// The distinct prompt versions recorded with a run's results, sorted.
pub fn prompt_versions(conn: &Connection, run_id: i64) -> Result<Vec<String>> {
    let mut stmt = conn.prepare(
        "SELECT DISTINCT prompt_version FROM results WHERE run_id = ?1 AND prompt_version IS NOT NULL ORDER BY 1",
    )?;
    let versions = stmt
        .query_map([run_id], |r| r.get::<_, String>(0))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    // An item judged under several versions stores them joined by ",".
    let mut split: Vec<String> = versions
        .iter()
        .flat_map(|v| v.split(',').map(str::to_string))
        .collect();
    split.sort();
    split.dedup();
    Ok(split)
}

/// Per metric, the judges that scored this run's `ok` results: (judge configuration,
/// prompt version), the version split where an item was judged under several. Judge-free
/// metrics have an empty configuration and no version.
pub fn judging(
    conn: &Connection,
    run_id: i64,
) -> Result<std::collections::BTreeMap<String, std::collections::BTreeSet<(String, String)>>> {
    let mut stmt = conn.prepare(
        "SELECT DISTINCT metric, judge_config, COALESCE(prompt_version, '') FROM results \
         WHERE run_id = ?1 AND status = 'ok'",
    )?;
    let rows = stmt.query_map([run_id], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
        ))
    })?;
    let mut out: std::collections::BTreeMap<String, std::collections::BTreeSet<(String, String)>> =
        std::collections::BTreeMap::new();
    for row in rows {
        let (metric, config, versions) = row?;
        let entry = out.entry(metric).or_default();
        for version in versions.split(',') {
            entry.insert((config.clone(), version.to_string()));
        }
    }
    Ok(out)
}

/// (item, metric) pairs of this run whose stored result is an error: the cells a resumed
/// run tries again.
pub fn error_pairs(conn: &Connection, run_id: i64) -> Result<HashSet<(i64, String)>> {
    pairs(conn, run_id, "status = 'error'")
}

/// The run's (item, metric) pairs whose result meets `condition` (a fixed SQL test).
fn pairs(conn: &Connection, run_id: i64, condition: &str) -> Result<HashSet<(i64, String)>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT item_id, metric FROM results WHERE run_id = ?1 AND {condition}"
    ))?;
    let pairs = stmt
        .query_map([run_id], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
        })?
        .collect::<rusqlite::Result<HashSet<_>>>()?;
    Ok(pairs)
}

/// Removes the stored error of one cell, before its retry's result is written, whichever
/// judge configuration it was stored under: a cell never holds an error beside a score.
pub fn clear_error(conn: &Connection, run_id: i64, item_id: i64, metric: &str) -> Result<()> {
    conn.prepare_cached(
        "DELETE FROM results WHERE run_id = ?1 AND item_id = ?2 AND metric = ?3 AND status = 'error'",
    )?
    .execute(params![run_id, item_id, metric])?;
    Ok(())
}

/// (item, metric) pairs that already have a score or a skip in this run. An error is
/// not done: a resumed run tries it again (a cancelled call, an unreachable judge, a
/// rejected key the user has since replaced).
pub fn done_pairs(conn: &Connection, run_id: i64) -> Result<HashSet<(i64, String)>> {
    pairs(conn, run_id, "status <> 'error'")
}

fn status_of(row: &Row, idx: usize) -> rusqlite::Result<Status> {
    let s: String = row.get(idx)?;
    Status::parse(&s)
        .ok_or_else(|| rusqlite::Error::InvalidColumnType(idx, s, rusqlite::types::Type::Text))
}

/// Every item's cell for one metric, in run order.
/// Calls `f` with each result of one metric in run order, one row at a time, so a run of
/// a million items never holds its scores as rows.
pub fn for_each_score(
    conn: &Connection,
    run_id: i64,
    metric: &str,
    mut f: impl FnMut(ScoreCell),
) -> Result<()> {
    let mut stmt = conn.prepare_cached(
        "SELECT r.item_id, r.score, r.status FROM results r
         JOIN run_items ri ON ri.run_id = r.run_id AND ri.item_id = r.item_id
         WHERE r.run_id = ?1 AND r.metric = ?2 ORDER BY ri.position",
    )?;
    let mut rows = stmt.query(params![run_id, metric])?;
    while let Some(r) = rows.next()? {
        f(ScoreCell {
            item_id: r.get(0)?,
            score: r.get(1)?,
            status: status_of(r, 2)?,
        });
    }
    Ok(())
}

/// A metric's results in run order, all at once (`for_each_score` for a large run).
pub fn scores(conn: &Connection, run_id: i64, metric: &str) -> Result<Vec<ScoreCell>> {
    let mut cells = Vec::new();
    for_each_score(conn, run_id, metric, |cell| cells.push(cell))?;
    Ok(cells)
}

fn result_from_row(row: &Row) -> rusqlite::Result<StoredResult> {
    let details: String = row.get(6)?;
    Ok(StoredResult {
        item_id: row.get(0)?,
        judge_config: row.get(1)?,
        result: MetricResult {
            metric: row.get(2)?,
            score: row.get(3)?,
            status: status_of(row, 4)?,
            explanation: row.get(5)?,
            details: serde_json::from_str(&details).unwrap_or(serde_json::Value::Null),
        },
    })
}

const COLUMNS: &str = "item_id, judge_config, metric, score, status, explanation, details_json";

/// Every result of one item in a run.
pub fn for_item(conn: &Connection, run_id: i64, item_id: i64) -> Result<Vec<StoredResult>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM results WHERE run_id = ?1 AND item_id = ?2 ORDER BY id"
    ))?;
    let rows = stmt
        .query_map(params![run_id, item_id], result_from_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Calls `f` with each result of one metric in a run, in item order, one row at a time: a
/// metric's whole column of a million-item run, details and all, is gigabytes.
/// `errors_only` reads the error rows alone.
pub fn for_each_of_metric(
    conn: &Connection,
    run_id: i64,
    metric: &str,
    errors_only: bool,
    mut f: impl FnMut(StoredResult),
) -> Result<()> {
    // Error rows through their own index (migration 0018): a metric's few errors without
    // walking its million results.
    let mut stmt = conn.prepare_cached(&if errors_only {
        format!(
            "SELECT {COLUMNS} FROM results INDEXED BY results_errors
             WHERE run_id = ?1 AND status = 'error' AND metric = ?2 ORDER BY item_id"
        )
    } else {
        format!("SELECT {COLUMNS} FROM results WHERE run_id = ?1 AND metric = ?2 ORDER BY item_id")
    })?;
    let mut rows = stmt.query(params![run_id, metric])?;
    while let Some(row) = rows.next()? {
        f(result_from_row(row)?);
    }
    Ok(())
}

/// For each item with an `ok` result of `metric` whose details hold any of the boolean
/// fields `keys`, their values (None where a field is absent or not a boolean). Read in
/// SQL, so a million items cost a small map, not their parsed details.
pub fn ok_detail_flags<const N: usize>(
    conn: &Connection,
    run_id: i64,
    metric: &str,
    keys: [&str; N],
) -> Result<HashMap<i64, [Option<bool>; N]>> {
    let columns: Vec<String> = (0..N)
        .map(|i| format!("json_type(details_json, ?{})", i + 3))
        .collect();
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT item_id, {} FROM results WHERE run_id = ?1 AND metric = ?2 AND status = 'ok'",
        columns.join(", ")
    ))?;
    let paths: Vec<String> = keys.iter().map(|k| format!("$.{k}")).collect();
    let mut bound: Vec<&dyn rusqlite::ToSql> = vec![&run_id, &metric];
    bound.extend(paths.iter().map(|p| p as &dyn rusqlite::ToSql));
    let mut rows = stmt.query(bound.as_slice())?;
    let mut out = HashMap::new();
    while let Some(row) = rows.next()? {
        let mut flags = [None; N];
        for (i, flag) in flags.iter_mut().enumerate() {
            *flag = match row.get_ref(i + 1)? {
                rusqlite::types::ValueRef::Text(b"true") => Some(true),
                rusqlite::types::ValueRef::Text(b"false") => Some(false),
                _ => None,
            };
        }
        if flags.iter().any(Option::is_some) {
            out.insert(row.get(0)?, flags);
        }
    }
    Ok(out)
}

/// (`ok` results of `metric`, those whose details hold `key: true`), counted in SQL.
pub fn count_ok_flag(
    conn: &Connection,
    run_id: i64,
    metric: &str,
    key: &str,
) -> Result<(u64, u64)> {
    let mut stmt = conn.prepare_cached(
        "SELECT COUNT(*), COALESCE(SUM(json_type(details_json, ?3) = 'true'), 0) FROM results
         WHERE run_id = ?1 AND metric = ?2 AND status = 'ok'",
    )?;
    let (scored, passed): (i64, i64) = stmt
        .query_row(params![run_id, metric, format!("$.{key}")], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?;
    Ok((scored as u64, passed as u64))
}

/// The explanation stored with one cell, if the cell has a result. Reads one row: a
/// caller that needs a few items' explanations must not load a metric's whole column.
pub fn explanation(
    conn: &Connection,
    run_id: i64,
    item_id: i64,
    metric: &str,
) -> Result<Option<String>> {
    let mut stmt = conn.prepare_cached(
        "SELECT explanation FROM results WHERE run_id = ?1 AND item_id = ?2 AND metric = ?3
         ORDER BY status = 'ok' DESC, id DESC LIMIT 1",
    )?;
    let mut rows = stmt.query(params![run_id, item_id, metric])?;
    Ok(match rows.next()? {
        Some(row) => Some(row.get(0)?),
        None => None,
    })
}

/// Number of results per status in a run.
pub fn status_counts(conn: &Connection, run_id: i64) -> Result<HashMap<String, i64>> {
    let mut stmt =
        conn.prepare("SELECT status, COUNT(*) FROM results WHERE run_id = ?1 GROUP BY status")?;
    let counts = stmt
        .query_map([run_id], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
        })?
        .collect::<rusqlite::Result<HashMap<_, _>>>()?;
    Ok(counts)
}

/// Why items were skipped for one metric: each distinct reason with its count.
pub fn skip_reasons(conn: &Connection, run_id: i64, metric: &str) -> Result<Vec<(String, u64)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT explanation, COUNT(*) FROM results WHERE run_id = ?1 AND metric = ?2 AND status = 'skipped'
         GROUP BY explanation ORDER BY COUNT(*) DESC, explanation",
    )?;
    let rows = stmt
        .query_map(params![run_id, metric], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64))
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Up to `limit` items on each side of `line` (at or above it, and below) by their `ok`
/// score of `metric`, nearest the line first, ties by item: (item, score). Read from the
/// case list's score index (migration 0003), so it costs the same at any run size; that
/// index holds the scores from 0 up, which is where every judged score lies.
pub fn ok_scores_nearest(
    conn: &Connection,
    run_id: i64,
    metric: &str,
    line: f64,
    limit: usize,
) -> Result<Vec<(i64, f64)>> {
    // Both conditions of the partial index are stated so the planner may use it. In index
    // order: from `?3` up, ties by item.
    let mut from = conn.prepare_cached(
        "SELECT item_id, score FROM results
         WHERE run_id = ?1 AND metric = ?2 AND status = 'ok' AND score >= 0 AND score >= ?3
         ORDER BY score, item_id LIMIT ?4",
    )?;
    let mut read_from = |lowest: f64, n: usize| -> Result<Vec<(i64, f64)>> {
        Ok(from
            .query_map(params![run_id, metric, lowest, n as i64], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?)
    };
    let mut out = read_from(line, limit)?;
    // Below the line the index runs the other way for the score but not for the item
    // ("score DESC, item_id" sorted whole tie groups: 0.3 s for 800 000 items on one
    // score), so one score at a time, highest first, each read in index order.
    let mut next_lower = conn.prepare_cached(
        "SELECT MAX(score) FROM results
         WHERE run_id = ?1 AND metric = ?2 AND status = 'ok' AND score >= 0 AND score < ?3",
    )?;
    let (mut below, mut under) = (0, line);
    while below < limit {
        let Some(score) = next_lower.query_row(params![run_id, metric, under], |r| {
            r.get::<_, Option<f64>>(0)
        })?
        else {
            break;
        };
        let tied: Vec<(i64, f64)> = read_from(score, limit - below)?
            .into_iter()
            .take_while(|&(_, s)| s == score)
            .collect();
        below += tied.len();
        out.extend(tied);
        under = score;
    }
    Ok(out)
}

/// The `ok` score of one cell (the mean, should several judge configurations have
/// scored it), if it has one.
pub fn ok_score(conn: &Connection, run_id: i64, item_id: i64, metric: &str) -> Result<Option<f64>> {
    let mut stmt = conn.prepare_cached(
        "SELECT AVG(score) FROM results
         WHERE run_id = ?1 AND item_id = ?2 AND metric = ?3 AND status = 'ok' AND score IS NOT NULL",
    )?;
    Ok(stmt.query_row(params![run_id, item_id, metric], |r| r.get(0))?)
}

/// The `ok` scores of `metrics`, grouped by item, in run order; items with none of them
/// are absent. Errors and skips are left out: they are not scores. Should a cell ever
/// hold results of more than one judge configuration, their mean stands for it, so a
/// reader always gets one score per (item, metric).
pub fn ok_scores_by_item(
    conn: &Connection,
    run_id: i64,
    metrics: &[&str],
) -> Result<Vec<ItemScores>> {
    let mut items = Vec::new();
    for_each_ok_scores_by_item(conn, run_id, metrics, |item| items.push(item))?;
    Ok(items)
}

/// `ok_scores_by_item` one item at a time, for reading a large run without holding it.
pub fn for_each_ok_scores_by_item(
    conn: &Connection,
    run_id: i64,
    metrics: &[&str],
    mut f: impl FnMut(ItemScores),
) -> Result<()> {
    // The query walks the run's items and looks each metric up per item: for metrics the
    // run never scored (the diagnosis asks for every rule's inputs) that was ten seconds
    // of finding nothing in a million-item run. One seek per metric finds them first.
    let mut scored = conn.prepare_cached(
        "SELECT EXISTS (SELECT 1 FROM results WHERE run_id = ?1 AND metric = ?2)",
    )?;
    let mut present = Vec::new();
    for metric in metrics {
        if scored.query_row(params![run_id, metric], |r| r.get::<_, bool>(0))? {
            present.push(*metric);
        }
    }
    if present.is_empty() {
        return Ok(());
    }
    let wanted = serde_json::to_string(&present)?;
    let mut stmt = conn.prepare_cached(
        "SELECT ri.position, r.item_id, r.metric, AVG(r.score) FROM results r
         JOIN run_items ri ON ri.run_id = r.run_id AND ri.item_id = r.item_id
         WHERE r.run_id = ?1 AND r.status = 'ok' AND r.score IS NOT NULL
           AND r.metric IN (SELECT value FROM json_each(?2))
         GROUP BY ri.position, r.item_id, r.metric ORDER BY ri.position, r.metric",
    )?;
    let mut rows = stmt.query(params![run_id, wanted])?;
    let mut current: Option<(i64, ItemScores)> = None;
    while let Some(row) = rows.next()? {
        let position: i64 = row.get(0)?;
        if current.as_ref().map(|(p, _)| *p) != Some(position) {
            if let Some((_, done)) = current.take() {
                f(done);
            }
            current = Some((
                position,
                ItemScores {
                    item_id: row.get(1)?,
                    scores: BTreeMap::new(),
                },
            ));
        }
        if let Some((_, item)) = current.as_mut() {
            item.scores.insert(row.get(2)?, row.get(3)?);
        }
    }
    if let Some((_, done)) = current {
        f(done);
    }
    Ok(())
}

/// The distinct judge configurations (`JudgeIdentity::config_key`) recorded with a run's
/// results, sorted; empty strings left out.
pub fn judge_configs(conn: &Connection, run_id: i64) -> Result<Vec<String>> {
    let mut stmt = conn.prepare(
        "SELECT DISTINCT judge_config FROM results WHERE run_id = ?1 AND judge_config <> '' ORDER BY judge_config",
    )?;
    let rows = stmt
        .query_map([run_id], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<String>>>()?;
    Ok(rows)
}
