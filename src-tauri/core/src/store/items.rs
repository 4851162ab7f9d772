//! The `items` table: canonical items of a dataset, in file order.

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde_json::{Map, Value};

use super::context_chunks::{self, ChunkWriter};
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

/// Writes a dataset's items, each context as a reference to its dataset's chunk
/// (`store::context_chunks`): the same retrieved text is stored once however many items
/// name it. It remembers the chunks it wrote: after a rollback, start a new writer.
pub struct ItemWriter {
    dataset_id: i64,
    chunks: ChunkWriter,
}

/// A context as stored in `contexts_json`: its chunk in place of its text.
#[derive(serde::Serialize)]
struct ContextRef<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: &'a Option<String>,
    chunk: i64,
}

impl ItemWriter {
    /// Reads whether the dataset has chunks yet: call it outside a transaction or after
    /// the transaction's first write (a read first makes a later write fail, not wait,
    /// when another process wrote in between).
    pub fn new(conn: &Connection, dataset_id: i64) -> Result<Self> {
        Ok(Self {
            dataset_id,
            chunks: ChunkWriter::new(conn, dataset_id)?,
        })
    }

    /// Stores one item at `ordinal`; returns its row id.
    pub fn insert(
        &mut self,
        conn: &Connection,
        ordinal: i64,
        source_line: u64,
        content_hash: &str,
        item: &Item,
    ) -> Result<i64> {
        let contexts = item
            .contexts
            .iter()
            .map(|c| {
                Ok(ContextRef {
                    id: &c.id,
                    chunk: self.chunks.id_of(conn, &c.text)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
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
            self.dataset_id,
            ordinal,
            source_line as i64,
            item.id,
            content_hash,
            item.question,
            item.answer,
            serde_json::to_string(&contexts)?,
            item.ground_truth,
            item.citation_label,
            serde_json::to_string(&item.retrieved_ids)?,
            serde_json::to_string(&extra)?,
            serde_json::to_string(&item.metadata)?,
        ])?;
        Ok(conn.last_insert_rowid())
    }
}

/// Stores one item; for many, keep an [`ItemWriter`], which remembers the chunks it wrote.
pub fn insert(
    conn: &Connection,
    dataset_id: i64,
    ordinal: i64,
    source_line: u64,
    content_hash: &str,
    item: &Item,
) -> Result<i64> {
    ItemWriter {
        dataset_id,
        chunks: ChunkWriter::probing(dataset_id),
    }
    .insert(conn, ordinal, source_line, content_hash, item)
}

const COLUMNS: &str =
    "id, dataset_id, ordinal, source_line, content_hash, external_id, question, answer,
    contexts_json, ground_truth, citation_label, retrieved_ids_json, extra_json, metadata_json";

/// A context as read from `contexts_json`: a chunk reference, or the text itself in rows
/// written before migration 0016.
#[derive(serde::Deserialize)]
struct StoredContext {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    chunk: Option<i64>,
    #[serde(default)]
    text: Option<String>,
}

/// A row whose contexts still name their chunks.
struct Unresolved {
    stored: StoredItem,
    contexts: Vec<StoredContext>,
}

impl Unresolved {
    fn resolve(mut self, conn: &Connection) -> Result<StoredItem> {
        self.stored.item.contexts = self
            .contexts
            .into_iter()
            .map(|c| {
                let text = match (c.chunk, c.text) {
                    (Some(chunk), _) => context_chunks::text(conn, chunk)?,
                    (None, Some(text)) => text,
                    (None, None) => {
                        return Err(Error::Internal(format!(
                            "item {} has a context with neither text nor chunk",
                            self.stored.id
                        )))
                    }
                };
                Ok(Context { id: c.id, text })
            })
            .collect::<Result<_>>()?;
        Ok(self.stored)
    }
}

fn from_row(row: &Row) -> rusqlite::Result<Unresolved> {
    fn json<T: serde::de::DeserializeOwned>(row: &Row, idx: usize) -> rusqlite::Result<T> {
        let text: String = row.get(idx)?;
        serde_json::from_str(&text).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(idx, rusqlite::types::Type::Text, Box::new(e))
        })
    }
    let extra: Extra = json(row, 12)?;
    let contexts: Vec<StoredContext> = json(row, 8)?;
    let metadata: Map<String, Value> = json(row, 13)?;
    Ok(Unresolved {
        stored: StoredItem {
            id: row.get(0)?,
            dataset_id: row.get(1)?,
            ordinal: row.get(2)?,
            source_line: row.get(3)?,
            content_hash: row.get(4)?,
            item: Item {
                id: row.get(5)?,
                question: row.get(6)?,
                answer: row.get(7)?,
                contexts: Vec::new(),
                ground_truth: row.get(9)?,
                reference_contexts: extra.reference_contexts,
                citation_label: row.get(10)?,
                retrieved_ids: json(row, 11)?,
                gold_context_ids: extra.gold_context_ids,
                aspects: extra.aspects,
                ragchecker: extra.ragchecker,
                metadata,
            },
        },
        contexts,
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
    })?
    .resolve(conn)
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
                })?
                .resolve(conn)
        })
        .collect()
}

/// Calls `f` with the (gold citation id, answer) of each of a run's items that has both,
/// in run order, reading those two columns only (never the contexts).
pub fn for_each_citation(
    conn: &Connection,
    run_id: i64,
    mut f: impl FnMut(&str, &str),
) -> Result<()> {
    let mut stmt = conn.prepare_cached(
        "SELECT i.citation_label, i.answer FROM run_items ri JOIN items i ON i.id = ri.item_id
         WHERE ri.run_id = ?1 AND i.citation_label IS NOT NULL AND i.answer IS NOT NULL
         ORDER BY ri.position",
    )?;
    let mut rows = stmt.query([run_id])?;
    while let Some(row) = rows.next()? {
        let (gold, answer): (String, String) = (row.get(0)?, row.get(1)?);
        f(&gold, &answer);
    }
    Ok(())
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
    rows.into_iter().map(|row| row.resolve(conn)).collect()
}

/// Calls `f` with every item of a dataset in file order, reading one row at a time so a
/// large dataset never sits in memory.
pub fn for_each(conn: &Connection, dataset_id: i64, mut f: impl FnMut(StoredItem)) -> Result<()> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM items WHERE dataset_id = ?1 ORDER BY ordinal"
    ))?;
    let mut rows = stmt.query([dataset_id])?;
    while let Some(row) = rows.next()? {
        f(from_row(row)?.resolve(conn)?);
    }
    Ok(())
}
