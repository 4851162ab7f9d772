//! A rate-limited response's `Retry-After` and `retry-after-ms` headers, read as a wait.
//!
//! Owns: the header formats. The retry loop (`judge::retry`) decides what to do with the
//! wait; the provider reads it off the response that asked for it.

use std::time::{Duration, SystemTime};

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
}
