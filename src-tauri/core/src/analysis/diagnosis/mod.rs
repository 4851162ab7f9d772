//! Deterministic diagnosis of a run: which failure patterns (METRICS.md A–H) its items
//! show, which pipeline stage to fix first, and a short list of action items.
//!
//! Owns: tallying patterns over a run's items, choosing worst examples, the primary
//! stage rule, and assembling `Diagnosis`. Calls no judge: it reads stored `ok` scores
//! through `store` and applies fixed rules (`patterns`) and a fixed text table
//! (`actions`), so the same results always give the same diagnosis.
//!
//! Primary stage rule ("fix first"): the stage of the first-ranked action. Patterns are
//! ranked by impact (the share of checked items they affect, read through its Wilson
//! lower bound against thresholds that are lower for earlier stages; see `actions`),
//! then by METRICS.md's fix order — retrieval (A, B), then grounding (C–F), then
//! generation (G, H) — then by the number of items, then letter. So among the patterns
//! that matter most, the one upstream is fixed first: a frequent generation problem does
//! not outrank a retrieval miss that starves every later stage. Counting per pattern,
//! not per stage, keeps grounding (four patterns) from winning by having more rules.

pub mod actions;
pub mod patterns;
pub mod reading;
pub mod tailor;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::metrics::{MetricResult, Status};
use crate::store::{self, results::ItemScores, Store};

pub use actions::{ActionExample, ActionItem, Impact};
pub use patterns::{FailurePattern, MetricScore, Stage};
pub use reading::{read, ItemReading, Witness};

/// Worst examples kept per pattern.
const EXAMPLES: usize = 3;
/// Items that need a look, kept with their reason for the reader.
const UNSURE_KEPT: usize = 5;

/// One item on which a pattern fired, with the scores that made it fire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PatternExample {
    /// The item's row id in the store, for opening its case.
    pub item_id: i64,
    /// The rule's inputs as read for this item.
    pub scores: Vec<MetricScore>,
    /// Judge-free signals that corroborate the pattern, when they were computed.
    #[serde(default)]
    pub supporting: Vec<MetricScore>,
}

/// A pattern's footprint on a run. Only patterns that fired at least once are listed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PatternSummary {
    pub pattern: FailurePattern,
    /// "A" … "J" (METRICS.md).
    pub letter: char,
    /// Lower-case short name ("retrieval miss").
    pub name: String,
    /// The pipeline stage it points at.
    pub stage: Stage,
    /// One sentence on what the pattern means.
    pub description: String,
    /// Items on which the pattern fired.
    pub count: u64,
    /// `count` over the items that could be checked.
    pub share: f64,
    /// Up to three items, worst first (lowest severity, then earliest in the run).
    pub examples: Vec<PatternExample>,
}

impl PatternSummary {
    /// `pattern` fired on `count` of the `checked` items; `examples` worst first.
    fn new(
        pattern: FailurePattern,
        count: u64,
        checked: u64,
        examples: Vec<PatternExample>,
    ) -> PatternSummary {
        PatternSummary {
            pattern,
            letter: pattern.letter(),
            name: pattern.name().to_string(),
            stage: pattern.stage(),
            description: pattern.description().to_string(),
            count,
            share: count as f64 / checked as f64,
            examples,
        }
    }
}

/// A run's failure-pattern diagnosis: what the Results screen and every report show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Diagnosis {
    /// Patterns that fired, in letter (fix) order.
    pub patterns: Vec<PatternSummary>,
    /// `None` when no pattern fired.
    pub primary_stage: Option<Stage>,
    /// At most four, High impact first; a single note when no pattern fired.
    pub actions: Vec<ActionItem>,
    /// Checked items on which at least one pattern fired.
    pub items_with_patterns: u64,
    /// Items with at least one `ok` score that some rule reads.
    pub items_checked: u64,
    /// Patterns that no item could be checked for (the metrics they read were not
    /// scored), in letter order: their absence from `patterns` says nothing.
    #[serde(default)]
    pub unchecked: Vec<FailurePattern>,
    /// Items whose signals disagree, so no pattern is named for them: they need a look.
    #[serde(default)]
    pub unsure: u64,
    /// Up to five of them, first in the run, each with the reason.
    #[serde(default)]
    pub unsure_items: Vec<UnsureItem>,
    /// Items whose patterns your labels changed (a label's score replaces the judge's).
    #[serde(default)]
    pub corrected_by_labels: u64,
}

/// An item that needs a look, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct UnsureItem {
    /// The item's row id in the store.
    pub item_id: i64,
    /// Which signals disagree, in a sentence.
    pub reason: String,
}

impl Diagnosis {
    /// Items were checked and no pattern fired: there is no stage to fix first.
    pub fn is_clean(&self) -> bool {
        self.items_checked > 0 && self.patterns.iter().all(|p| p.count == 0)
    }
}

