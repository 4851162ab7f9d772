//! The rule-based advisor: answers a user's common questions about one run from that
//! run's own facts — its report model (`view::ReportView`: the diagnosis, its actions, the
//! trust statement) and, for one item, that item's reading (the patterns its scores name
//! and the evidence behind each). No language model is asked, and it says so.
//!
//! It answers: why an item is flagged; what to fix first and why; which items show a
//! pattern; how far to trust the figures. Every item it cites comes from the facts it was
//! given, so an answer can never point at an item the run does not have. Other questions
//! get the list of what it can answer.
//!
//! Owns: reading a question's intent and wording the answer. Pure: facts in, an answer
//! out; the use case (`api::advisor`) gathers the facts.

use serde::Serialize;

use crate::analysis::compare::{Comparison, Flag};
use crate::analysis::diagnosis::patterns::FailurePattern;
use crate::analysis::diagnosis::reading::{ItemReading, Witness};
use crate::analysis::experiment::ExperimentCheck;
use crate::text::join_words;
use crate::view::evidence::excerpt;
use crate::view::ReportView;

/// What the question asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Intent {
    /// Why one item is flagged (or not).
    WhyFlagged,
    /// What to fix first, and why.
    FixFirst,
    /// Which items show a failure pattern.
    ItemsWithPattern,
    /// How far to trust the run's figures.
    Trust,
    /// What changed between two runs: not answered from one run.
    Compare,
    /// What the experiments tried on the test set did ("did my change fix it?").
    Experiments,
    /// None of the above.
    Unknown,
}

/// One item as the advisor reads it.
#[derive(Debug, Clone)]
pub struct ItemFacts {
    pub item_id: i64,
    /// How a user names it: its id in their file, else "item N" by position.
    pub name: String,
    pub question: String,
    pub reading: ItemReading,
}

/// Everything an answer may draw on.
pub struct Facts<'a> {
    pub report: &'a ReportView,
    /// The item asked about, when there is one.
    pub item: Option<ItemFacts>,
    /// The first items that show the pattern asked about, in run order (id, name).
    pub pattern_items: Vec<(i64, String)>,
    /// This run (B) compared with an earlier one (A), when the user named one.
    pub comparison: Option<&'a Comparison>,
    /// The experiments tried on any version of the run's test set, oldest first.
    pub experiments: &'a [ExperimentCheck],
}

/// An answer: its lines, the items it cites, and whether a model took part (never here).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Answer {
    pub intent: Intent,
    pub lines: Vec<String>,
    /// Run item ids the answer names, each one from the facts.
    pub items: Vec<i64>,
    pub rule_based: bool,
    /// How the answer was made, for the reader.
    pub note: String,
    /// The model that wrote it (its judge configuration), when one did.
    pub model: Option<String>,
    /// Tokens in and out and what the model's call cost; 0 for a rule-based answer or a
    /// cached one.
    pub tokens: u64,
    pub cost_usd: f64,
}

const NOTE: &str = "Rule-based answer from this run's stored facts; no language model was asked.";

/// What `question` asks (and the pattern it names, if any), given whether an item was
/// named with it and whether another run was named to compare with.
pub fn intent(
    question: &str,
    item_named: bool,
    comparing: bool,
) -> (Intent, Option<FailurePattern>) {
    let lower = question.to_lowercase();
    let pattern = pattern_named(&lower);
    // "over-confidence" names a pattern; it does not ask about confidence in the figures.
    let q = ["over-confiden", "overconfiden"]
        .iter()
        .fold(lower.clone(), |q, w| q.replace(w, " "));
    let has = |words: &[&str]| words.iter().any(|w| q.contains(w));
    let about_change = has(&["compare", "changed", "previous run", "last run", "regress"])
        || (comparing && has(&["worse", "better", "improv", "differ", "change"]));
    let about_experiment = has(&[
        "experiment",
        "did my change",
        "did the change",
        "did my fix",
        "did the fix",
        "did it work",
        "did that work",
        "fixed it",
        "what i tried",
    ]);
    let intent = if about_experiment {
        Intent::Experiments
    } else if about_change {
        Intent::Compare
    } else if item_named && !has(&["which items", "what items", "list"]) {
        Intent::WhyFlagged
    } else if has(&[
        "trust", "reliab", "confiden", "believe", "how sure", "accurate",
    ]) {
        Intent::Trust
    } else if pattern.is_some() {
        Intent::ItemsWithPattern
    } else if has(&[
        "first",
        "priorit",
        "most important",
        "start",
        "fix",
        "what should",
        "improve",
    ]) {
        Intent::FixFirst
    } else {
        Intent::Unknown
    };
    (intent, pattern)
}

