//! Retrieval judgements: how useful each chunk is for the question (`ChunkRelevance`)
//! and whether each aspect of the question is supported by some chunk (`Coverage`).
//!
//! Chunk usefulness is the weighted share of the question's content words the chunk's
//! best sentence contains (rare words within the item weigh more), mapped onto the
//! protocol's bands: a sentence that matches the question and adds new content (the
//! likely answer) scores ≥ 0.9; a close match without new content 0.7–0.8; partial
//! overlap is background (0.3–0.6); almost none is irrelevant (≤ 0.2).
//!
//! With the semantic model, a chunk or sentence whose meaning is close to the question
//! (or aspect) counts even when it uses other words — "charging after a ride in freezing
//! weather" is answered by "do not charge a battery colder than 0 °C". The model only
//! raises a verdict: the lexical reason still names the words that match.
//!
//! Owns: those two verdicts. Must not: read the answer.

use std::collections::HashSet;

use crate::offline::claims::split;
use crate::offline::coverage::answer_type;
use crate::offline::coverage::meaning;
use crate::offline::words::evidence::{self, Evidence, Sentence};
use crate::semantic::SemanticModel;
use crate::task::{AspectCoverage, ChunkScore};

/// A question's content words with their weights over the item's chunks.
struct Query {
    terms: Vec<(String, String, f64)>,
    yes_no: bool,
}

impl Query {
    fn new(question: &str, evidence: &Evidence) -> Query {
        let sentence = Sentence::new(question);
        let mut seen = HashSet::new();
        let terms = sentence
            .tokens
            .iter()
            .filter(|t| t.content && seen.insert(t.norm.clone()))
            .map(|t| (t.norm.clone(), t.surface.clone(), evidence.idf(&t.norm)))
            .collect();
        let yes_no = split::asks_yes_no(question);
        Query { terms, yes_no }
    }

    /// The weight share of one query word (0 when the word is not in the query).
    fn share_of(&self, norm_or_word: &str) -> f64 {
        let total: f64 = self.terms.iter().map(|t| t.2).sum();
        if total == 0.0 {
            return 0.0;
        }
        let norm = crate::offline::words::lexicon::normalise(norm_or_word);
        self.terms
            .iter()
            .filter(|t| t.0 == norm)
            .map(|t| t.2)
            .sum::<f64>()
            / total
    }

    /// Weighted share of the query found in the sentence, and the words found.
    fn overlap<'a>(&'a self, s: &Sentence) -> (f64, Vec<&'a str>) {
        let total: f64 = self.terms.iter().map(|t| t.2).sum();
        if total == 0.0 {
            return (0.0, Vec::new());
        }
        let found: Vec<&(String, String, f64)> = self
            .terms
            .iter()
            .filter(|t| s.norms.contains(&t.0))
            .collect();
        (
            found.iter().map(|t| t.2).sum::<f64>() / total,
            found.iter().map(|t| t.1.as_str()).collect(),
        )
    }
}

/// Content words of `s` the question does not contain: what the sentence adds.
fn new_content<'a>(s: &'a Sentence, query: &Query) -> Vec<&'a str> {
    let q: HashSet<&str> = query.terms.iter().map(|t| t.0.as_str()).collect();
    let mut seen = HashSet::new();
    s.tokens
        .iter()
        .filter(|t| t.content && !q.contains(t.norm.as_str()) && seen.insert(t.norm.as_str()))
        .map(|t| t.surface.as_str())
        .collect()
}

/// Maps overlap onto the protocol's bands.
fn band(overlap: f64, adds_content: bool) -> f64 {
    let s = if overlap >= 0.6 && adds_content {
        0.9 + 0.1 * (overlap - 0.6) / 0.4
    } else if overlap >= 0.6 {
        0.75 + 0.05 * (overlap - 0.6) / 0.4
    } else if overlap >= 0.4 {
        0.7 + 0.1 * (overlap - 0.4) / 0.2 * f64::from(u8::from(adds_content))
    } else if overlap >= 0.15 {
        0.3 + 0.3 * (overlap - 0.15) / 0.25
    } else {
        0.2 * overlap / 0.15
    };
    (s.clamp(0.0, 1.0) * 100.0).round() / 100.0 + 0.0
}

