//! Contradictions between a claim and the evidence sentence that matches it best: a
//! negation flip ("no liquid water" against "liquid rivers flow") and an anchor
//! substitution (1969 for 1968, 1,472 for 1,500, Paris for London). These are the
//! offline judge's share of RAGVUE's implicit contradictions; dropped qualifiers, scope
//! shifts and causal reversals need understanding it does not have.
//!
//! Owns: finding a `Conflict`. Must not: decide labels (`support` does).

use std::collections::HashSet;

use super::anchors::{self, Anchor, AnchorKind};
use super::evidence::{Evidence, Sentence};
use super::support::Claim;

/// How a claim and the evidence disagree.
#[derive(Debug, Clone, PartialEq)]
pub struct Conflict {
    /// negation_flip, magnitude_shift, temporal_misattribution or entity_substitution.
    pub kind: &'static str,
    /// What the claim says.
    pub claim_part: String,
    /// What the evidence says instead.
    pub evidence_part: String,
}

/// A negator in the evidence sentence governing a word the claim asserts plainly, or
/// the reverse.
pub(super) fn negation_flip(claim: &Claim, s: &Sentence) -> Option<Conflict> {
    let claim_norms: HashSet<&str> = claim.terms.iter().map(|(n, _)| n.as_str()).collect();
    // The claim must assert the very thing the evidence denies: sharing a word further
    // along ("do not switch the bike off" against "the bike must stay on") is agreement
    // in other words, not a flip.
    let denied_head = s
        .negated_heads()
        .into_iter()
        .any(|n| claim_norms.contains(n));
    let evidence_negates = s
        .negated_norms()
        .into_iter()
        .filter(|n| claim_norms.contains(n))
        .count();
    if !claim.asserts_negation() && denied_head && evidence_negates > 0 {
        return Some(Conflict {
            kind: "negation_flip",
            claim_part: claim.sentence.text.clone(),
            evidence_part: negated_phrase(s),
        });
    }
    let claim_negates: Vec<&str> = if claim.denies {
        claim_norms
            .iter()
            .copied()
            .filter(|n| s.norms.contains(*n))
            .collect()
    } else {
        claim
            .sentence
            .negated_norms()
            .into_iter()
            .filter(|n| s.norms.contains(*n))
            .collect()
    };
    let overlap = claim_norms.iter().filter(|n| s.norms.contains(**n)).count();
    if claim.asserts_negation()
        && !s.has_negator()
        && !claim_negates.is_empty()
        && overlap * 2 >= claim_norms.len().max(1)
    {
        let claim_part = if claim.denies {
            claim.text.clone()
        } else {
            negated_phrase(&claim.sentence)
        };
        return Some(Conflict {
            kind: "negation_flip",
            claim_part,
            evidence_part: s.text.clone(),
        });
    }
    None
}

/// The negator and the words it governs, as written ("no liquid water").
fn negated_phrase(s: &Sentence) -> String {
    let Some(i) = s.tokens.iter().position(|t| t.negator) else {
        return s.text.clone();
    };
    let mut words = vec![s.tokens[i].surface.as_str()];
    let mut content = 0;
    for t in &s.tokens[i + 1..] {
        words.push(t.surface.as_str());
        content += usize::from(t.content);
        if content == 2 || words.len() == 5 {
            break;
        }
    }
    words.join(" ")
}

/// An unconfirmed claim anchor for which the related sentence offers another of the same
/// kind.
pub(super) fn substitution(
    claim: &Claim,
    missing: &[&Anchor],
    s: &Sentence,
    evidence: &Evidence,
) -> Option<Conflict> {
    missing.iter().find_map(|a| {
        anchors::substitute(a, &claim.anchors, s, evidence).map(|other| Conflict {
            kind: match a.kind {
                AnchorKind::Number => "magnitude_shift",
                AnchorKind::Year | AnchorKind::Month => "temporal_misattribution",
                AnchorKind::Entity => "entity_substitution",
            },
            claim_part: a.text.clone(),
            evidence_part: other.text,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claim(text: &str, evidence: &Evidence) -> Claim {
        Claim::new(text, evidence)
    }

    #[test]
    fn evidence_negating_a_claimed_word_is_a_flip() {
        let e = Evidence::new(&["The Moon has no liquid water on its surface."]);
        let c = negation_flip(
            &claim("Liquid water covers the surface.", &e),
            &e.passages[0].sentences[0],
        );
        let c = c.expect("no liquid water vs liquid water");
        assert_eq!(
            (c.kind, c.evidence_part.as_str()),
            ("negation_flip", "no liquid water")
        );
    }

    #[test]
    fn sharing_a_word_with_a_denial_is_not_a_flip() {
        let e = Evidence::new(&[
            "An update takes about 10 minutes; do not switch the bike off while it runs.",
        ]);
        let s = &e.passages[0].sentences[e.passages[0].sentences.len() - 1];
        let c = negation_flip(&claim("The bike must stay on while it runs.", &e), s);
        assert!(c.is_none(), "the claim restates the instruction: {c:?}");
        let flipped = negation_flip(&claim("You can switch the bike off while it runs.", &e), s);
        assert_eq!(
            flipped.map(|c| c.kind),
            Some("negation_flip"),
            "switching off is what the evidence denies"
        );
    }

    #[test]
    fn claim_negating_what_the_evidence_states_is_a_flip() {
        let e = Evidence::new(&["Copper is the better conductor."]);
        let c = negation_flip(
            &claim("Copper is not the better conductor.", &e),
            &e.passages[0].sentences[0],
        );
        assert_eq!(c.map(|c| c.kind), Some("negation_flip"));
        let same = negation_flip(
            &claim("Copper is the better conductor.", &e),
            &e.passages[0].sentences[0],
        );
        assert!(same.is_none(), "agreement is no conflict");
    }

    #[test]
    fn a_changed_number_is_a_magnitude_shift() {
        let e = Evidence::new(&["Watson threw for 1,472 yards in five games."]);
        let c = claim("Watson threw for 1,500 yards in five games.", &e);
        let missing: Vec<&Anchor> = c.anchors.iter().filter(|a| a.text == "1,500").collect();
        let got = substitution(&c, &missing, &e.passages[0].sentences[0], &e)
            .expect("a figure is offered");
        assert_eq!(
            (got.kind, got.evidence_part.as_str()),
            ("magnitude_shift", "1,472")
        );
    }
}
