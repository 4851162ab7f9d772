//! The numbers the learned decisions (`learned`) read: for a claim against passages
//! (is it supported?) and for a question against passages (do they answer it?). Each is
//! a cheap signal the rules already compute — word coverage both weighted and plain,
//! anchors confirmed, a conflict found, the rule's own verdict — plus, when the embedded
//! model is loaded, the best cosine of the text against the passages' sentences and
//! whole passages. (A third cosine, against windows of two sentences, was dropped: it
//! doubled the text the encoder reads per item for 0.001-0.004 AUROC.) No single signal wins on every kind of text
//! (overlap on encyclopaedic claims, meaning on expert prose); a fitted combination can.
//!
//! Owns: the feature names and how each is computed. Must not: weigh them (the fitted
//! coefficients in `assets/offline-judge/` do) or decide labels.

use std::collections::HashSet;

use crate::offline::claims::claim::Claim;
use crate::offline::claims::support::{assess, Assessment, SupportParams};
use crate::offline::words::anchors::{self, AnchorKind};
use crate::offline::words::evidence::{Evidence, Sentence};
use crate::semantic::SemanticModel;

/// Features of a claim against passages, in this order: the signals, the shape of the
/// evidence, the model's cosines, then each of `INTERACTING` times each of `SHAPE`
/// (named `a*b`). The shape tells the kinds of evidence apart — one knowledge paragraph,
/// a page's many single sentences, a few long web passages — where the same overlap
/// means different things; products let a linear model read a signal by its shape.
pub const SUPPORT: &[&str] = &[
    "scope_coverage",
    "item_coverage",
    "predicate_coverage",
    "best_sentence_coverage",
    "plain_coverage",
    "word_pairs_found",
    "has_anchors",
    "missing_anchor_share",
    "conflict",
    "verbatim",
    "rules_supported",
    "personal",
    "claim_negated",
    "log_terms",
    "log_passages",
    "log_passage_words",
    "log_claim_words",
    "sentence_cosine",
    "passage_cosine",
    "scope_coverage*log_passages",
    "scope_coverage*log_passage_words",
    "scope_coverage*log_claim_words",
    "best_sentence_coverage*log_passages",
    "best_sentence_coverage*log_passage_words",
    "best_sentence_coverage*log_claim_words",
    "plain_coverage*log_passages",
    "plain_coverage*log_passage_words",
    "plain_coverage*log_claim_words",
    "rules_supported*log_passages",
    "rules_supported*log_passage_words",
    "rules_supported*log_claim_words",
    "sentence_cosine*log_passages",
    "sentence_cosine*log_passage_words",
    "sentence_cosine*log_claim_words",
    "passage_cosine*log_passages",
    "passage_cosine*log_passage_words",
    "passage_cosine*log_claim_words",
];

/// The evidence-shape features: what the prior (the share supported before looking at
/// the claim's words) is fitted on.
pub const SHAPE: &[&str] = &["log_passages", "log_passage_words", "log_claim_words"];
const INTERACTING: &[&str] = &[
    "scope_coverage",
    "best_sentence_coverage",
    "plain_coverage",
    "rules_supported",
    "sentence_cosine",
    "passage_cosine",
];

/// Whether a feature needs the embedded model (words-only models give it no weight).
pub fn needs_model(name: &str) -> bool {
    name.contains("cosine")
}

/// Features of a question against passages, in this order. The last two need the model.
pub const ANSWERABILITY: &[&str] = &[
    "item_coverage",
    "best_sentence_coverage",
    "plain_coverage",
    "word_pairs_found",
    "has_anchors",
    "missing_anchor_share",
    "aspects_covered",
    "answer_type_found",
    "best_sentence_new_words",
    "question_negated",
    "log_terms",
    "sentence_cosine",
    "passage_cosine",
];

