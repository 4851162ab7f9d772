//! The words a user's criterion is written in that the judge also reads: its scale, the
//! fields it shows the judge, what a value of the scale means and a scored example. The
//! definition itself, its checks and its file are `criteria` in the core; the judge reads
//! only these.

use serde::{Deserialize, Serialize};

use crate::item::Field;

/// How the judge scores a criterion.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum Scale {
    /// 1 pass, 0 fail.
    #[default]
    #[serde(rename = "pass_fail", alias = "pass-fail", alias = "pass/fail")]
    PassFail,
    /// A whole number from 1 (lowest) to 5 (highest).
    #[serde(rename = "1-5", alias = "1_5", alias = "1..5")]
    OneToFive,
    /// Any number from 0 to 1.
    #[serde(rename = "0-1", alias = "0_1", alias = "0..1")]
    Unit,
}

impl Scale {
    pub const ALL: [Scale; 3] = [Scale::PassFail, Scale::OneToFive, Scale::Unit];

    /// As written in files and prompts: `pass_fail`, `1-5`, `0-1`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scale::PassFail => "pass_fail",
            Scale::OneToFive => "1-5",
            Scale::Unit => "0-1",
        }
    }

    pub fn parse(s: &str) -> Option<Scale> {
        match s.trim().to_ascii_lowercase().as_str() {
            "pass_fail" | "pass-fail" | "pass/fail" | "passfail" => Some(Scale::PassFail),
            "1-5" | "1_5" | "1..5" => Some(Scale::OneToFive),
            "0-1" | "0_1" | "0..1" => Some(Scale::Unit),
            _ => None,
        }
    }

    /// In words: "pass/fail", "1–5", "0–1".
    pub fn label(self) -> &'static str {
        match self {
            Scale::PassFail => "pass/fail",
            Scale::OneToFive => "1–5",
            Scale::Unit => "0–1",
        }
    }

    /// The lowest and highest value on the scale.
    pub fn bounds(self) -> (f64, f64) {
        match self {
            Scale::PassFail | Scale::Unit => (0.0, 1.0),
            Scale::OneToFive => (1.0, 5.0),
        }
    }

    /// Whether `x` is a value a judge may give on this scale.
    pub fn holds(self, x: f64) -> bool {
        match self {
            Scale::PassFail => x == 0.0 || x == 1.0,
            Scale::OneToFive => x.fract() == 0.0 && (1.0..=5.0).contains(&x),
            Scale::Unit => (0.0..=1.0).contains(&x),
        }
    }

    /// The value on [0, 1] every metric reports: 1–5 maps 1 → 0 and 5 → 1.
    pub fn normalise(self, raw: f64) -> f64 {
        let (low, high) = self.bounds();
        ((raw - low) / (high - low)).clamp(0.0, 1.0)
    }

    /// The pass threshold when a definition gives none: pass, 4 of 5, 0.5.
    pub fn default_threshold(self) -> f64 {
        match self {
            Scale::PassFail => 1.0,
            Scale::OneToFive => 4.0,
            Scale::Unit => 0.5,
        }
    }

    /// "4", "0.7", "pass": a raw value as a person reads it.
    pub fn show(self, raw: f64) -> String {
        match self {
            Scale::PassFail if raw >= 1.0 => "pass".into(),
            Scale::PassFail => "fail".into(),
            _ => format!("{}", (raw * 100.0).round() / 100.0),
        }
    }
}

/// A field of the item a criterion shows the judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ReadField {
    Question,
    Answer,
    Contexts,
    GroundTruth,
}

impl ReadField {
    pub const ALL: [ReadField; 4] = [
        ReadField::Question,
        ReadField::Answer,
        ReadField::Contexts,
        ReadField::GroundTruth,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ReadField::Question => "question",
            ReadField::Answer => "answer",
            ReadField::Contexts => "contexts",
            ReadField::GroundTruth => "ground_truth",
        }
    }

    pub fn parse(s: &str) -> Option<ReadField> {
        let s = s.trim().to_ascii_lowercase().replace([' ', '-'], "_");
        let s = match s.as_str() {
            "context" | "passages" | "chunks" => "contexts",
            "reference" | "gt" => "ground_truth",
            other => other,
        };
        ReadField::ALL.into_iter().find(|f| f.as_str() == s)
    }

    pub fn field(self) -> Field {
        match self {
            ReadField::Question => Field::Question,
            ReadField::Answer => Field::Answer,
            ReadField::Contexts => Field::Contexts,
            ReadField::GroundTruth => Field::GroundTruth,
        }
    }
}

/// What one value of the scale means, in a sentence the judge reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct Anchor {
    /// A value on the scale (pass/fail: 1 pass, 0 fail).
    pub score: f64,
    pub means: String,
}

/// A scored example shown to the judge. Only the fields the criterion reads are used.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct Example {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub question: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub answer: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub contexts: Vec<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub ground_truth: String,
    /// A value on the scale.
    pub score: f64,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reason: String,
}
