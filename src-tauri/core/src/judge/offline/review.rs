//! `AnswerReview`: judgements of the answer text alone, against its question.
//!
//! - relevance: intent alignment from the answer's overlap with the question and its
//!   aspects; a short direct answer ("Au", "It is Au.") counts as aligned; sentences
//!   that share nothing with the question or their neighbours are `off_topic`.
//! - aspects addressed: by word overlap, or item by item for a short list answer
//!   ("Helium and Neon"), with at most twenty words of the answer as evidence.
//! - clarity: Flesch reading ease and sentence length; vague hedges ("it depends, kind
//!   of") cost; a very short answer is judged on naturalness, not rewarded for brevity.
//! - coherence: self-contradiction (the same statement asserted and negated, a "yes"
//!   and a "no"), non-sequiturs, restating the question.
//! - conciseness: repeated sentences and phrases, filler; long but useful is fine.
//!
//! Owns: that verdict. Must not: look at contexts (faithfulness is `grounding`).

use std::collections::HashSet;

use super::claims;
use super::evidence::{self, Sentence};
use super::lexicon;
use crate::judge::task::{AnswerReview, AspectAddressed};
use crate::text;

fn content_set(s: &Sentence) -> HashSet<String> {
    s.content_norms().into_iter().map(str::to_string).collect()
}

fn hedges(lower: &str) -> Vec<&'static str> {
    lexicon::HEDGE_PHRASES.iter().copied().filter(|h| lexicon::contains_phrase(lower, h)).collect()
}

fn round2(x: f64) -> f64 {
    (x.clamp(0.0, 1.0) * 100.0).round() / 100.0
}

/// Starts by referring back ("It", "This", "They", "Therefore"): it continues the
/// previous sentence or answers the question directly.
fn refers_back(s: &Sentence) -> bool {
    s.tokens.first().is_some_and(|t| lexicon::is_back_reference(&t.lower))
}

pub fn review(question: &str, answer: &str, aspects: &[String]) -> AnswerReview {
    let answer = answer.trim();
    if !answer.chars().any(char::is_alphanumeric) {
        return AnswerReview {
            relevance: 0.0,
            missing_parts: aspects.to_vec(),
            off_topic: Vec::new(),
            aspects: aspects.iter().map(|a| AspectAddressed { aspect: a.clone(), addressed: false, evidence: String::new() }).collect(),
            clarity: 0.0,
            clarity_issues: vec!["The answer is empty.".into()],
            suggestions: vec!["Make sure the pipeline returns an answer.".into()],
            coherence: 0.0,
            coherence_issues: vec!["The answer is empty.".into()],
            conciseness: 0.0,
            conciseness_issues: vec!["The answer is empty.".into()],
        };
    }
    let sentences: Vec<Sentence> = text::sentences(answer).into_iter().map(Sentence::new).collect();
    let q = Sentence::new(question);
    let q_terms = content_set(&q);
    let aspect_terms: HashSet<String> = aspects.iter().flat_map(|a| content_set(&Sentence::new(a))).collect();
    let lower = answer.to_lowercase().replace('\u{2019}', "'");
    let vague = hedges(&lower);
    let abstains = claims::abstains(answer);
    let short_direct = (claims::is_fragment(answer) || claims::yes_no(answer).is_some()
        || (sentences.len() == 1 && sentences[0].tokens.len() <= 8 && refers_back(&sentences[0])))
        && vague.is_empty();

    // Relevance: which sentences are about the question.
    let mut off_topic = Vec::new();
    let mut on_topic = 0usize;
    for (i, s) in sentences.iter().enumerate() {
        let own = content_set(s);
        let touches_question = own.iter().any(|n| q_terms.contains(n) || aspect_terms.contains(n));
        let continues = i > 0 && (refers_back(s) || own.iter().any(|n| content_set(&sentences[i - 1]).contains(n)));
        if touches_question || continues || (short_direct && sentences.len() == 1) {
            on_topic += 1;
        } else if !own.is_empty() {
            off_topic.push(s.text.clone());
        }
    }
    let answer_terms: HashSet<String> = sentences.iter().flat_map(content_set).collect();
    let q_cov = if q_terms.is_empty() { 1.0 } else { q_terms.iter().filter(|t| answer_terms.contains(*t)).count() as f64 / q_terms.len() as f64 };

    let addressed = address_aspects(aspects, answer, &sentences, abstains, short_direct);
    let addressed_share = if aspects.is_empty() { 1.0 } else { addressed.iter().filter(|a| a.addressed).count() as f64 / aspects.len() as f64 };
    let missing_parts: Vec<String> = addressed.iter().filter(|a| !a.addressed).map(|a| a.aspect.clone()).collect();
    let asks_yes_no = q.tokens.first().is_some_and(|t| matches!(t.lower.as_str(), "is" | "are" | "was" | "were" | "do" | "does" | "did" | "can" | "could" | "has" | "have" | "will" | "should"));
    let relevance = if abstains {
        0.3
    } else if !vague.is_empty() && sentences.len() == 1 {
        0.4
    } else if claims::yes_no(answer).is_some() {
        if asks_yes_no { 1.0 } else { 0.2 }
    } else if on_topic == 0 {
        0.1
    } else {
        let on_share = on_topic as f64 / sentences.len() as f64;
        let base = if short_direct { 0.9 } else { 0.5 + 0.3 * (q_cov / 0.5).min(1.0) + 0.2 * on_share };
        base * (0.7 + 0.3 * addressed_share)
    };

    let (clarity, clarity_issues, suggestions) = clarity(answer, &sentences, &vague, short_direct);
    let (coherence, coherence_issues) = coherence(&sentences, &q_terms);
    let (conciseness, conciseness_issues) = conciseness(answer, &sentences, &lower, off_topic.len());
    AnswerReview {
        relevance: round2(relevance),
        missing_parts,
        off_topic,
        aspects: addressed,
        clarity: round2(clarity),
        clarity_issues,
        suggestions,
        coherence: round2(coherence),
        coherence_issues,
        conciseness: round2(conciseness),
        conciseness_issues,
    }
}

