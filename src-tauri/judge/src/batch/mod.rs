//! Provider batch services: OpenAI's Batch API (also Azure OpenAI's batch deployments)
//! and Anthropic's Message Batches — half the live price, results within 24 hours, none of
//! the live API's rate limits.
//!
//! Owns: the request file (one line per task, carrying exactly the request a live call
//! sends, its `custom_id` the task's cache key), splitting it at the provider's limits,
//! the batch's state as Ragnosis reads it, each result read back into a reply or a
//! reason, the batch price, and how often to poll. The provider clients (`openai`,
//! `anthropic`) hold the key like the live providers do: only in the one header that
//! carries it, never in a request file, a URL or an error message.
//!
//! Must not: parse verdicts, touch the cache or the store, or decide what to ask — the
//! run's batch mode (`run::batch`) does that, so batch answers go through the same
//! parsing, validation, cache and accounting as live ones.

pub mod anthropic;
pub mod openai;

use std::time::Duration;

use super::accounting::Price;
use super::cache::JudgeCache;
use super::plan::JudgePlan;
use super::prompt::Message;
use super::provider::{ChatRequest, ChatResponse, ProviderError};
use super::task::Task;
use super::JudgeIdentity;

/// What a batch costs per token, as a share of the live price (OpenAI, Azure OpenAI and
/// Anthropic all charge half).
pub const PRICE_SHARE: f64 = 0.5;

/// The batch price of a live price.
pub fn batch_price(live: Price) -> Price {
    Price {
        input: live.input * PRICE_SHARE,
        output: live.output * PRICE_SHARE,
    }
}

/// A run's plan at the batch price when `batch`: the same calls and tokens, half the
/// cost. Unchanged otherwise.
pub fn priced(plan: JudgePlan, batch: bool) -> JudgePlan {
    if !batch {
        return plan;
    }
    // A batch asks each task as its own request.
    JudgePlan {
        calls: plan.tasks,
        cost_low: plan.cost_low.map(|c| c * PRICE_SHARE),
        cost_high: plan.cost_high.map(|c| c * PRICE_SHARE),
        ..plan
    }
}

/// How much one batch may hold. A run with more is split into several batches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BatchLimits {
    pub requests: usize,
    /// Bytes of the request file (OpenAI) or of the create request's body (Anthropic).
    pub bytes: usize,
}

impl BatchLimits {
    /// OpenAI: 50,000 requests and 200 MB per request file (Azure's are larger; these are
    /// safe for both).
    pub const OPENAI: BatchLimits = BatchLimits {
        requests: 50_000,
        bytes: 200_000_000,
    };
    /// Anthropic: 100,000 requests and 256 MB per batch.
    pub const ANTHROPIC: BatchLimits = BatchLimits {
        requests: 100_000,
        bytes: 256_000_000,
    };

    /// `RAGNOSIS_BATCH_MAX_REQUESTS` lowers the request limit (tests split small runs
    /// with it; an account with lower quotas may need it too). Never raises it.
    pub fn with_env(self) -> BatchLimits {
        let lower = std::env::var("RAGNOSIS_BATCH_MAX_REQUESTS")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .filter(|&n| n > 0);
        BatchLimits {
            requests: lower.map_or(self.requests, |n| n.min(self.requests)),
            ..self
        }
    }
}

/// How often a waiting run asks whether a batch ended: at once, then after `first`,
/// growing by half each time up to `max`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PollPolicy {
    pub first: Duration,
    pub max: Duration,
}

impl Default for PollPolicy {
    fn default() -> Self {
        // Batches take minutes to hours: a poll every two minutes at most costs nothing
        // and notices the end soon enough.
        PollPolicy {
            first: Duration::from_secs(5),
            max: Duration::from_secs(120),
        }
    }
}

impl PollPolicy {
    /// `RAGNOSIS_BATCH_POLL_MS` sets both waits (tests poll the simulator quickly).
    pub fn with_env(self) -> PollPolicy {
        match std::env::var("RAGNOSIS_BATCH_POLL_MS")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok())
        {
            Some(ms) => PollPolicy {
                first: Duration::from_millis(ms),
                max: Duration::from_millis(ms),
            },
            None => self,
        }
    }

    pub fn next(&self, wait: Duration) -> Duration {
        wait.mul_f64(1.5).min(self.max).max(self.first)
    }
}

/// A request file being filled: request lines (JSON, no newline inside) joined by `\n`,
/// and the start of each request's key.
#[derive(Debug, Default)]
pub struct RequestFile {
    pub lines: Vec<u8>,
    pub keys: Vec<u64>,
    /// What its requests are expected to cost at the batch price (USD), for the budget.
    pub estimated_cost: f64,
}

impl RequestFile {
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Whether one more line of `line_len` bytes stays within `limits`.
    pub fn fits(&self, line_len: usize, limits: BatchLimits) -> bool {
        self.len() < limits.requests && self.lines.len() + line_len < limits.bytes
    }

    pub fn push(&mut self, key: u64, line: &[u8], estimated_cost: f64) {
        if !self.lines.is_empty() {
            self.lines.push(b'\n');
        }
        self.lines.extend_from_slice(line);
        self.keys.push(key);
        self.estimated_cost += estimated_cost;
    }

    /// The lines one by one.
    pub fn each_line(&self) -> impl Iterator<Item = &[u8]> {
        self.lines
            .split(|&b| b == b'\n')
            .filter(|line| !line.is_empty())
    }
}

