//! The offline judge: a deterministic judge in Rust, the default when no provider is
//! configured, so Ragnosis does its main job on a fresh machine with no key. It answers
//! every `Task` of the judge protocol with lexical evidence: sentence-level claim
//! splitting, content-word overlap, exact agreement of anchors (named entities, numbers,
//! dates), question aspects from content phrases, readability and structure.
//!
//! Its scores are marked `judge: offline` wherever they appear: they are a fast,
//! transparent approximation, not a model's understanding.
//!
//! Layout, one folder per question, bottom up: `words` (vocabulary, tokens and stems,
//! analysed passages, anchors — names, numbers, dates — and what a sentence does: claim,
//! courtesy, referral, decline) → `claims` (is each claim backed: splitting, conflicts,
//! scoping, the support decision with its tuned thresholds, the reference) → `coverage`
//! (do the passages and the answer cover the question: chunk relevance, aspects) →
//! `faithfulness` (the claims against every chunk, the reasoning hops, the learned
//! decisions) → `answer` (the answer on its own: review, style, scorecard); `fit` measures
//! the support decision against human labels (WiCE, BEGIN) and reads the dev sets the
//! learned decisions are fitted on. This file answers each `Task` from them.
//!
//! Where meaning matters more than words — chunk relevance, aspect coverage, answer
//! relevance, aspects addressed — the embedded semantic model (`crate::semantic`,
//! all-MiniLM-L6-v2) adds its similarity through `meaning`, when installed. Claim
//! support stays lexical: no entailment model ships in a registry package here, and
//! sentence similarity cannot tell "the first cells" from "the last cells".
//! Without the model every verdict is lexical and costs well under a millisecond.

mod answer;
mod claims;
mod coverage;
pub mod faithfulness;
pub mod fit;
mod insights;
#[cfg(test)]
mod tests;
mod words;

use std::sync::Arc;
use std::time::Instant;

use super::task::{Task, Verdict};
use super::{CallContext, Judge, JudgeError, JudgeIdentity, Judgement, Usage};
use crate::semantic::SemanticModel;
use claims::claim::Claim;
use claims::support::assess;
pub use claims::support::SupportParams;
use ragnosis_types::item::Label;
use words::evidence::Evidence;

/// The offline judge's "model" name, part of every result's judge configuration.
pub const MODEL: &str = "ragnosis-offline-1";
/// Bumped whenever the offline judge's behaviour changes, so stale verdicts are not
/// reused. This one names the rules alone (`OfflineJudge::default`).
pub const PROMPT_VERSION: &str = "offline-12";
/// The version of verdicts decided by the learned coefficients, words only (the model
/// absent or turned off). The suffix names the shipped coefficients: a test fails when
/// they change and this is not bumped with them.
pub const LEARNED_PROMPT_VERSION: &str = "offline-12+learned-0cf76871";
/// The version of verdicts that also used the semantic model: the judge users get.
pub const SEMANTIC_PROMPT_VERSION: &str = "offline-12+minilm+learned-0cf76871";

/// The version the offline judge of this process writes: semantic when the model loads.
pub fn current_prompt_version() -> &'static str {
    if crate::semantic::shared().is_some() {
        SEMANTIC_PROMPT_VERSION
    } else {
        LEARNED_PROMPT_VERSION
    }
}

/// `Default` is the rules alone (lexical, deterministic to the bit, used by the judge
/// simulator and tests that pin rule verdicts); `standard` is the judge users get: the
/// learned decisions, with the embedded model's cosines when it is installed.
pub struct OfflineJudge {
    identity: JudgeIdentity,
    params: SupportParams,
    semantic: Option<Arc<SemanticModel>>,
    learned: bool,
}

impl Default for OfflineJudge {
    fn default() -> Self {
        OfflineJudge {
            identity: JudgeIdentity::offline(),
            params: SupportParams::default(),
            semantic: None,
            learned: false,
        }
    }
}

impl OfflineJudge {
    /// Lexical evidence plus the embedded semantic model when it is installed (and not
    /// turned off); see `crate::semantic::availability` for which.
    pub fn standard() -> OfflineJudge {
        OfflineJudge {
            semantic: crate::semantic::shared(),
            learned: true,
            ..OfflineJudge::default()
        }
    }

    pub fn uses_semantic_model(&self) -> bool {
        self.semantic.is_some()
    }

