//! How processes share SQLite's one write lock (the window, a terminal's `ragnosis`, a
//! run's writer thread each have their own connection).
//!
//! Owns: the busy handler every connection waits with, and the turn a connection leaves
//! between a commit and its next write transaction (`Store::transaction` waits it out
//! itself; a raw stream of batches, as the importer's, goes through `begin`,
//! `commit_and_continue`, `commit` and `rollback` here).
//!
//! Why not SQLite's own `busy_timeout`: it polls at growing intervals, 100 ms apart after
//! the first few tries. An import or a run's writer commits and takes the lock again within
//! microseconds, so a waiter polling that rarely almost never finds it free: four processes
//! on one database starved a label import for the whole of a 20 000-item import and it
//! failed with "database is locked". Here a waiter tries every millisecond, and a stream of
//! commits leaves the lock free a little longer than that between two transactions.

use std::cell::Cell;
use std::time::{Duration, Instant};

use rusqlite::Connection;

use crate::error::Result;

/// How long a connection waits for another's write before it gives up ("database is
/// locked"). Longer than any one transaction Ragnosis makes, since writers take turns.
const PATIENCE: Duration = Duration::from_secs(30);

/// Between two tries of a waiting connection.
const RETRY_EVERY: Duration = Duration::from_millis(1);

/// The lock is left free this long between two commits of a stream: a few waiters' tries.
const TURN: Duration = Duration::from_millis(3);

thread_local! {
    /// When the current wait began: SQLite numbers a wait's calls from 0, per connection;
    /// a thread waits on one connection at a time.
    static WAITING_SINCE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// The busy handler of every connection: true to try again.
fn wait_for_the_lock(calls: i32) -> bool {
    let now = Instant::now();
    let since = WAITING_SINCE.with(|since| {
        if calls == 0 || since.get().is_none() {
            since.set(Some(now));
        }
        since.get().unwrap_or(now)
    });
    if now.duration_since(since) >= PATIENCE {
        return false;
    }
    std::thread::sleep(RETRY_EVERY);
    true
}

/// Makes `conn` wait for other connections' writes (see the module's comment).
pub(super) fn wait_for_writers(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_handler(Some(wait_for_the_lock))
}

/// Before a connection's next write transaction: what is left of the turn since its last
/// commit, so that a process waiting to write gets in instead of waiting for a whole
/// stream of transactions. A transaction after a pause of its own waits for nothing.
pub(super) fn take_turn(last_commit: Option<Instant>) {
    if let Some(left) = last_commit.and_then(|at| TURN.checked_sub(at.elapsed())) {
        std::thread::sleep(left);
    }
}

/// Opens a write transaction on `conn`, taking the lock at once (see `Store::transaction`).
pub fn begin(conn: &Connection) -> Result<()> {
    Ok(conn.execute_batch("BEGIN IMMEDIATE")?)
}

/// Commits a batch of a stream and opens the next, with a turn between them.
pub fn commit_and_continue(conn: &Connection) -> Result<()> {
    commit(conn)?;
    take_turn(Some(Instant::now()));
    begin(conn)
}

pub fn commit(conn: &Connection) -> Result<()> {
    Ok(conn.execute_batch("COMMIT")?)
}

/// Rolls back the open transaction; a connection with none is left as it is.
pub fn rollback(conn: &Connection) {
    let _ = conn.execute_batch("ROLLBACK");
}

#[cfg(test)]
mod tests {
    use super::*;

    const BATCH: i64 = 2_000;

    /// A writer commits batches of `BATCH` rows for two seconds, as an import does, while
    /// a second connection writes one row: how many of the stream's batches went first.
    fn batches_before_a_write_beside_a_stream() -> i64 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("turns.db");
        let setup = Connection::open(&path).unwrap();
        setup.pragma_update(None, "journal_mode", "WAL").unwrap();
        setup.execute_batch("CREATE TABLE t (x INTEGER)").unwrap();
        let started = std::sync::Barrier::new(2);
        std::thread::scope(|scope| {
            let stream = scope.spawn(|| {
                let conn = Connection::open(&path).unwrap();
                wait_for_writers(&conn).unwrap();
                // No checkpoints: their work after a commit would leave the lock free
                // for longer than a stream does on its own.
                conn.pragma_update(None, "wal_autocheckpoint", 0).unwrap();
                let begun = Instant::now();
                let mut first = true;
                begin(&conn).unwrap();
                while begun.elapsed() < Duration::from_secs(2) {
                    for i in 0..BATCH {
                        conn.execute("INSERT INTO t VALUES (?1)", [i]).unwrap();
                    }
                    commit_and_continue(&conn).unwrap();
                    if first {
                        started.wait();
                        first = false;
                    }
                }
                commit(&conn).unwrap();
            });
            started.wait();
            let waiter = Connection::open(&path).unwrap();
            wait_for_writers(&waiter).unwrap();
            waiter.execute("INSERT INTO t VALUES (-1)", []).unwrap();
            stream.join().unwrap();
        });
        let before: i64 = setup
            .query_row(
                "SELECT count(*) FROM t WHERE rowid < (SELECT rowid FROM t WHERE x = -1)",
                [],
                |r| r.get(0),
            )
            .unwrap();
        before / BATCH
    }

    /// The failure this module exists for: a short write beside a stream of commits got
    /// the lock only when the stream ended (hundreds of batches later, or never within
    /// SQLite's timeout). Now it goes in after one of the stream's batches, give or take
    /// a few on a busy machine.
    #[test]
    fn a_write_beside_a_stream_of_commits_waits_for_a_few_of_them_only() {
        let batches = batches_before_a_write_beside_a_stream();
        assert!(
            (1..=10).contains(&batches),
            "{batches} batches of the stream went before the write"
        );
    }

    #[test]
    fn a_wait_gives_up_after_its_patience_and_starts_afresh_on_the_next() {
        WAITING_SINCE.with(|since| since.set(Some(Instant::now() - PATIENCE)));
        assert!(!wait_for_the_lock(7), "past its patience");
        assert!(wait_for_the_lock(0), "a new wait starts its own clock");
        assert!(wait_for_the_lock(1));
    }
}