/// Diagnoses a run from its stored `ok` scores.
pub fn diagnose(store: &Store, run_id: i64) -> Result<Diagnosis> {
    let conn = store.conn();
    // Counted as the items stream by: held at once, a judged million-item run's scores
    // took half a gigabyte here.
    let mut counting = Counting::default();
    let labels = store::human_labels::scores_by_item(conn, run_id)?;
    for_each_rule_scores(conn, run_id, |item| match labels.get(&item.item_id) {
        Some(labelled) => counting.add_labelled(&item, labelled),
        None => counting.add(&item),
    })?;
    let tally = counting.finish();
    // Only the worst example of each pattern is quoted in an action item.
    let mut questions = BTreeMap::new();
    for summary in &tally.patterns {
        if let Some(example) = summary.examples.first() {
            questions.insert(
                example.item_id,
                store::items::get(conn, example.item_id)?.item.question,
            );
        }
    }
    let actions = actions::plan(
        &tally.patterns,
        tally.items_checked,
        &tally.unchecked,
        &questions,
    );
    Ok(Diagnosis {
        primary_stage: primary_stage(&tally.patterns, tally.items_checked),
        patterns: tally.patterns,
        actions,
        items_with_patterns: tally.items_with_patterns,
        items_checked: tally.items_checked,
        unchecked: tally.unchecked,
        unsure: tally.unsure,
        unsure_items: tally.unsure_items,
        corrected_by_labels: tally.corrected_by_labels,
    })
}

/// The patterns of every item the diagnosis could check, keyed by item id, read as
/// `diagnose` reads them (labels standing in for the judge's scores): an item with none
/// showed no problem; an item missing from the map could not be checked.
pub fn problems_by_item(
    store: &Store,
    run_id: i64,
) -> Result<std::collections::HashMap<i64, Vec<FailurePattern>>> {
    let conn = store.conn();
    let labels = store::human_labels::scores_by_item(conn, run_id)?;
    let mut out = std::collections::HashMap::new();
    for_each_rule_scores(conn, run_id, |mut item| {
        if !patterns::RULE_INPUTS
            .iter()
            .any(|m| item.scores.contains_key(*m))
        {
            return;
        }
        for (metric, score) in labels.get(&item.item_id).into_iter().flatten() {
            item.scores.insert(metric.clone(), *score);
        }
        out.insert(item.item_id, reading::read(&item.scores).patterns());
    })?;
    Ok(out)
}

/// What the rules read for each item of a run, one item at a time in run order: the `ok`
/// scores of their inputs and of the supporting signals, and the decision facts of
/// negative rejection (`patterns::decision_facts`). Never collected: a million items'
/// scores held at once took most of a gigabyte.
pub fn for_each_rule_scores(
    conn: &rusqlite::Connection,
    run_id: i64,
    mut f: impl FnMut(ItemScores),
) -> Result<()> {
    let read: Vec<&str> = patterns::RULE_INPUTS
        .iter()
        .chain(patterns::SUPPORTING_INPUTS.iter())
        .chain([patterns::CORRECTNESS, patterns::CLAIM_RECALL].iter())
        .copied()
        .collect();
    let decisions = store::results::ok_detail_flags(
        conn,
        run_id,
        patterns::NEGATIVE_REJECTION,
        patterns::DECISION_FLAGS.map(|(key, _)| key),
    )?;
    let references = store::results::ok_detail_flags(
        conn,
        run_id,
        patterns::CORRECTNESS,
        [patterns::REFERENCE_FLAG.0],
    )?;
    store::results::for_each_ok_scores_by_item(conn, run_id, &read, |mut item| {
        if let Some(flags) = decisions.get(&item.item_id) {
            for (fact, value) in patterns::facts_of(*flags) {
                item.scores.insert(fact.to_string(), value);
            }
        }
        if let Some([Some(declines)]) = references.get(&item.item_id) {
            item.scores.insert(
                patterns::REFERENCE_FLAG.1.to_string(),
                f64::from(u8::from(*declines)),
            );
        }
        f(item)
    })
}

/// The patterns one item shows, in letter (fix) order: the item read as a whole.
pub fn patterns_for(scores: &BTreeMap<String, f64>) -> Vec<FailurePattern> {
    reading::read(scores).patterns()
}

/// The patterns one item of a run shows, for the case view.
pub fn item_patterns(store: &Store, run_id: i64, item_id: i64) -> Result<Vec<FailurePattern>> {
    let results = store::results::for_item(store.conn(), run_id, item_id)?;
    Ok(patterns_of(results.iter().map(|stored| &stored.result)))
}

/// The patterns an item's results show.
pub fn patterns_of<'a>(results: impl IntoIterator<Item = &'a MetricResult>) -> Vec<FailurePattern> {
    reading_of(results).patterns()
}