/// Marks each aspect addressed or not, quoting at most twenty words of the answer.
fn address_aspects(aspects: &[String], answer: &str, sentences: &[Sentence], abstains: bool, short_direct: bool) -> Vec<AspectAddressed> {
    // A short list answer ("Helium and Neon") answers aspects item by item, in order.
    let items: Vec<&str> = if short_direct && claims::yes_no(answer).is_none() {
        answer.trim_end_matches(['.', '!']).split([',', ';']).flat_map(|p| p.split(" and ")).map(str::trim).filter(|p| !p.is_empty()).collect()
    } else {
        Vec::new()
    };
    aspects
        .iter()
        .enumerate()
        .map(|(i, aspect)| {
            let not = AspectAddressed { aspect: aspect.clone(), addressed: false, evidence: String::new() };
            if abstains {
                return not;
            }
            if short_direct {
                let evidence = if aspects.len() == 1 { Some(answer) } else { items.get(i).copied() };
                return match evidence {
                    Some(e) => AspectAddressed { aspect: aspect.clone(), addressed: true, evidence: evidence::quote(e, 20) },
                    None => not,
                };
            }
            let a = Sentence::new(aspect);
            let terms = content_set(&a);
            let best = sentences
                .iter()
                .map(|s| (terms.iter().filter(|t| s.norms.contains(*t)).count() as f64 / terms.len().max(1) as f64, s))
                .max_by(|x, y| x.0.total_cmp(&y.0));
            match best {
                Some((share, s)) if share >= 0.5 || (aspects.len() == 1 && share > 0.0) => {
                    AspectAddressed { aspect: aspect.clone(), addressed: true, evidence: evidence::quote(&s.text, 20) }
                }
                _ => not,
            }
        })
        .collect()
}