/// The failure pattern a question names, by name ("hallucination", "retrieval miss") or
/// letter ("pattern C").
pub fn pattern_named(lower: &str) -> Option<FailurePattern> {
    const OTHER_NAMES: &[(&str, FailurePattern)] = &[
        ("hallucinat", FailurePattern::Hallucination),
        ("overconfiden", FailurePattern::OverConfidence),
        ("over-confiden", FailurePattern::OverConfidence),
        ("ignored context", FailurePattern::ContextIgnored),
        ("ignore the context", FailurePattern::ContextIgnored),
        ("multi-hop", FailurePattern::MultiHopFailure),
        ("multihop", FailurePattern::MultiHopFailure),
        ("distort", FailurePattern::SubtleDistortion),
        ("contradict", FailurePattern::SubtleDistortion),
        ("refus", FailurePattern::WrongRefusal),
        ("citation", FailurePattern::CitationFailure),
        ("retrieval miss", FailurePattern::RetrievalMiss),
        ("incomplete", FailurePattern::Incomplete),
    ];
    FailurePattern::ALL
        .into_iter()
        .find(|p| lower.contains(p.name()))
        .or_else(|| {
            OTHER_NAMES
                .iter()
                .find(|(word, _)| lower.contains(word))
                .map(|(_, p)| *p)
        })
        .or_else(|| {
            let at = lower.find("pattern ")? + "pattern ".len();
            FailurePattern::from_letter(lower[at..].chars().next()?)
        })
}

/// The answer to `question` from `facts`.
pub fn answer(question: &str, facts: &Facts) -> Answer {
    let (intent, pattern) = intent(question, facts.item.is_some(), facts.comparison.is_some());
    let mut out = Answer {
        intent,
        lines: Vec::new(),
        items: Vec::new(),
        rule_based: true,
        note: NOTE.into(),
        model: None,
        tokens: 0,
        cost_usd: 0.0,
    };
    match intent {
        Intent::WhyFlagged => match &facts.item {
            Some(item) => why_flagged(item, facts.report, &mut out),
            None => out.lines.push(capabilities()),
        },
        Intent::FixFirst => fix_first(facts.report, &mut out),
        Intent::ItemsWithPattern => match pattern {
            Some(p) => items_with(p, facts, &mut out),
            None => out.lines.push(capabilities()),
        },
        Intent::Trust => {
            out.lines.push("How far to trust this run:".into());
            out.lines.extend(
                facts
                    .report
                    .trust
                    .sentences
                    .iter()
                    .map(|s| format!("- {s}")),
            );
        }
        Intent::Compare => match facts.comparison {
            Some(c) => compared(c, &mut out),
            None => out.lines.push(
                "Name the run to compare with (--against RUN; `ragnosis runs` lists them), or \
                 open both runs in the Runs screen."
                    .into(),
            ),
        },
        Intent::Experiments => experiments(facts, &mut out),
        Intent::Unknown => out.lines.push(capabilities()),
    }
    out
}

/// What each experiment of the test set did, citing this run's items only: the targets
/// of an experiment tried here, or their matches when this run is the one it was
/// checked on.
fn experiments(facts: &Facts, out: &mut Answer) {
    let run_id = facts.report.run.run.id;
    if facts.experiments.is_empty() {
        out.lines.push(
            "No experiment was tried on this test set yet. Pick an action (\"Try this\" in the \
             window, or `ragnosis try RUN PATTERN --change \"…\"`), make the change, import the \
             new answers as the next version and evaluate them: I then say, item by item, what \
             the change did."
                .into(),
        );
        return;
    }
    for check in facts.experiments {
        out.lines.push(format!("- {}", check.sentence));
        let here_before = check.experiment.run_id == run_id;
        let here_after = check.checked_on.as_ref().is_some_and(|r| r.id == run_id);
        for target in &check.targets {
            let id = if here_after {
                target.item_id_after
            } else if here_before {
                target.item_id_before
            } else {
                None
            };
            if let Some(id) = id {
                if !out.items.contains(&id) {
                    out.items.push(id);
                }
            }
            out.lines.push(format!(
                "  {}: {} ({} → {})",
                target.label,
                target.outcome.label(),
                target.before,
                target.after
            ));
        }
        for change in &check.worse_elsewhere {
            if here_after && !out.items.contains(&change.item_id_b) {
                out.items.push(change.item_id_b);
            }
            out.lines.push(format!(
                "  {}: got worse, not targeted ({} → {})",
                change.label, change.before, change.after
            ));
        }
    }
}

