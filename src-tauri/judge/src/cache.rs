//! The judge cache: validated verdicts keyed by a blake3 hash of everything that shapes
//! a judge's answer — provider kind, base URL, model, temperature, prompt version and
//! the exact rendered messages. A changed prompt or model therefore never reuses a
//! stale verdict. Only parsed, validated verdicts are stored.
//!
//! The cache does not know where its verdicts are kept: it reads and writes them through
//! a `VerdictShelf`, which the core gives it over the run's SQLite file
//! (`ragnosis_core::judge::shelf`). No key ever reaches a shelf.

use super::prompt::Message;
use super::task::{TaskKind, Verdict};
use super::{JudgeIdentity, Usage};
use ragnosis_types::cached_verdict::{CachedVerdict, NewCacheEntry};

/// Where verdicts are kept. Errors are sentences: the judge treats a shelf it cannot read
/// as a miss and one it cannot write as a notice, never as a failed call.
pub trait VerdictShelf: Send + Sync {
    /// The verdict stored under `key`, with the tokens it cost when it was made.
    fn get(&self, key: &str) -> Result<Option<CachedVerdict>, String>;
    fn contains(&self, key: &str) -> Result<bool, String>;
    /// Keeps an entry; an existing entry for the key is kept instead.
    fn put(&self, entry: &NewCacheEntry<'_>) -> Result<(), String>;
}

pub struct JudgeCache {
    shelf: Box<dyn VerdictShelf>,
}

/// What the cache holds for a key: the verdict and the tokens it cost originally.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheHit {
    pub verdict: Verdict,
    pub usage: Usage,
}

impl JudgeCache {
    pub fn new(shelf: Box<dyn VerdictShelf>) -> JudgeCache {
        JudgeCache { shelf }
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
    pub fn get(&self, key: &str, kind: TaskKind) -> Result<Option<CacheHit>, String> {
        let row = self.shelf.get(key)?;
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

    pub fn contains(&self, key: &str) -> Result<bool, String> {
        self.shelf.contains(key)
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
    ) -> Result<(), String> {
        let request_json = serde_json::to_string(messages).map_err(|e| e.to_string())?;
        let verdict_json = serde_json::to_string(verdict).map_err(|e| e.to_string())?;
        self.shelf.put(&NewCacheEntry {
            key,
            provider: identity.kind.as_str(),
            model: &identity.model,
            task: verdict.kind().as_str(),
            prompt_version,
            request_json: &request_json,
            verdict_json: &verdict_json,
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
        })
    }
}

/// A shelf in memory, for the judge's own tests (the core tests the SQLite one).
#[cfg(test)]
#[derive(Default)]
pub(crate) struct MemoryShelf(std::sync::Mutex<std::collections::HashMap<String, CachedVerdict>>);

#[cfg(test)]
impl VerdictShelf for MemoryShelf {
    fn get(&self, key: &str) -> Result<Option<CachedVerdict>, String> {
        Ok(self.0.lock().unwrap().get(key).cloned())
    }

    fn contains(&self, key: &str) -> Result<bool, String> {
        Ok(self.0.lock().unwrap().contains_key(key))
    }

    fn put(&self, e: &NewCacheEntry<'_>) -> Result<(), String> {
        let entry = CachedVerdict {
            verdict_json: e.verdict_json.to_string(),
            input_tokens: e.input_tokens,
            output_tokens: e.output_tokens,
        };
        self.0.lock().unwrap().entry(e.key.into()).or_insert(entry);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prompt::render;
    use crate::task::Task;
    use crate::ProviderKind;

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
}
