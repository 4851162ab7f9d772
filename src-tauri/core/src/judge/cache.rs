//! The judge cache: validated verdicts keyed by a blake3 hash of everything that shapes
//! a judge's answer — provider kind, base URL, model, temperature, prompt version and
//! the exact rendered messages. A changed prompt or model therefore never reuses a
//! stale verdict. Only parsed, validated verdicts are stored.
//!
//! Holds its own SQLite connection to the run's database file (WAL mode lets it work
//! beside the run's writer), behind a std `Mutex` that is never held across an
//! `.await`. All SQL is in `store::judge_cache`; no key ever reaches this table.

use std::path::Path;
use std::sync::Mutex;

use super::prompt::Message;
use super::task::{TaskKind, Verdict};
use super::{JudgeIdentity, Usage};
use crate::store::judge_cache::{self, CacheStats, NewEntry};
use crate::store::Store;

pub struct JudgeCache {
    store: Mutex<Store>,
}

/// What the cache holds for a key: the verdict and the tokens it cost originally.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheHit {
    pub verdict: Verdict,
    pub usage: Usage,
}

impl JudgeCache {
    /// Opens (and migrates, if needed) the database file at `path`.
    pub fn open(path: &Path) -> crate::Result<JudgeCache> {
        Ok(JudgeCache {
            store: Mutex::new(Store::open_file(path)?),
        })
    }

    /// The cache key of one call.
    pub fn key(identity: &JudgeIdentity, prompt_version: &str, messages: &[Message]) -> String {
        let mut hasher = blake3::Hasher::new();
        let mut field = |bytes: &[u8]| {
            // Length-prefixed, so no two different field lists hash the same bytes.
            hasher.update(&(bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
        };
        field(b"ragnosis-judge-cache/1");
        field(identity.kind.as_str().as_bytes());
        field(identity.base_url.trim().trim_end_matches('/').as_bytes());
        field(identity.model.as_bytes());
        field(&identity.temperature.to_bits().to_le_bytes());
        field(prompt_version.as_bytes());
        field(
            serde_json::to_string(messages)
                .expect("messages serialise")
                .as_bytes(),
        );
        hasher.finalize().to_hex().to_string()
    }

    /// The verdict stored under `key`, if any. A row that no longer deserialises (an old
    /// format) counts as a miss.
    pub fn get(&self, key: &str, kind: TaskKind) -> crate::Result<Option<CacheHit>> {
        let row = judge_cache::get(self.lock().conn(), key)?;
        Ok(row.and_then(|row| {
            let verdict: Verdict = serde_json::from_str(&row.verdict_json).ok()?;
            (verdict.kind() == kind).then_some(CacheHit {
                verdict,
                usage: Usage {
                    input_tokens: row.input_tokens,
                    output_tokens: row.output_tokens,
                    estimated: false,
                },
            })
        }))
    }

    pub fn contains(&self, key: &str) -> crate::Result<bool> {
        judge_cache::contains(self.lock().conn(), key)
    }

    /// Stores a validated verdict; an existing entry for the key is kept.
    pub fn put(
        &self,
        key: &str,
        identity: &JudgeIdentity,
        prompt_version: &str,
        messages: &[Message],
        verdict: &Verdict,
        usage: &Usage,
    ) -> crate::Result<()> {
        let request_json = serde_json::to_string(messages)?;
        let verdict_json = serde_json::to_string(verdict)?;
        judge_cache::put(
            self.lock().conn(),
            &NewEntry {
                key,
                provider: identity.kind.as_str(),
                model: &identity.model,
                task: verdict.kind().as_str(),
                prompt_version,
                request_json: &request_json,
                verdict_json: &verdict_json,
                input_tokens: usage.input_tokens,
                output_tokens: usage.output_tokens,
            },
        )
    }

    pub fn stats(&self) -> crate::Result<CacheStats> {
        judge_cache::stats(self.lock().conn())
    }

    pub fn clear(&self) -> crate::Result<u64> {
        judge_cache::clear(self.lock().conn())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Store> {
        // A panic while holding the lock cannot leave the connection half-written
        // (each statement is atomic), so a poisoned lock is still usable.
        self.store
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::prompt::render;
    use crate::judge::task::Task;
    use crate::judge::ProviderKind;

    fn identity() -> JudgeIdentity {
        JudgeIdentity {
            name: "p".into(),
            kind: ProviderKind::OpenAi,
            base_url: "http://127.0.0.1:1/v1".into(),
            model: "m".into(),
            temperature: 0.0,
        }
    }

    #[test]
    fn the_key_changes_with_everything_that_shapes_the_answer() {
        let messages = render(&Task::Aspects {
            question: "What is 2+2?".into(),
        });
        let base = JudgeCache::key(&identity(), "aspects@1", &messages);
        assert_eq!(
            base,
            JudgeCache::key(&identity(), "aspects@1", &messages),
            "deterministic"
        );
        let mut hotter = identity();
        hotter.temperature = 0.7;
        let mut other_model = identity();
        other_model.model = "m2".into();
        let other_messages = render(&Task::Aspects {
            question: "What is 3+3?".into(),
        });
        for changed in [
            JudgeCache::key(&hotter, "aspects@1", &messages),
            JudgeCache::key(&other_model, "aspects@1", &messages),
            JudgeCache::key(&identity(), "aspects@2", &messages),
            JudgeCache::key(&identity(), "aspects@1", &other_messages),
        ] {
            assert_ne!(changed, base);
        }
        let mut renamed = identity();
        renamed.name = "another profile name".into();
        assert_eq!(
            JudgeCache::key(&renamed, "aspects@1", &messages),
            base,
            "the profile's name does not shape answers"
        );
    }

    #[test]
    fn verdicts_round_trip_through_a_real_database_file() {
        let dir = tempfile::tempdir().unwrap();
        let cache = JudgeCache::open(&dir.path().join("ragnosis.db")).unwrap();
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
        assert_eq!(cache.stats().unwrap().entries, 1);
    }
}
