//! Which name a value belongs to. Help-desk passages list values side by side ("The
//! Starter plan allows 120 requests per minute, Growth allows 600 … and Enterprise allows
//! 3,000 …"; "Harbour Street is open … Saturday 9:00–18:00. Millbrook Road is open …
//! 9:00–17:30"), and the commonest wrong answer gives one name another name's value: the
//! value is in the passages, so looking it up finds it, and the answer reads as supported.
//!
//! Owns: attaching each value of a sentence to the name nearest to it, and the conflict
//! of a claim whose value belongs to another name while its own name has a value of the
//! same kind. Must not: decide labels (`support` does).
//!
//! "Nearest" counts words, and a comma, semicolon or bracket between a value and a name
//! as six more: "up to 8 kg; on Classic" keeps 8 kg with the Basic fares before it.
//! Names listed together ("Classic, Flex and Business fares") share the value after them.

use std::collections::HashSet;

use crate::offline::claims::conflicts::Conflict;
use crate::offline::words::anchors::{self, Anchor, AnchorKind};
use crate::offline::words::evidence::{Evidence, Sentence};
use crate::offline::words::lexicon::Token;

/// The cost of a punctuation mark between a value and a name, in words.
const PUNCTUATION: usize = 6;

/// A value token of a sentence: a number, an amount or a time of day.
fn is_value(t: &Token) -> bool {
    t.norm.chars().any(|c| c.is_ascii_digit())
        && (t.lower.chars().any(|c| c.is_ascii_digit()) || (t.quantity && t.content))
}

/// Times of day compare with times, other values with other values.
fn same_kind(a: &str, b: &str) -> bool {
    a.contains(':') == b.contains(':')
}

/// A name token that is surely a name: not a unit written in capitals ("EUR", "GB"), and
/// not a capitalised first word the passages never capitalise elsewhere ("Please",
/// "Infants"), which is as likely a common word.
fn is_name(t: &Token, evidence: &Evidence) -> bool {
    anchors::is_name_token(t, evidence)
        && !is_unit(&t.lower)
        && (!t.initial || evidence.capitalised_somewhere(&t.lower))
}

fn is_unit(lower: &str) -> bool {
    matches!(
        lower,
        "eur"
            | "euro"
            | "euros"
            | "gbp"
            | "usd"
            | "chf"
            | "kg"
            | "km"
            | "cm"
            | "mm"
            | "gb"
            | "mb"
            | "kb"
            | "tb"
            | "ml"
            | "mg"
            | "am"
            | "pm"
            | "uk"
            | "us"
            | "eu"
    )
}

/// A name of the sentence: the token positions it spans and its normalised words.
struct Mention {
    start: usize,
    end: usize,
    group: usize,
    norms: Vec<String>,
}

fn mentions(s: &Sentence, evidence: &Evidence) -> Vec<Mention> {
    let tokens = &s.tokens;
    let mut out: Vec<Mention> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        if !is_name(&tokens[i], evidence) {
            i += 1;
            continue;
        }
        let mut end = i + 1;
        while end < tokens.len()
            && !tokens[end].after_punctuation
            && is_name(&tokens[end], evidence)
        {
            end += 1;
        }
        // Listed with the previous name: only commas, "and" or "or" between them.
        let group = match out.last() {
            Some(last)
                if tokens[last.end..i]
                    .iter()
                    .all(|t| matches!(t.lower.as_str(), "and" | "or")) =>
            {
                last.group
            }
            _ => out.len(),
        };
        out.push(Mention {
            start: i,
            end,
            group,
            norms: tokens[i..end].iter().map(|t| t.norm.clone()).collect(),
        });
        i = end;
    }
    out
}

/// The distance from the value at `at` to a mention, in words and punctuation.
fn distance(tokens: &[Token], at: usize, m: &Mention) -> usize {
    if (m.start..m.end).contains(&at) {
        return 0;
    }
    // The tokens after the nearer one up to the farther one: each may carry a mark.
    let (from, to) = if at < m.start {
        (at + 1, m.start)
    } else {
        (m.end, at)
    };
    let between = tokens
        .get(from..=to.min(tokens.len().saturating_sub(1)))
        .unwrap_or(&[]);
    let marks = between.iter().filter(|t| t.after_punctuation).count();
    to.saturating_sub(from) + 1 + PUNCTUATION * marks
}

