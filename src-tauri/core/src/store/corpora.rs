//! The `corpora`, `documents`, `chunks` and `embeddings` tables: ingested documents cut
//! into chunks, and cached embedding vectors.

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CorpusRow {
    pub id: i64,
    pub name: String,
    pub chunk_tokens: i64,
    pub overlap: i64,
    pub created_at: String,
    pub documents: i64,
    pub chunks: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DocumentRow {
    pub id: i64,
    pub path: String,
    pub kind: String,
    pub pages: i64,
    pub chunks: i64,
    pub error: Option<String>,
}

/// A chunk as retrievers and generators read it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    pub id: i64,
    pub key: String,
    pub document_id: i64,
    pub page: Option<i64>,
    pub start: Option<i64>,
    pub end: Option<i64>,
    pub tokens: i64,
    pub text: String,
}

/// A chunk to store.
pub struct NewChunk<'a> {
    pub key: &'a str,
    pub ordinal: i64,
    pub page: Option<i64>,
    pub start: Option<i64>,
    pub end: Option<i64>,
    pub tokens: i64,
    pub text: &'a str,
}

pub fn insert_corpus(
    conn: &Connection,
    name: &str,
    chunk_tokens: i64,
    overlap: i64,
) -> Result<i64> {
    conn.execute(
        "INSERT INTO corpora (name, chunk_tokens, overlap, created_at, status)
         VALUES (?1, ?2, ?3, ?4, 'ingesting')",
        params![name, chunk_tokens, overlap, super::now()],
    )?;
    Ok(conn.last_insert_rowid())
}

/// Marks a corpus whole: every document given was read (or named as unreadable).
pub fn finish(conn: &Connection, id: i64) -> Result<()> {
    conn.execute("UPDATE corpora SET status = 'ready' WHERE id = ?1", [id])?;
    Ok(())
}

pub fn insert_document(
    conn: &Connection,
    corpus_id: i64,
    path: &str,
    kind: &str,
    pages: i64,
    error: Option<&str>,
) -> Result<i64> {
    conn.execute(
        "INSERT INTO documents (corpus_id, path, kind, pages, error) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![corpus_id, path, kind, pages, error],
    )?;
    Ok(conn.last_insert_rowid())
}

/// Stores a chunk; false when the corpus already has a chunk with this key.
pub fn insert_chunk(
    conn: &Connection,
    corpus_id: i64,
    document_id: i64,
    c: &NewChunk,
) -> Result<bool> {
    let mut stmt = conn.prepare_cached(
        "INSERT OR IGNORE INTO chunks (corpus_id, document_id, chunk_key, ordinal, page, start_offset, end_offset, tokens, text)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    let inserted = stmt.execute(params![
        corpus_id,
        document_id,
        c.key,
        c.ordinal,
        c.page,
        c.start,
        c.end,
        c.tokens,
        c.text
    ])? > 0;
    if inserted {
        conn.execute(
            "UPDATE documents SET chunks = chunks + 1 WHERE id = ?1",
            [document_id],
        )?;
    }
    Ok(inserted)
}

/// A finished corpus. One whose ingest stopped part-way (the process was killed) is
/// refused with what to do, never used as if it held every document.
pub fn get(conn: &Connection, id: i64) -> Result<CorpusRow> {
    if let Some(row) = list_where(conn, Some(id))?.pop() {
        return Ok(row);
    }
    let unfinished: bool = conn
        .query_row(
            "SELECT status <> 'ready' FROM corpora WHERE id = ?1",
            [id],
            |r| r.get(0),
        )
        .optional()?
        .unwrap_or(false);
    if unfinished {
        return Err(Error::Invalid(format!(
            "corpus {id} is incomplete: its ingest stopped before every document was read; ingest the documents again (`ragnosis ingest`) and use the new corpus"
        )));
    }
    Err(Error::NotFound {
        what: "corpus",
        id: id.to_string(),
    })
}