fn capabilities() -> String {
    "I answer from this run's facts, without a language model: why an item is flagged \
     (name it, or pass --item ID), what to fix first and why, which items show a pattern \
     (\"which items show hallucination?\"), how far to trust the figures, and what your \
     experiments did (\"did my change fix it?\"). Other \
     questions need a language model, which this advisor does not use yet."
        .into()
}

fn why_flagged(item: &ItemFacts, report: &ReportView, out: &mut Answer) {
    out.items.push(item.item_id);
    let reading = &item.reading;
    let witness = match reading.witness {
        Some(Witness::Agrees) => " The reference answer agrees with it.",
        Some(Witness::Contradicts) => " The reference answer contradicts it.",
        None => "",
    };
    if reading.named.is_empty() {
        match reading.unsure {
            Some(reason) => out.lines.push(format!(
                "{} needs a look: {reason}. No pattern is named for it, so check it before acting on it.{witness}",
                item.name
            )),
            None => out.lines.push(format!(
                "{} shows no failure pattern.{witness}",
                item.name
            )),
        }
        return;
    }
    let letters: Vec<String> = reading.named.iter().map(|(p, _)| p.label()).collect();
    out.lines.push(format!(
        "{} (\"{}\") is flagged {}.{witness}",
        item.name,
        excerpt(&item.question, 120),
        join_words(&letters)
    ));
    for (pattern, trigger) in &reading.named {
        let read: Vec<String> = trigger
            .scores
            .iter()
            .map(|s| format!("{} {:.2}", s.metric, s.score))
            .collect();
        out.lines.push(format!(
            "- {}: {} Read from: {}.",
            pattern.label(),
            pattern.description(),
            read.join(", ")
        ));
    }
    let first = reading.named[0].0;
    if let Some(action) = report
        .run
        .summary
        .diagnosis
        .as_ref()
        .and_then(|d| d.actions.iter().find(|a| a.pattern == Some(first)))
    {
        out.lines.push(format!(
            "What to do about {}: {} — {}",
            first.label(),
            action.title,
            action.how_to_fix
        ));
    }
}

fn fix_first(report: &ReportView, out: &mut Answer) {
    let Some(diagnosis) = &report.run.summary.diagnosis else {
        out.lines.push(
            "This run has no diagnosis: none of the metrics the failure patterns read were scored."
                .into(),
        );
        return;
    };
    let Some(action) = diagnosis.actions.iter().find(|a| a.pattern.is_some()) else {
        out.lines.push(format!(
            "Nothing stands out: no systematic failure pattern in {} checked items.",
            diagnosis.items_checked
        ));
        return;
    };
    let pattern = action.pattern.expect("found with a pattern");
    out.lines.push(format!(
        "Fix first: {} ({} stage).",
        action.title,
        pattern.stage().label()
    ));
    out.lines
        .push(format!("What's wrong: {}", action.whats_wrong));
    out.lines.push(format!("Why first: {}", action.why));
    out.lines.push(format!("How to fix: {}", action.how_to_fix));
    if let Some(example) = &action.example {
        out.items.push(example.item_id);
        out.lines.push(format!(
            "Example: item {} (\"{}\").",
            example.item_id,
            excerpt(&example.question, 120)
        ));
    }
    let later: Vec<String> = diagnosis
        .actions
        .iter()
        .filter(|a| a.pattern.is_some() && a.pattern != Some(pattern))
        .map(|a| a.title.clone())
        .collect();
    if !later.is_empty() {
        out.lines.push(format!("Then: {}.", later.join("; ")));
    }
}