fn quoted(words: &[&str], max: usize) -> String {
    words
        .iter()
        .take(max)
        .map(|w| format!("'{w}'"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One score per chunk, in chunk order.
pub fn score_chunks(
    question: &str,
    chunks: &[String],
    sem: Option<&SemanticModel>,
) -> Vec<ChunkScore> {
    let lexical = lexical_chunk_scores(question, chunks);
    let Some(model) = sem else { return lexical };
    let evidence = Evidence::new(chunks);
    lexical
        .into_iter()
        .zip(&evidence.passages)
        .zip(chunks)
        .map(|((score, passage), chunk)| {
            // The whole chunk and each of its sentences: an answer in one sentence of a
            // long chunk must not be diluted by the rest.
            let mut texts: Vec<&str> = vec![chunk.as_str()];
            texts.extend(passage.sentences.iter().map(|s| s.text.as_str()));
            let Some((_, cosine)) = meaning::closest(model, question, &texts) else { return score };
            let semantic = meaning::chunk_band(cosine);
            if semantic <= score.relevance {
                return score;
            }
            let reason = if semantic >= 0.9 {
                format!("Its meaning is close to the question's (similarity {cosine:.2}), as a passage that answers it usually is.")
            } else if semantic >= 0.7 {
                format!("Its meaning is related to the question's (similarity {cosine:.2}), though it words things differently.")
            } else {
                format!("It is loosely related to the question in meaning (similarity {cosine:.2}): background at most.")
            };
            ChunkScore { relevance: semantic, reason, ..score }
        })
        .collect()
}

fn lexical_chunk_scores(question: &str, chunks: &[String]) -> Vec<ChunkScore> {
    let evidence = Evidence::new(chunks);
    let query = Query::new(question, &evidence);
    evidence
        .passages
        .iter()
        .enumerate()
        .map(|(index, passage)| {
            let best = passage
                .sentences
                .iter()
                .map(|s| (query.overlap(s), s))
                .max_by(|a, b| a.0 .0.total_cmp(&b.0 .0));
            let Some(((overlap, found), sentence)) = best else {
                return ChunkScore {
                    index,
                    relevance: 0.0,
                    reason: "The chunk is empty.".into(),
                };
            };
            let adds = new_content(sentence, &query);
            let adds_content = !adds.is_empty() || query.yes_no;
            let relevance = band(overlap, adds_content);
            let reason = if found.is_empty() {
                let topic = new_content(sentence, &query);
                if topic.is_empty() {
                    "It shares no content words with the question.".to_string()
                } else {
                    format!(
                        "It shares no content words with the question; it is about {}.",
                        quoted(&topic, 3)
                    )
                }
            } else if relevance >= 0.9 {
                format!(
                    "It matches the question on {} and adds {}, likely the answer.",
                    quoted(&found, 4),
                    quoted(&adds, 3)
                )
            } else if relevance >= 0.7 {
                format!("It closely matches the question on {}.", quoted(&found, 4))
            } else {
                format!(
                    "It only touches the question through {}.",
                    quoted(&found, 3)
                )
            };
            ChunkScore {
                index,
                relevance,
                reason,
            }
        })
        .collect()
}

/// Share of an aspect's weighted content words a sentence must contain for the aspect
/// to count as covered.
const ASPECT_COVERAGE: f64 = 0.5;

/// For each aspect: the chunk whose sentence best matches it, covered when that sentence
/// holds enough of the aspect and every number and name in it — or, with the semantic
/// model, states the aspect in other words and still has its numbers and names.
pub fn coverage(
    aspects: &[String],
    chunks: &[String],
    sem: Option<&SemanticModel>,
) -> Vec<AspectCoverage> {
    let evidence = Evidence::new(chunks);
    let sentences: Vec<(usize, &Sentence)> = evidence
        .passages
        .iter()
        .enumerate()
        .flat_map(|(i, p)| p.sentences.iter().map(move |s| (i, s)))
        .collect();
    let texts: Vec<&str> = sentences.iter().map(|(_, s)| s.text.as_str()).collect();
    aspects
        .iter()
        .map(|aspect| {
            let query = Query::new(aspect, &evidence);
            let anchors =
                crate::offline::words::anchors::extract(&Sentence::new(aspect), &evidence);
            let wanted = answer_type::wanted(aspect);
            // A sentence without an answer of the asked kind (no duration for "how long",
            // no amount for "what does it cost") has not covered the aspect, however many
            // of its topic words it shares.
            let answers_kind = |s: &Sentence| wanted.is_none_or(|w| answer_type::states(s, w));
            let mut best: Option<(usize, &Sentence, f64)> = None;
            for (i, p) in evidence.passages.iter().enumerate() {
                for s in &p.sentences {
                    let (mut o, _) = query.overlap(s);
                    // "How long …?" is answered by "… takes about 5 hours": the sentence
                    // states the kind of quantity asked for, so the cue word counts as found.
                    if let Some(w) = wanted {
                        if answer_type::states(s, w) {
                            if let Some(cue) = w.cue_word(aspect) {
                                o = (o + query.share_of(cue)).min(1.0);
                            }
                        }
                    }
                    let anchors_ok = anchors
                        .iter()
                        .all(|a| a.norms.iter().all(|n| s.norms.contains(n)));
                    let score = if anchors_ok && answers_kind(s) {
                        o
                    } else {
                        o * 0.5
                    };
                    if best.is_none_or(|b| score > b.2) {
                        best = Some((i, s, score));
                    }
                }
            }
            let lexically_covered =
                best.is_some_and(|b| b.2 >= ASPECT_COVERAGE) && !query.terms.is_empty();
            if let (false, Some(model)) = (lexically_covered, sem) {
                let cosines = model.similarities(&semantic_query(aspect, aspects), &texts);
                let stated = sentences.iter().zip(&cosines).filter(|((_, s), cosine)| {
                    **cosine >= meaning::ASPECT_STATED
                        && answers_kind(s)
                        && anchors
                            .iter()
                            .all(|a| a.norms.iter().all(|n| s.norms.contains(n)))
                });
                if let Some(((chunk, s), _)) = stated.max_by(|a, b| a.1.total_cmp(b.1)) {
                    best = Some((*chunk, s, 1.0));
                }
            }
            aspect_coverage(aspect, best, &query)
        })
        .collect()
}

/// The aspect's verdict from its best sentence: covered, with a quote around the
/// aspect's words, when that sentence scores enough; not covered otherwise.
fn aspect_coverage(
    aspect: &str,
    best: Option<(usize, &Sentence, f64)>,
    query: &Query,
) -> AspectCoverage {
    match best {
        Some((chunk, s, score)) if score >= ASPECT_COVERAGE && !query.terms.is_empty() => {
            let focus: HashSet<&str> = query.terms.iter().map(|t| t.0.as_str()).collect();
            AspectCoverage {
                aspect: aspect.to_string(),
                covered: true,
                chunk: Some(chunk),
                evidence: evidence::quote_around(&s.text, &focus, 10),
                confidence: None,
            }
        }
        _ => AspectCoverage {
            aspect: aspect.to_string(),
            covered: false,
            chunk: None,
            evidence: String::new(),
            confidence: None,
        },
    }
}

/// What the model compares with the chunks for one aspect: the aspect itself, or, when it
/// leans on a pronoun ("whether it cost anything"), the aspect followed by the first
/// aspect, which names what "it" is.
fn semantic_query(aspect: &str, aspects: &[String]) -> String {
    const PRONOUNS: &[&str] = &[
        "it", "its", "they", "them", "their", "this", "that", "these", "those",
    ];
    let leans = aspect
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| PRONOUNS.contains(&w.to_lowercase().as_str()));
    match aspects.first() {
        Some(first) if leans && first != aspect => format!("{aspect} ({first})"),
        _ => aspect.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunks(texts: &[&str]) -> Vec<String> {
        texts.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_passage_covers_a_question_in_its_own_words_only_with_the_asked_kind_of_value() {
        let covered = |aspect: &str, chunk: &str| {
            coverage(
                &[aspect.to_string()],
                &chunks(&[chunk, "Free Wi-Fi is available throughout the building."]),
                None,
            )[0]
            .covered
        };
        // Inflections and plain synonyms: "DVDs … lent for 1 week", "overdue books",
        // "carried over".
        assert!(covered(
            "How long can I keep a DVD",
            "Books are lent for 3 weeks and DVDs for 1 week."
        ));
        assert!(covered(
            "What happens if I return a book late",
            "Overdue books cost 20 cents per day, up to a maximum of 6 euros per item."
        ));
        assert!(covered(
            "whether I carry any over",
            "Up to 5 unused days may be carried over into the next year."
        ));
        // The topic without the value asked for is not an answer: no age here.
        assert!(!covered(
            "How old do you have to be to get an adult library card",
            "The library lends up to 12 items at a time on an adult card."
        ));
    }

    #[test]
    fn a_duration_answers_how_long() {
        let chunk = "Use only the supplied charger. A full charge of the 625 Wh pack from empty takes about 5 hours.";
        let got = coverage(
            &["How long does it take to fully charge the battery".to_string()],
            &chunks(&[chunk]),
            None,
        );
        assert!(got[0].covered, "{got:?}");
        let no_duration = "Use only the supplied charger. Charging the pack from empty is simple.";
        let got = coverage(
            &["How long does it take to fully charge the battery".to_string()],
            &chunks(&[no_duration]),
            None,
        );
        assert!(!got[0].covered, "no duration, no answer: {got:?}");
    }

    #[test]
    fn irrelevant_chunk_scores_low() {
        let scores = score_chunks(
            "What SI unit measures electric current?",
            &chunks(&[
                "The SI unit of electric current is the ampere (A).",
                "The Eiffel Tower is in Paris, France.",
            ]),
            None,
        );
        assert_eq!(scores.iter().map(|s| s.index).collect::<Vec<_>>(), [0, 1]);
        assert!(
            scores[0].relevance >= 0.9,
            "the ampere chunk holds the answer: {:?}",
            scores[0]
        );
        assert!(
            scores[1].relevance <= 0.2,
            "the Eiffel Tower chunk is irrelevant: {:?}",
            scores[1]
        );
        assert!(
            scores[1].reason.contains("Eiffel"),
            "the reason says what the chunk is about: {}",
            scores[1].reason
        );
    }

    #[test]
    fn partial_overlap_is_background() {
        let s = score_chunks(
            "Which planet is known as the Red Planet?",
            &chunks(&["Jupiter is the largest planet."]),
            None,
        );
        assert!((0.2..=0.6).contains(&s[0].relevance), "{:?}", s[0]);
    }

    #[test]
    fn aspect_is_covered_by_the_chunk_that_states_it() {
        let aspects = vec![
            "noble gases have atomic numbers 2".to_string(),
            "noble gases have atomic numbers 10".to_string(),
        ];
        let c = chunks(&[
            "Helium is a noble gas with atomic number 2.",
            "Neon is a noble gas with atomic number 10.",
        ]);
        let cov = coverage(&aspects, &c, None);
        assert!(cov[0].covered && cov[1].covered, "{cov:?}");
        assert_eq!(
            (cov[0].chunk, cov[1].chunk),
            (Some(0), Some(1)),
            "numbers must match exactly"
        );
        assert!(cov[0].evidence.split_whitespace().count() <= 10);
        let none = coverage(&aspects, &[], None);
        assert!(none.iter().all(|a| !a.covered), "no chunks cover nothing");
    }
}