/// The first 8 bytes of a cache key (64 hex digits), as stored for each request of a
/// batch. Two requests of one run sharing a prefix would need 2^32 requests.
pub fn key_prefix(key: &str) -> u64 {
    key.get(..16)
        .and_then(|hex| u64::from_str_radix(hex, 16).ok())
        .unwrap_or_else(|| {
            // Not a cache key (a provider echoed something else): hash it instead.
            let hash = blake3::hash(key.as_bytes());
            u64::from_le_bytes(hash.as_bytes()[..8].try_into().expect("8 bytes"))
        })
}

/// What the provider said when it accepted a batch.
#[derive(Debug, Clone, PartialEq)]
pub struct Submitted {
    pub batch_id: String,
    pub input_file_id: Option<String>,
    pub status: String,
}

/// A batch's state: the provider's own word for it, whether it ended, its counts.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BatchState {
    pub status: String,
    pub ended: bool,
    pub total: u64,
    pub completed: u64,
    pub failed: u64,
    /// OpenAI and Azure: where the results are once it ended.
    pub output_file_id: Option<String>,
    pub error_file_id: Option<String>,
    /// Set when the batch as a whole did not run: it failed (validation, quota) or was
    /// cancelled at the provider. Says why.
    pub refused: Option<String>,
}

/// One request's result.
#[derive(Debug, Clone, PartialEq)]
pub enum EntryResult {
    /// The model's reply (still to be parsed and validated).
    Replied(ChatResponse),
    /// Why there is no reply: the request failed, expired or was cancelled.
    Failed(String),
}

/// A result line: which request (its `custom_id`) and what came of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub custom_id: String,
    pub result: EntryResult,
}

/// One provider's batch service. Calls make one HTTP round trip each (a submit may make
/// two: upload, then create) and map failures as the live providers do; retries and
/// waits are the caller's.
#[async_trait::async_trait]
pub trait BatchApi: Send + Sync {
    /// `openai`, `azure` or `anthropic`, as stored with the batch.
    fn provider(&self) -> &'static str;
    fn limits(&self) -> BatchLimits;
    /// The request line for `request` under `custom_id`: the live call's body.
    fn line(&self, custom_id: &str, request: &ChatRequest) -> Vec<u8>;
    /// Sends a request file and creates the batch.
    async fn submit(&self, file: &RequestFile) -> Result<Submitted, ProviderError>;
    async fn state(&self, batch_id: &str) -> Result<BatchState, ProviderError>;
    /// The result lines of an ended batch (those the provider gave; none for a batch that
    /// failed as a whole).
    async fn results(
        &self,
        batch_id: &str,
        state: &BatchState,
    ) -> Result<Vec<Entry>, ProviderError>;
    async fn cancel(&self, batch_id: &str) -> Result<BatchState, ProviderError>;
}

/// A judge that can also send its tasks through its provider's batch service (an
/// `LlmJudge` for OpenAI, Azure OpenAI or Anthropic).
pub trait BatchJudge: Send + Sync {
    fn identity(&self) -> &JudgeIdentity;
    fn api(&self) -> &dyn BatchApi;
    /// Where verdicts are kept; batch answers reach the run through it.
    fn cache(&self) -> Option<&JudgeCache>;
    /// The request a live call sends with `messages` for `task`.
    fn request(&self, task: &Task, messages: Vec<Message>) -> ChatRequest;
    /// The live price; a batch costs `PRICE_SHARE` of it. None when unknown.
    fn price(&self) -> Option<Price>;
    fn poll(&self) -> PollPolicy;
}

/// A provider error about a batch call, said as what it means for batch mode.
pub(crate) fn unsupported(status: u16, what: &str) -> Option<super::JudgeError> {
    matches!(status, 404 | 405).then(|| {
        super::JudgeError::Config(format!(
            "the judge's service has no batch API ({what} answered HTTP {status}); run without --batch"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_file_splits_at_the_request_and_byte_limits() {
        let limits = BatchLimits {
            requests: 2,
            bytes: 10,
        };
        let mut file = RequestFile::default();
        assert!(file.fits(4, limits));
        file.push(1, b"abcd", 0.5);
        assert!(file.fits(4, limits), "4 + 1 + 4 bytes fit in 10");
        assert!(!file.fits(6, limits), "4 + 1 + 6 bytes do not");
        file.push(2, b"efgh", 0.25);
        assert!(!file.fits(1, limits), "two requests is the limit");
        assert_eq!(
            file.each_line().collect::<Vec<_>>(),
            [&b"abcd"[..], b"efgh"]
        );
        assert_eq!(
            (file.keys.as_slice(), file.estimated_cost),
            (&[1, 2][..], 0.75)
        );
    }

    #[test]
    fn polls_grow_by_half_up_to_the_cap() {
        let poll = PollPolicy {
            first: Duration::from_secs(2),
            max: Duration::from_secs(5),
        };
        assert_eq!(poll.next(Duration::from_secs(2)), Duration::from_secs(3));
        assert_eq!(poll.next(Duration::from_secs(4)), Duration::from_secs(5));
        assert_eq!(poll.next(Duration::ZERO), Duration::from_secs(2));
    }

    #[test]
    fn the_batch_price_is_half_and_keys_keep_their_first_eight_bytes() {
        let live = Price {
            input: 2.5,
            output: 10.0,
        };
        assert_eq!(
            batch_price(live),
            Price {
                input: 1.25,
                output: 5.0
            }
        );
        let key = "00000000000000ff".to_string() + &"a".repeat(48);
        assert_eq!(key_prefix(&key), 255);
        assert_ne!(key_prefix("not-a-key"), key_prefix("another"));
    }
}
