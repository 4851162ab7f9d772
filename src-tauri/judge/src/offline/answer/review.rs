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
//! With the semantic model: an answer whose meaning is close to the question is relevant
//! in other words too, an aspect stated in other words is addressed, and a sentence is
//! off-topic only when its meaning is far from the question as well.
//!
//! Owns: that verdict. Must not: look at contexts (faithfulness is `grounding`).

use std::collections::HashSet;

use crate::offline::answer::style::{clarity, coherence, conciseness, content_set, refers_back};
use crate::offline::claims::split;
use crate::offline::coverage::answer_type;
use crate::offline::coverage::meaning;
use crate::offline::words::evidence::{self, Sentence};
use crate::offline::words::lexicon;
use crate::offline::words::vocabulary;
use crate::semantic::SemanticModel;
use crate::task::{AnswerReview, AspectAddressed};
use ragnosis_types::text;

fn hedges(lower: &str) -> Vec<&'static str> {
    vocabulary::HEDGE_PHRASES
        .iter()
        .copied()
        .filter(|h| vocabulary::contains_phrase(lower, h))
        .collect()
}

fn round2(x: f64) -> f64 {
    (x.clamp(0.0, 1.0) * 100.0).round() / 100.0
}

pub fn review(
    question: &str,
    answer: &str,
    aspects: &[String],
    sem: Option<&SemanticModel>,
) -> AnswerReview {
    let mut verdict = lexical_review(question, answer, aspects);
    if let Some(model) = sem {
        refine_with_meaning(&mut verdict, question, answer.trim(), model);
    }
    verdict
}

/// Raises what words alone missed: relevance, aspects addressed, sentences wrongly
/// called off-topic. Abstentions and bare yes/no answers keep their lexical verdict
/// (their meaning is the refusal or the polarity, not the topic).
fn refine_with_meaning(
    verdict: &mut AnswerReview,
    question: &str,
    answer: &str,
    model: &SemanticModel,
) {
    if !answer.chars().any(char::is_alphanumeric)
        || split::abstains(answer)
        || split::yes_no(answer).is_some()
    {
        return;
    }
    let sentences = text::sentences(answer);
    let mut texts = vec![answer];
    texts.extend(sentences.iter().copied());
    let cosines = model.similarities(question, &texts);
    let whole = cosines[0];
    verdict.off_topic.retain(|s| {
        let i = sentences.iter().position(|t| t == s);
        i.is_none_or(|i| cosines[i + 1] < meaning::OFF_TOPIC)
    });
    let parts: Vec<String> = verdict.aspects.iter().map(|a| a.aspect.clone()).collect();
    let asked = asked_values(&parts);
    for (k, aspect) in verdict.aspects.iter_mut().enumerate() {
        if aspect.addressed {
            continue;
        }
        let Some((i, cosine)) = meaning::closest(model, &aspect.aspect, &sentences) else {
            continue;
        };
        // In a question of several parts, a sentence speaks for the part it is closest
        // to: a sentence on the Regatta's age is near "in what water is the Regatta
        // held" too, through the name they share, but nearer to the part it answers.
        let nearer_to_another = parts.len() > 1 && {
            let others: Vec<&str> = parts
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != k)
                .map(|(_, p)| p.as_str())
                .collect();
            model
                .similarities(sentences[i], &others)
                .into_iter()
                .any(|c| c > cosine)
        };
        // A part asking for a kind of value ("in what year") is answered only by a
        // sentence giving one, other than those the question itself gives.
        let gives_the_kind = answer_type::wanted(&aspect.aspect).is_none_or(|w| {
            answer_type::states(&without_values(&Sentence::new(sentences[i]), &asked), w)
        });
        if cosine >= meaning::ASPECT_STATED && !nearer_to_another && gives_the_kind {
            aspect.addressed = true;
            aspect.evidence = evidence::quote(sentences[i], 20);
        }
    }
    verdict.missing_parts = verdict
        .aspects
        .iter()
        .filter(|a| !a.addressed)
        .map(|a| a.aspect.clone())
        .collect();
    let addressed_share = if verdict.aspects.is_empty() {
        1.0
    } else {
        verdict.aspects.iter().filter(|a| a.addressed).count() as f64 / verdict.aspects.len() as f64
    };
    let semantic = meaning::answer_band(whole) * (0.7 + 0.3 * addressed_share);
    verdict.relevance = verdict.relevance.max(round2(semantic));
}