/// Every finished corpus, newest first.
pub fn list(conn: &Connection) -> Result<Vec<CorpusRow>> {
    list_where(conn, None)
}

fn list_where(conn: &Connection, id: Option<i64>) -> Result<Vec<CorpusRow>> {
    let mut stmt = conn.prepare(
        "SELECT c.id, c.name, c.chunk_tokens, c.overlap, c.created_at,
                (SELECT COUNT(*) FROM documents d WHERE d.corpus_id = c.id AND d.error IS NULL),
                (SELECT COUNT(*) FROM chunks k WHERE k.corpus_id = c.id)
         FROM corpora c WHERE c.status = 'ready' AND (?1 IS NULL OR c.id = ?1)
         ORDER BY c.id DESC",
    )?;
    let rows = stmt
        .query_map([id], |r| {
            Ok(CorpusRow {
                id: r.get(0)?,
                name: r.get(1)?,
                chunk_tokens: r.get(2)?,
                overlap: r.get(3)?,
                created_at: r.get(4)?,
                documents: r.get(5)?,
                chunks: r.get(6)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

pub fn documents(conn: &Connection, corpus_id: i64) -> Result<Vec<DocumentRow>> {
    let mut stmt = conn.prepare(
        "SELECT id, path, kind, pages, chunks, error FROM documents WHERE corpus_id = ?1 ORDER BY id",
    )?;
    let rows = stmt
        .query_map([corpus_id], |r| {
            Ok(DocumentRow {
                id: r.get(0)?,
                path: r.get(1)?,
                kind: r.get(2)?,
                pages: r.get(3)?,
                chunks: r.get(4)?,
                error: r.get(5)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// Every chunk of a corpus, in document and chunk order.
pub fn chunks(conn: &Connection, corpus_id: i64) -> Result<Vec<Chunk>> {
    let mut stmt = conn.prepare(
        "SELECT id, chunk_key, document_id, page, start_offset, end_offset, tokens, text
         FROM chunks WHERE corpus_id = ?1 ORDER BY document_id, ordinal",
    )?;
    let rows = stmt
        .query_map([corpus_id], |r| {
            Ok(Chunk {
                id: r.get(0)?,
                key: r.get(1)?,
                document_id: r.get(2)?,
                page: r.get(3)?,
                start: r.get(4)?,
                end: r.get(5)?,
                tokens: r.get(6)?,
                text: r.get(7)?,
            })
        })?
        .collect::<rusqlite::Result<Vec<_>>>()?;
    Ok(rows)
}

/// A cached embedding, if this model has embedded this text before.
pub fn embedding(conn: &Connection, model: &str, text_hash: &str) -> Result<Option<Vec<f32>>> {
    let blob: Option<Vec<u8>> = conn
        .prepare_cached("SELECT vector FROM embeddings WHERE model = ?1 AND text_hash = ?2")?
        .query_row(params![model, text_hash], |r| r.get(0))
        .optional()?;
    Ok(blob.map(|b| {
        b.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }))
}

/// Stores a batch of (text hash, vector) for `model` in one transaction.
pub fn put_embeddings(conn: &Connection, model: &str, vectors: &[(&str, &[f32])]) -> Result<()> {
    let tx = conn.unchecked_transaction()?;
    {
        let mut stmt = tx.prepare_cached(
            "INSERT OR REPLACE INTO embeddings (model, text_hash, vector) VALUES (?1, ?2, ?3)",
        )?;
        for (text_hash, vector) in vectors {
            let blob: Vec<u8> = vector.iter().flat_map(|v| v.to_le_bytes()).collect();
            stmt.execute(params![model, text_hash, blob])?;
        }
    }
    tx.commit()?;
    Ok(())
}

pub fn delete(conn: &Connection, id: i64) -> Result<()> {
    conn.execute("DELETE FROM corpora WHERE id = ?1", [id])?;
    Ok(())
}