/// For each value of `s`, the group of names it belongs to: the nearest mention, the
/// earlier one on a tie (a value usually follows its name).
fn owners(s: &Sentence, mentions: &[Mention]) -> Vec<(usize, usize)> {
    let tokens = &s.tokens;
    (0..tokens.len())
        .filter(|&at| is_value(&tokens[at]))
        .filter_map(|at| {
            mentions
                .iter()
                .min_by_key(|m| (distance(tokens, at, m), m.start > at))
                .map(|m| (at, m.group))
        })
        .collect()
}

fn names_group(mentions: &[Mention], name: &Anchor) -> Option<usize> {
    mentions
        .iter()
        .find(|m| name.norms.iter().all(|n| m.norms.contains(n)))
        .map(|m| m.group)
}

/// The claim gives `value` to one of its names where a sentence of the passages gives
/// that value to another name and gives the claim's name a value of the same kind:
/// "Growth allows 3,000" against "Growth allows 600 …, Enterprise allows 3,000"; or the
/// value stands only in sentences without the name while the name's own sentence, which
/// says what the claim says of the value, has another ("Harbour Street is open till
/// 17:30" where 17:30 is Millbrook Road's closing time). Values the claim works out or
/// takes from the question are not looked up.
pub(in crate::offline) fn other_entitys_value(
    claim: &Sentence,
    claim_anchors: &[Anchor],
    worked_out: &HashSet<String>,
    evidence: &Evidence,
    scope: &[usize],
) -> Option<Conflict> {
    let names: Vec<&Anchor> = claim_anchors
        .iter()
        .filter(|a| a.kind == AnchorKind::Entity && !a.norms.iter().all(|n| is_unit(n)))
        .collect();
    if names.is_empty() {
        return None;
    }
    let sentences: Vec<&Sentence> = scope
        .iter()
        .filter_map(|&p| evidence.passages.get(p))
        .flat_map(|p| p.sentences.iter())
        .collect();
    let values: HashSet<&str> = claim
        .tokens
        .iter()
        .filter(|t| is_value(t))
        .map(|t| t.norm.as_str())
        .collect();
    values
        .iter()
        .filter(|v| !worked_out.contains(**v))
        .find_map(|value| {
            sentences
                .iter()
                .find_map(|s| within_sentence(s, evidence, &names, value, &values))
        })
}

