//! The judge cache's shelf: its verdicts in the `judge_cache` table of the run's SQLite
//! file, through a connection of its own (WAL mode lets it work beside the run's writer)
//! behind a std `Mutex` that is never held across an `.await`. All SQL is in
//! `store::judge_cache`.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};

use super::cache::{JudgeCache, VerdictShelf};
use crate::error::Result;
use crate::store::judge_cache::{self, CachedVerdict, NewCacheEntry};
use crate::store::Store;

/// The cache of the database file at `path` (opened, and migrated if needed).
pub fn open_cache(path: &Path) -> Result<JudgeCache> {
    let store = Store::open_file(path)?;
    Ok(JudgeCache::new(Box::new(StoreShelf(Mutex::new(store)))))
}

struct StoreShelf(Mutex<Store>);

impl StoreShelf {
    fn lock(&self) -> MutexGuard<'_, Store> {
        // A panic while holding the lock cannot leave the connection half-written
        // (each statement is atomic), so a poisoned lock is still usable.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl VerdictShelf for StoreShelf {
    fn get(&self, key: &str) -> std::result::Result<Option<CachedVerdict>, String> {
        judge_cache::get(self.lock().conn(), key).map_err(|e| e.to_string())
    }

    fn contains(&self, key: &str) -> std::result::Result<bool, String> {
        judge_cache::contains(self.lock().conn(), key).map_err(|e| e.to_string())
    }

    fn put(&self, entry: &NewCacheEntry<'_>) -> std::result::Result<(), String> {
        judge_cache::put(self.lock().conn(), entry).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::cache::CacheHit;
    use crate::judge::prompt::render;
    use crate::judge::task::{Task, TaskKind, Verdict};
    use crate::judge::{identity_of, JudgeIdentity, Usage};
    use crate::judge_profile::JudgeProfile;

    fn identity() -> JudgeIdentity {
        identity_of(&JudgeProfile::sample())
    }

    #[test]
    fn verdicts_round_trip_through_a_real_database_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("ragnosis.db");
        let cache = open_cache(&path).unwrap();
        let messages = render(&Task::Aspects {
            question: "q".into(),
        });
        let key = JudgeCache::key(&identity(), "aspects@1", &messages);
        assert_eq!(cache.get(&key, TaskKind::Aspects).unwrap(), None);
        let verdict = Verdict::Aspects {
            aspects: vec!["the sum".into()],
            structure_note: vec![],
        };
        let usage = Usage {
            input_tokens: 100,
            output_tokens: 7,
            estimated: false,
        };
        cache
            .put(&key, &identity(), "aspects@1", &messages, &verdict, &usage)
            .unwrap();
        assert!(cache.contains(&key).unwrap());
        assert_eq!(
            cache.get(&key, TaskKind::Aspects).unwrap(),
            Some(CacheHit { verdict, usage })
        );
        assert_eq!(
            cache.get(&key, TaskKind::Claims).unwrap(),
            None,
            "a verdict of another kind is a miss"
        );
        let store = Store::open_file(&path).unwrap();
        assert_eq!(judge_cache::stats(store.conn()).unwrap().entries, 1);
    }
}
