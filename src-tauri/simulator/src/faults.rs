//! Fault injection rules, set by tests (`SimHandle::set_faults`) or over HTTP
//! (`POST /_sim/faults`). `next` faults hit the next chat requests in order, one each;
//! `when_contains` faults hit every chat request whose messages contain the text (and
//! leave `next` untouched); a storm hits a random share of the rest with faults drawn at
//! random; latency applies to every chat request. `batch` rules shape the batch APIs
//! (`crate::batch`): how long a batch stays in progress, which of its requests fail or
//! expire. Owns the rules and the choice of fault only; the server acts them out.

use std::collections::VecDeque;
use std::time::Duration;

use rand::Rng;
use serde::{Deserialize, Serialize};

/// One way to misbehave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Fault {
    /// Answer with this HTTP status (and `Retry-After` when given).
    Status {
        status: u16,
        #[serde(default)]
        retry_after: Option<String>,
        #[serde(default)]
        body: Option<String>,
    },
    /// Never answer (until the simulator shuts down).
    Hang,
    /// A reply whose content is not JSON at all.
    MalformedJson,
    /// A reply whose JSON content stops half-way, as when a model hits its token limit.
    TruncatedJson,
    /// HTTP 200 with an empty body.
    EmptyBody,
    /// The right JSON wrapped in prose and a code fence.
    ProseAroundJson,
    /// An advice reply that cites an item the run's facts do not name, as a model that
    /// invents one would (other tasks answer as usual).
    InventedItem,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContainsRule {
    pub text: String,
    pub fault: Fault,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FaultRules {
    /// Added to every chat request.
    #[serde(default)]
    pub latency_ms: u64,
    /// Plus a uniform random 0..=jitter_ms.
    #[serde(default)]
    pub jitter_ms: u64,
    /// Or, when set, a uniform random latency in [min, max] instead of the two above.
    #[serde(default)]
    pub latency_range_ms: Option<(u64, u64)>,
    #[serde(default)]
    pub next: VecDeque<Fault>,
    #[serde(default)]
    pub when_contains: Vec<ContainsRule>,
    /// Adds uniform noise in ±score_jitter to every fractional score of a verdict
    /// (clamped to [0, 1]): a judge that does not give the same answer twice, for tests
    /// of how Ragnosis tells noise from change. 0 keeps the simulator deterministic.
    #[serde(default)]
    pub score_jitter: f64,
    /// A fault storm: each chat request that no rule above hits gets, with this
    /// probability, one of `storm` chosen at random (mixed failures arriving together).
    #[serde(default)]
    pub storm_rate: f64,
    #[serde(default)]
    pub storm: Vec<Fault>,
    /// How batches behave (`/v1/batches`, `/v1/messages/batches`).
    #[serde(default)]
    pub batch: BatchRules,
}

/// How the simulated batch services behave. A batch's requests are answered by the same
/// code as live chat requests (chat faults such as `when_contains` apply to them too);
/// these rules add what only batches do.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BatchRules {
    /// Status polls a batch answers "in progress" before it ends. Read at every poll, not
    /// when the batch is created, so a test can hold batches (a large number) and let
    /// them go later (0).
    #[serde(default)]
    pub polls_in_progress: u32,
    /// The first N requests of each new batch fail (HTTP 500 inside the batch).
    #[serde(default)]
    pub fail_first: usize,
    /// The last N requests of each new batch are never processed: the batch ends
    /// expired, as when the provider's 24-hour window runs out.
    #[serde(default)]
    pub expire_last: usize,
    /// Expired requests are left out of the results altogether instead of being listed
    /// as expired: a provider that loses track of them.
    #[serde(default)]
    pub omit_expired: bool,
    /// New batches fail validation: they end `failed`, with no results at all.
    #[serde(default)]
    pub fail_batch: bool,
}

impl FaultRules {
    /// The fault for a chat request whose message texts are `texts`, consuming a `next`
    /// fault only when no `when_contains` rule matches.
    pub fn choose(&mut self, texts: &[&str]) -> Option<Fault> {
        let matching = self
            .when_contains
            .iter()
            .find(|rule| texts.iter().any(|t| t.contains(&rule.text)));
        match matching {
            Some(rule) => Some(rule.fault.clone()),
            None => self.next.pop_front().or_else(|| {
                let mut rng = rand::thread_rng();
                (!self.storm.is_empty() && rng.gen_bool(self.storm_rate.clamp(0.0, 1.0)))
                    .then(|| self.storm[rng.gen_range(0..self.storm.len())].clone())
            }),
        }
    }

