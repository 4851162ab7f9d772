//! The labelled sample the judge check runs on, embedded in the binary so every install
//! checks its judge against the same items. Built by `scripts/build-judge-check.py`
//! from the human-labelled sets in `shared/data`; their licences are in
//! `assets/judge-check/licenses/`.

use serde::Deserialize;

use crate::item::{Context, Item};

const SAMPLE: &str = include_str!("../../../../assets/judge-check/sample.jsonl");

/// One labelled case; `task` in the file picks the variant.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(tag = "task", rename_all = "snake_case")]
pub enum Case {
    /// BEGIN: is a dialogue response fully attributable to its knowledge paragraph?
    Attribution(ClaimCase),
    /// WiCE: is a Wikipedia claim supported by the page it cites?
    ClaimSupport(ClaimCase),
    /// ExpertQA: is an expert-labelled claim completely supported by its passages?
    ExpertClaims(ClaimCase),
    /// SQuAD 2.0: can the question be answered from the paragraph?
    Answerability {
        question: String,
        passage: String,
        answerable: bool,
    },
    /// STS-B: how similar are two sentences (0–5, mean of human ratings)?
    Similarity { a: String, b: String, score: f64 },
    /// A RAG item built with a known failure shape.
    Diagnosis(DesignedCase),
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ClaimCase {
    pub text: String,
    pub passages: Vec<String>,
    pub supported: bool,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct DesignedCase {
    pub shape: String,
    /// Pattern letters that name the failure (any one suffices); `!X` = X must not fire;
    /// empty = nothing may fire (a good item).
    pub expect: Vec<String>,
    pub note: String,
    pub item: DesignedItem,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct DesignedItem {
    pub question: String,
    pub answer: String,
    pub contexts: Vec<String>,
}

impl DesignedItem {
    pub fn to_item(&self) -> Item {
        Item {
            question: self.question.clone(),
            answer: Some(self.answer.clone()),
            contexts: self
                .contexts
                .iter()
                .map(|t| Context {
                    id: None,
                    text: t.clone(),
                })
                .collect(),
            ..Item::default()
        }
    }
}

/// The embedded sample, in file order.
pub fn cases() -> Vec<Case> {
    SAMPLE
        .lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        // The file is built and checked in with the code; a bad line is a build defect,
        // caught by this module's test, never a user's input.
        .map(|(i, l)| {
            serde_json::from_str(l)
                .unwrap_or_else(|e| panic!("judge-check sample line {}: {e}", i + 1))
        })
        .collect()
}

/// A short fingerprint of the sample, stored with every check so figures from different
/// samples are never compared as if they were one.
pub fn version() -> String {
    blake3::hash(SAMPLE.as_bytes()).to_hex()[..12].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn embedded_sample_parses_and_balances_its_binary_tasks() {
        let cases = cases();
        let count = |f: &dyn Fn(&Case) -> bool| cases.iter().filter(|c| f(c)).count();
        assert_eq!(
            count(&|c| matches!(c, Case::Attribution(x) if x.supported)),
            30
        );
        assert_eq!(
            count(&|c| matches!(c, Case::Attribution(x) if !x.supported)),
            30
        );
        assert_eq!(count(&|c| matches!(c, Case::ClaimSupport(_))), 60);
        assert_eq!(count(&|c| matches!(c, Case::ExpertClaims(_))), 60);
        assert_eq!(
            count(&|c| matches!(
                c,
                Case::Answerability {
                    answerable: true,
                    ..
                }
            )),
            30
        );
        assert_eq!(count(&|c| matches!(c, Case::Similarity { .. })), 60);
        let shapes: std::collections::BTreeSet<String> = cases
            .iter()
            .filter_map(|c| match c {
                Case::Diagnosis(d) => Some(d.shape.clone()),
                _ => None,
            })
            .collect();
        assert!(shapes.len() >= 9 && shapes.contains("good"), "{shapes:?}");
        assert_eq!(version().len(), 12);
    }
}