// long: the review's relevance, missing parts and off-topic sentences come from one pass over the
// answer's sentences
fn lexical_review(question: &str, answer: &str, aspects: &[String]) -> AnswerReview {
    let answer = answer.trim();
    if !answer.chars().any(char::is_alphanumeric) {
        return AnswerReview {
            relevance: 0.0,
            missing_parts: aspects.to_vec(),
            off_topic: Vec::new(),
            aspects: aspects
                .iter()
                .map(|a| AspectAddressed {
                    aspect: a.clone(),
                    addressed: false,
                    evidence: String::new(),
                })
                .collect(),
            clarity: 0.0,
            clarity_issues: vec!["The answer is empty.".into()],
            suggestions: vec!["Make sure the pipeline returns an answer.".into()],
            coherence: 0.0,
            coherence_issues: vec!["The answer is empty.".into()],
            conciseness: 0.0,
            conciseness_issues: vec!["The answer is empty.".into()],
        };
    }
    let sentences: Vec<Sentence> = text::sentences(answer)
        .into_iter()
        .map(Sentence::new)
        .collect();
    let q = Sentence::new(question);
    let q_terms = content_set(&q);
    let aspect_terms: HashSet<String> = aspects
        .iter()
        .flat_map(|a| content_set(&Sentence::new(a)))
        .collect();
    let lower = answer.to_lowercase().replace('\u{2019}', "'");
    let vague = hedges(&lower);
    let abstains = split::abstains(answer);
    let short_direct = (split::is_fragment(answer)
        || split::yes_no(answer).is_some()
        || (sentences.len() == 1 && sentences[0].tokens.len() <= 8 && refers_back(&sentences[0])))
        && vague.is_empty();

    // Relevance: which sentences are about the question.
    let mut off_topic = Vec::new();
    let mut on_topic = 0usize;
    for (i, s) in sentences.iter().enumerate() {
        let own = content_set(s);
        let touches_question = own
            .iter()
            .any(|n| q_terms.contains(n) || aspect_terms.contains(n));
        let continues = i > 0
            && (refers_back(s)
                || own
                    .iter()
                    .any(|n| content_set(&sentences[i - 1]).contains(n)));
        let hedged_only = sentences.len() == 1 && !vague.is_empty();
        if touches_question || continues || hedged_only || (short_direct && sentences.len() == 1) {
            on_topic += 1;
        } else if !own.is_empty() {
            off_topic.push(s.text.clone());
        }
    }
    let answer_terms: HashSet<String> = sentences.iter().flat_map(content_set).collect();
    let q_cov = if q_terms.is_empty() {
        1.0
    } else {
        q_terms.iter().filter(|t| answer_terms.contains(*t)).count() as f64 / q_terms.len() as f64
    };

    let addressed = address_aspects(aspects, answer, &sentences, abstains, short_direct);
    let addressed_share = if aspects.is_empty() {
        1.0
    } else {
        addressed.iter().filter(|a| a.addressed).count() as f64 / aspects.len() as f64
    };
    let missing_parts: Vec<String> = addressed
        .iter()
        .filter(|a| !a.addressed)
        .map(|a| a.aspect.clone())
        .collect();
    let asks_yes_no = split::asks_yes_no(question);
    let relevance = if abstains {
        0.3
    } else if !vague.is_empty() && sentences.len() == 1 {
        0.4
    } else if split::yes_no(answer).is_some() {
        if asks_yes_no {
            1.0
        } else {
            0.2
        }
    } else if on_topic == 0 {
        0.1
    } else {
        let on_share = on_topic as f64 / sentences.len() as f64;
        let base = if short_direct {
            0.9
        } else {
            0.5 + 0.3 * (q_cov / 0.5).min(1.0) + 0.2 * on_share
        };
        base * (0.7 + 0.3 * addressed_share)
    };

    let (clarity, clarity_issues, suggestions) = clarity(answer, &sentences, &vague, short_direct);
    let (coherence, coherence_issues) = coherence(&sentences, &q_terms);
    let (conciseness, conciseness_issues) =
        conciseness(answer, &sentences, &lower, off_topic.len());
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

// long: each aspect walks the same ladder of checks (quoted, paraphrased, numbers, names, short
// direct answer) in order; the ladder reads best whole
/// Marks each aspect addressed or not, quoting at most twenty words of the answer.
fn address_aspects(
    aspects: &[String],
    answer: &str,
    sentences: &[Sentence],
    abstains: bool,
    short_direct: bool,
) -> Vec<AspectAddressed> {
    // A short list answer ("Helium and Neon") answers aspects item by item, in order.
    let items: Vec<&str> = if short_direct && split::yes_no(answer).is_none() {
        answer
            .trim_end_matches(['.', '!'])
            .split([',', ';'])
            .flat_map(|p| p.split(" and "))
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect()
    } else {
        Vec::new()
    };
    // Words and values the parts of a question share tell none of them apart: "how many
    // years does the Regatta predate The Game, and in what water is the Regatta held"
    // is not answered for the water by a sentence on the Regatta's age, and "class of
    // 2019" in one part does not answer "in what year" in the other.
    let part_terms: Vec<HashSet<String>> = aspects
        .iter()
        .map(|a| content_set(&Sentence::new(a)))
        .collect();
    let asked_values = asked_values(aspects);
    let new_values: Vec<Sentence> = sentences
        .iter()
        .map(|s| without_values(s, &asked_values))
        .collect();
    aspects
        .iter()
        .enumerate()
        .map(|(i, aspect)| {
            let not = AspectAddressed {
                aspect: aspect.clone(),
                addressed: false,
                evidence: String::new(),
            };
            if abstains {
                return not;
            }
            if short_direct {
                let evidence = if aspects.len() == 1 {
                    Some(answer)
                } else {
                    items.get(i).copied()
                };
                return match evidence {
                    Some(e) => AspectAddressed {
                        aspect: aspect.clone(),
                        addressed: true,
                        evidence: evidence::quote(e, 20),
                    },
                    None => not,
                };
            }
            // "Yes." answers a "whether …" part of a longer question before the
            // sentences that go on to the other parts.
            if aspect.starts_with("whether ") {
                // "Yes, there is step-free access …" answers it too: the polarity set off
                // by a comma, then the detail.
                let says_yes_or_no = |s: &Sentence| {
                    split::yes_no(&s.text).is_some()
                        || s.tokens.first().is_some_and(|t| {
                            matches!(t.lower.as_str(), "yes" | "yeah" | "yep" | "no" | "nope")
                        }) && s.tokens.get(1).is_some_and(|t| t.after_punctuation)
                };
                if let Some(s) = sentences.iter().find(|s| says_yes_or_no(s)) {
                    return AspectAddressed {
                        aspect: aspect.clone(),
                        addressed: true,
                        evidence: evidence::quote(&s.text, 20),
                    };
                }
            }
            let a = Sentence::new(aspect);
            let terms = content_set(&a);
            let wanted = answer_type::wanted(aspect);
            // The aspect's topic: its words other than the one naming the asked kind
            // ("cost" of "what does it cost" names a kind, not a topic).
            let cue = wanted
                .and_then(|w| w.cue_word(aspect))
                .map(lexicon::normalise);
            let topic = terms.iter().filter(|t| cue.as_ref() != Some(*t)).count();
            let own: Vec<&String> = terms
                .iter()
                .filter(|t| {
                    part_terms
                        .iter()
                        .enumerate()
                        .all(|(j, other)| j == i || !other.contains(*t))
                })
                .collect();
            let best = sentences
                .iter()
                .zip(&new_values)
                .map(|(s, fresh)| {
                    let found = terms.iter().filter(|t| s.norms.contains(*t)).count();
                    let mut share = found as f64 / terms.len().max(1) as f64;
                    if aspects.len() > 1
                        && !own.is_empty()
                        && !own.iter().any(|t| s.norms.contains(*t))
                    {
                        share = share.min(0.49);
                    }
                    // "How many days of leave do I get?" is answered by "Staff get 26
                    // paid days a year": a sentence on the topic (or, for a bare "what
                    // does it cost", any sentence) that states a value of the asked kind
                    // answers the part, in whatever words.
                    let states_kind = wanted.is_some_and(|w| answer_type::states(fresh, w));
                    let on_topic = found > 0 || topic == 0;
                    (
                        if states_kind && on_topic {
                            share.max(0.5)
                        } else {
                            share
                        },
                        s,
                    )
                })
                .max_by(|x, y| x.0.total_cmp(&y.0));
            match best {
                Some((share, s)) if share >= 0.5 || (aspects.len() == 1 && share > 0.0) => {
                    AspectAddressed {
                        aspect: aspect.clone(),
                        addressed: true,
                        evidence: evidence::quote(&s.text, 20),
                    }
                }
                _ => not,
            }
        })
        .collect()
}

/// The numbers and years the question's parts give themselves.
fn asked_values(aspects: &[String]) -> HashSet<String> {
    aspects
        .iter()
        .flat_map(|a| Sentence::new(a).tokens)
        .filter(|t| t.lower.chars().any(|c| c.is_ascii_digit()))
        .map(|t| t.norm)
        .collect()
}

/// `s` without the values the question itself gives: an answer repeating "2019" from
/// the question has not stated a year of its own.
fn without_values(s: &Sentence, asked: &HashSet<String>) -> Sentence {
    if !s.tokens.iter().any(|t| asked.contains(&t.norm)) {
        return s.clone();
    }
    let kept: Vec<&str> = s
        .tokens
        .iter()
        .filter(|t| !asked.contains(&t.norm))
        .map(|t| t.surface.as_str())
        .collect();
    Sentence::new(&kept.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aspects(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn off_topic_answer_has_low_relevance() {
        let r = review(
            "What SI unit measures electric current?",
            "The Eiffel Tower is tall.",
            &aspects(&["SI unit measures electric current"]),
            None,
        );
        assert!(r.relevance <= 0.2, "{r:?}");
        assert_eq!(r.off_topic, ["The Eiffel Tower is tall."]);
        assert!(!r.aspects[0].addressed && r.missing_parts.len() == 1);
    }

    #[test]
    fn short_symbol_answer_is_relevant_and_natural() {
        let r = review(
            "What is the chemical symbol for gold?",
            "Au",
            &aspects(&["chemical symbol for gold"]),
            None,
        );
        assert!(r.relevance >= 0.8 && r.clarity >= 0.8, "{r:?}");
        assert!(r.aspects[0].addressed && r.aspects[0].evidence == "Au");
    }

    #[test]
    fn list_answer_addresses_aspects_in_order_and_partial_list_misses_one() {
        let two = aspects(&[
            "noble gases have atomic numbers 2",
            "noble gases have atomic numbers 10",
        ]);
        let r = review(
            "Which two noble gases have atomic numbers 2 and 10?",
            "Helium and Neon",
            &two,
            None,
        );
        assert!(r.aspects.iter().all(|a| a.addressed), "{r:?}");
        assert_eq!(r.aspects[1].evidence, "Neon");
        let r = review(
            "Name the two programming languages: one by JetBrains, and one from Sun.",
            "Kotlin",
            &two,
            None,
        );
        assert_eq!(r.aspects.iter().filter(|a| a.addressed).count(), 1);
    }

    #[test]
    fn a_part_is_not_answered_by_what_the_parts_share() {
        let addressed = |question: &str, answer: &str| {
            let parts = crate::offline::coverage::aspects::extract(question);
            let r = review(question, answer, &parts, None);
            assert_eq!(parts.len(), 2, "{parts:?}");
            r.aspects.iter().map(|a| a.addressed).collect::<Vec<_>>()
        };
        assert_eq!(
            addressed(
                "By how many years does the Regatta predate The Game, and in what body of water is the Regatta held?",
                "Older than The Game by 23 years, the Regatta was the start of the rivalry."
            ),
            [true, false],
            "the Regatta's age says nothing of its water"
        );
        assert_eq!(
            addressed(
                "What was the admission rate for the class of 2019, and in what year did the early programme end?",
                "The college admitted 5.3% of applicants for the class of 2019, a record low."
            ),
            [true, false],
            "2019 is the question's own year, not an answer to 'in what year'"
        );
        assert_eq!(
            addressed(
                "What was the admission rate for the class of 2019, and in what year did the early programme end?",
                "The college admitted 5.3% of applicants for the class of 2019. The early programme ended in 2007."
            ),
            [true, true]
        );
    }

    #[test]
    fn a_part_answered_in_other_words_is_addressed() {
        let addressed = |question: &str, answer: &str| {
            let parts = crate::offline::coverage::aspects::extract(question);
            let r = review(question, answer, &parts, None);
            r.aspects.iter().filter(|a| a.addressed).count() as f64 / parts.len() as f64
        };
        // A value of the asked kind on the topic answers the part.
        assert_eq!(
            addressed(
                "How many days of annual leave do I get, and can I carry any over?",
                "Full-time staff get 26 paid days a year on top of public holidays. You can carry up to 5 unused days into the next year."
            ),
            1.0
        );
        assert_eq!(
            addressed(
                "Can community groups hire the meeting hall, and what does it cost?",
                "Yes. We charge 15 euros per hour for registered charities."
            ),
            1.0,
            "a leading yes answers the first part, an amount the second"
        );
        assert_eq!(
            addressed(
                "What are the library's Saturday hours?",
                "On Saturdays it closes at 5 pm."
            ),
            1.0
        );
        assert_eq!(
            addressed(
                "Who should I tell if I lose my badge?",
                "Notify security straight away."
            ),
            1.0
        );
        assert_eq!(
            addressed(
                "How far ahead can I book a study room, and for how long?",
                "Rooms can be booked up to 7 days in advance, for a maximum of 2 hours a day."
            ),
            1.0,
            "'for how long' asks for a duration"
        );
        assert_eq!(
            addressed(
                "Is the library wheelchair accessible?",
                "Hello! Yes, there is step-free access and a lift to every floor."
            ),
            1.0,
            "a yes set off by a comma answers whether"
        );
        // Not when the value is missing or of another kind.
        assert!(
            addressed(
                "Can community groups hire the meeting hall, and what does it cost?",
                "Yes. Requests need to reach us 14 days before the event."
            ) < 1.0,
            "fourteen days is no price"
        );
    }

    #[test]
    fn empty_answer_is_well_formed() {
        let r = review("Q?", "  ", &aspects(&["q"]), None);
        assert_eq!((r.relevance, r.clarity, r.aspects.len()), (0.0, 0.0, 1));
    }
}
