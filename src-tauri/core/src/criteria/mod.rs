//! Your own criteria: metrics a user defines in plain words ("Is the answer polite?"),
//! judged, stored and reported like the built-in ones under the ids `criteria.<name>`.
//!
//! Owns: the definition (the question the judge answers, its scale with a sentence per
//! anchor, the fields it reads, direction, pass threshold, scored examples, or a
//! deterministic check), its validation with sentences a user can act on, the small
//! file a team keeps in its repository (`file`), the checks that need no judge
//! (`check`), the shipped examples (`examples`) and the metric specs criteria add to
//! the catalogue (`registry`). Must not: write SQL (`store::criteria` does), call a
//! judge (`run::criteria` does), or invent a score: a criterion the judge at hand cannot
//! score is skipped with the reason, never 0.

pub mod check;
pub mod examples;
pub mod file;
pub mod registry;
mod task;
mod validate;

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::catalogue::MetricResult;
use crate::item::Field;

pub use ragnosis_types::criterion::{Anchor, Example, ReadField, Scale};
pub use validate::validate;

/// The family of every criterion's metric id: `criteria.tone`.
pub use crate::catalogue::custom::FAMILY;

pub use ragnosis_judge::offline::{needs_language_model_reason, NEEDS_LANGUAGE_MODEL};

/// Which way a criterion's scale reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    #[default]
    HigherIsBetter,
    LowerIsBetter,
}

/// A criterion checked without a judge, on the answer: pass or fail.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum Check {
    /// Passes when the answer matches the pattern (or, with `must_match = false`, when
    /// it does not).
    Regex {
        pattern: String,
        #[serde(default = "yes")]
        must_match: bool,
    },
    /// Passes when the answer holds every phrase (case and spacing aside).
    RequiredPhrases { phrases: Vec<String> },
    /// Passes when the answer holds none of the phrases (case and spacing aside).
    ForbiddenPhrases { phrases: Vec<String> },
    /// Passes when the answer's word count is within the bounds.
    Length {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        min_words: Option<u32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_words: Option<u32>,
    },
    /// Passes when the answer is written in this language (ISO 639-1 code, e.g. `en`).
    Language { language: String },
}

fn yes() -> bool {
    true
}

/// A criterion as a user writes it. Any change to it makes a new version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct Definition {
    /// Lower-case letters, digits and `_`; the metric id is `criteria.<name>`.
    pub name: String,
    /// The question the judge answers about each item, in plain words.
    pub question: String,
    #[serde(default)]
    pub scale: Scale,
    /// The fields the judge sees (default: question and answer).
    #[serde(default = "default_reads")]
    pub reads: Vec<ReadField>,
    #[serde(default)]
    pub direction: Direction,
    /// A value on the scale an item must reach to pass (to stay at or under, for a
    /// lower-is-better criterion); default: pass, 4 of 5, 0.5.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub threshold: Option<f64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub anchors: Vec<Anchor>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<Example>,
    /// A check that needs no judge; then the scale is pass/fail.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub check: Option<Check>,
    /// A regular expression on the question (case aside): the criterion is scored only on
    /// items whose question matches it, and skipped on the others with the reason. None:
    /// every item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub applies_when: Option<String>,
}

/// An "applies when" pattern as it is matched: case does not matter to a user writing
/// `cost|price|fee`.
fn condition(pattern: &str) -> std::result::Result<regex::Regex, regex::Error> {
    regex::RegexBuilder::new(pattern)
        .case_insensitive(true)
        .build()
}

fn default_reads() -> Vec<ReadField> {
    vec![ReadField::Question, ReadField::Answer]
}

/// The most scored examples a criterion's prompt carries.
pub const MAX_EXAMPLES: usize = 8;