fn clarity(answer: &str, sentences: &[Sentence], vague: &[&str], short_direct: bool) -> (f64, Vec<String>, Vec<String>) {
    let words = text::words(answer);
    let mut issues = Vec::new();
    let mut suggestions = Vec::new();
    let mut score = if words.len() <= 3 {
        if short_direct { 0.9 } else { 0.7 }
    } else {
        let syllables: usize = words.iter().map(|w| text::syllables(w)).sum();
        let per_sentence = words.len() as f64 / sentences.len().max(1) as f64;
        let fre = 206.835 - 1.015 * per_sentence - 84.6 * syllables as f64 / words.len() as f64;
        let mut s = if fre >= 60.0 { 1.0 } else if fre >= 30.0 { 0.75 + 0.25 * (fre - 30.0) / 30.0 } else { 0.5 + 0.25 * fre.max(0.0) / 30.0 };
        if fre < 30.0 {
            issues.push(format!("The text is hard to read (Flesch reading ease {fre:.0}).",));
            suggestions.push("Use shorter words and sentences.".into());
        }
        if per_sentence > 30.0 {
            s -= 0.15;
            issues.push(format!("Sentences are long ({per_sentence:.0} words on average)."));
            suggestions.push("Split long sentences.".into());
        }
        s
    };
    if !vague.is_empty() {
        score -= 0.3 + 0.1 * (vague.len() - 1) as f64;
        // Nothing but hedges ("It depends, kind of."): the answer commits to nothing.
        let hedge_words: HashSet<String> = vague.iter().flat_map(|h| text::words(h)).collect();
        if sentences.iter().flat_map(|s| s.tokens.iter()).filter(|t| t.content).all(|t| hedge_words.contains(&t.lower)) {
            score = score.min(0.3);
        }
        issues.push(format!("The answer is vague: \"{}\".", vague.join("\", \"")));
        suggestions.push("Commit to a direct answer and state the condition it depends on, if any.".into());
    }
    let letters: Vec<char> = answer.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.len() > 12 && letters.iter().filter(|c| c.is_uppercase()).count() * 10 > letters.len() * 7 {
        score -= 0.2;
        issues.push("The answer is written in capitals.".into());
        suggestions.push("Use normal capitalisation.".into());
    }
    if words.windows(2).any(|w| w[0] == w[1] && w[0].chars().all(char::is_alphabetic) && w[0] != "that" && w[0] != "had") {
        score -= 0.1;
        issues.push("A word is repeated twice in a row.".into());
        suggestions.push("Proofread for doubled words.".into());
    }
    (score, issues, suggestions)
}

fn coherence(sentences: &[Sentence], q_terms: &HashSet<String>) -> (f64, Vec<String>) {
    let mut score: f64 = 1.0;
    let mut issues = Vec::new();
    let openers: Vec<&str> = sentences.iter().filter_map(|s| s.tokens.first().map(|t| t.lower.as_str())).collect();
    let says_yes = openers.iter().any(|o| matches!(*o, "yes" | "yeah" | "yep"));
    // "No rivers flow" opens with a determiner; only a bare or comma-marked "No" answers.
    let says_no = sentences.iter().any(|s| {
        let l = s.text.to_lowercase();
        (s.tokens.len() <= 2 && matches!(s.tokens[0].lower.as_str(), "no" | "nope"))
            || l.starts_with("no,")
            || l.starts_with("nope")
    });
    if says_yes && says_no {
        score -= 0.5;
        issues.push("It answers both \"yes\" and \"no\".".into());
    }
    let sets: Vec<HashSet<String>> = sentences.iter().map(content_set).collect();
    'pairs: for i in 0..sentences.len() {
        for j in i + 1..sentences.len() {
            let shared = sets[i].intersection(&sets[j]).count();
            let union = sets[i].union(&sets[j]).count().max(1);
            if shared >= 2 && shared * 2 >= union && sentences[i].has_negator() != sentences[j].has_negator() {
                score -= 0.5;
                issues.push(format!(
                    "It contradicts itself: \"{}\" versus \"{}\".",
                    evidence::quote(&sentences[i].text, 12),
                    evidence::quote(&sentences[j].text, 12)
                ));
                break 'pairs;
            }
        }
    }
    if sentences.len() > 1 {
        let mut jumps = 0;
        for (i, s) in sentences.iter().enumerate() {
            let linked = sets[i].iter().any(|n| q_terms.contains(n))
                || refers_back(s)
                || sets.iter().enumerate().any(|(j, o)| j != i && !sets[i].is_disjoint(o));
            if !linked && !sets[i].is_empty() && jumps < 2 {
                jumps += 1;
                score -= 0.2;
                issues.push(format!("\"{}\" does not connect to the question or the rest.", evidence::quote(&s.text, 12)));
            }
        }
    }
    let all: HashSet<&String> = sets.iter().flatten().collect();
    if all.len() >= 3 && all.iter().all(|n| q_terms.contains(*n)) {
        score -= 0.3;
        issues.push("It only restates the question.".into());
    }
    (score, issues)
}

