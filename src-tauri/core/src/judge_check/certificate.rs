//! A judge certificate: how far a judge's yes / no on claims can be trusted, beyond one
//! agreement figure.
//!
//! - Over the check's labelled claims (attribution, claim support, expert claims): the
//!   confusion matrix (the judge's verdict against people's label), Cohen's κ (agreement
//!   beyond what the two sides' base rates give by chance), and the true positive and
//!   true negative rates, each with a bootstrap 95% interval. The rates are what a pass
//!   rate measured by this judge can be corrected with.
//! - Three probes on the first `PROBED_PER_TASK` claims of each claim task: the same
//!   claim asked again with the cache bypassed (repeat consistency), with its passages in
//!   reverse order, and wrapped in neutral filler that adds no fact. A judge that reads
//!   meaning answers all three as before; each figure is the share that kept the verdict.
//!
//! Owns: those figures and the probe cases. Must not: call the judge except through the
//! check's own claim path (`super::claim_verdict`).

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

use super::figures::{self, Estimate};
use super::sample::{Case, ClaimCase};
use super::Ledger;
use crate::judge::{CallContext, Judge};
use crate::progress::{CancelToken, ProgressSink};
use crate::run::asking::Asker;

/// Claims of each claim task that are probed.
pub const PROBED_PER_TASK: usize = 10;

/// Words around a claim that state nothing: a judge that reads the claim's meaning is
/// not moved by them. Probed claims take them in turn, so the figure is not one
/// wording's.
const FILLERS: [(&str, &str); 3] = [
    (
        "To put it plainly and for the record, ",
        " That is simply what it comes down to.",
    ),
    ("As it turns out, ", " Nothing more needs adding here."),
    ("Well, put briefly, ", " That's the long and short of it."),
];

/// Judge verdicts against people's labels, yes = supported.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ConfusionCounts {
    /// The judge said supported, people said supported.
    pub true_positive: u64,
    /// The judge said supported, people said not.
    pub false_positive: u64,
    pub true_negative: u64,
    pub false_negative: u64,
}

impl ConfusionCounts {
    pub fn of(pairs: &[(bool, bool)]) -> ConfusionCounts {
        let mut c = ConfusionCounts::default();
        for &(judged, labelled) in pairs {
            match (judged, labelled) {
                (true, true) => c.true_positive += 1,
                (true, false) => c.false_positive += 1,
                (false, false) => c.true_negative += 1,
                (false, true) => c.false_negative += 1,
            }
        }
        c
    }

    pub fn n(&self) -> u64 {
        self.true_positive + self.false_positive + self.true_negative + self.false_negative
    }
}

/// How many probe cases kept their verdict.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Consistency {
    pub same: u64,
    pub n: u64,
}

