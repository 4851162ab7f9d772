//! A claim prepared for checking against passages: its sentence, anchors (names,
//! numbers, dates), content words, and what its figures are (stated with a unit no
//! passage gives, or worked out from the passages' own numbers).
//!
//! Owns: `Claim`. Must not: decide support (`support`) or conflicts (`conflicts`).

use std::collections::HashSet;

use crate::offline::words::anchors::{self, Anchor};
use crate::offline::words::evidence::{Evidence, Sentence};
use crate::offline::words::quantities;
use crate::offline::words::units::unmeasured_numbers;
use crate::offline::words::vocabulary;
use ragnosis_types::text;

/// A claim prepared for checking.
#[derive(Debug, Clone)]
pub struct Claim {
    pub text: String,
    /// The sentence whose words are checked (the question, for a bare yes/no answer).
    pub(in crate::offline) sentence: Sentence,
    pub(in crate::offline) anchors: Vec<Anchor>,
    /// Content words to find: (normalised, as written).
    pub(in crate::offline) terms: Vec<(String, String)>,
    /// Question words a bare answer must be found near ("Au" near "symbol", "gold").
    pub(in crate::offline) context: Vec<String>,
    /// Question anchors a bare answer must be found near, when the question has any.
    pub(in crate::offline) context_anchors: Vec<Anchor>,
    /// For a bare "No": the claim denies the question's statement.
    pub(in crate::offline) denies: bool,
    /// The answer opened this claim with an outright "Yes", which splitting removed.
    pub(in crate::offline) affirms: bool,
    /// Speaks about the speaker ("I loved it", "we think"): no document can confirm it.
    pub personal: bool,
    pub(in crate::offline) squad: String,
    /// Numbers the claim gives with a unit that no sentence of the evidence gives with
    /// it. Read from the whole evidence, so worked out once here rather than for each
    /// passage the claim is assessed against.
    pub(in crate::offline) unmeasured: Vec<String>,
    /// Numbers of the claim that no passage states but the question gives or one step
    /// of arithmetic makes (`Evidence::works_out`): a total is not a made-up figure.
    pub(in crate::offline) worked_out: HashSet<String>,
}

impl Claim {
    /// A self-contained claim.
    pub fn new(text: &str, evidence: &Evidence) -> Claim {
        let sentence = Sentence::new(text);
        let anchors = anchors::extract(&sentence, evidence);
        let mut seen = HashSet::new();
        let terms = sentence
            .tokens
            .iter()
            .filter(|t| t.content && seen.insert(t.norm.clone()))
            .map(|t| (t.norm.clone(), t.surface.clone()))
            .collect();
        let squad = text::normalize_squad(text);
        let personal = sentence
            .tokens
            .iter()
            .any(|t| vocabulary::is_first_person(&t.lower));
        // The claim's numbers the passages state: the operands of its own arithmetic.
        let stated: Vec<f64> = quantities::numbers(&sentence.tokens)
            .filter(|v| evidence.contains(&quantities::format_number(*v)))
            .collect();
        let worked_out: HashSet<String> = sentence
            .tokens
            .iter()
            .filter(|t| t.norm.chars().any(|c| c.is_ascii_digit()))
            .filter(|t| !evidence.contains(&t.norm) && evidence.works_out(&t.norm, &stated))
            .map(|t| t.norm.clone())
            .collect();
        let mut unmeasured = unmeasured_numbers(&sentence, evidence);
        unmeasured.retain(|n| !worked_out.contains(n));
        Claim {
            unmeasured,
            worked_out,
            text: text.to_string(),
            sentence,
            anchors,
            terms,
            context: Vec::new(),
            context_anchors: Vec::new(),
            denies: false,
            affirms: crate::offline::claims::split::opens_with_yes(text),
            personal,
            squad,
        }
    }

    /// A verbless short answer ("Au"), checked together with its question's words.
    pub fn fragment(text: &str, question: &str, evidence: &Evidence) -> Claim {
        let mut claim = Claim::new(text, evidence);
        let q = Sentence::new(question);
        claim.context = q.content_norms().into_iter().map(str::to_string).collect();
        claim.context_anchors = anchors::extract(&q, evidence);
        claim
    }

    /// A bare "Yes" (`affirms`) or "No": the claim is the question's statement, or its
    /// denial.
    pub fn yes_no(text: &str, question: &str, affirms: bool, evidence: &Evidence) -> Claim {
        let mut claim = Claim::new(question.trim_end_matches('?'), evidence);
        claim.text = text.to_string();
        claim.personal = false;
        claim.denies = !affirms;
        claim.squad = String::new();
        claim
    }

    /// Nothing in it can be checked (no content word, name or number).
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty() && self.anchors.is_empty()
    }

    /// Normalised content words and anchor words: what links it to other statements.
    pub fn words(&self) -> HashSet<&str> {
        self.terms
            .iter()
            .map(|(n, _)| n.as_str())
            .chain(
                self.anchors
                    .iter()
                    .flat_map(|a| a.norms.iter().map(String::as_str)),
            )
            .collect()
    }

    /// Opens by referring back ("It", "This", "Therefore").
    pub fn refers_back(&self) -> bool {
        self.sentence
            .tokens
            .first()
            .is_some_and(|t| vocabulary::is_back_reference(&t.lower))
    }

    pub(in crate::offline) fn asserts_negation(&self) -> bool {
        self.denies || self.sentence.has_denial()
    }
}