/// An item's results read as a whole. Same reading as `ok_scores_by_item`: one score per
/// metric, the mean if a cell was ever scored under more than one judge configuration;
/// errors and skipped results take no part.
pub fn reading_of<'a>(results: impl IntoIterator<Item = &'a MetricResult>) -> ItemReading {
    let mut sums: BTreeMap<String, (f64, u32)> = BTreeMap::new();
    let mut add = |metric: &str, value: f64| {
        let entry = sums.entry(metric.to_string()).or_default();
        entry.0 += value;
        entry.1 += 1;
    };
    for result in results.into_iter().filter(|r| r.status == Status::Ok) {
        if result.metric == patterns::NEGATIVE_REJECTION {
            for (fact, value) in patterns::decision_facts(&result.details) {
                add(fact, value);
            }
        }
        if result.metric == patterns::CORRECTNESS {
            if let Some((fact, value)) = patterns::reference_fact(&result.details) {
                add(fact, value);
            }
        }
        if let Some(score) = result.score {
            add(&result.metric, score);
        }
    }
    let scores = sums
        .into_iter()
        .map(|(metric, (sum, n))| (metric, sum / n as f64))
        .collect();
    reading::read(&scores)
}

/// The run's verdict in words a reader can repeat: how many answers had a problem,
/// which pattern most often, what to fix first, and how many need a look. `None` when no
/// item could be checked (there is nothing to say).
pub fn verdict(d: &Diagnosis) -> Option<String> {
    if d.items_checked == 0 {
        return None;
    }
    let look = match d.unsure {
        0 => String::new(),
        1 => "; 1 more needs a look".to_string(),
        n => format!("; {n} more need a look"),
    };
    let first = d.actions.iter().find(|a| a.pattern.is_some());
    let most = d.patterns.iter().filter(|p| p.count > 0).max_by(|a, b| {
        a.count
            .cmp(&b.count)
            .then_with(|| b.pattern.cmp(&a.pattern))
    });
    let (Some(first), Some(most)) = (first, most) else {
        return Some(format!(
            "None of the {} checked answers shows a failure pattern{look}.",
            d.items_checked
        ));
    };
    let answers = |n: u64| if n == 1 { "answer" } else { "answers" };
    let title = first.title.as_str();
    let fix = title
        .chars()
        .next()
        .map(|c| {
            c.to_lowercase()
                .chain(title.chars().skip(1))
                .collect::<String>()
        })
        .unwrap_or_default();
    Some(format!(
        "{} of {} checked {} had a problem{look}; most often {}, on {} {}; fix first: {fix}.",
        d.items_with_patterns,
        d.items_checked,
        answers(d.items_checked),
        most.pattern.label(),
        most.count,
        answers(most.count),
    ))
}

/// What the counts leave out, in words: the items that need a look and those your labels
/// corrected, each a sentence starting with a space; empty when neither.
pub fn uncertainty_note(d: &Diagnosis) -> String {
    let mut note = String::new();
    if d.unsure > 0 {
        let items = if d.unsure == 1 {
            "item needs"
        } else {
            "items need"
        };
        note.push_str(&format!(
            " {} {items} a look: their signals disagree, so no pattern is named for them (not counted above).",
            d.unsure
        ));
    }
    if d.corrected_by_labels > 0 {
        note.push_str(&format!(
            " Corrected by your labels: {} item{}.",
            d.corrected_by_labels,
            if d.corrected_by_labels == 1 { "" } else { "s" }
        ));
    }
    note
}

/// See the module documentation for the rule.
pub fn primary_stage(patterns: &[PatternSummary], items_checked: u64) -> Option<Stage> {
    patterns
        .iter()
        .filter(|p| p.count > 0)
        .min_by_key(|p| actions::priority(p, items_checked))
        .map(|p| p.stage)
}

/// Pattern counts and examples over a run's items, before any text is written.
struct Tally {
    patterns: Vec<PatternSummary>,
    items_with_patterns: u64,
    items_checked: u64,
    unchecked: Vec<FailurePattern>,
    unsure: u64,
    unsure_items: Vec<UnsureItem>,
    corrected_by_labels: u64,
}

/// A candidate example: (unconfirmed, severity, run position) orders it, worst first.
struct Candidate {
    /// The reference does not confirm the failure (it is absent or undecided): an item
    /// the reference contradicts is the clearest example, and is shown first.
    unconfirmed: bool,
    severity: f64,
    position: usize,
    example: PatternExample,
}

#[cfg(test)]
fn tally(items: &[ItemScores]) -> Tally {
    let mut counting = Counting::default();
    for item in items {
        counting.add(item);
    }
    counting.finish()
}

