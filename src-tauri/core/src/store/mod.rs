//! SQLite persistence. Owns the connection, the schema (embedded migrations) and every
//! SQL statement; nothing outside this module writes SQL. One submodule per table, each
//! a set of functions taking a `&Connection`.
//!
//! One file per home directory, WAL mode, foreign keys on. Writers batch inside
//! `Store::transaction`, which commits or rolls back as a unit.

pub mod advisor_calls;
pub mod analyses;
pub mod cases;
pub mod context_chunks;
pub mod corpora;
pub mod criteria;
pub mod datasets;
pub mod experiments;
pub mod generations;
pub mod human_labels;
pub mod integrity;
pub mod items;
pub mod judge_batches;
pub mod judge_cache;
pub mod judge_checks;
pub mod judge_profiles;
pub mod pipeline_profiles;
pub mod results;
pub mod run_items;
pub mod runs;
pub mod settings;
pub mod write_lock;

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use rusqlite::{Connection, Transaction, TransactionBehavior};
use rusqlite_migration::{Migrations, M};

use crate::error::{Error, Result};
use crate::paths;

/// How many migrations this version knows: the schema version it writes.
const MIGRATION_COUNT: usize = 21;

static MIGRATIONS: LazyLock<Migrations<'static>> = LazyLock::new(|| {
    let all = vec![
        M::up(include_str!("migrations/0001_init.sql")),
        M::up(include_str!("migrations/0002_judges.sql")),
        M::up(include_str!("migrations/0003_case_index.sql")),
        M::up(include_str!("migrations/0004_item_search.sql")),
        M::up(include_str!("migrations/0005_judge_checks.sql")),
        M::up(include_str!("migrations/0006_trust.sql")),
        M::up(include_str!("migrations/0007_corpora.sql")),
        M::up(include_str!("migrations/0008_generations.sql")),
        M::up(include_str!("migrations/0009_generation_spend.sql")),
        M::up(include_str!("migrations/0010_corpus_status.sql")),
        M::up(include_str!("migrations/0011_criteria.sql")),
        M::up(include_str!("migrations/0012_judge_batches.sql")),
        M::up(include_str!("migrations/0013_case_keyset.sql")),
        M::up(include_str!("migrations/0014_no_item_hash_index.sql")),
        M::up(include_str!("migrations/0015_results_by_item.sql")),
        M::up(include_str!("migrations/0016_context_chunks.sql")),
        M::up(include_str!("migrations/0017_check_batches.sql")),
        M::up(include_str!("migrations/0018_results_errors.sql")),
        M::up(include_str!("migrations/0019_experiments.sql")),
        M::up(include_str!("migrations/0020_pipeline_profiles.sql")),
        M::up(include_str!("migrations/0021_advisor_calls.sql")),
    ];
    assert_eq!(
        all.len(),
        MIGRATION_COUNT,
        "MIGRATION_COUNT names the last migration"
    );
    Migrations::new(all)
});

/// A damaged file, or one that is no database, said plainly; other errors as they are.
fn unusable(path: &Path, e: Error) -> Error {
    use rusqlite::ErrorCode as C;
    let damaged = match &e {
        Error::Store(rusqlite::Error::SqliteFailure(f, _)) => {
            matches!(f.code, C::DatabaseCorrupt | C::NotADatabase)
        }
        Error::Migration(m) => {
            let text = m.to_string();
            text.contains("malformed") || text.contains("not a database")
        }
        _ => false,
    };
    if !damaged {
        return e;
    }
    Error::DatabaseUnusable {
        path: path.to_path_buf(),
        reason: format!(
            "the file is damaged or is not a Ragnosis database ({e}). {}",
            crate::error::DAMAGED_DATABASE
        ),
    }
}

pub struct Store {
    conn: Connection,
    path: PathBuf,
    /// When this connection last committed a `transaction`: the next waits out its turn.
    last_commit: Option<std::time::Instant>,
}

/// WAL pages between checkpoints on a bulk writer's connection (`open_bulk_writer`).
const BULK_CHECKPOINT_PAGES: i64 = 8_000;

impl Store {
    /// Opens (creating if needed) the database in a Ragnosis home directory.
    pub fn open(home: &Path) -> Result<Store> {
        std::fs::create_dir_all(home).map_err(|e| Error::DatabaseUnusable {
            path: paths::database_path(home),
            reason: format!(
                "its folder {} cannot be created ({e}). Choose a writable folder with --home DIR (or RAGNOSIS_HOME)",
                home.display()
            ),
        })?;
        Self::open_file(&paths::database_path(home))
    }

    /// Opens the database file, migrating it to this version's schema. Refuses, without
    /// writing a byte, a database a newer Ragnosis wrote, and says in plain words when
    /// the file is damaged or not a database at all.
    pub fn open_file(path: &Path) -> Result<Store> {
        Self::open_checked(path).map_err(|e| unusable(path, e))
    }

    /// A second connection to the same database for a long stream of writes (a run's
    /// results) beside this one. It checkpoints the WAL every `BULK_CHECKPOINT_PAGES`
    /// instead of SQLite's 1 000: such a stream rewrites the same index pages commit after
    /// commit, and checkpointing less often copies each back into the database once
    /// instead of many times.
    pub fn open_bulk_writer(&self) -> Result<Store> {
        let store = Self::open_file(&self.path)?;
        store
            .conn
            .pragma_update(None, "wal_autocheckpoint", BULK_CHECKPOINT_PAGES)?;
        Ok(store)
    }