/// The features of `claim` against all passages of `evidence`, with the assessment the
/// rules made (so a caller does not assess twice). `rules_supported` is the rules'
/// verdict on the text the claim came from: its own label for a single claim; for a text
/// of several claims (a labelled set's row), whether the rules entail every one.
pub fn support(
    claim: &Claim,
    evidence: &Evidence,
    params: &SupportParams,
    sem: Option<&SemanticModel>,
    rules_supported: Option<bool>,
) -> (Vec<f64>, Assessment) {
    let all: Vec<usize> = (0..evidence.len()).collect();
    let a = assess(claim, evidence, &all, params);
    let mut x = lexical(claim, evidence, &a);
    let passage_words: Vec<usize> = evidence
        .passages
        .iter()
        .map(|p| p.sentences.iter().map(|s| s.tokens.len()).sum())
        .collect();
    let mean_words = passage_words.iter().sum::<usize>() as f64 / passage_words.len().max(1) as f64;
    x.extend([
        flag(a.conflict.is_some()),
        flag(a.verbatim),
        flag(rules_supported.unwrap_or(a.label.is_entailment())),
        flag(claim.personal),
        flag(claim.sentence.has_denial()),
        (1.0 + claim.terms.len() as f64).ln(),
        (evidence.len().max(1) as f64).ln(),
        (1.0 + mean_words).ln(),
        (1.0 + claim.sentence.tokens.len() as f64).ln(),
    ]);
    x.extend(cosines(&claim.text, evidence, sem));
    let value = |name: &str| x[SUPPORT.iter().position(|n| *n == name).expect("listed")];
    let products: Vec<f64> = INTERACTING
        .iter()
        .flat_map(|a| SHAPE.iter().map(move |b| (a, b)))
        .map(|(a, b)| value(a) * value(b))
        .collect();
    x.extend(products);
    debug_assert_eq!(x.len(), SUPPORT.len());
    (x, a)
}

/// The features of `question` against all passages of `evidence`, with the assessment of
/// the question's words (its best sentence is where an answer would be).
pub fn answerability(
    question: &str,
    evidence: &Evidence,
    passages: &[String],
    sem: Option<&SemanticModel>,
) -> (Vec<f64>, Assessment) {
    let statement = question.trim().trim_end_matches('?');
    let claim = Claim::new(statement, evidence);
    let all: Vec<usize> = (0..evidence.len()).collect();
    let a = assess(&claim, evidence, &all, &SupportParams::default());
    let lex = lexical(&claim, evidence, &a);
    // The lexical rule of `Coverage` (no model), as a share of the question's aspects.
    let aspects = crate::offline::coverage::aspects::extract(question);
    let covered = if aspects.is_empty() {
        0.0
    } else {
        let got = crate::offline::coverage::relevance::coverage(&aspects, passages, None);
        got.iter().filter(|c| c.covered).count() as f64 / got.len() as f64
    };
    let q = Sentence::new(question);
    let best = a.sentence.as_deref().map(Sentence::new);
    let mut x = vec![
        lex[1], // item coverage
        lex[3], // best sentence
        lex[4], // plain
        lex[5], // word pairs
        lex[6], // has anchors
        lex[7], // missing anchor share
        covered,
        flag(
            best.as_ref()
                .is_some_and(|s| answer_type_found(&q, s, evidence)),
        ),
        best.as_ref().map_or(0.0, |s| new_words(&q, s)),
        flag(q.has_denial()),
        (1.0 + claim.terms.len() as f64).ln(),
    ];
    x.extend(cosines(question, evidence, sem));
    debug_assert_eq!(x.len(), ANSWERABILITY.len());
    (x, a)
}

fn flag(b: bool) -> f64 {
    if b {
        1.0
    } else {
        0.0
    }
}

/// The coverage features both lists share: scope, item, predicate, best sentence, plain
/// share, word pairs, has anchors, missing anchor share.
fn lexical(claim: &Claim, evidence: &Evidence, a: &Assessment) -> Vec<f64> {
    let terms = claim.terms.len();
    let plain = if terms == 0 {
        0.0
    } else {
        1.0 - a.missing_words.len() as f64 / terms as f64
    };
    let m = &a.measures;
    vec![
        a.coverage,
        m.item,
        m.predicate,
        m.best_sentence,
        plain,
        word_pairs_found(&claim.sentence, evidence),
        flag(m.anchors > 0),
        if m.anchors == 0 {
            0.0
        } else {
            m.missing_anchors as f64 / m.anchors as f64
        },
    ]
}