/// A `Tally` being counted, one item at a time in run order.
#[derive(Default)]
struct Counting {
    /// The next item's place in the run.
    position: usize,
    counts: [u64; FailurePattern::ALL.len()],
    checkable: [bool; FailurePattern::ALL.len()],
    worst: [Vec<Candidate>; FailurePattern::ALL.len()],
    items_checked: u64,
    items_with_patterns: u64,
    unsure: u64,
    unsure_items: Vec<UnsureItem>,
    corrected_by_labels: u64,
}

impl Counting {
    fn add(&mut self, item: &ItemScores) {
        let reading = reading::read(&item.scores);
        self.count(item, &reading, false);
    }

    /// An item with labels: each label's score stands in for the judge's score of its
    /// metric, and an item labelled a pass on everything it was labelled for is never an
    /// example.
    fn add_labelled(&mut self, item: &ItemScores, labels: &[(String, f64)]) {
        let mut scores = item.scores.clone();
        for (metric, score) in labels {
            scores.insert(metric.clone(), *score);
        }
        let before = reading::read(&item.scores);
        let reading = reading::read(&scores);
        if before.patterns() != reading.patterns() || before.unsure != reading.unsure {
            self.corrected_by_labels += 1;
        }
        let passed = !labels.is_empty() && labels.iter().all(|(_, s)| *s >= 0.5);
        let labelled = ItemScores {
            item_id: item.item_id,
            scores,
        };
        self.count(&labelled, &reading, passed);
    }

    fn count(&mut self, item: &ItemScores, reading: &ItemReading, labelled_pass: bool) {
        let position = self.position;
        self.position += 1;
        if !patterns::RULE_INPUTS
            .iter()
            .any(|m| item.scores.contains_key(*m))
        {
            return;
        }
        self.items_checked += 1;
        for (index, pattern) in FailurePattern::ALL.into_iter().enumerate() {
            self.checkable[index] |= pattern.checkable(&item.scores);
        }
        if let Some(reason) = reading.unsure {
            self.unsure += 1;
            if self.unsure_items.len() < UNSURE_KEPT {
                self.unsure_items.push(UnsureItem {
                    item_id: item.item_id,
                    reason: reason.to_string(),
                });
            }
        }
        // A correct-looking item (the reference agrees, or people passed it) stands as no
        // pattern's example, even where a pattern it still shows (a citation, padding)
        // counts it.
        let may_illustrate = !reading.looks_correct() && !labelled_pass;
        let confirmed = reading.witness == Some(Witness::Contradicts);
        for (pattern, trigger) in &reading.named {
            let index = FailurePattern::ALL
                .iter()
                .position(|p| p == pattern)
                .expect("every pattern is in ALL");
            self.counts[index] += 1;
            if !may_illustrate {
                continue;
            }
            let supporting = pattern
                .supporting()
                .iter()
                .filter_map(|m| {
                    item.scores.get(*m).map(|s| MetricScore {
                        metric: m.to_string(),
                        score: *s,
                    })
                })
                .collect();
            let example = PatternExample {
                item_id: item.item_id,
                scores: trigger.scores.clone(),
                supporting,
            };
            keep_worst(
                &mut self.worst[index],
                Candidate {
                    unconfirmed: !confirmed,
                    severity: trigger.severity,
                    position,
                    example,
                },
            );
        }
        self.items_with_patterns += u64::from(!reading.named.is_empty());
    }

    fn finish(self) -> Tally {
        let Counting {
            counts,
            checkable,
            worst,
            items_checked,
            items_with_patterns,
            unsure,
            unsure_items,
            corrected_by_labels,
            ..
        } = self;
        let patterns = FailurePattern::ALL
            .into_iter()
            .zip(counts)
            .zip(worst)
            .filter(|((_, count), _)| *count > 0)
            .map(|((pattern, count), worst)| {
                let examples = worst.into_iter().map(|c| c.example).collect();
                PatternSummary::new(pattern, count, items_checked, examples)
            })
            .collect();
        let unchecked = FailurePattern::ALL
            .into_iter()
            .zip(checkable)
            .filter(|(pattern, checkable)| !checkable && pattern.expected_everywhere())
            .map(|(pattern, _)| pattern)
            .collect();
        Tally {
            patterns,
            items_with_patterns,
            items_checked,
            unchecked,
            unsure,
            unsure_items,
            corrected_by_labels,
        }
    }
}

/// Keeps the `EXAMPLES` worst candidates, sorted; a large run never holds more.
fn keep_worst(kept: &mut Vec<Candidate>, candidate: Candidate) {
    let key = |c: &Candidate| (c.unconfirmed, c.severity, c.position);
    let at = kept
        .iter()
        .position(|k| key(&candidate) < key(k))
        .unwrap_or(kept.len());
    if at < EXAMPLES {
        kept.insert(at, candidate);
        kept.truncate(EXAMPLES);
    }
}
