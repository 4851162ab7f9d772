//! What a change did to each matched item: the answer to "what did my fix do?" before
//! any metric mean.
//!
//! Only items whose output (answer, contexts, ...) changed can improve or get worse: an
//! item with the same output was judged on the same input, so any move of its scores is
//! the judge's own variation, which the comparison's headline reports apart.
//!
//! An item's standing in a run is read as the diagnosis reads it: the failure patterns
//! it shows, none meaning no problem was found. Between the runs it
//! - got worse: no problem in A, a problem in B;
//! - improved: a problem in A, none in B;
//! - changed its problem: a problem in both runs, not the same patterns;
//! - kept its standing: the same patterns (or none) in both.
//!
//! Where the diagnosis could not read the item in both runs (its metrics were not
//! measured), the metrics scored in both runs decide instead: the item got worse when
//! some metric now fails (crossed the pass line downwards) and none now passes, improved
//! in the reverse case, changed its problem when both happened.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::{item_label, passes, ScoredItem};
use crate::analysis::diagnosis::FailurePattern;

/// Items named in a sentence before "and N more".
const NAMED: usize = 8;

/// One matched item whose output changed, and its standing in each run in words.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ItemChange {
    /// The user's id, or "#N" (position in the file, from 1).
    pub label: String,
    pub item_id_a: i64,
    pub item_id_b: i64,
    /// "hallucination", "no problem found", or "fails ragvue.clarity" when no
    /// diagnosis could read the item.
    pub before: String,
    pub after: String,
}

/// The matched items sorted by what the change did to them; lists in run A's order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ItemChanges {
    pub worse: Vec<ItemChange>,
    pub improved: Vec<ItemChange>,
    /// A problem in both runs, another one in B.
    pub other_problem: Vec<ItemChange>,
    /// Another output, the same standing.
    pub same_standing: u64,
    /// The same output in both runs.
    pub same_output: u64,
}

/// How one side of a pair stands, and the words for it.
struct Standing {
    problems: BTreeSet<String>,
    words: String,
}

/// Sorts the matched pairs; see the module documentation for the rule.
pub fn sort(pairs: &[(&ScoredItem, &ScoredItem)], metrics: &[(String, bool)]) -> ItemChanges {
    let mut out = ItemChanges::default();
    for (a, b) in pairs {
        if a.key.content_hash == b.key.content_hash {
            out.same_output += 1;
            continue;
        }
        let (before, after) = match (&a.problems, &b.problems) {
            (Some(pa), Some(pb)) => (by_patterns(pa), by_patterns(pb)),
            _ => by_metrics(a, b, metrics),
        };
        let change = ItemChange {
            label: item_label(&a.key),
            item_id_a: a.key.item_id,
            item_id_b: b.key.item_id,
            before: before.words,
            after: after.words,
        };
        let (had, has) = (before.problems, after.problems);
        match (had.is_empty(), has.is_empty()) {
            (true, false) => out.worse.push(change),
            (false, true) => out.improved.push(change),
            (false, false) if had != has => out.other_problem.push(change),
            _ => out.same_standing += 1,
        }
    }
    out
}

fn by_patterns(patterns: &[FailurePattern]) -> Standing {
    let problems: BTreeSet<String> = patterns.iter().map(|p| p.name().to_string()).collect();
    let words = if problems.is_empty() {
        "no problem found".to_string()
    } else {
        problems.iter().cloned().collect::<Vec<_>>().join(", ")
    };
    Standing { problems, words }
}

/// Each side's failing metrics among those scored in both runs; a metric failing in
/// both runs is no change, so it is left out of both sides.
fn by_metrics(a: &ScoredItem, b: &ScoredItem, metrics: &[(String, bool)]) -> (Standing, Standing) {
    let (mut now_pass, mut now_fail) = (BTreeSet::new(), BTreeSet::new());
    for (metric, lower_is_better) in metrics {
        let (Some(sa), Some(sb)) = (a.scores.get(metric), b.scores.get(metric)) else {
            continue;
        };
        match (passes(*sa, *lower_is_better), passes(*sb, *lower_is_better)) {
            (true, false) => now_fail.insert(metric.clone()),
            (false, true) => now_pass.insert(metric.clone()),
            _ => false,
        };
    }
    let side = |failing: BTreeSet<String>| {
        let words = if failing.is_empty() {
            "no metric newly failing".to_string()
        } else {
            format!(
                "fails {}",
                failing.iter().cloned().collect::<Vec<_>>().join(", ")
            )
        };
        Standing {
            problems: failing,
            words,
        }
    };
    (side(now_pass), side(now_fail))
}

impl ItemChanges {
    /// "1 item got worse (t-05), 3 improved (t-02, t-04, t-08), 1 changed without
    /// changing standing; 3 kept the same output": the worse items first, always, so a
    /// regression is never below the fold.
    pub fn sentence(&self) -> String {
        let changed = self.worse.len() as u64
            + self.improved.len() as u64
            + self.other_problem.len() as u64
            + self.same_standing;
        if changed == 0 {
            return format!(
                "No item has another output ({} kept the same), so none could improve or get worse",
                self.same_output
            );
        }
        let mut parts = vec![match self.worse.len() {
            0 => "no item got worse".to_string(),
            n => format!("{n} item{} got worse ({})", plural(n), named(&self.worse)),
        }];
        parts.push(match self.improved.len() {
            0 => "none improved".to_string(),
            n => format!("{n} improved ({})", named(&self.improved)),
        });
        if !self.other_problem.is_empty() {
            parts.push(format!(
                "{} now {} another problem ({})",
                self.other_problem.len(),
                if self.other_problem.len() == 1 {
                    "has"
                } else {
                    "have"
                },
                named(&self.other_problem)
            ));
        }
        if self.same_standing > 0 {
            parts.push(format!(
                "{} changed without changing standing",
                self.same_standing
            ));
        }
        let mut text = parts.join(", ");
        if let Some(first) = text.get(..1) {
            text = first.to_uppercase() + &text[1..];
        }
        format!("{text}; {} kept the same output", self.same_output)
    }
}

fn named(items: &[ItemChange]) -> String {
    let mut labels: Vec<&str> = items.iter().take(NAMED).map(|i| i.label.as_str()).collect();
    let more = items.len().saturating_sub(NAMED);
    let more_text = format!("and {more} more");
    if more > 0 {
        labels.push(&more_text);
    }
    labels.join(", ")
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