    fn open_checked(path: &Path) -> Result<Store> {
        let mut conn = Connection::open(path)?;
        // First of all: every statement below, the first read included, may meet another
        // process's write (an import beside a run) and must wait for it, not fail.
        write_lock::wait_for_writers(&conn)?;
        // Read before any pragma writes: a version that does not know the schema must
        // not touch the file.
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        let known = MIGRATION_COUNT as i64;
        if version > known {
            return Err(Error::DatabaseUnusable {
                path: path.to_path_buf(),
                reason: format!(
                    "it was written by a newer version of Ragnosis (schema {version}; this version knows up to {known}). Open it with that version or a newer one; this version has not changed it"
                ),
            });
        }
        // A small file is checked whole now, before anything is written to it: damage in
        // the middle of a file otherwise shows only when a statement reads that page.
        let small =
            std::fs::metadata(path).is_ok_and(|m| m.len() <= integrity::CHECK_ON_OPEN_BYTES);
        if small {
            if let Some(problem) = integrity::quick_check(&conn)?.into_iter().next() {
                return Err(Error::DatabaseUnusable {
                    path: path.to_path_buf(),
                    reason: format!(
                        "the file is damaged ({problem}). {}",
                        crate::error::DAMAGED_DATABASE
                    ),
                });
            }
        }
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        // NORMAL is durable across application crashes in WAL mode (only an OS crash can
        // lose the last commits), which is the guarantee resume needs.
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        // 64 MB of page cache: imports and result writes touch the same index pages
        // over and over; the default 2 MB makes SQLite re-read them.
        conn.pragma_update(None, "cache_size", -65_536)?;
        MIGRATIONS.to_latest(&mut conn)?;
        let store = Store {
            conn,
            path: path.to_path_buf(),
            last_commit: None,
        };
        store.fill_question_sets()?;
        criteria::register_all(&store.conn)?;
        Ok(store)
    }

    /// Datasets imported before migration 0006 get their question-set fingerprint once,
    /// from their stored items (a no-op afterwards).
    fn fill_question_sets(&self) -> Result<()> {
        for id in datasets::missing_question_set(&self.conn)? {
            let mut set = crate::item::QuestionSet::default();
            items::for_each(&self.conn, id, |stored| {
                set.add(&stored.item.question_key())
            })?;
            datasets::set_question_set(&self.conn, id, &set.fingerprint())?;
        }
        Ok(())
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// Runs `f` in one transaction: committed when it returns Ok, rolled back otherwise.
    /// The write lock is taken at the start (IMMEDIATE), waiting for another process's
    /// writes: a transaction that read first and then wrote would fail at once with
    /// "database is locked" if another process committed in between (SQLite cannot move
    /// a read snapshot forward inside a transaction, so it does not wait). Transactions
    /// one right after another (a run's result writer) leave other processes a turn
    /// between them (`write_lock`).
    pub fn transaction<T>(&mut self, f: impl FnOnce(&Transaction) -> Result<T>) -> Result<T> {
        write_lock::take_turn(self.last_commit);
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let value = f(&tx)?;
        tx.commit()?;
        self.last_commit = Some(std::time::Instant::now());
        Ok(value)
    }
}

pub(crate) fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn migrations_are_valid() {
        MIGRATIONS
            .validate()
            .expect("embedded migrations must apply to an empty database");
    }

    #[test]
    fn open_creates_the_file_in_wal_mode_with_foreign_keys() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("home")).unwrap();
        assert!(store.path().exists());
        let mode: String = store
            .conn()
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
        let fk: i64 = store
            .conn()
            .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
            .unwrap();
        assert_eq!(fk, 1);
    }

    /// Each index on `items` is paid for by every imported item; one keyed by a hash (a
    /// random key) rewrote pages all over itself at every commit of an import. Only the
    /// dataset's order, which imports append to, is kept.
    #[test]
    fn items_are_indexed_only_by_their_place_in_the_dataset() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("home")).unwrap();
        let mut stmt = store
            .conn()
            .prepare("SELECT name FROM pragma_index_list('items')")
            .unwrap();
        let indexes: Vec<String> = stmt
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(indexes.len(), 1, "{indexes:?}");
        let columns: Vec<String> = store
            .conn()
            .prepare("SELECT name FROM pragma_index_info(?1)")
            .unwrap()
            .query_map([&indexes[0]], |r| r.get(0))
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        assert_eq!(columns, ["dataset_id", "ordinal"]);
    }

    #[test]
    fn a_database_from_a_newer_version_is_refused_and_left_byte_for_byte() {
        let dir = tempfile::tempdir().unwrap();
        let path = {
            let store = Store::open(dir.path()).unwrap();
            store
                .conn()
                .pragma_update(None, "user_version", 99)
                .unwrap();
            store.path().to_path_buf()
        };
        // Fold the WAL into the main file, so the bytes compared are all of it.
        Connection::open(&path)
            .unwrap()
            .pragma_update(None, "journal_mode", "DELETE")
            .unwrap();
        let before = std::fs::read(&path).unwrap();
        let err = Store::open(dir.path()).err().expect("refused");
        let message = err.to_string();
        assert!(
            message.contains("newer version of Ragnosis") && message.contains("schema 99"),
            "{message}"
        );
        assert_eq!(err.code(), ErrorCode::Store);
        assert_eq!(std::fs::read(&path).unwrap(), before, "not a byte changed");
    }

    #[test]
    fn a_damaged_database_is_named_as_such_with_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let path = Store::open(dir.path()).unwrap().path().to_path_buf();
        for wal in ["-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{wal}", path.display()));
        }
        std::fs::write(
            &path,
            b"garbage, not a database at all, long enough to be read",
        )
        .unwrap();
        let message = Store::open(dir.path()).err().expect("refused").to_string();
        assert!(
            message.contains("damaged or is not a Ragnosis database")
                && message.contains("move the file aside")
                && message.contains("ragnosis doctor"),
            "{message}"
        );
    }
}
