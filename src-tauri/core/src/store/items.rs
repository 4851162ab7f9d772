//! The `items` table: canonical items of a dataset, in file order.

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde_json::{Map, Value};

use crate::error::{Error, Result};
use crate::item::{Context, Item, RagCheckerLabels};

/// An item as stored: its row id and position beside the canonical item.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredItem {
    pub id: i64,
    pub dataset_id: i64,
    pub ordinal: i64,
    pub source_line: i64,
    pub content_hash: String,
    pub item: Item,
}

/// Fields of `Item` without a column of their own, as written (borrowed: no copies on
/// the import hot path).
#[derive(serde::Serialize)]
struct ExtraRef<'a> {
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    reference_contexts: &'a [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    gold_context_ids: &'a [String],
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    aspects: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    ragchecker: &'a Option<RagCheckerLabels>,
}

/// The same fields as read back.
#[derive(serde::Deserialize, Default)]
struct Extra {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    reference_contexts: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    gold_context_ids: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    aspects: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    ragchecker: Option<RagCheckerLabels>,
}

pub fn insert(
    conn: &Connection,
    dataset_id: i64,
    ordinal: i64,
    source_line: u64,
    content_hash: &str,
    item: &Item,
) -> Result<i64> {
    let extra = ExtraRef {
        reference_contexts: &item.reference_contexts,
        gold_context_ids: &item.gold_context_ids,
        aspects: &item.aspects,
        ragchecker: &item.ragchecker,
    };
    let mut stmt = conn.prepare_cached(
        "INSERT INTO items (dataset_id, ordinal, source_line, external_id, content_hash, question,
                answer, contexts_json, ground_truth, citation_label, retrieved_ids_json,
                extra_json, metadata_json)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    )?;
    stmt.execute(params![
        dataset_id,
        ordinal,
        source_line as i64,
        item.id,
        content_hash,
        item.question,
        item.answer,
        serde_json::to_string(&item.contexts)?,
        item.ground_truth,
        item.citation_label,
        serde_json::to_string(&item.retrieved_ids)?,
        serde_json::to_string(&extra)?,
        serde_json::to_string(&item.metadata)?,
    ])?;
    Ok(conn.last_insert_rowid())
}

const COLUMNS: &str =
    "id, dataset_id, ordinal, source_line, content_hash, external_id, question, answer,
    contexts_json, ground_truth, citation_label, retrieved_ids_json, extra_json, metadata_json";

fn from_row(row: &Row) -> rusqlite::Result<StoredItem> {
    fn json<T: serde::de::DeserializeOwned>(row: &Row, idx: usize) -> rusqlite::Result<T> {
        let text: String = row.get(idx)?;
        serde_json::from_str(&text).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(idx, rusqlite::types::Type::Text, Box::new(e))
        })
    }
    let extra: Extra = json(row, 12)?;
    let contexts: Vec<Context> = json(row, 8)?;
    let metadata: Map<String, Value> = json(row, 13)?;
    Ok(StoredItem {
        id: row.get(0)?,
        dataset_id: row.get(1)?,
        ordinal: row.get(2)?,
        source_line: row.get(3)?,
        content_hash: row.get(4)?,
        item: Item {
            id: row.get(5)?,
            question: row.get(6)?,
            answer: row.get(7)?,
            contexts,
            ground_truth: row.get(9)?,
            reference_contexts: extra.reference_contexts,
            citation_label: row.get(10)?,
            retrieved_ids: json(row, 11)?,
            gold_context_ids: extra.gold_context_ids,
            aspects: extra.aspects,
            ragchecker: extra.ragchecker,
            metadata,
        },
    })
}

pub fn get(conn: &Connection, id: i64) -> Result<StoredItem> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM items WHERE id = ?1"),
        [id],
        from_row,
    )
    .optional()?
    .ok_or_else(|| Error::NotFound {
        what: "item",
        id: id.to_string(),
    })
}

/// Items with the given row ids, returned in the order of `ids`.
pub fn get_many(conn: &Connection, ids: &[i64]) -> Result<Vec<StoredItem>> {
    let mut stmt = conn.prepare_cached(&format!("SELECT {COLUMNS} FROM items WHERE id = ?1"))?;
    ids.iter()
        .map(|id| {
            stmt.query_row([id], from_row)
                .optional()?
                .ok_or_else(|| Error::NotFound {
                    what: "item",
                    id: id.to_string(),
                })
        })
        .collect()
}

/// Row ids of a dataset's items in file order.
pub fn ids(conn: &Connection, dataset_id: i64) -> Result<Vec<i64>> {
    let mut stmt = conn.prepare("SELECT id FROM items WHERE dataset_id = ?1 ORDER BY ordinal")?;
    let ids = stmt
        .query_map([dataset_id], |r| r.get(0))?
        .collect::<rusqlite::Result<Vec<i64>>>()?;
    Ok(ids)
}

pub fn count(conn: &Connection, dataset_id: i64) -> Result<i64> {
    Ok(conn.query_row(
        "SELECT COUNT(*) FROM items WHERE dataset_id = ?1",
        [dataset_id],
        |r| r.get(0),
    )?)
}

/// The first `limit` items of a dataset from `offset`, for previews.
pub fn page(
    conn: &Connection,
    dataset_id: i64,
    offset: i64,
    limit: i64,
) -> Result<Vec<StoredItem>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM items WHERE dataset_id = ?1 ORDER BY ordinal LIMIT ?2 OFFSET ?3"
    ))?;
    let rows = stmt
        .query_map(params![dataset_id, limit, offset], from_row)?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Calls `f` with every item of a dataset in file order, reading one row at a time so a
/// large dataset never sits in memory.
pub fn for_each(conn: &Connection, dataset_id: i64, mut f: impl FnMut(StoredItem)) -> Result<()> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM items WHERE dataset_id = ?1 ORDER BY ordinal"
    ))?;
    let mut rows = stmt.query([dataset_id])?;
    while let Some(row) = rows.next()? {
        f(from_row(row)?);
    }
    Ok(())
}