fn conciseness(answer: &str, sentences: &[Sentence], lower: &str, off_topic: usize) -> (f64, Vec<String>) {
    let mut score: f64 = 1.0;
    let mut issues = Vec::new();
    let mut seen = HashSet::new();
    let repeats = sentences.iter().filter(|s| !seen.insert(text::normalize_squad(&s.text))).count();
    if repeats > 0 {
        score -= (0.3 * repeats as f64).min(0.6);
        issues.push(format!("{repeats} sentence(s) repeat an earlier one word for word."));
    }
    let words = text::words(answer);
    if words.len() >= 12 {
        let grams: Vec<&[String]> = words.windows(3).collect();
        let unique: HashSet<&[String]> = grams.iter().copied().collect();
        let repeated = 1.0 - unique.len() as f64 / grams.len() as f64;
        if repeated > 0.15 {
            score -= (repeated * 1.2).min(0.5);
            issues.push(format!("{:.0}% of its three-word phrases are repeats.", repeated * 100.0));
        }
    }
    let fillers: Vec<&str> = lexicon::FILLER_PHRASES.iter().copied().filter(|f| lexicon::contains_phrase(lower, f)).collect();
    if !fillers.is_empty() {
        score -= (0.1 * fillers.len() as f64).min(0.3);
        issues.push(format!("Filler: \"{}\".", fillers.join("\", \"")));
    }
    if off_topic > 0 && sentences.len() > 1 {
        score -= (0.1 * off_topic as f64).min(0.3);
        issues.push(format!("{off_topic} sentence(s) pad the answer with unrelated content."));
    }
    (score, issues)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aspects(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn off_topic_answer_has_low_relevance() {
        let r = review("What SI unit measures electric current?", "The Eiffel Tower is tall.", &aspects(&["SI unit measures electric current"]));
        assert!(r.relevance <= 0.2, "{r:?}");
        assert_eq!(r.off_topic, ["The Eiffel Tower is tall."]);
        assert!(!r.aspects[0].addressed && r.missing_parts.len() == 1);
    }

    #[test]
    fn short_symbol_answer_is_relevant_and_natural() {
        let r = review("What is the chemical symbol for gold?", "Au", &aspects(&["chemical symbol for gold"]));
        assert!(r.relevance >= 0.8 && r.clarity >= 0.8, "{r:?}");
        assert!(r.aspects[0].addressed && r.aspects[0].evidence == "Au");
    }

    #[test]
    fn vague_answer_has_low_clarity() {
        let r = review("Is copper a better conductor than iron?", "It depends, kind of.", &aspects(&["whether copper a better conductor than iron"]));
        assert!(r.clarity < 0.5, "{r:?}");
        assert!(r.clarity_issues.iter().any(|i| i.contains("it depends")), "{:?}", r.clarity_issues);
    }

    #[test]
    fn list_answer_addresses_aspects_in_order_and_partial_list_misses_one() {
        let two = aspects(&["noble gases have atomic numbers 2", "noble gases have atomic numbers 10"]);
        let r = review("Which two noble gases have atomic numbers 2 and 10?", "Helium and Neon", &two);
        assert!(r.aspects.iter().all(|a| a.addressed), "{r:?}");
        assert_eq!(r.aspects[1].evidence, "Neon");
        let r = review("Name the two programming languages: one by JetBrains, and one from Sun.", "Kotlin", &two);
        assert_eq!(r.aspects.iter().filter(|a| a.addressed).count(), 1);
    }

    #[test]
    fn repetitive_answer_is_not_concise() {
        let r = review(
            "What is the capital of France?",
            "Paris is the capital of France. Paris is the capital of France. Paris is the capital of France.",
            &aspects(&["capital of France"]),
        );
        assert!(r.conciseness < 0.5, "{r:?}");
        let tight = review("What is the capital of France?", "Paris is the capital of France.", &aspects(&["capital of France"]));
        assert!(tight.conciseness >= 0.9, "{tight:?}");
    }

    #[test]
    fn self_contradiction_lowers_coherence() {
        let r = review("Does the Moon have rivers?", "The Moon has liquid rivers. The Moon has no liquid rivers.", &aspects(&["whether the Moon have rivers"]));
        assert!(r.coherence <= 0.5, "{r:?}");
        let ok = review("Does the Moon have rivers?", "No. The Moon is airless and dry, so water cannot stay liquid.", &aspects(&["whether the Moon have rivers"]));
        assert!(ok.coherence >= 0.8, "{ok:?}");
    }

    #[test]
    fn empty_answer_is_well_formed() {
        let r = review("Q?", "  ", &aspects(&["q"]));
        assert_eq!((r.relevance, r.clarity, r.aspects.len()), (0.0, 0.0, 1));
    }
}