/// Share of the claim's neighbouring content-word pairs that stand next to each other
/// (in either order, ignoring function words) in some evidence sentence: word order that
/// overlap alone cannot see ("the first cells" vs "the last cells" share both words, not
/// the pair).
fn word_pairs_found(sentence: &Sentence, evidence: &Evidence) -> f64 {
    let content: Vec<&str> = sentence.content_norms();
    if content.len() < 2 {
        return 0.0;
    }
    let mut pairs: HashSet<(&str, &str)> = HashSet::new();
    for p in &evidence.passages {
        for s in &p.sentences {
            let words = s.content_norms();
            for w in words.windows(2) {
                pairs.insert((w[0], w[1]));
                pairs.insert((w[1], w[0]));
            }
        }
    }
    let found = content
        .windows(2)
        .filter(|w| pairs.contains(&(w[0], w[1])))
        .count();
    found as f64 / (content.len() - 1) as f64
}

/// Whether the best sentence holds the kind of thing the question asks for, beyond the
/// question's own words: a number for "how many/much", a year or month for "when", a
/// name for "who/where/which".
fn answer_type_found(question: &Sentence, best: &Sentence, evidence: &Evidence) -> bool {
    let lower: Vec<&str> = question.tokens.iter().map(|t| t.lower.as_str()).collect();
    let asks = |w: &str| lower.contains(&w);
    let wanted: &[AnchorKind] = if asks("many") || asks("much") || asks("percentage") {
        &[AnchorKind::Number]
    } else if asks("when") || asks("year") {
        &[AnchorKind::Year, AnchorKind::Month]
    } else if asks("who") || asks("where") || asks("whom") || asks("whose") || asks("which") {
        &[AnchorKind::Entity]
    } else {
        return !new_anchor_norms(question, best, evidence).is_empty();
    };
    anchors::extract(best, evidence)
        .iter()
        .any(|a| wanted.contains(&a.kind) && a.norms.iter().any(|n| !question.norms.contains(n)))
}

fn new_anchor_norms(question: &Sentence, best: &Sentence, evidence: &Evidence) -> Vec<String> {
    anchors::extract(best, evidence)
        .into_iter()
        .flat_map(|a| a.norms)
        .filter(|n| !question.norms.contains(n))
        .collect()
}

/// Share of the best sentence's content words the question does not have: a sentence
/// that only repeats the question answers nothing.
fn new_words(question: &Sentence, best: &Sentence) -> f64 {
    let content = best.content_norms();
    if content.is_empty() {
        return 0.0;
    }
    content
        .iter()
        .filter(|n| !question.norms.contains(**n))
        .count() as f64
        / content.len() as f64
}

/// Best cosine of `text` against the evidence's sentences and whole passages; zeros
/// without the model (the words-only coefficients ignore them).
fn cosines(text: &str, evidence: &Evidence, sem: Option<&SemanticModel>) -> [f64; 2] {
    let Some(model) = sem else {
        return [0.0; 2];
    };
    let mut sentences: Vec<&str> = Vec::new();
    let mut whole: Vec<String> = Vec::new();
    for p in &evidence.passages {
        for s in &p.sentences {
            sentences.push(&s.text);
        }
        if p.sentences.len() > 1 {
            whole.push(
                p.sentences
                    .iter()
                    .map(|s| s.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
            );
        }
    }
    let best = |texts: &[&str]| -> Option<f64> {
        (!texts.is_empty()).then(|| {
            model
                .similarities(text, texts)
                .into_iter()
                .fold(f64::MIN, f64::max)
        })
    };
    let sentence = best(&sentences).unwrap_or(0.0);
    let passage = best(&whole.iter().map(String::as_str).collect::<Vec<_>>()).unwrap_or(sentence);
    [sentence, passage]
}

/// One labelled text: where it comes from, the group it must stay with, the human
/// label, the features, and the score of the judge before learning (for comparison).
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub source: String,
    pub group: String,
    pub label: bool,
    pub baseline: f64,
    pub x: Vec<f64>,
}