    pub fn prompt_version(&self) -> &'static str {
        match (self.learned, self.semantic.is_some()) {
            (true, true) => SEMANTIC_PROMPT_VERSION,
            (true, false) => LEARNED_PROMPT_VERSION,
            (false, _) => PROMPT_VERSION,
        }
    }

    /// Whether one of the learned decisions `task` asks for lies within its cascade
    /// margin: a claim that may or may not be supported, an aspect the chunks may or may
    /// not answer. Tasks without a learned decision never are (nor any task of the rules
    /// alone, which give no probability).
    pub fn is_unsure(&self, task: &Task) -> bool {
        if !self.learned {
            return false;
        }
        let decisions = faithfulness::learned::shipped();
        let sem = self.semantic.as_deref();
        let semantic = sem.is_some();
        let unsure_claims = |claims: &[Claim], evidence: &Evidence| {
            claims.iter().any(|claim| {
                let (x, _) =
                    faithfulness::features::support(claim, evidence, &self.params, sem, None);
                decisions.support.is_unsure(semantic, &x)
            })
        };
        let unsure_aspects = |aspects: &[String], chunks: &[String]| {
            let evidence = Evidence::new(chunks);
            aspects.iter().any(|a| {
                let (x, _) = faithfulness::features::answerability(a, &evidence, chunks, sem);
                decisions.answerability.is_unsure(semantic, &x)
            })
        };
        let cleaned = without_citations(task);
        match cleaned.as_ref() {
            Task::ClaimLabels { claims, passages } if !passages.is_empty() => {
                let evidence = Evidence::new(passages);
                let claims: Vec<Claim> = claims.iter().map(|c| Claim::new(c, &evidence)).collect();
                unsure_claims(&claims, &evidence)
            }
            Task::Coverage {
                aspects, chunks, ..
            } if !chunks.is_empty() => unsure_aspects(aspects, chunks),
            Task::Grounding {
                question,
                answer,
                chunks,
            } if !chunks.is_empty() => {
                let evidence = Evidence::new(chunks).with_question(question);
                unsure_claims(
                    &faithfulness::grounding::answer_claims(question, answer, &evidence),
                    &evidence,
                )
            }
            Task::Reasoning {
                question,
                answer,
                chunks,
            } if !chunks.is_empty() => {
                let evidence = Evidence::new(chunks).with_question(question);
                unsure_aspects(&coverage::aspects::extract(question), chunks)
                    || unsure_claims(
                        &faithfulness::grounding::answer_claims(question, answer, &evidence),
                        &evidence,
                    )
            }
            _ => false,
        }
    }

    /// Which of `aspects` the chunks answer (the rules), with the learned probability
    /// when this judge uses the learned models.
    fn coverage(&self, aspects: &[String], chunks: &[String]) -> Vec<super::task::AspectCoverage> {
        let sem = self.semantic.as_deref();
        match self.learned_models(|d| &d.answerability) {
            Some(model) => learned_coverage(aspects, chunks, model, sem),
            None => coverage::relevance::coverage(aspects, chunks, sem),
        }
    }

    /// The learned models of one judgement, when this judge uses them.
    fn learned_models(
        &self,
        pick: impl Fn(
            &'static faithfulness::learned::Decisions,
        ) -> &'static faithfulness::learned::Variants,
    ) -> Option<&'static faithfulness::learned::Variants> {
        self.learned.then(|| pick(faithfulness::learned::shipped()))
    }

    /// A judge with other support thresholds than the tuned defaults; for calibration
    /// experiments only (verdicts of such a judge are not what `PROMPT_VERSION` names).
    pub fn with_params(params: SupportParams) -> OfflineJudge {
        OfflineJudge {
            params,
            ..OfflineJudge::default()
        }
    }

    pub fn params(&self) -> &SupportParams {
        &self.params
    }

    /// Answers a task. Pure and deterministic.
    pub fn verdict(&self, task: &Task) -> Verdict {
        let cleaned = without_citations(task);
        let sem = self.semantic.as_deref();
        match cleaned.as_ref() {
            Task::Aspects { question } => Verdict::Aspects {
                aspects: coverage::aspects::extract(question),
                structure_note: answer::scorecard::structure_note(question),
            },
            Task::ChunkRelevance { question, chunks } => Verdict::ChunkRelevance {
                chunks: coverage::relevance::score_chunks(question, chunks, sem),
            },
            Task::Coverage {
                aspects, chunks, ..
            } => Verdict::Coverage {
                aspects: self.coverage(aspects, chunks),
            },
            Task::AnswerReview {
                question,
                answer,
                aspects,
            } => Verdict::AnswerReview(answer::review::review(question, answer, aspects, sem)),
            Task::Grounding {
                question,
                answer,
                chunks,
            } => Verdict::Grounding(faithfulness::grounding::ground(
                question,
                answer,
                chunks,
                &self.params,
                self.learned_models(|d| &d.support).map(|m| (m, sem)),
            )),
            Task::Reasoning {
                question,
                answer,
                chunks,
            } => Verdict::Reasoning(faithfulness::reasoning::reason(
                question,
                answer,
                chunks,
                &self.params,
                sem,
            )),
            Task::Claims { text, .. } => Verdict::Claims {
                claims: claims::split::split(text),
            },
            Task::ClaimLabels { claims, passages } => Verdict::ClaimLabels {
                labels: claim_labels(
                    claims,
                    passages,
                    &self.params,
                    self.learned_models(|d| &d.support).map(|m| (m, sem)),
                ),
            },
            Task::Scorecard(card) => {
                Verdict::Scorecard(answer::scorecard::scorecard(card, &self.params, sem))
            }
            Task::Insights(run) => Verdict::Insights(template_insights(run)),
            // Never reached through `judge`, which refuses generation: an empty draft
            // is the honest answer of a judge that cannot write test cases.
            Task::DraftQuestion { .. } => Verdict::DraftQuestion {
                question: String::new(),
            },
            Task::DraftAnswer { .. } => Verdict::DraftAnswer {
                answer: String::new(),
            },
            // Asked of a model only (`crate::advisor` answers without one): empty, so
            // it fails validation rather than read as an answer.
            Task::Advice(_) => Verdict::Advice(Default::default()),
            // Whether an answer is polite, promises too much or cites its section is a
            // judgement of meaning: the offline judge gives no score rather than a
            // made-up one. (Criteria it can check, such as a regular expression, never
            // reach a judge: `criteria::check`.)
            Task::Criterion(_) => Verdict::Criterion(super::task::CriterionVerdict {
                reasoning: needs_language_model_reason(),
                score: None,
            }),
        }
    }
}

