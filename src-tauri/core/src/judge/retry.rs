//! Retries with exponential backoff and full jitter, honouring `Retry-After`, a timeout
//! per attempt, and cancellation at any moment (during a request or a wait). Every wait
//! is reported through the call's progress sink as a `Notice`, so a user watching a slow
//! run reads "waiting 12 s: rate limited (HTTP 429) by my-openai" instead of a frozen bar.
//!
//! Owns timing only: it does not know providers, prompts or caches.

use std::future::Future;
use std::time::{Duration, SystemTime};

use rand::Rng;

use super::provider::ProviderError;
use super::{CallContext, JudgeError};
use crate::progress::{CancelToken, Progress};

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

/// Parses a `Retry-After` value: delay-seconds (`"120"`, tolerated `"1.5"`) or an HTTP
/// date (`"Wed, 21 Oct 2015 07:28:00 GMT"`, also the obsolete RFC 850 and asctime
/// forms). A date in the past means "now"; a wait longer than `LONGEST_WAIT` (a server's
/// `1e20`, a date in the year 9999) is read as that, never as a panic.
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(secs) = value.parse::<f64>() {
        return wait_of(secs);
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(
        at.duration_since(now)
            .unwrap_or(Duration::ZERO)
            .min(LONGEST_WAIT),
    )
}

/// Parses a `retry-after-ms` value (OpenAI, Azure): milliseconds, fractions allowed.
pub fn parse_retry_after_ms(value: &str) -> Option<Duration> {
    let ms = value.trim().parse::<f64>().ok()?;
    wait_of(ms / 1000.0)
}

/// The longest wait a server's header is read as: a day. The retry loop caps every wait
/// far lower (`RetryPolicy::cap`); this only keeps the conversion from overflowing.
pub const LONGEST_WAIT: Duration = Duration::from_secs(24 * 3600);

/// Seconds as a wait: non-negative and finite, at most `LONGEST_WAIT`.
fn wait_of(secs: f64) -> Option<Duration> {
    (secs.is_finite() && secs >= 0.0)
        .then(|| Duration::from_secs_f64(secs.min(LONGEST_WAIT.as_secs_f64())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_accepts_seconds_and_http_dates() {
        let now = httpdate::parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT").unwrap();
        assert_eq!(parse_retry_after("12", now), Some(Duration::from_secs(12)));
        assert_eq!(
            parse_retry_after(" 1.5 ", now),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(
            parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            parse_retry_after("Wednesday, 21-Oct-15 07:29:00 GMT", now),
            Some(Duration::from_secs(60))
        );
        assert_eq!(
            parse_retry_after("Wed Oct 21 07:28:05 2015", now),
            Some(Duration::from_secs(5))
        );
        assert_eq!(
            parse_retry_after("Tue, 20 Oct 2015 07:28:00 GMT", now),
            Some(Duration::ZERO),
            "past dates mean now"
        );
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-3", now), None);
    }

    /// Found writing the Retry-After fuzz campaign, which finds it in 3,000 cases without
    /// the fix and shrinks it to `18446744073709551616`: `Duration::from_secs_f64`
    /// panicked on a finite number of seconds too large for a `Duration`, so a server's
    /// header could crash a run.
    #[test]
    fn a_retry_after_too_long_for_a_duration_is_a_long_wait_not_a_panic() {
        let now = httpdate::parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT").unwrap();
        assert_eq!(
            parse_retry_after("18446744073709551616", now),
            Some(LONGEST_WAIT)
        );
        assert_eq!(parse_retry_after("1e20", now), Some(LONGEST_WAIT));
        assert_eq!(
            parse_retry_after("1.7976931348623157e308", now),
            Some(LONGEST_WAIT)
        );
        assert_eq!(
            parse_retry_after("Fri, 31 Dec 9999 23:59:59 GMT", now),
            Some(LONGEST_WAIT)
        );
        assert_eq!(parse_retry_after_ms("1e30"), Some(LONGEST_WAIT));
        assert_eq!(
            parse_retry_after_ms("1500"),
            Some(Duration::from_millis(1500))
        );
        assert_eq!(parse_retry_after_ms("NaN"), None);
        assert_eq!(parse_retry_after_ms("-1"), None);
    }

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