impl Consistency {
    pub fn share(&self) -> Option<f64> {
        (self.n > 0).then(|| self.same as f64 / self.n as f64)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Certificate {
    pub confusion: ConfusionCounts,
    pub kappa: Option<Estimate>,
    /// Of the claims people call supported, the share the judge calls supported.
    pub true_positive_rate: Option<Estimate>,
    /// Of the claims people call unsupported, the share the judge calls unsupported.
    pub true_negative_rate: Option<Estimate>,
    /// The same claim asked again, the cache bypassed.
    pub repeat: Consistency,
    /// The passages given in reverse order.
    pub passage_order: Consistency,
    /// The claim wrapped in neutral filler.
    pub padding: Consistency,
}

impl Certificate {
    /// The figures from the check's (judged, labelled) claim pairs and the probes.
    pub fn new(pairs: &[(bool, bool)], probes: Probes) -> Certificate {
        Certificate {
            confusion: ConfusionCounts::of(pairs),
            kappa: figures::estimate(pairs, kappa),
            true_positive_rate: figures::estimate(pairs, |p| rate(p, true)),
            true_negative_rate: figures::estimate(pairs, |p| rate(p, false)),
            repeat: probes.repeat,
            passage_order: probes.passage_order,
            padding: probes.padding,
        }
    }

    /// One sentence for a report's methodology.
    pub fn sentence(&self) -> String {
        let est = |e: Option<Estimate>| match e {
            Some(e) => format!("{:.2} [{:.2}, {:.2}]", e.value, e.ci_low, e.ci_high),
            None => "not defined".into(),
        };
        let probe = |c: Consistency| format!("{} of {}", c.same, c.n);
        let m = &self.confusion;
        format!(
            "Cohen's κ {}, true positive rate {}, true negative rate {} on {} labelled claims (judge said supported: {} right, {} wrong; unsupported: {} right, {} wrong); the same verdict when asked again {}, with the passages reordered {}, with neutral filler around the claim {}.",
            est(self.kappa),
            est(self.true_positive_rate),
            est(self.true_negative_rate),
            m.n(),
            m.true_positive,
            m.false_positive,
            m.true_negative,
            m.false_negative,
            probe(self.repeat),
            probe(self.passage_order),
            probe(self.padding)
        )
    }
}

/// Cohen's κ of (judged, labelled) pairs: (observed − chance agreement) / (1 − chance),
/// chance from the two sides' base rates. Undefined when chance agreement is 1.
pub fn kappa(pairs: &[(bool, bool)]) -> Option<f64> {
    let n = pairs.len() as f64;
    if n == 0.0 {
        return None;
    }
    let observed = pairs.iter().filter(|(a, b)| a == b).count() as f64 / n;
    let judged_yes = pairs.iter().filter(|(a, _)| *a).count() as f64 / n;
    let labelled_yes = pairs.iter().filter(|(_, b)| *b).count() as f64 / n;
    let chance = judged_yes * labelled_yes + (1.0 - judged_yes) * (1.0 - labelled_yes);
    (chance < 1.0).then(|| (observed - chance) / (1.0 - chance))
}

/// The share of pairs labelled `label` that the judge called `label`.
pub fn rate(pairs: &[(bool, bool)], label: bool) -> Option<f64> {
    let of_label: Vec<&(bool, bool)> = pairs.iter().filter(|(_, b)| *b == label).collect();
    (!of_label.is_empty()).then(|| {
        of_label.iter().filter(|(a, _)| *a == label).count() as f64 / of_label.len() as f64
    })
}

/// The three probes' results.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Probes {
    pub repeat: Consistency,
    pub passage_order: Consistency,
    pub padding: Consistency,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Probe {
    Repeat,
    PassageOrder,
    Padding,
}

/// The probed cases: the first `PROBED_PER_TASK` of each claim task, in sample order.
fn probed(cases: &[Case]) -> Vec<ClaimCase> {
    let mut out = Vec::new();
    let mut taken = [0usize; 3];
    for case in cases {
        let (slot, claim) = match case {
            Case::Attribution(c) => (0, c),
            Case::ClaimSupport(c) => (1, c),
            Case::ExpertClaims(c) => (2, c),
            _ => continue,
        };
        if taken[slot] < PROBED_PER_TASK {
            taken[slot] += 1;
            out.push(claim.clone());
        }
    }
    out
}

/// What a probe asks about `case` (the `nth` probed): the claim and its passages, reordered
/// or padded.
fn probe_input(case: &ClaimCase, nth: usize, probe: Probe) -> (String, Vec<String>) {
    match probe {
        Probe::Repeat => (case.text.clone(), case.passages.clone()),
        Probe::PassageOrder => {
            let mut reversed = case.passages.clone();
            reversed.reverse();
            (case.text.clone(), reversed)
        }
        Probe::Padding => {
            let (before, after) = FILLERS[nth % FILLERS.len()];
            (
                format!("{before}{}{after}", lower_first(&case.text)),
                case.passages.clone(),
            )
        }
    }
}

/// Notes the probes' cached calls with a batch pass's scout: the reordered and padded
/// variants. The repeat probe bypasses the cache by design, so its calls stay live.
pub(super) fn scout(cases: &[Case], scout: &dyn Judge, ctx: &CallContext) {
    for (nth, case) in probed(cases).into_iter().enumerate() {
        for probe in [Probe::PassageOrder, Probe::Padding] {
            let (text, passages) = probe_input(&case, nth, probe);
            let asker = Asker::new(scout, ctx);
            let _ = crate::run::batch::poll_once(super::claim_verdict(&asker, &text, passages));
        }
    }
}

/// Runs the probes on the sample's claims through `judge`. A probe whose calls fail is
/// left out (it is no evidence either way); the failures are counted in the ledger.
pub(super) async fn run(
    cases: &[Case],
    judge: &Arc<dyn Judge>,
    ledger: &Arc<Ledger>,
    progress: &Arc<dyn ProgressSink>,
    cancel: &CancelToken,
) -> Probes {
    let permits = Arc::new(Semaphore::new((judge.concurrency() * 2).max(2)));
    let mut set = JoinSet::new();
    for (nth, case) in probed(cases).into_iter().enumerate() {
        for probe in [Probe::Repeat, Probe::PassageOrder, Probe::Padding] {
            let (judge, ledger, permits, case) =
                (judge.clone(), ledger.clone(), permits.clone(), case.clone());
            let (progress, cancel) = (progress.clone(), cancel.clone());
            set.spawn(async move {
                let _permit = permits.acquire_owned().await.expect("never closed");
                let cached = CallContext {
                    progress: progress.clone(),
                    cancel: cancel.clone(),
                    use_cache: true,
                };
                let fresh = CallContext {
                    use_cache: false,
                    ..cached.clone()
                };
                let (text, passages) = probe_input(&case, nth, probe);
                let ctx = match probe {
                    Probe::Repeat => &fresh,
                    Probe::PassageOrder | Probe::Padding => &cached,
                };
                let base_asker = Asker::new(judge.as_ref(), &cached);
                let base =
                    super::claim_verdict(&base_asker, &case.text, case.passages.clone()).await;
                let probe_asker = Asker::new(judge.as_ref(), ctx);
                let probed = super::claim_verdict(&probe_asker, &text, passages).await;
                for asker in [base_asker, probe_asker] {
                    let (spent, versions) = asker.into_spent();
                    ledger.absorb(&spent, versions);
                }
                (probe, base.ok().zip(probed.ok()))
            });
        }
    }
    let mut probes = Probes::default();
    while let Some(joined) = set.join_next().await {
        let Ok((probe, Some((base, probed)))) = joined else {
            continue;
        };
        let tally = match probe {
            Probe::Repeat => &mut probes.repeat,
            Probe::PassageOrder => &mut probes.passage_order,
            Probe::Padding => &mut probes.padding,
        };
        tally.n += 1;
        tally.same += u64::from(base == probed);
    }
    probes
}

/// "The claim …" → "the claim …", so the filler reads as one sentence; names and "I"
/// keep their capital.
fn lower_first(text: &str) -> String {
    let mut words = text.splitn(2, ' ');
    let first = words.next().unwrap_or_default();
    let rest = words.next();
    let common = first.len() > 1
        && first
            .chars()
            .skip(1)
            .all(|c| c.is_lowercase() || !c.is_alphabetic())
        && matches!(
            first.to_lowercase().as_str(),
            "the"
                | "a"
                | "an"
                | "it"
                | "this"
                | "there"
                | "in"
                | "on"
                | "he"
                | "she"
                | "they"
                | "its"
        );
    let first = if common {
        first.to_lowercase()
    } else {
        first.to_string()
    };
    match rest {
        Some(rest) => format!("{first} {rest}"),
        None => first,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kappa_and_rates_match_a_hand_computation() {
        // 10 pairs: judge yes/people yes 4, yes/no 1, no/no 3, no/yes 2.
        let mut pairs = vec![(true, true); 4];
        pairs.extend([(true, false)]);
        pairs.extend(vec![(false, false); 3]);
        pairs.extend(vec![(false, true); 2]);
        let c = ConfusionCounts::of(&pairs);
        assert_eq!(
            (
                c.true_positive,
                c.false_positive,
                c.true_negative,
                c.false_negative
            ),
            (4, 1, 3, 2)
        );
        // Observed 0.7; judge yes 0.5, people yes 0.6: chance 0.5·0.6 + 0.5·0.4 = 0.5;
        // κ = (0.7 − 0.5) / 0.5 = 0.4.
        assert!((kappa(&pairs).unwrap() - 0.4).abs() < 1e-12);
        // TPR 4 / 6, TNR 3 / 4.
        assert!((rate(&pairs, true).unwrap() - 4.0 / 6.0).abs() < 1e-12);
        assert!((rate(&pairs, false).unwrap() - 0.75).abs() < 1e-12);
        assert_eq!(
            kappa(&[(true, true), (true, true)]),
            None,
            "all agree by chance"
        );
        let cert = Certificate::new(&pairs, Probes::default());
        assert!((cert.kappa.unwrap().value - 0.4).abs() < 1e-12);
        assert!(cert.sentence().contains("κ 0.40"), "{}", cert.sentence());
    }

    #[test]
    fn filler_keeps_names_and_lowers_only_a_plain_opening_word() {
        assert_eq!(
            lower_first("The bridge opened in 1937."),
            "the bridge opened in 1937."
        );
        assert_eq!(
            lower_first("Harvard was founded in 1636."),
            "Harvard was founded in 1636."
        );
        assert_eq!(lower_first("I think so."), "I think so.");
    }
}