/// Why an LLM-only criterion is unmeasured under the offline judge: the explanation of
/// its skipped results starts with these words.
pub const NEEDS_LANGUAGE_MODEL: &str = "needs a language model judge";

/// The sentence a skipped result carries when the run's judge is the offline one.
pub fn needs_language_model_reason() -> String {
    format!(
        "{NEEDS_LANGUAGE_MODEL}: the offline judge checks only regular expressions, phrase lists, lengths and \
         languages; run with an LLM judge to measure it"
    )
}

/// The offline judge's insights for a run: templates over its statistics and the
/// rule-table baseline. Also the fallback when a model judge cannot write them.
pub fn template_insights(task: &super::task::InsightsTask) -> super::task::InsightsVerdict {
    insights::write(task)
}

/// The task with citation markers ("[ID: W01]", "[F01]", "[1][3]") removed from the
/// answer: they point at a passage and assert nothing, and read as words they would be
/// unconfirmed names in every cited claim. The pattern is the citation metrics' own
/// (`text::CITATION_PATTERN`), so what counts as a citation is decided in one place.
fn without_citations(task: &Task) -> std::borrow::Cow<'_, Task> {
    use std::borrow::Cow;
    let pattern = ragnosis_types::text::citation_regex();
    let strip = |text: &String| -> Option<String> {
        if !pattern.is_match(text) {
            return None;
        }
        let cleaned = pattern.replace_all(text, "");
        // "... 2 years [W01]." leaves "... 2 years ." behind: close the gap.
        let tidy = cleaned
            .replace(" .", ".")
            .replace(" ,", ",")
            .replace(" ;", ";")
            .replace("  ", " ");
        Some(tidy.trim().to_string())
    };
    let mut owned = task.clone();
    let changed = match &mut owned {
        Task::AnswerReview { answer, .. }
        | Task::Grounding { answer, .. }
        | Task::Reasoning { answer, .. } => strip(answer).map(|a| *answer = a).is_some(),
        Task::Claims { text, .. } => strip(text).map(|t| *text = t).is_some(),
        Task::Scorecard(card) => strip(&card.answer).map(|a| card.answer = a).is_some(),
        _ => false,
    };
    if changed {
        Cow::Owned(owned)
    } else {
        Cow::Borrowed(task)
    }
}

