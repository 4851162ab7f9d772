//! The `case_index` table and the case-list queries over it: one narrow row per item of
//! a run (goodness, error count, failure-pattern letters), so that sorting, filtering
//! and paging a 100 000-item run reads a small table instead of aggregating `results`.
//!
//! Nothing here decides what a pattern or a goodness is (`crate::cases` computes them);
//! these functions only store rows and answer queries. Every query is built from fixed
//! SQL fragments with bound parameters: user text never becomes SQL.

use std::collections::HashMap;

use rusqlite::types::Value;
use rusqlite::{params, params_from_iter, Connection};

use crate::error::Result;

/// One item's line in the index.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexRow {
    pub position: i64,
    pub item_id: i64,
    pub goodness: Option<f64>,
    pub errors: i64,
    pub patterns: String,
}

/// One item's aggregate over its results, before patterns are added.
#[derive(Debug, Clone, PartialEq)]
pub struct Aggregate {
    pub position: i64,
    pub item_id: i64,
    pub goodness: Option<f64>,
    pub errors: i64,
}

/// Every item of a run in run order, with its mean `ok` score (metrics listed in
/// `lower_is_better` flipped, so high always means good) and its count of errors.
pub fn aggregates(
    conn: &Connection,
    run_id: i64,
    lower_is_better: &[&str],
) -> Result<Vec<Aggregate>> {
    let flipped = serde_json::to_string(lower_is_better)?;
    let mut stmt = conn.prepare(
        "SELECT ri.position, ri.item_id,
                AVG(CASE WHEN r.status = 'ok' AND r.score IS NOT NULL THEN
                    CASE WHEN r.metric IN (SELECT value FROM json_each(?2)) THEN 1.0 - r.score ELSE r.score END
                END),
                COALESCE(SUM(r.status = 'error'), 0)
         FROM run_items ri
         LEFT JOIN results r ON r.run_id = ri.run_id AND r.item_id = ri.item_id
         WHERE ri.run_id = ?1
         GROUP BY ri.position ORDER BY ri.position",
    )?;
    let rows = stmt
        .query_map(params![run_id, flipped], |r| {
            Ok(Aggregate {
                position: r.get(0)?,
                item_id: r.get(1)?,
                goodness: r.get(2)?,
                errors: r.get(3)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// The `limit` items with the lowest goodness (items without any score left out), worst
/// first, ties in run order: a report's worst items, read from the index instead of
/// averaging every result of the run again.
pub fn worst(conn: &Connection, run_id: i64, limit: i64) -> Result<Vec<(i64, f64)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT item_id, goodness FROM case_index
         WHERE run_id = ?1 AND goodness IS NOT NULL
         ORDER BY goodness, position LIMIT ?2",
    )?;
    let rows = stmt
        .query_map(params![run_id, limit], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Replaces a run's index with `rows`. Call inside a transaction.
pub fn replace(conn: &Connection, run_id: i64, rows: &[IndexRow]) -> Result<()> {
    conn.execute("DELETE FROM case_index WHERE run_id = ?1", [run_id])?;
    let mut stmt = conn.prepare_cached(
        "INSERT INTO case_index (run_id, position, item_id, goodness, errors, patterns) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    for row in rows {
        stmt.execute(params![
            run_id,
            row.position,
            row.item_id,
            row.goodness,
            row.errors,
            row.patterns
        ])?;
    }
    Ok(())
}

/// Which cases a page shows. Every part is optional; they combine with AND.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Filter {
    /// Items whose `ok` score on `metric` lies in [min, max].
    pub score: Option<ScoreRange>,
    /// Items on which the failure pattern with this letter fired.
    pub pattern: Option<char>,
    /// Items with at least one errored result.
    pub errors_only: bool,
    /// Only items whose question or answer contains a text (see `text_match`).
    pub text: Option<TextMatch>,
}

/// How a text search restricts the cases: through the trigram index, or, for text too
/// short to have a trigram, as the item ids a scan found.
#[derive(Debug, Clone, PartialEq)]
pub enum TextMatch {
    /// An FTS5 phrase over `item_search`, whose hits are listed once and the case index
    /// joined to them: right for a phrase few items hold.
    Indexed(String),
    /// The same phrase, found in more than `COUNT_CAP` of the run's cases: each case is
    /// matched as a page walks the case index, which stops at a page's worth instead of
    /// listing (and sorting) every hit first. Row by row is slow for a rare phrase (the
    /// walk crosses the whole run to fill a page), so `count` decides.
    Common(String),
    Items(Vec<i64>),
}

/// Cases a text search counts exactly; beyond, the list says "10,000+".
pub const COUNT_CAP: i64 = 10_000;

/// How many cases match a filter: exact, or, for a text search, at least `COUNT_CAP`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count {
    /// The cases counted, at most `COUNT_CAP` when `capped`.
    pub n: i64,
    /// More than `COUNT_CAP` cases match; `n` is the cap.
    pub capped: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ScoreRange {
    pub metric: String,
    pub min: f64,
    pub max: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Order {
    /// Run order.
    Position,
    /// Lowest goodness first; items without any score last.
    Worst,
    /// By one metric's `ok` score; items it did not score (errors, skips) last.
    Metric { metric: String, descending: bool },
}

/// Where a page begins: at an offset (the first page, or a jump), or just after the last
/// row of the page before (the next page, which then costs the same at any depth: no
/// rows are counted off to reach it).
#[derive(Debug, Clone, PartialEq)]
pub enum Start {
    Offset(i64),
    After(Cursor),
}

/// A row's place in its order: its position and the key it was sorted by (goodness for
/// "worst first", the metric's score for a metric order; `None` in the tail of items
/// without one).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Cursor {
    pub position: i64,
    pub key: Option<f64>,
}

/// A case as the list shows it: short text excerpts, never the whole item.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CaseRow {
    pub position: i64,
    pub item_id: i64,
    pub external_id: Option<String>,
    /// The first 300 characters.
    pub question: String,
    /// The first 200 characters.
    pub answer: Option<String>,
    /// Mean score with lower-is-better metrics flipped; null when nothing scored.
    pub goodness: Option<f64>,
    pub errors: i64,
    /// Letters of the failure patterns that fired ("AC").
    pub patterns: String,
    /// Where the row stands in the page's order, for the next page to start after it.
    pub cursor: Cursor,
}

/// Characters of question and answer a row carries; the case view shows the rest.
const QUESTION_CHARS: i64 = 300;
const ANSWER_CHARS: i64 = 200;

/// The WHERE clause of `filter` over `case_index c`. `values` holds the run id as ?1;
/// the clause's parameters are appended after it, each numbered by its position.
fn where_clause(filter: &Filter, values: &mut Vec<Value>) -> String {
    let mut sql = String::from("c.run_id = ?1");
    if let Some(range) = &filter.score {
        values.push(Value::Text(range.metric.clone()));
        values.push(Value::Real(range.min));
        values.push(Value::Real(range.max));
        let n = values.len();
        // Not correlated: SQLite evaluates the set once (a range of the index
        // results_case_scores, whose condition `score >= 0` names), instead of probing
        // the results of every case.
        sql.push_str(&format!(
            " AND c.item_id IN (SELECT item_id FROM results WHERE run_id = ?1
                 AND metric = ?{} AND status = 'ok' AND score >= 0 AND score BETWEEN ?{} AND ?{n})",
            n - 2,
            n - 1,
        ));
    }
    if let Some(letter) = filter.pattern {
        values.push(Value::Text(letter.to_string()));
        sql.push_str(&format!(" AND instr(c.patterns, ?{}) > 0", values.len()));
    }
    if filter.errors_only {
        sql.push_str(" AND c.errors > 0");
    }
    match &filter.text {
        // Not correlated either: the index yields its matching rowids once.
        Some(TextMatch::Indexed(phrase)) => {
            values.push(Value::Text(phrase.clone()));
            sql.push_str(&format!(
                " AND c.item_id IN (SELECT rowid FROM item_search WHERE item_search MATCH ?{})",
                values.len()
            ));
        }
        Some(TextMatch::Common(phrase)) => {
            values.push(Value::Text(phrase.clone()));
            sql.push_str(&format!(
                " AND EXISTS (SELECT 1 FROM item_search s WHERE item_search MATCH ?{} AND s.rowid = c.item_id)",
                values.len()
            ));
        }
        Some(TextMatch::Items(items)) => {
            values.push(Value::Text(
                serde_json::to_string(items).unwrap_or_else(|_| "[]".into()),
            ));
            sql.push_str(&format!(
                " AND c.item_id IN (SELECT value FROM json_each(?{}))",
                values.len()
            ));
        }
        None => {}
    }
    sql
}

/// The restriction for "question or answer contains `text`" (case-insensitive; `%`, `_`
/// and quotes match themselves) in a dataset, worked out once per case-list request and
/// shared by its count and its page. Three characters or more go through the trigram
/// index (filled for the dataset on its first search); shorter text has no trigram, so
/// it scans.
pub fn text_match(conn: &Connection, dataset_id: i64, text: &str) -> Result<TextMatch> {
    if has_trigrams(text) {
        ensure_searchable(conn, dataset_id)?;
        return Ok(TextMatch::Indexed(phrase(text)));
    }
    let mut stmt = conn.prepare_cached(
        "SELECT id FROM items WHERE dataset_id = ?1 AND (question LIKE ?2 ESCAPE '\\' OR answer LIKE ?2 ESCAPE '\\')
         ORDER BY ordinal",
    )?;
    let pattern = format!("%{}%", escape_like(text));
    let ids = stmt
        .query_map(params![dataset_id, pattern], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<i64>>>()?;
    Ok(TextMatch::Items(ids))
}

/// Items of a dataset whose question or answer contains `text`, in file order: the same
/// match as `text_match`, as ids.
pub fn text_hits(conn: &Connection, dataset_id: i64, text: &str) -> Result<Vec<i64>> {
    match text_match(conn, dataset_id, text)? {
        TextMatch::Items(ids) => Ok(ids),
        TextMatch::Indexed(phrase) | TextMatch::Common(phrase) => {
            let mut stmt = conn.prepare_cached(
                "SELECT i.id FROM item_search s JOIN items i ON i.id = s.rowid
                 WHERE item_search MATCH ?2 AND i.dataset_id = ?1 ORDER BY i.ordinal",
            )?;
            let ids = stmt
                .query_map(params![dataset_id, phrase], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<i64>>>()?;
            Ok(ids)
        }
    }
}

fn has_trigrams(text: &str) -> bool {
    text.chars().count() >= 3
}

/// One FTS5 phrase of the text's trigrams, in order: exactly "contains".
fn phrase(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// Puts a dataset's questions and answers into the search index, once. The check and
/// the insert share one write transaction: the end of a run and a search in the window
/// may both get here, and the second must find the first's rows, not insert them twice.
pub fn ensure_searchable(conn: &Connection, dataset_id: i64) -> Result<()> {
    let indexed = |conn: &Connection| -> rusqlite::Result<bool> {
        conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM item_search_datasets WHERE dataset_id = ?1)",
            [dataset_id],
            |r| r.get(0),
        )
    };
    if indexed(conn)? {
        return Ok(());
    }
    super::write_lock::begin(conn)?;
    let filled = (|| -> rusqlite::Result<()> {
        if indexed(conn)? {
            return Ok(());
        }
        conn.execute(
            "INSERT INTO item_search (rowid, question, answer) SELECT id, question, coalesce(answer, '') FROM items WHERE dataset_id = ?1",
            [dataset_id],
        )?;
        conn.execute(
            "INSERT INTO item_search_datasets (dataset_id) VALUES (?1)",
            [dataset_id],
        )?;
        Ok(())
    })();
    match filled {
        Ok(()) => super::write_lock::commit(conn)?,
        Err(e) => {
            super::write_lock::rollback(conn);
            return Err(e.into());
        }
    }
    Ok(())
}

/// `%`, `_` and `\` in the user's text match themselves.
fn escape_like(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// How many cases match `filter`.
pub fn count(conn: &Connection, run_id: i64, filter: &Filter) -> Result<Count> {
    let mut values = vec![Value::Integer(run_id)];
    let Some(TextMatch::Indexed(phrase) | TextMatch::Common(phrase)) = &filter.text else {
        let clause = where_clause(filter, &mut values);
        let sql = format!("SELECT COUNT(*) FROM case_index c WHERE {clause}");
        let n = conn.query_row(&sql, params_from_iter(values), |r| r.get(0))?;
        return Ok(Count { n, capped: false });
    };
    // Driven from the index: its hits stream in rowid order, each joined to its case,
    // and the count stops one past the cap. Listing every hit of a word most items hold
    // and joining the case index to them took 150 ms at 100 000 items.
    let rest = Filter {
        text: None,
        ..filter.clone()
    };
    let clause = where_clause(&rest, &mut values);
    values.push(Value::Text(phrase.clone()));
    let sql = format!(
        "SELECT COUNT(*) FROM (SELECT 1 FROM item_search s CROSS JOIN case_index c
             ON c.run_id = ?1 AND c.item_id = s.rowid
          WHERE item_search MATCH ?{} AND {clause} LIMIT {})",
        values.len(),
        COUNT_CAP + 1
    );
    let n: i64 = conn.query_row(&sql, params_from_iter(values), |r| r.get(0))?;
    Ok(Count {
        n: n.min(COUNT_CAP),
        capped: n > COUNT_CAP,
    })
}

/// One page of the cases matching `filter`, in `order`, from `start`.
pub fn page(
    conn: &Connection,
    run_id: i64,
    filter: &Filter,
    order: &Order,
    start: &Start,
    limit: i64,
) -> Result<Vec<CaseRow>> {
    let mut rows = match order {
        Order::Position => position_page(conn, run_id, filter, start, limit)?,
        Order::Worst => worst_page(conn, run_id, filter, start, limit)?,
        Order::Metric { metric, descending } => {
            metric_page(conn, run_id, filter, (metric, *descending), start, limit)?
        }
    };
    let mut text = conn.prepare_cached(
        "SELECT external_id, substr(question, 1, ?2), substr(answer, 1, ?3) FROM items WHERE id = ?1",
    )?;
    for row in &mut rows {
        let (external_id, question, answer) = text
            .query_row(params![row.item_id, QUESTION_CHARS, ANSWER_CHARS], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })?;
        row.external_id = external_id;
        row.question = question;
        row.answer = answer;
    }
    Ok(rows)
}

const INDEX_COLUMNS: &str = "c.position, c.item_id, c.goodness, c.errors, c.patterns";

/// A row of `INDEX_COLUMNS` followed by the column the page is ordered by (its cursor key).
fn index_row(r: &rusqlite::Row) -> rusqlite::Result<CaseRow> {
    let position = r.get(0)?;
    Ok(CaseRow {
        position,
        item_id: r.get(1)?,
        external_id: None,
        question: String::new(),
        answer: None,
        goodness: r.get(2)?,
        errors: r.get(3)?,
        patterns: r.get(4)?,
        cursor: Cursor {
            position,
            key: r.get(5)?,
        },
    })
}

/// Appends `value` to the bound values and names its parameter (`?N`).
fn bind(values: &mut Vec<Value>, value: Value) -> String {
    values.push(value);
    format!("?{}", values.len())
}

/// One part of a page: the rows of `from` matching the filter and `condition`, in
/// `order_by`, with `key` as the cursor key, after `after` (a condition over the key and
/// the position, given the cursor), skipping `offset`.
struct Part<'a> {
    from: &'a str,
    /// Over `?R` (the run) and `?M` (`metric`, bound once).
    condition: &'a str,
    metric: Option<&'a str>,
    key: &'a str,
    order_by: &'a str,
}

impl Part<'_> {
    /// The part's condition with its parameters bound after `values`.
    fn condition(&self, values: &mut Vec<Value>) -> String {
        let mut c = self.condition.replace("?R", "?1");
        if let Some(metric) = self.metric {
            c = c.replace("?M", &bind(values, Value::Text(metric.to_string())));
        }
        c
    }
}

