//! A generation's budget as a ceiling across all of it: what earlier executions spent
//! counts, and every call is checked before it is made, with its estimated cost, against
//! what is spent and what calls in flight have reserved. Until one call's cost is known
//! calls go one at a time, so no wave of concurrent calls can overshoot on a guess.
//!
//! Owns: the spend, the reservations and the refusal. Must not: make calls.

use std::sync::Mutex;
use std::time::Duration;

use crate::progress::CancelToken;

#[derive(Debug)]
pub struct Budget {
    limit: Option<f64>,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    spent: f64,
    reserved: f64,
    in_flight: u32,
    /// The most one call has cost so far: the estimate for the next.
    dearest_call: Option<f64>,
}

/// A call the budget let through; settle it with what it cost.
#[derive(Debug)]
pub struct Reservation(f64);

impl Budget {
    /// `spent` is what earlier executions of the generation already spent, and
    /// `dearest_call` the most one of their calls cost.
    pub fn new(limit: Option<f64>, spent: f64, dearest_call: Option<f64>) -> Budget {
        Budget {
            limit,
            state: Mutex::new(State {
                spent,
                dearest_call,
                ..State::default()
            }),
        }
    }

    pub fn spent(&self) -> f64 {
        self.state.lock().unwrap().spent
    }

    pub fn dearest_call(&self) -> Option<f64> {
        self.state.lock().unwrap().dearest_call
    }

    /// Whether no call can be afforded any more (checked between waves).
    pub fn exhausted(&self) -> bool {
        let s = self.state.lock().unwrap();
        self.limit.is_some_and(|limit| {
            s.spent + s.dearest_call.unwrap_or(0.0) > limit || s.spent >= limit
        })
    }

    /// Waits until the next call may be made, or returns None when it would pass the
    /// budget (or the generation was cancelled while waiting).
    pub async fn reserve(&self, cancel: &CancelToken) -> Option<Reservation> {
        let Some(limit) = self.limit else {
            self.state.lock().unwrap().in_flight += 1;
            return Some(Reservation(0.0));
        };
        loop {
            {
                let mut s = self.state.lock().unwrap();
                match s.dearest_call {
                    // No call's cost is known yet: one at a time.
                    None if s.in_flight > 0 => {}
                    None if s.spent >= limit => return None,
                    None => {
                        s.in_flight += 1;
                        return Some(Reservation(0.0));
                    }
                    Some(estimate) => {
                        if s.spent + s.reserved + estimate > limit {
                            return None;
                        }
                        s.reserved += estimate;
                        s.in_flight += 1;
                        return Some(Reservation(estimate));
                    }
                }
            }
            if cancel.is_cancelled() {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    /// Records what a reserved call cost (0 for a failed or cached one).
    pub fn settle(&self, reservation: Reservation, cost: f64) {
        let mut s = self.state.lock().unwrap();
        s.reserved = (s.reserved - reservation.0).max(0.0);
        s.in_flight = s.in_flight.saturating_sub(1);
        s.spent += cost;
        if cost > 0.0 {
            s.dearest_call = Some(s.dearest_call.map_or(cost, |d| d.max(cost)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reserve(b: &Budget) -> Option<Reservation> {
        tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
            .unwrap()
            .block_on(b.reserve(&CancelToken::new()))
    }

    #[test]
    fn calls_stop_before_the_one_that_would_pass_the_ceiling() {
        let budget = Budget::new(Some(0.004), 0.0, None);
        let first = reserve(&budget).expect("the first call is always tried");
        budget.settle(first, 0.0015);
        let second = reserve(&budget).expect("0.0015 + 0.0015 fits");
        let third = reserve(&budget);
        assert!(
            third.is_none(),
            "0.0015 spent + 0.0015 reserved + 0.0015 would pass 0.004"
        );
        budget.settle(second, 0.0015);
        assert!(reserve(&budget).is_none(), "0.003 + 0.0015 > 0.004");
        assert!(budget.exhausted());
        assert!((budget.spent() - 0.003).abs() < 1e-12);
    }

    #[test]
    fn what_earlier_executions_spent_counts() {
        let budget = Budget::new(Some(0.004), 0.004, Some(0.001));
        assert!(reserve(&budget).is_none(), "already spent in full");
        let resumed = Budget::new(Some(0.004), 0.0035, Some(0.001));
        assert!(
            reserve(&resumed).is_none(),
            "a call as dear as the dearest before would pass the ceiling"
        );
        let unlimited = Budget::new(None, 10.0, None);
        assert!(reserve(&unlimited).is_some());
    }
}