/// `labels[claim][passage]`: each claim checked against each passage alone, with word
/// rarity measured over all the passages.
///
/// With a learned model, whether the claim is supported at all is its decision over all
/// the passages, and the rules only say where: a passage the rules entail stays entailed
/// only when the model agrees, and when the model finds support the rules placed
/// nowhere, the best-matching passage holds it. A contradiction stays the rules' call:
/// it names the words that disagree.
fn claim_labels(
    claims: &[String],
    passages: &[String],
    params: &SupportParams,
    learned: Option<(&faithfulness::learned::Variants, Option<&SemanticModel>)>,
) -> Vec<Vec<Label>> {
    let evidence = Evidence::new(passages);
    claims
        .iter()
        .map(|text| {
            let claim = Claim::new(text, &evidence);
            let mut row: Vec<Label> = (0..passages.len())
                .map(|p| assess(&claim, &evidence, &[p], params).label)
                .collect();
            if let Some((model, sem)) = learned {
                let (x, whole) =
                    faithfulness::features::support(&claim, &evidence, params, sem, None);
                let (_, supported) = model.decide(sem.is_some(), &x);
                for label in row.iter_mut() {
                    if label.is_entailment() && !supported {
                        *label = Label::Neutral;
                    }
                }
                if supported && !row.iter().any(|l| l.is_entailment()) {
                    if let Some(p) = whole.passage.filter(|p| row[*p] == Label::Neutral) {
                        row[p] = Label::Entailment;
                    }
                }
            }
            row
        })
        .collect()
}

/// The rules' coverage of each aspect, with the learned model's probability that the
/// chunks answer it. The decision stays the rules': the model was fitted on SQuAD 2.0,
/// whose unanswerable questions are written to look answerable, and as a decision it
/// moved correct RAG items into "retrieval miss" and missed abstentions the rules catch
/// (the hand-written sets in `tests/diagnosis/`). Its probability ranks better and is
/// what the cascade reads to know when the offline judge is unsure.
fn learned_coverage(
    aspects: &[String],
    chunks: &[String],
    model: &faithfulness::learned::Variants,
    sem: Option<&SemanticModel>,
) -> Vec<super::task::AspectCoverage> {
    let evidence = Evidence::new(chunks);
    let mut rules = coverage::relevance::coverage(aspects, chunks, sem);
    for c in rules.iter_mut() {
        let (x, _) = faithfulness::features::answerability(&c.aspect, &evidence, chunks, sem);
        c.confidence = Some(model.decide(sem.is_some(), &x).0);
    }
    rules
}

/// Whether any sentence of a text says the documents do not answer ("No. The warranty
/// covers defects only; the documents say nothing about theft."): a reference answer that
/// says so witnesses that declining was right, wherever it says it.
pub fn says_documents_lack(text: &str) -> bool {
    ragnosis_types::text::sentences(text)
        .into_iter()
        .any(words::speech::any_clause_declines)
}

/// Why the offline judge writes no test cases: it has no language model, and a question
/// made from templates would test nothing a user cares about.
pub const NO_GENERATION: &str = "the built-in offline judge cannot write questions or answers: generating a test set \
needs a language model judge (a local server such as Ollama or llama.cpp, or a hosted model; add one in Settings \
or with `ragnosis judges add`)";

#[async_trait::async_trait]
impl Judge for OfflineJudge {
    fn identity(&self) -> &JudgeIdentity {
        &self.identity
    }

    fn weighs_passages_together(&self) -> bool {
        self.learned
    }

    async fn judge(&self, task: &Task, ctx: &CallContext) -> Result<Judgement, JudgeError> {
        if ctx.cancel.is_cancelled() {
            return Err(JudgeError::Cancelled);
        }
        if task.is_generation() {
            return Err(JudgeError::Config(NO_GENERATION.into()));
        }
        let started = Instant::now();
        let verdict = self.verdict(task);
        Ok(Judgement {
            verdict,
            usage: Usage::default(),
            cost_usd: 0.0,
            cached: false,
            latency_ms: started.elapsed().as_millis() as u64,
            prompt_version: self.prompt_version().into(),
            shared_call: false,
        })
    }
}