/// The value and one of the claim's names in one sentence, the value belonging to
/// another name there and the claim's name holding a value of the same kind.
fn within_sentence(
    s: &Sentence,
    evidence: &Evidence,
    names: &[&Anchor],
    value: &str,
    claimed: &HashSet<&str>,
) -> Option<Conflict> {
    if !s.tokens.iter().any(|t| t.norm == value) {
        return None;
    }
    let mentions = mentions(s, evidence);
    let owned = owners(s, &mentions);
    let groups: Vec<usize> = names
        .iter()
        .filter_map(|n| names_group(&mentions, n))
        .collect();
    if groups.is_empty() {
        return None;
    }
    let value_groups: Vec<usize> = owned
        .iter()
        .filter(|(at, _)| s.tokens[*at].norm == value)
        .map(|(_, g)| *g)
        .collect();
    // The value is the name's own, or the claim also gives a value the name holds
    // there: then this value is another of the name's facts ("a cabin bag of 55 x 40 x 23
    // cm … no more than 8 kg" on a Basic fare), not another name's.
    let own = |(at, g): &&(usize, usize)| {
        groups.contains(g) && claimed.contains(s.tokens[*at].norm.as_str())
    };
    if value_groups.iter().any(|g| groups.contains(g)) || owned.iter().any(|o| own(&o)) {
        return None;
    }
    // The value's owner must be a name the claim does not mention.
    if value_groups.is_empty() {
        return None;
    }
    let (theirs, _) = owned.iter().find(|(at, g)| {
        groups.contains(g) && same_kind(&s.tokens[*at].norm, value) && s.tokens[*at].norm != value
    })?;
    let owner = mentions.iter().find(|m| value_groups.contains(&m.group))?;
    Some(Conflict {
        aligned: true,
        kind: "magnitude_shift",
        claim_part: value.to_string(),
        evidence_part: format!(
            "{} (\"{value}\" is given for {})",
            s.tokens[*theirs].surface,
            s.tokens[owner.start..owner.end]
                .iter()
                .map(|t| t.surface.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conflict(claim: &str, passages: &[&str]) -> Option<Conflict> {
        let e = Evidence::new(passages);
        let s = Sentence::new(claim);
        let anchors = anchors::extract(&s, &e);
        let scope: Vec<usize> = (0..passages.len()).collect();
        other_entitys_value(&s, &anchors, &HashSet::new(), &e, &scope)
    }

    const PLANS: &str =
        "Rate limits apply per workspace. The Starter plan allows 120 requests per minute, \
        Growth allows 600 requests per minute and Enterprise allows 3,000 requests per minute.";
    const FARES: &str =
        "Every passenger may bring one cabin bag. On Basic fares the cabin bag may weigh up to \
        8 kg; on Classic, Flex and Business fares the limit is 12 kg.";
    const LIMITS: &str =
        "Debit card holders may withdraw up to £500 in cash per day from cash machines, or up \
        to £1,000 per day on the Premier Current Account.";
    const HOURS: &str = "Harbour Street is open Monday to Friday 8:00–20:00, Saturday 9:00–18:00 and Sunday \
        10:00–16:00. Millbrook Road is open Monday to Saturday 9:00–17:30 and is closed on Sundays.";

    #[test]
    fn another_names_value_in_the_same_sentence_conflicts() {
        let got = conflict(
            "Growth workspaces can make up to 3,000 requests per minute.",
            &[PLANS],
        );
        assert!(got.is_some_and(|c| c.evidence_part.starts_with("600")));
        let got = conflict(
            "On a Classic fare your cabin bag can weigh up to 8 kg.",
            &[FARES],
        );
        assert!(
            got.is_some_and(|c| c.evidence_part.starts_with("12")),
            "listed names share a value"
        );
    }

    #[test]
    fn the_names_own_value_agrees() {
        assert!(conflict("Growth allows 600 requests per minute.", &[PLANS]).is_none());
        assert!(conflict("On Business fares a cabin bag may weigh 12 kg.", &[FARES]).is_none());
        assert!(conflict(
            "Premier Current Account customers may withdraw up to £1,000 in cash per day.",
            &[LIMITS]
        )
        .is_none());
        assert!(conflict("Millbrook Road closes at 17:30 on Saturdays.", &[HOURS]).is_none());
    }

    #[test]
    fn a_value_inside_a_name_is_read_without_panic() {
        let e = Evidence::new(&["Route A1 and Route B2 run every 10 minutes; Route C3 every 20."]);
        let s = Sentence::new("Route A1 runs every 20 minutes.");
        let anchors = anchors::extract(&s, &e);
        let _ = other_entitys_value(&s, &anchors, &HashSet::new(), &e, &[0]);
    }

    #[test]
    fn another_fact_of_the_same_name_is_no_conflict() {
        let bag =
            "Every passenger may bring one cabin bag of up to 55 x 40 x 23 cm. On Basic fares the \
            cabin bag may weigh up to 8 kg; on Classic fares the limit is 12 kg.";
        assert!(conflict(
            "With a Basic fare you can take one cabin bag of up to 55 x 40 x 23 cm, weighing no more than 8 kg.",
            &[bag]
        )
        .is_none());
        let infants = "Infants under 2 travel on an adult's lap for 25 EUR per flight.";
        assert!(
            conflict("A lap infant under 2 costs 25 EUR per flight.", &[infants]).is_none(),
            "a unit in capitals is no name"
        );
    }
}