    pub fn latency(&self) -> Duration {
        let mut rng = rand::thread_rng();
        let ms = match self.latency_range_ms {
            Some((low, high)) if high > low => rng.gen_range(low..=high),
            Some((low, _)) => low,
            None if self.jitter_ms > 0 => self.latency_ms + rng.gen_range(0..=self.jitter_ms),
            None => self.latency_ms,
        };
        Duration::from_millis(ms)
    }
}

/// `json` with every fractional number (a score; indices and counts are integers) moved
/// by up to ±`amount`, two decimals kept.
pub fn jitter_scores(json: String, amount: f64) -> String {
    if amount <= 0.0 {
        return json;
    }
    let Ok(mut value) = serde_json::from_str::<serde_json::Value>(&json) else {
        return json;
    };
    jitter(&mut value, amount, &mut rand::thread_rng());
    value.to_string()
}

fn jitter(value: &mut serde_json::Value, amount: f64, rng: &mut impl Rng) {
    use serde_json::Value;
    match value {
        Value::Number(n) if n.is_f64() => {
            let score = n.as_f64().unwrap_or(0.0);
            if (0.0..=1.0).contains(&score) {
                let moved = (score + rng.gen_range(-amount..=amount)).clamp(0.0, 1.0);
                *value = serde_json::json!((moved * 100.0).round() / 100.0);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| jitter(v, amount, rng)),
        Value::Object(map) => map.values_mut().for_each(|v| jitter(v, amount, rng)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_jitter_moves_scores_within_bounds_and_leaves_integers() {
        let json = r#"{"chunks":[{"index":2,"relevance":0.5,"reason":"r"}],"clarity":1.0}"#;
        let mut moved = 0;
        for _ in 0..50 {
            let out: serde_json::Value =
                serde_json::from_str(&jitter_scores(json.into(), 0.2)).unwrap();
            assert_eq!(out["chunks"][0]["index"], 2, "an index is not a score");
            let r = out["chunks"][0]["relevance"].as_f64().unwrap();
            assert!((0.3 - 1e-9..=0.7 + 1e-9).contains(&r), "{r}");
            assert!(out["clarity"].as_f64().unwrap() <= 1.0);
            moved += usize::from(r != 0.5);
        }
        assert!(moved > 10, "the noise is real: {moved} of 50 moved");
        assert_eq!(jitter_scores(json.into(), 0.0), json, "0 changes nothing");
    }

    #[test]
    fn rules_parse_from_the_documented_json() {
        let rules: FaultRules = serde_json::from_str(
            r#"{"latency_ms": 200, "jitter_ms": 0,
                "next": [{"kind":"status","status":429,"retry_after":"1"}, {"kind":"status","status":500},
                         {"kind":"hang"}, {"kind":"malformed_json"}, {"kind":"truncated_json"},
                         {"kind":"empty_body"}, {"kind":"prose_around_json"}],
                "when_contains": [{"text":"POISON","fault":{"kind":"malformed_json"}}]}"#,
        )
        .unwrap();
        assert_eq!(rules.next.len(), 7);
        assert_eq!(rules.latency(), Duration::from_millis(200));
    }

    #[test]
    fn contains_rules_win_and_do_not_consume_next() {
        let mut rules = FaultRules {
            next: VecDeque::from([Fault::Hang]),
            when_contains: vec![ContainsRule {
                text: "POISON".into(),
                fault: Fault::EmptyBody,
            }],
            ..FaultRules::default()
        };
        assert_eq!(rules.choose(&["x POISON y"]), Some(Fault::EmptyBody));
        assert_eq!(rules.choose(&["clean"]), Some(Fault::Hang));
        assert_eq!(rules.choose(&["clean"]), None);
    }

    #[test]
    fn a_storm_hits_about_its_rate_with_its_mix() {
        let mut rules = FaultRules {
            storm_rate: 0.3,
            storm: vec![Fault::EmptyBody, Fault::MalformedJson],
            ..FaultRules::default()
        };
        let hits: Vec<Fault> = (0..2_000).filter_map(|_| rules.choose(&["x"])).collect();
        assert!((450..=750).contains(&hits.len()), "{} of 2000", hits.len());
        assert!(hits.contains(&Fault::EmptyBody) && hits.contains(&Fault::MalformedJson));
    }
}
