//! The `context_chunks` table: each distinct context text of a dataset, stored once and named by
//! id from its items (migration 0016).

use std::collections::HashMap;

use rusqlite::{params, Connection, OptionalExtension};

use crate::error::{Error, Result};

/// How many chunk ids a writer remembers before it starts over. A log's chunks repeat
/// across its items, so the ids of the ones seen are worth keeping; a file of all-distinct
/// contexts would otherwise grow the map by one entry per context. Past the cap a miss
/// costs one index lookup, which is all the map saves.
const REMEMBERED: usize = 200_000;

type Digest = [u8; 16];

fn digest(text: &str) -> Digest {
    let full = blake3::hash(text.as_bytes());
    let mut short = [0u8; 16];
    short.copy_from_slice(&full.as_bytes()[..16]);
    short
}

/// Finds or stores the chunks of one dataset while its items are written.
pub struct ChunkWriter {
    dataset_id: i64,
    seen: HashMap<Digest, i64>,
    /// `seen` holds every chunk the dataset has, so a text not in it is new: true for a
    /// dataset that had none when the writer started, until the map is first cleared.
    /// An import then stores a new chunk without first looking for it.
    seen_is_all: bool,
    /// How many ids `seen` holds before it starts over (`REMEMBERED`).
    cap: usize,
}

impl ChunkWriter {
    pub fn new(conn: &Connection, dataset_id: i64) -> Result<Self> {
        let has_chunks: bool = conn.query_row(
            "SELECT EXISTS (SELECT 1 FROM context_chunks WHERE dataset_id = ?1)",
            [dataset_id],
            |r| r.get(0),
        )?;
        Ok(Self::remembering(dataset_id, !has_chunks, REMEMBERED))
    }

    /// A writer that looks every chunk it has not seen up in the database first, for
    /// writing a few items without asking whether the dataset has chunks yet.
    pub fn probing(dataset_id: i64) -> Self {
        Self::remembering(dataset_id, false, REMEMBERED)
    }

    fn remembering(dataset_id: i64, seen_is_all: bool, cap: usize) -> Self {
        Self {
            dataset_id,
            seen: HashMap::new(),
            seen_is_all,
            cap,
        }
    }

    /// The id of the dataset's chunk with this text, stored now if it is new.
    pub fn id_of(&mut self, conn: &Connection, text: &str) -> Result<i64> {
        let key = digest(text);
        if let Some(&id) = self.seen.get(&key) {
            return Ok(id);
        }
        let found = if self.seen_is_all {
            None
        } else {
            conn.prepare_cached(
                "SELECT id FROM context_chunks WHERE dataset_id = ?1 AND hash = ?2",
            )?
            .query_row(params![self.dataset_id, &key[..]], |r| r.get(0))
            .optional()?
        };
        let id = match found {
            Some(id) => id,
            None => {
                conn.prepare_cached(
                    "INSERT INTO context_chunks (dataset_id, hash, text) VALUES (?1, ?2, ?3)",
                )?
                .execute(params![self.dataset_id, &key[..], text])?;
                conn.last_insert_rowid()
            }
        };
        if self.seen.len() >= self.cap {
            self.seen.clear();
            self.seen_is_all = false;
        }
        self.seen.insert(key, id);
        Ok(id)
    }
}

/// The text of a stored chunk.
pub fn text(conn: &Connection, id: i64) -> Result<String> {
    conn.prepare_cached("SELECT text FROM context_chunks WHERE id = ?1")?
        .query_row([id], |r| r.get(0))
        .optional()?
        .ok_or_else(|| Error::NotFound {
            what: "context chunk",
            id: id.to_string(),
        })
}

/// How many distinct chunks a dataset stores.
pub fn count(conn: &Connection, dataset_id: i64) -> Result<i64> {
    Ok(conn.query_row(
        "SELECT COUNT(*) FROM context_chunks WHERE dataset_id = ?1",
        [dataset_id],
        |r| r.get(0),
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{datasets, Store};

    /// A writer that forgets every other chunk goes back to the database for the ones it
    /// forgot, and every id still names its own text.
    #[test]
    fn a_writer_past_its_memory_finds_the_chunks_it_forgot() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let conn = store.conn();
        let dataset = datasets::insert(conn, "d", None).unwrap();
        let mut writer = ChunkWriter::remembering(dataset, true, 2);
        let texts: Vec<String> = (0..30).map(|i| format!("chunk {}", i % 7)).collect();
        let ids: Vec<i64> = texts
            .iter()
            .map(|t| writer.id_of(conn, t).unwrap())
            .collect();
        assert!(!writer.seen_is_all, "the cap was reached");
        assert_eq!(count(conn, dataset).unwrap(), 7);
        for (id, wanted) in ids.iter().zip(&texts) {
            assert_eq!(&text(conn, *id).unwrap(), wanted);
        }
    }
}