impl Definition {
    /// The definition as it is stored: the name and question trimmed, the fields read in
    /// their fixed order, anchors best first. Two definitions that differ only in how
    /// they were listed are the same version.
    pub fn canonical(mut self) -> Definition {
        self.name = self.name.trim().to_string();
        self.question = self.question.trim().to_string();
        self.reads.sort();
        self.reads.dedup();
        self.anchors.sort_by(|a, b| b.score.total_cmp(&a.score));
        for a in &mut self.anchors {
            a.means = a.means.trim().to_string();
        }
        self.applies_when = self
            .applies_when
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty());
        self
    }

    /// Whether the criterion is scored on an item with this question: always, unless
    /// `applies_when` is set and the question does not match it. A pattern that does not
    /// compile (validation refuses those) applies nowhere rather than everywhere.
    pub fn applies_to(&self, question: &str) -> bool {
        match self.applies_when.as_deref().map(str::trim) {
            None | Some("") => true,
            Some(pattern) => condition(pattern).is_ok_and(|re| re.is_match(question)),
        }
    }

    /// "only where the question matches /cost|price/", when it applies to some items only.
    pub fn scope(&self) -> Option<String> {
        match self.applies_when.as_deref().map(str::trim) {
            Some(p) if !p.is_empty() => Some(format!("only where the question matches /{p}/")),
            _ => None,
        }
    }

    /// Why the criterion was not scored on an item whose question it does not apply to.
    pub fn not_applicable_reason(&self) -> String {
        format!(
            "does not apply: the question does not match /{}/ (the criterion's \"applies when\")",
            self.applies_when.as_deref().unwrap_or("").trim()
        )
    }

    /// `criteria.<name>`.
    pub fn metric_id(&self) -> String {
        format!("{FAMILY}.{}", self.name)
    }

    /// The item fields the criterion reads, in catalogue order.
    pub fn needs(&self) -> Vec<Field> {
        let mut fields: Vec<Field> = self.reads.iter().map(|r| r.field()).collect();
        fields.sort_by_key(|f| Field::ALL.iter().position(|a| a == f));
        fields.dedup();
        fields
    }

    pub fn reads(&self, field: ReadField) -> bool {
        self.reads.contains(&field)
    }

    /// Whether a language model must judge it (no deterministic check).
    pub fn needs_judge(&self) -> bool {
        self.check.is_none()
    }

    pub fn lower_is_better(&self) -> bool {
        self.direction == Direction::LowerIsBetter
    }

    pub fn threshold(&self) -> f64 {
        self.threshold
            .unwrap_or_else(|| self.scale.default_threshold())
    }

    /// Whether a raw score on the scale passes.
    pub fn passes(&self, raw: f64) -> bool {
        if self.lower_is_better() {
            raw <= self.threshold()
        } else {
            raw >= self.threshold()
        }
    }

    /// The pass line on [0, 1], where compare and labels read pass and fail.
    pub fn pass_line(&self) -> f64 {
        self.scale.normalise(self.threshold())
    }

    /// "passes at 4 or more on 1–5", "pass/fail", "passes at 0.3 or less on 0–1".
    pub fn pass_rule(&self) -> String {
        match self.scale {
            Scale::PassFail => "pass/fail".into(),
            scale => format!(
                "passes at {} or {} on {}",
                scale.show(self.threshold()),
                if self.lower_is_better() {
                    "less"
                } else {
                    "more"
                },
                scale.label()
            ),
        }
    }

    /// The fields it reads, in words: "question, answer".
    pub fn reads_text(&self) -> String {
        self.reads
            .iter()
            .map(|r| r.as_str().replace('_', " "))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// What a metric table says about it.
    pub fn description(&self) -> String {
        let how = match &self.check {
            Some(check) => format!("checked without a judge: {}", check::describe(check)),
            None => "judged".to_string(),
        };
        let scope = self.scope().map(|s| format!("; {s}")).unwrap_or_default();
        format!(
            "Your criterion: {} ({}; {how}{scope}).",
            self.question.trim(),
            self.pass_rule()
        )
    }

    /// The metric result of a raw score the judge (or a check) gave.
    pub fn result(&self, version: u32, raw: f64, explanation: &str) -> MetricResult {
        MetricResult::ok(
            &self.metric_id(),
            self.scale.normalise(raw),
            explanation.trim(),
            json!({
                "criterion": self.name,
                "version": version,
                "scale": self.scale.as_str(),
                "raw_score": raw,
                "threshold": self.threshold(),
                "passed": self.passes(raw),
            }),
        )
    }
}

/// A definition with the version of it that scored (or will score) a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Versioned {
    pub version: u32,
    pub definition: Definition,
}

impl Versioned {
    /// "tone v2: “Is the answer calm and courteous?” (1–5, passes at 4 or more; reads
    /// question, answer)": the methodology line of a report.
    pub fn methodology_line(&self) -> String {
        let d = &self.definition;
        let how = match &d.check {
            Some(check) => format!("checked without a judge: {}", check::describe(check)),
            None => format!("judged; reads {}", d.reads_text()),
        };
        format!(
            "{} version {}: “{}” ({}; {how})",
            d.name,
            self.version,
            d.question.trim(),
            d.pass_rule()
        )
    }
}

#[cfg(test)]
mod tests;