fn part_rows(
    conn: &Connection,
    run_id: i64,
    filter: &Filter,
    part: &Part,
    after: Option<(&str, &Cursor)>,
    (offset, limit): (i64, i64),
) -> Result<Vec<CaseRow>> {
    let mut values = vec![Value::Integer(run_id)];
    let mut clause = where_clause(filter, &mut values);
    let condition = part.condition(&mut values);
    clause.push_str(&format!(" AND {condition}"));
    if let Some((shape, cursor)) = after {
        let condition = match cursor.key {
            Some(k) => shape
                .replacen("?K", &bind(&mut values, Value::Real(k)), 1)
                .replacen("?K", &bind(&mut values, Value::Real(k)), 1)
                .replacen("?P", &bind(&mut values, Value::Integer(cursor.position)), 1),
            None => format!(
                "c.position > {}",
                bind(&mut values, Value::Integer(cursor.position))
            ),
        };
        clause.push_str(&format!(" AND ({condition})"));
    }
    let limit = bind(&mut values, Value::Integer(limit));
    let offset = bind(&mut values, Value::Integer(offset));
    let sql = format!(
        "SELECT {INDEX_COLUMNS}, {} FROM {} WHERE {clause} ORDER BY {} LIMIT {limit} OFFSET {offset}",
        part.key, part.from, part.order_by
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt
        .query_map(params_from_iter(values), index_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

fn part_count(conn: &Connection, run_id: i64, filter: &Filter, part: &Part) -> Result<i64> {
    let mut values = vec![Value::Integer(run_id)];
    let clause = where_clause(filter, &mut values);
    let condition = part.condition(&mut values);
    let sql = format!(
        "SELECT COUNT(*) FROM {} WHERE {clause} AND {condition}",
        part.from
    );
    Ok(conn.query_row(&sql, params_from_iter(values), |r| r.get(0))?)
}

/// A page over a keyed part (rows with a sort key, in key order) and then an unkeyed
/// one (rows without, in run order), from an offset or after a cursor. `after_keyed`
/// is the keyed part's "after the cursor" condition over `?K` (twice) and `?P`, written
/// as a range on the key first (`key >= ?K AND …`) so the index serves it as a range.
fn two_part_page(
    conn: &Connection,
    run_id: i64,
    filter: &Filter,
    (keyed, unkeyed): (&Part, &Part),
    after_keyed: &str,
    start: &Start,
    limit: i64,
) -> Result<Vec<CaseRow>> {
    let (mut rows, rest) = match start {
        Start::After(cursor) if cursor.key.is_some() => {
            let rows = part_rows(
                conn,
                run_id,
                filter,
                keyed,
                Some((after_keyed, cursor)),
                (0, limit),
            )?;
            (rows, (0, None))
        }
        // The cursor is in the unkeyed part already.
        Start::After(cursor) => (Vec::new(), (0, Some(cursor))),
        Start::Offset(offset) => {
            let offset = (*offset).max(0);
            let rows = part_rows(conn, run_id, filter, keyed, None, (offset, limit))?;
            // How far into the unkeyed part the page starts: none of it is skipped when
            // this page holds keyed rows, else the keyed rows' count is.
            let skip = if rows.is_empty() {
                (offset - part_count(conn, run_id, filter, keyed)?).max(0)
            } else {
                0
            };
            (rows, (skip, None))
        }
    };
    if rows.len() as i64 == limit {
        return Ok(rows);
    }
    let (skip, after) = rest;
    let more = part_rows(
        conn,
        run_id,
        filter,
        unkeyed,
        after.map(|c| ("", c)),
        (skip, limit - rows.len() as i64),
    )?;
    rows.extend(more);
    Ok(rows)
}

/// Run order.
fn position_page(
    conn: &Connection,
    run_id: i64,
    filter: &Filter,
    start: &Start,
    limit: i64,
) -> Result<Vec<CaseRow>> {
    let all = Part {
        from: "case_index c",
        condition: "1",
        metric: None,
        key: "NULL",
        order_by: "c.position",
    };
    match start {
        Start::Offset(offset) => {
            part_rows(conn, run_id, filter, &all, None, ((*offset).max(0), limit))
        }
        Start::After(cursor) => {
            let cursor = Cursor {
                key: None,
                ..*cursor
            };
            part_rows(conn, run_id, filter, &all, Some(("", &cursor)), (0, limit))
        }
    }
}

/// Lowest goodness first, then the items without a score, in run order: two ranges of
/// the index (run_id, goodness, position), each read in order, so a page costs what it
/// shows, never a sort of the run.
fn worst_page(
    conn: &Connection,
    run_id: i64,
    filter: &Filter,
    start: &Start,
    limit: i64,
) -> Result<Vec<CaseRow>> {
    let scored = Part {
        from: "case_index c",
        condition: "c.goodness IS NOT NULL",
        metric: None,
        key: "c.goodness",
        order_by: "c.goodness, c.position",
    };
    let unscored = Part {
        from: "case_index c",
        condition: "c.goodness IS NULL",
        metric: None,
        key: "NULL",
        order_by: "c.position",
    };
    two_part_page(
        conn,
        run_id,
        filter,
        (&scored, &unscored),
        "c.goodness >= ?K AND (c.goodness > ?K OR c.position > ?P)",
        start,
        limit,
    )
}

/// A page ordered by one metric's score: first the items it scored, read in score order
/// straight from the index results_case_scores (so a page costs what it shows, not a
/// sort of the whole run), then the items it did not score, in run order. A run has one
/// judge configuration per metric, so an item has at most one `ok` score.
fn metric_page(
    conn: &Connection,
    run_id: i64,
    filter: &Filter,
    (metric, descending): (&str, bool),
    start: &Start,
    limit: i64,
) -> Result<Vec<CaseRow>> {
    // `score >= 0` selects the partial index results_case_scores (see migration 0003).
    let scored = Part {
        from: "results s JOIN case_index c ON c.run_id = s.run_id AND c.item_id = s.item_id",
        condition: "s.run_id = ?R AND s.metric = ?M AND s.status = 'ok' AND s.score >= 0",
        metric: Some(metric),
        key: "s.score",
        order_by: if descending {
            "s.score DESC, c.position"
        } else {
            "s.score, c.position"
        },
    };
    let unscored = Part {
        from: "case_index c",
        condition:
            "c.item_id NOT IN (SELECT item_id FROM results WHERE run_id = ?R AND metric = ?M \
                    AND status = 'ok' AND score >= 0)",
        metric: Some(metric),
        key: "NULL",
        order_by: "c.position",
    };
    let after = if descending {
        "s.score <= ?K AND (s.score < ?K OR c.position > ?P)"
    } else {
        "s.score >= ?K AND (s.score > ?K OR c.position > ?P)"
    };
    two_part_page(
        conn,
        run_id,
        filter,
        (&scored, &unscored),
        after,
        start,
        limit,
    )
}

/// One result cell of a case row: the mean `ok` score when there is one, else the
/// status that explains why not.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Cell {
    pub item_id: i64,
    pub metric: String,
    pub score: Option<f64>,
    /// `ok`, `error` or `skipped`: `ok` when any judge configuration scored it, else
    /// `error` when any errored.
    pub status: String,
}

/// The cells of `metrics` for `item_ids` (a page), in no particular order.
pub fn cells(
    conn: &Connection,
    run_id: i64,
    item_ids: &[i64],
    metrics: &[String],
) -> Result<Vec<Cell>> {
    if item_ids.is_empty() || metrics.is_empty() {
        return Ok(Vec::new());
    }
    let mut stmt = conn.prepare_cached(
        "SELECT item_id, metric, score, status FROM results
         WHERE run_id = ?1 AND item_id IN (SELECT value FROM json_each(?2))
           AND metric IN (SELECT value FROM json_each(?3))",
    )?;
    let mut by_cell: HashMap<(i64, String), (f64, u32, bool)> = HashMap::new();
    let ids = serde_json::to_string(item_ids)?;
    let wanted = serde_json::to_string(metrics)?;
    let mut rows = stmt.query(params![run_id, ids, wanted])?;
    while let Some(row) = rows.next()? {
        let key = (row.get::<_, i64>(0)?, row.get::<_, String>(1)?);
        let score: Option<f64> = row.get(2)?;
        let status: String = row.get(3)?;
        let entry = by_cell.entry(key).or_insert((0.0, 0, false));
        match (status.as_str(), score) {
            ("ok", Some(s)) => {
                entry.0 += s;
                entry.1 += 1;
            }
            ("error", _) => entry.2 = true,
            _ => {}
        }
    }
    Ok(by_cell
        .into_iter()
        .map(|((item_id, metric), (sum, n, errored))| Cell {
            item_id,
            metric,
            score: (n > 0).then(|| sum / f64::from(n)),
            status: if n > 0 {
                "ok".into()
            } else if errored {
                "error".into()
            } else {
                "skipped".into()
            },
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::escape_like;

    #[test]
    fn like_wildcards_in_search_text_match_literally() {
        assert_eq!(escape_like("50%_off\\"), "50\\%\\_off\\\\");
    }
}