fn items_with(pattern: FailurePattern, facts: &Facts, out: &mut Answer) {
    let Some(diagnosis) = &facts.report.run.summary.diagnosis else {
        out.lines
            .push("This run has no diagnosis, so no item is read for patterns.".into());
        return;
    };
    if diagnosis.unchecked.contains(&pattern) {
        out.lines.push(format!(
            "{} was not checked in this run: the metrics it reads were not scored.",
            pattern.label()
        ));
        return;
    }
    let Some(summary) = diagnosis.patterns.iter().find(|p| p.pattern == pattern) else {
        out.lines.push(format!(
            "No item of the {} checked shows {}.",
            diagnosis.items_checked,
            pattern.label()
        ));
        return;
    };
    out.lines.push(format!(
        "{} of {} checked items ({:.0}%) show {}: {}",
        summary.count,
        diagnosis.items_checked,
        summary.share * 100.0,
        pattern.label(),
        pattern.description()
    ));
    if !facts.pattern_items.is_empty() {
        let names: Vec<String> = facts
            .pattern_items
            .iter()
            .map(|(id, name)| format!("{name} (item {id})"))
            .collect();
        out.items
            .extend(facts.pattern_items.iter().map(|(id, _)| *id));
        let more = summary.count as usize > facts.pattern_items.len();
        out.lines.push(format!(
            "{}: {}{}.",
            if more { "The first" } else { "They are" },
            names.join(", "),
            if more { ", …" } else { "" }
        ));
    }
}

/// How many changed items an answer names per group.
const CHANGES_LISTED: usize = 5;

fn compared(c: &Comparison, out: &mut Answer) {
    let changes = &c.items;
    out.lines.push(format!(
        "{} against {}: of {} matched items, {} got worse, {} improved and {} show another \
         problem (another output with the same standing: {}; the same output: {}).",
        c.b.title,
        c.a.title,
        c.matched,
        changes.worse.len(),
        changes.improved.len(),
        changes.other_problem.len(),
        changes.same_standing,
        changes.same_output
    ));
    for (what, list) in [
        ("Worse", &changes.worse),
        ("Improved", &changes.improved),
        ("Another problem", &changes.other_problem),
    ] {
        if list.is_empty() {
            continue;
        }
        let named: Vec<String> = list
            .iter()
            .take(CHANGES_LISTED)
            .map(|i| format!("{} ({} → {})", i.label, i.before, i.after))
            .collect();
        out.items
            .extend(list.iter().take(CHANGES_LISTED).map(|i| i.item_id_b));
        let more = if list.len() > CHANGES_LISTED {
            ", …"
        } else {
            ""
        };
        out.lines
            .push(format!("{what}: {}{more}.", named.join("; ")));
    }
    let regressed: Vec<String> = c
        .metrics
        .iter()
        .filter(|m| m.flag == Flag::Red)
        .map(|m| match m.delta {
            Some(d) => format!("{} ({d:+.2})", m.metric),
            None => m.metric.clone(),
        })
        .collect();
    if !regressed.is_empty() {
        out.lines.push(format!(
            "Metrics that regressed beyond the threshold: {}.",
            regressed.join(", ")
        ));
    }
    out.lines.extend(c.judged_differently.iter().cloned());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_is_read_for_what_it_asks() {
        assert_eq!(
            intent("What should I fix first?", false, false).0,
            Intent::FixFirst
        );
        assert_eq!(
            intent("why is this flagged?", true, false).0,
            Intent::WhyFlagged
        );
        assert_eq!(
            intent("Which items show hallucination?", false, false),
            (
                Intent::ItemsWithPattern,
                Some(FailurePattern::Hallucination)
            )
        );
        assert_eq!(
            intent("list the items with pattern d", false, false),
            (
                Intent::ItemsWithPattern,
                Some(FailurePattern::OverConfidence)
            )
        );
        assert_eq!(
            intent("Can I trust these scores?", false, false).0,
            Intent::Trust
        );
        assert_eq!(
            intent("What changed since the last run?", false, false).0,
            Intent::Compare
        );
        assert_eq!(
            intent("Which items show over-confidence?", false, false),
            (
                Intent::ItemsWithPattern,
                Some(FailurePattern::OverConfidence)
            ),
            "a pattern's name is no question about trust"
        );
        assert_eq!(intent("Tell me a joke", false, false).0, Intent::Unknown);
        assert_eq!(
            intent("What got worse?", false, true).0,
            Intent::Compare,
            "with a run to compare with, worse and better are about the change"
        );
    }
}
