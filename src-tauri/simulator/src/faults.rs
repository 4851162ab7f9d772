//! Fault injection rules, set by tests (`SimHandle::set_faults`) or over HTTP
//! (`POST /_sim/faults`). `next` faults hit the next chat requests in order, one each;
//! `when_contains` faults hit every chat request whose messages contain the text (and
//! leave `next` untouched); latency applies to every chat request. Owns the rules and
//! the choice of fault only; the server acts them out.

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
            None => self.next.pop_front(),
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
