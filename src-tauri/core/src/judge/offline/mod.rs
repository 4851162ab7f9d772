//! The offline judge: a deterministic judge in Rust, the default when no provider is
//! configured, so Ragnosis does its main job on a fresh machine with no key. It answers
//! every `Task` of the judge protocol with lexical evidence: sentence-level claim
//! splitting, content-word overlap, exact agreement of anchors (named entities, numbers,
//! dates), question aspects from content phrases, readability and structure.
//!
//! Its scores are marked `judge: offline` wherever they appear: they are a fast,
//! transparent approximation, not a model's understanding.
//!
//! Layout, bottom up: `vocabulary` (closed word classes, phrase lists) → `lexicon`
//! (tokens, stemming) → `evidence` (analysed passages, within-item word rarity) →
//! `anchors` (names, numbers, years, months) → `speech` (what a sentence does: claim,
//! courtesy, referral, decline) → `claims` (claim splitting, abstention)
//! → `support` + `conflicts` (does evidence back a claim; tuned thresholds) → one
//! module per verdict: `aspects`, `relevance` (chunk relevance, coverage), `review` +
//! `style` (answer review), `grounding`, `reasoning`; `calibration` measures the
//! support decision against human labels (WiCE, BEGIN).
//!
//! Where meaning matters more than words — chunk relevance, aspect coverage, answer
//! relevance, aspects addressed — the embedded semantic model (`crate::semantic`,
//! all-MiniLM-L6-v2) adds its similarity through `meaning`, when installed. Claim
//! support stays lexical: no entailment model ships in a registry package here, and
//! sentence similarity cannot tell "the first cells" from "the last cells".
//! Without the model every verdict is lexical and costs well under a millisecond.

mod anchors;
mod aspects;
pub mod calibration;
mod claims;
mod conflicts;
mod evidence;
mod grounding;
mod insights;
mod lexicon;
mod meaning;
mod reasoning;
mod relevance;
mod review;
mod scorecard;
mod speech;
mod style;
mod support;
#[cfg(test)]
mod support_tests;
#[cfg(test)]
mod tables_tests;
#[cfg(test)]
mod tests;
mod vocabulary;

use std::sync::Arc;
use std::time::Instant;

use super::task::{Task, Verdict};
use super::{CallContext, Judge, JudgeError, JudgeIdentity, Judgement, Usage};
use crate::item::Label;
use crate::semantic::SemanticModel;
use evidence::Evidence;
pub use support::SupportParams;
use support::{assess, Claim};

/// The offline judge's "model" name, part of every result's judge configuration.
pub const MODEL: &str = "ragnosis-offline-1";
/// Bumped whenever the offline judge's behaviour changes, so stale verdicts are not reused.
pub const PROMPT_VERSION: &str = "offline-3";
/// The version of verdicts that also used the semantic model.
pub const SEMANTIC_PROMPT_VERSION: &str = "offline-3+minilm";

/// The version the offline judge of this process writes: semantic when the model loads.
pub fn current_prompt_version() -> &'static str {
    if crate::semantic::shared().is_some() {
        SEMANTIC_PROMPT_VERSION
    } else {
        PROMPT_VERSION
    }
}

/// `Default` is the purely lexical judge (deterministic to the bit, used by the judge
/// simulator and tests that pin lexical verdicts); `standard` is the judge users get.
pub struct OfflineJudge {
    identity: JudgeIdentity,
    params: SupportParams,
    semantic: Option<Arc<SemanticModel>>,
}

impl Default for OfflineJudge {
    fn default() -> Self {
        OfflineJudge {
            identity: JudgeIdentity::offline(),
            params: SupportParams::default(),
            semantic: None,
        }
    }
}

impl OfflineJudge {
    /// Lexical evidence plus the embedded semantic model when it is installed (and not
    /// turned off); see `crate::semantic::availability` for which.
    pub fn standard() -> OfflineJudge {
        OfflineJudge {
            semantic: crate::semantic::shared(),
            ..OfflineJudge::default()
        }
    }

    pub fn uses_semantic_model(&self) -> bool {
        self.semantic.is_some()
    }

    pub fn prompt_version(&self) -> &'static str {
        if self.semantic.is_some() {
            SEMANTIC_PROMPT_VERSION
        } else {
            PROMPT_VERSION
        }
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
                aspects: aspects::extract(question),
                structure_note: scorecard::structure_note(question),
            },
            Task::ChunkRelevance { question, chunks } => Verdict::ChunkRelevance {
                chunks: relevance::score_chunks(question, chunks, sem),
            },
            Task::Coverage {
                aspects, chunks, ..
            } => Verdict::Coverage {
                aspects: relevance::coverage(aspects, chunks, sem),
            },
            Task::AnswerReview {
                question,
                answer,
                aspects,
            } => Verdict::AnswerReview(review::review(question, answer, aspects, sem)),
            Task::Grounding {
                question,
                answer,
                chunks,
            } => Verdict::Grounding(grounding::ground(question, answer, chunks, &self.params)),
            Task::Reasoning {
                question,
                answer,
                chunks,
            } => Verdict::Reasoning(reasoning::reason(
                question,
                answer,
                chunks,
                &self.params,
                sem,
            )),
            Task::Claims { text, .. } => Verdict::Claims {
                claims: claims::split(text),
            },
            Task::ClaimLabels { claims, passages } => Verdict::ClaimLabels {
                labels: claim_labels(claims, passages, &self.params),
            },
            Task::Scorecard(card) => {
                Verdict::Scorecard(scorecard::scorecard(card, &self.params, sem))
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
        }
    }
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
    let pattern = crate::text::citation_regex();
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
fn claim_labels(claims: &[String], passages: &[String], params: &SupportParams) -> Vec<Vec<Label>> {
    let evidence = Evidence::new(passages);
    claims
        .iter()
        .map(|text| {
            let claim = Claim::new(text, &evidence);
            (0..passages.len())
                .map(|p| assess(&claim, &evidence, &[p], params).label)
                .collect()
        })
        .collect()
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
        })
    }
}
