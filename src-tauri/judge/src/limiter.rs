//! Per-profile request limits, shared by every call of one judge instance: at most
//! `concurrency` requests in flight (a semaphore), and optionally at most `rpm` requests
//! and `tpm` tokens in any 60-second window (a sliding window of what was sent).
//!
//! Owns admission only: it does not retry, and it counts every attempt, because a
//! provider's limits count every request it receives.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::retry::{seconds, sleep_or_cancel, until_cancelled};
use super::{CallContext, JudgeError};
use ragnosis_types::progress::Progress;

const WINDOW: Duration = Duration::from_secs(60);
/// Waits at least this long are announced to the user.
const ANNOUNCE_AFTER: Duration = Duration::from_secs(1);

pub struct Limiter {
    slots: Arc<Semaphore>,
    concurrency: usize,
    window: Mutex<SlidingWindow>,
}

/// Held for the duration of one request.
pub struct Permit {
    _slot: OwnedSemaphorePermit,
}

impl Limiter {
    pub fn new(concurrency: u32, rpm: Option<u32>, tpm: Option<u32>) -> Limiter {
        let concurrency = concurrency.max(1) as usize;
        Limiter {
            slots: Arc::new(Semaphore::new(concurrency)),
            concurrency,
            window: Mutex::new(SlidingWindow::new(
                rpm.filter(|&n| n > 0).map(u64::from),
                tpm.filter(|&n| n > 0).map(u64::from),
            )),
        }
    }

    pub fn concurrency(&self) -> usize {
        self.concurrency
    }

    /// Waits for a free slot and for room in the per-minute windows for one request of
    /// about `tokens` tokens. `who` names the profile in notices.
    pub async fn acquire(
        &self,
        tokens: u64,
        ctx: &CallContext,
        who: &str,
    ) -> Result<Permit, JudgeError> {
        let slot = tokio::select! {
            slot = self.slots.clone().acquire_owned() => slot.map_err(|_| JudgeError::Cancelled)?,
            _ = until_cancelled(&ctx.cancel) => return Err(JudgeError::Cancelled),
        };
        let mut announced = false;
        loop {
            let wait = self
                .window
                .lock()
                .expect("limiter lock")
                .reserve(tokens, Instant::now());
            let Some((wait, limit)) = wait else { break };
            if !announced && wait >= ANNOUNCE_AFTER {
                announced = true;
                ctx.progress.report(Progress::Notice {
                    message: format!("waiting {}: {limit} limit of {who}", seconds(wait)),
                });
            }
            sleep_or_cancel(wait, &ctx.cancel).await?;
        }
        Ok(Permit { _slot: slot })
    }
}

/// What was sent in the last minute.
struct SlidingWindow {
    rpm: Option<u64>,
    tpm: Option<u64>,
    sent: VecDeque<(Instant, u64)>,
}

impl SlidingWindow {
    fn new(rpm: Option<u64>, tpm: Option<u64>) -> SlidingWindow {
        SlidingWindow {
            rpm,
            tpm,
            sent: VecDeque::new(),
        }
    }

    /// Records a request of `tokens` at `now` when both limits allow it (`None`);
    /// otherwise how long until they might, and which limit is binding.
    fn reserve(&mut self, tokens: u64, now: Instant) -> Option<(Duration, &'static str)> {
        while self
            .sent
            .front()
            .is_some_and(|(at, _)| now.duration_since(*at) >= WINDOW)
        {
            self.sent.pop_front();
        }
        if let Some(rpm) = self.rpm {
            if self.sent.len() as u64 >= rpm {
                // The oldest requests must leave the window until one fewer than the limit remain.
                let (at, _) = self.sent[self.sent.len() - rpm as usize];
                return Some((
                    WINDOW.saturating_sub(now.duration_since(at)),
                    "requests-per-minute",
                ));
            }
        }
        if let Some(tpm) = self.tpm {
            let used: u64 = self.sent.iter().map(|(_, t)| t).sum();
            // A single request larger than the whole budget goes alone into an empty window.
            if used > 0 && used + tokens > tpm {
                let mut freed = 0;
                for (at, t) in &self.sent {
                    freed += t;
                    if used - freed + tokens <= tpm {
                        return Some((
                            WINDOW.saturating_sub(now.duration_since(*at)),
                            "tokens-per-minute",
                        ));
                    }
                }
            }
        }
        self.sent.push_back((now, tokens));
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_per_minute_admit_up_to_the_limit_then_wait_for_the_oldest() {
        let mut w = SlidingWindow::new(Some(2), None);
        let t0 = Instant::now();
        assert!(w.reserve(1, t0).is_none());
        assert!(w.reserve(1, t0 + Duration::from_secs(10)).is_none());
        let (wait, limit) = w.reserve(1, t0 + Duration::from_secs(20)).unwrap();
        assert_eq!(
            (wait, limit),
            (Duration::from_secs(40), "requests-per-minute"),
            "the first request leaves at 60 s"
        );
        assert!(
            w.reserve(1, t0 + Duration::from_secs(60)).is_none(),
            "after it left there is room"
        );
    }

    #[test]
    fn tokens_per_minute_wait_until_enough_tokens_leave() {
        let mut w = SlidingWindow::new(None, Some(1000));
        let t0 = Instant::now();
        assert!(w.reserve(600, t0).is_none());
        assert!(w.reserve(300, t0 + Duration::from_secs(5)).is_none());
        let (wait, _) = w.reserve(300, t0 + Duration::from_secs(30)).unwrap();
        assert_eq!(
            wait,
            Duration::from_secs(30),
            "the 600-token request must leave first"
        );
        let mut empty = SlidingWindow::new(None, Some(100));
        assert!(
            empty.reserve(5000, t0).is_none(),
            "an oversized request still runs, alone"
        );
    }

    #[tokio::test]
    async fn concurrency_is_bounded_by_the_semaphore() {
        let limiter = Limiter::new(2, None, None);
        let ctx = CallContext::default();
        let a = limiter.acquire(1, &ctx, "p").await.unwrap();
        let _b = limiter.acquire(1, &ctx, "p").await.unwrap();
        let third =
            tokio::time::timeout(Duration::from_millis(100), limiter.acquire(1, &ctx, "p")).await;
        assert!(
            third.is_err(),
            "a third request must wait while two are in flight"
        );
        drop(a);
        assert!(
            tokio::time::timeout(Duration::from_secs(5), limiter.acquire(1, &ctx, "p"))
                .await
                .is_ok()
        );
    }

    #[tokio::test]
    async fn waiting_for_a_slot_stops_on_cancel() {
        let limiter = Limiter::new(1, None, None);
        let ctx = CallContext::default();
        let _held = limiter.acquire(1, &ctx, "p").await.unwrap();
        ctx.cancel.cancel();
        let result =
            tokio::time::timeout(Duration::from_secs(5), limiter.acquire(1, &ctx, "p")).await;
        assert!(matches!(result, Ok(Err(JudgeError::Cancelled))));
    }
}
