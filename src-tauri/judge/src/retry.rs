//! Retries with exponential backoff and full jitter, honouring `Retry-After`, a timeout
//! per attempt, and cancellation at any moment (during a request or a wait). Every wait
//! is reported through the call's progress sink as a `Notice`, so a user watching a slow
//! run reads "waiting 12 s: rate limited (HTTP 429) by my-openai" instead of a frozen bar.
//!
//! Owns timing only: it does not know providers, prompts or caches.

use std::future::Future;
use std::time::Duration;

use rand::Rng;

use super::provider::ProviderError;
use super::{CallContext, JudgeError};
use ragnosis_types::progress::{CancelToken, Progress};

/// How often a wait checks the cancel token.
const CANCEL_POLL: Duration = Duration::from_millis(50);

#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included (at least 1).
    pub max_attempts: u32,
    /// Backoff before retry n is uniform in [0, min(cap, base · 2ⁿ⁻¹)].
    pub base: Duration,
    pub cap: Duration,
    /// A server's `Retry-After` longer than this is shortened to it.
    pub max_retry_after: Duration,
    /// The limit for one attempt.
    pub timeout: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            max_attempts: 5,
            base: Duration::from_millis(500),
            cap: Duration::from_secs(30),
            max_retry_after: Duration::from_secs(120),
            timeout: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// Full-jitter backoff before retry number `retry` (1 for the first retry).
    pub fn backoff(&self, retry: u32) -> Duration {
        let ceiling = self
            .base
            .saturating_mul(2u32.saturating_pow(retry.saturating_sub(1)))
            .min(self.cap);
        ceiling.mul_f64(rand::thread_rng().gen_range(0.0..=1.0))
    }

    /// The wait before retry `retry` after `failure`: the server's `Retry-After` (capped)
    /// when it sent one, else the jittered backoff.
    pub fn wait_after(&self, failure: &ProviderError, retry: u32) -> Duration {
        match failure.retry_after {
            Some(asked) => asked.min(self.max_retry_after),
            None => self.backoff(retry),
        }
    }
}

/// Runs `attempt` until it succeeds, fails for good, or `policy.max_attempts` are used;
/// `who` (the profile name) appears in the notices. A cancelled token stops it at once
/// with `JudgeError::Cancelled`, abandoning any request in flight.
pub async fn run<T, F, Fut>(
    policy: &RetryPolicy,
    who: &str,
    ctx: &CallContext,
    mut attempt: F,
) -> Result<T, JudgeError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, ProviderError>>,
{
    let max_attempts = policy.max_attempts.max(1);
    let mut made = 0;
    loop {
        if ctx.cancel.is_cancelled() {
            return Err(JudgeError::Cancelled);
        }
        made += 1;
        let outcome = tokio::select! {
            outcome = attempt() => outcome,
            _ = until_cancelled(&ctx.cancel) => return Err(JudgeError::Cancelled),
        };
        let failure = match outcome {
            Ok(value) => return Ok(value),
            Err(failure) => failure,
        };
        if !failure.retryable || made >= max_attempts {
            return Err(match failure.error {
                JudgeError::RateLimited {
                    retry_after_secs, ..
                } => JudgeError::RateLimited {
                    attempts: made,
                    retry_after_secs,
                },
                other => other,
            });
        }
        let wait = policy.wait_after(&failure, made);
        ctx.progress.report(Progress::Notice {
            message: format!(
                "waiting {}: {} (attempt {} of {max_attempts} next)",
                seconds(wait),
                reason(&failure.error, who),
                made + 1
            ),
        });
        sleep_or_cancel(wait, &ctx.cancel).await?;
    }
}

/// Runs `fut` with a time limit; running out is a transient `Timeout`.
pub async fn with_timeout<T>(
    limit: Duration,
    fut: impl Future<Output = Result<T, ProviderError>>,
) -> Result<T, ProviderError> {
    tokio::time::timeout(limit, fut)
        .await
        .unwrap_or_else(|_| Err(ProviderError::new(JudgeError::Timeout(limit))))
}

/// Sleeps for `wait` unless the token is cancelled first.
pub async fn sleep_or_cancel(wait: Duration, cancel: &CancelToken) -> Result<(), JudgeError> {
    tokio::select! {
        _ = tokio::time::sleep(wait) => Ok(()),
        _ = until_cancelled(cancel) => Err(JudgeError::Cancelled),
    }
}

/// Completes once the token is cancelled (checked every 50 ms).
pub async fn until_cancelled(cancel: &CancelToken) {
    while !cancel.is_cancelled() {
        tokio::time::sleep(CANCEL_POLL).await;
    }
}

/// "12 s" for long waits, "0.4 s" for short ones.
pub fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s >= 10.0 {
        format!("{} s", s.round())
    } else {
        format!("{s:.1} s")
    }
}

fn reason(error: &JudgeError, who: &str) -> String {
    match error {
        JudgeError::RateLimited { .. } => format!("rate limited (HTTP 429) by {who}"),
        JudgeError::Http { status, .. } => format!("HTTP {status} from {who}"),
        JudgeError::Timeout(limit) => format!("no answer from {who} within {}", seconds(*limit)),
        JudgeError::Connection(_) => format!("cannot reach {who}"),
        other => format!("{other} ({who})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_is_jittered_under_an_exponential_ceiling_and_the_cap() {
        let policy = RetryPolicy::default();
        for retry in 1..=12 {
            let ceiling = Duration::from_millis(500 * 2u64.pow(retry - 1)).min(policy.cap);
            for _ in 0..50 {
                assert!(
                    policy.backoff(retry) <= ceiling,
                    "retry {retry} must wait at most {ceiling:?}"
                );
            }
        }
    }

    #[test]
    fn retry_after_wins_over_backoff_but_is_capped() {
        let policy = RetryPolicy::default();
        let asked = |secs| ProviderError {
            error: JudgeError::RateLimited {
                attempts: 1,
                retry_after_secs: None,
            },
            retry_after: Some(Duration::from_secs(secs)),
            retryable: true,
        };
        assert_eq!(policy.wait_after(&asked(7), 1), Duration::from_secs(7));
        assert_eq!(policy.wait_after(&asked(3600), 1), Duration::from_secs(120));
    }

    #[test]
    fn waits_read_as_seconds() {
        assert_eq!(seconds(Duration::from_millis(400)), "0.4 s");
        assert_eq!(seconds(Duration::from_secs(12)), "12 s");
    }
}
