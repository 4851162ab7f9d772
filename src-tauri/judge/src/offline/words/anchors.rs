//! High-risk anchors: the parts of a claim that must agree exactly with the evidence
//! (RAGVUE's strictness rule): names of people, places and organisations, numbers
//! (percentages, amounts), years and months. A paraphrase may change every other word;
//! it may not change these.
//!
//! Owns: finding anchors in a sentence and finding a same-kind anchor the evidence
//! offers instead (the substitution behind "London" for "Paris", 1969 for 1968).
//! Must not: weigh overlap or decide labels.

use std::collections::HashSet;

use crate::offline::words::evidence::{Evidence, Sentence};
use crate::offline::words::lexicon::{self, Token};
use crate::offline::words::vocabulary;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnchorKind {
    /// A capitalised name: person, place, organisation, title.
    Entity,
    /// A number, amount or percentage.
    Number,
    /// A year or decade.
    Year,
    /// A month (the part of a date that is a word).
    Month,
}

impl AnchorKind {
    /// Whether two kinds can stand in for each other in a substitution.
    fn comparable(self, other: AnchorKind) -> bool {
        self == other
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Anchor {
    /// As written in the sentence ("Media Play News", "92", "October").
    pub text: String,
    /// Normalised words that must all occur in the evidence.
    pub norms: Vec<String>,
    pub kind: AnchorKind,
    /// A one-word name that opens its sentence: as likely a common noun written with a
    /// capital ("Tickets cost 60 euros") as a name.
    pub opens_sentence: bool,
}

/// Words that may sit inside a multi-word name ("Bank of America", "Ra's al Ghul").
fn is_name_connector(lower: &str) -> bool {
    matches!(
        lower,
        "of" | "the" | "de" | "da" | "del" | "von" | "van" | "al" | "la" | "le" | "du" | "bin"
    )
}

/// Whether a capitalised token names something. Mid-sentence capitals do, unless the
/// word is a stop word. A sentence-initial capital is ambiguous, so it counts only when
/// the evidence also capitalises the word mid-sentence, or never writes it in lower
/// case and it is not a common sentence opener ("Several", "However", "Clearly").
///
/// A capital alone does not make a name: title case ("our Return Policy") capitalises
/// common words. A mid-sentence capital whose word the evidence writes only in lower
/// case is such a word, not a name the evidence must repeat exactly.
pub(in crate::offline) fn is_name_token(t: &Token, evidence: &Evidence) -> bool {
    if !t.capitalised || t.negator || !t.content || vocabulary::month(&t.lower).is_some() {
        return false;
    }
    if !t.surface.chars().next().is_some_and(char::is_alphabetic) {
        return false;
    }
    if !t.initial {
        return evidence.capitalised_somewhere(&t.lower) || !evidence.lowercase_somewhere(&t.lower);
    }
    if vocabulary::is_common_opener(&t.lower) {
        return false;
    }
    evidence.capitalised_somewhere(&t.lower)
        || (!evidence.is_empty() && !evidence.lowercase_somewhere(&t.lower))
}

fn is_year(lower: &str) -> bool {
    let digits = lower.trim_end_matches('s');
    digits.len() == 4
        && digits.chars().all(|c| c.is_ascii_digit())
        && (1000..=2100).contains(&digits.parse::<u32>().unwrap_or(0))
}

/// A number that is part of a hyphenated word ("12-year-old", "3-day", "COVID-19")
/// describes or names something; it is not a quantity the evidence must state on its
/// own ("a boy of twelve" supports "a 12-year-old boy" in other words). Its words still
/// count towards coverage.
fn in_compound(tokens: &[Token], i: usize) -> bool {
    let t = &tokens[i];
    let letters = |t: &Token| t.lower.chars().any(char::is_alphabetic);
    (t.hyphen_after && tokens.get(i + 1).is_some_and(letters))
        || (t.hyphen_before && i > 0 && letters(&tokens[i - 1]))
}

fn number_kind(t: &Token) -> Option<AnchorKind> {
    // A duration or time in words ("an hour", "half past three") is a number in its
    // comparison form ("60", "15:30"); the words it consumed are not.
    if t.quantity {
        let numeric = t.norm.chars().any(|c| c.is_ascii_digit());
        return (numeric && t.content).then_some(AnchorKind::Number);
    }
    if t.lower.chars().any(|c| c.is_ascii_digit()) {
        return Some(if is_year(&t.lower) {
            AnchorKind::Year
        } else {
            AnchorKind::Number
        });
    }
    // Spelled-out small numbers ("three albums"); "one" is too often a pronoun.
    let spelled = t.norm.chars().all(|c| c.is_ascii_digit())
        && !t.norm.is_empty()
        && t.lower != "one"
        && t.lower != "zero";
    spelled.then_some(AnchorKind::Number)
}

/// The anchors of one sentence. `evidence` only helps decide whether a sentence-initial
/// capital is a name.
pub fn extract(sentence: &Sentence, evidence: &Evidence) -> Vec<Anchor> {
    let tokens = &sentence.tokens;
    let mut out: Vec<Anchor> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        if !t.quantity && in_compound(tokens, i) && number_kind(t).is_some() {
            i += 1;
            continue;
        }
        if let Some(kind) = number_kind(t) {
            out.push(Anchor {
                text: t.surface.clone(),
                norms: vec![t.norm.clone()],
                kind,
                opens_sentence: false,
            });
            i += 1;
            continue;
        }
        if let Some(m) = vocabulary::month(&t.lower) {
            // "may" is a month only when capitalised.
            if t.lower != "may" || t.capitalised {
                out.push(Anchor {
                    text: t.surface.clone(),
                    norms: vec![lexicon::normalise(m)],
                    kind: AnchorKind::Month,
                    opens_sentence: false,
                });
            }
            i += 1;
            continue;
        }
        // A sentence-initial word the evidence never capitalises ("Use the Northwind Ride
        // app") is more likely an imperative than a name: when a connector follows it
        // is skipped, so the real name after it is checked on its own.
        let weak_opener = t.initial
            && !evidence.capitalised_somewhere(&t.lower)
            && tokens
                .get(i + 1)
                .is_some_and(|n| is_name_connector(&n.lower));
        if is_name_token(t, evidence) && !weak_opener {
            let end = name_end(tokens, i, evidence);
            let span = &tokens[i..end];
            let norms: Vec<String> = span
                .iter()
                .filter(|t| !is_name_connector(&t.lower))
                .map(|t| t.norm.clone())
                .collect();
            let text = span
                .iter()
                .map(|t| t.surface.as_str())
                .collect::<Vec<_>>()
                .join(" ");
            out.push(Anchor {
                text,
                norms,
                kind: AnchorKind::Entity,
                opens_sentence: t.initial && end == i + 1,
            });
            i = end;
            continue;
        }
        i += 1;
    }
    out
}

/// Where the name that starts at token `i` ends: capitalised name words, and connectors
/// ("of", "de") between two of them, up to the first punctuation.
fn name_end(tokens: &[Token], i: usize, evidence: &Evidence) -> usize {
    let mut end = i + 1;
    loop {
        if end < tokens.len() && tokens[end].after_punctuation {
            break;
        } else if end < tokens.len()
            && tokens[end].capitalised
            && is_name_token(&tokens[end], evidence)
        {
            end += 1;
        } else if end + 1 < tokens.len()
            && !tokens[end + 1].after_punctuation
            && is_name_connector(&tokens[end].lower)
            && tokens[end + 1].capitalised
            && is_name_token(&tokens[end + 1], evidence)
        {
            end += 2;
        } else {
            break;
        }
    }
    end
}

/// An anchor of the same kind that `sentence` states and the claim does not: what the
/// evidence says instead of the claim's unconfirmed `anchor`. Names compare only with
/// names that share no word with the claim's anchors, so "Paris, France" offers
/// "Paris" against "London" but "Eiffel Tower" is not offered against "Tower".
pub fn substitute(
    anchor: &Anchor,
    claim: &[Anchor],
    sentence: &Sentence,
    evidence: &Evidence,
) -> Option<Anchor> {
    let claim_norms: HashSet<&str> = claim
        .iter()
        .flat_map(|a| a.norms.iter().map(String::as_str))
        .collect();
    // Two sentence-opening capitals ("Tickets" against "Students") are as likely common
    // nouns as names: one standing for the other says nothing.
    extract(sentence, evidence).into_iter().find(|other| {
        !(anchor.opens_sentence && other.opens_sentence)
            && other.kind.comparable(anchor.kind)
            && other
                .norms
                .iter()
                .all(|n| !claim_norms.contains(n.as_str()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchors(sentence: &str, passages: &[&str]) -> Vec<(String, AnchorKind)> {
        let e = Evidence::new(passages);
        extract(&Sentence::new(sentence), &e)
            .into_iter()
            .map(|a| (a.text, a.kind))
            .collect()
    }

    #[test]
    fn names_numbers_years_and_months_are_anchors() {
        let got = anchors("The Social Network was released by Columbia Pictures on October 1, 2010 with 96% approval.", &[]);
        assert!(
            got.contains(&("Social Network".into(), AnchorKind::Entity)),
            "{got:?}"
        );
        assert!(
            got.contains(&("Columbia Pictures".into(), AnchorKind::Entity)),
            "{got:?}"
        );
        assert!(got.contains(&("October".into(), AnchorKind::Month)));
        assert!(got.contains(&("2010".into(), AnchorKind::Year)));
        assert!(got.contains(&("96".into(), AnchorKind::Number)));
        assert!(got.contains(&("1".into(), AnchorKind::Number)));
    }

    #[test]
    fn a_number_inside_a_hyphenated_word_is_no_anchor() {
        let got = anchors(
            "The 12-year-old boy rode a 3-day tour in 2019.",
            &["A boy of twelve rode the tour."],
        );
        assert_eq!(
            got,
            vec![("2019".to_string(), AnchorKind::Year)],
            "only the year stands alone"
        );
        let got = anchors("It took 12 days.", &[]);
        assert_eq!(
            got,
            vec![("12".to_string(), AnchorKind::Number)],
            "a bare number still is one"
        );
    }

    #[test]
    fn title_case_common_words_are_not_names() {
        let evidence = ["Read the return policy before you send a bike back."];
        let got = anchors("Our Return Policy gives you 30 days.", &evidence);
        assert!(got.iter().all(|(_, k)| *k != AnchorKind::Entity), "{got:?}");
        let got = anchors(
            "Northwind ships from Portland.",
            &["Orders ship from Portland, Oregon."],
        );
        assert!(
            got.contains(&("Portland".into(), AnchorKind::Entity)),
            "{got:?}"
        );
        let got = anchors("It ships from Portland.", &["It ships from the port."]);
        assert!(
            got.contains(&("Portland".into(), AnchorKind::Entity)),
            "a name the evidence lacks stays one: {got:?}"
        );
    }

    #[test]
    fn sentence_initial_common_words_are_not_names() {
        let got = anchors("Several rivers flow here.", &["Rivers flow in valleys."]);
        assert!(
            got.is_empty(),
            "'Several' opens a sentence and names nothing: {got:?}"
        );
        let got = anchors(
            "Helium is a noble gas.",
            &["Helium is a noble gas with atomic number 2."],
        );
        assert_eq!(
            got,
            vec![("Helium".to_string(), AnchorKind::Entity)],
            "never written in lower case, so a name"
        );
    }

    #[test]
    fn an_imperative_opening_a_sentence_does_not_swallow_the_name_after_it() {
        let got = anchors(
            "Use the Northwind Ride app to update.",
            &["Update the firmware with the Northwind Ride app."],
        );
        assert_eq!(
            got,
            vec![("Northwind Ride".to_string(), AnchorKind::Entity)],
            "{got:?}"
        );
    }

    #[test]
    fn names_keep_inner_connectors() {
        let got = anchors("He worked for the Bank of America in Boston.", &[]);
        assert!(
            got.contains(&("Bank of America".into(), AnchorKind::Entity)),
            "{got:?}"
        );
        assert!(got.contains(&("Boston".into(), AnchorKind::Entity)));
    }

    #[test]
    fn substitution_finds_the_evidence_name_in_place_of_the_claim_name() {
        let e = Evidence::new(&["The Eiffel Tower is in Paris, France."]);
        let claim = extract(&Sentence::new("The Eiffel Tower is in London."), &e);
        let london = claim
            .iter()
            .find(|a| a.text == "London")
            .expect("London is an anchor");
        assert!(
            !london.norms.iter().all(|n| e.contains(n)),
            "the evidence never mentions London"
        );
        let other = substitute(london, &claim, &e.passages[0].sentences[0], &e)
            .expect("Paris offered instead");
        assert_eq!(other.text, "Paris");
    }
}
