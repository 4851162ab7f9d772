//! The methodology section of a report: which judge scored what, on which prompts, with
//! what privacy, calibration and settings; every sentence derived from the run's data.

use serde::{Deserialize, Serialize};

use super::facts::{JudgeFacts, RunFacts};
use crate::error::Result;
use crate::judge;
use crate::metrics;
use crate::run::{self, RunTotals};
use crate::store;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Setting {
    pub name: String,
    pub value: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkipNote {
    pub metric: String,
    pub reason: String,
    pub count: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Methodology {
    pub judge: JudgeFacts,
    /// Metrics of this run that ask the judge.
    pub judged_metrics: Vec<String>,
    /// Judge configurations recorded with the results.
    pub judge_configs: Vec<String>,
    pub prompt_versions: Vec<String>,
    /// The offline judge's embedded semantic model, when it took part in this run.
    pub semantic_model: Option<String>,
    /// What the latest judge check of this run's judge found, in one sentence; what to
    /// do when there is none.
    pub judge_check: String,
    pub offline_caveat: Option<String>,
    pub calibration: String,
    pub settings: Vec<Setting>,
    pub totals: RunTotals,
    pub scored: u64,
    pub errors: u64,
    pub skipped: u64,
    pub skip_notes: Vec<SkipNote>,
    pub privacy: String,
}

/// "1 call", "3 calls".
pub(super) fn count(n: usize, noun: &str) -> String {
    format!("{n} {noun}{}", if n == 1 { "" } else { "s" })
}

/// The methodology of a run, worded from its facts.
pub(super) fn methodology(facts: &RunFacts) -> Result<Methodology> {
    let run = &facts.run;
    let judged_metrics: Vec<String> = run
        .metrics
        .iter()
        .filter(|id| metrics::find(id).is_some_and(|m| m.judge))
        .cloned()
        .collect();
    let judge = facts.judge.clone();
    let recorded = facts.judged_by.prompt_versions.clone();
    // Asked only when the offline judge judged something: finding out for a run that
    // recorded no prompt version loads the model, a second or more a report need not pay.
    let semantic_used = judge.offline
        && !judged_metrics.is_empty()
        && if recorded.is_empty() {
            matches!(
                crate::semantic::availability(),
                crate::semantic::Availability::Loaded { .. }
            )
        } else {
            recorded
                .iter()
                .any(|v| v == judge::offline::SEMANTIC_PROMPT_VERSION)
        };
    let prompt_versions = if judged_metrics.is_empty() {
        Vec::new()
    } else if !recorded.is_empty() {
        // What actually judged this run's items (runs before versions were recorded
        // fall through to what this build would use).
        recorded
    } else if judge.offline {
        vec![judge::offline::current_prompt_version().to_string()]
    } else {
        judge::task::TaskKind::ALL
            .iter()
            .map(|k| judge::prompt::prompt_version(*k).to_string())
            .collect()
    };
    let totals = facts.totals;
    let semantic_model = semantic_used.then(|| crate::semantic::MODEL_NAME.to_string());
    let offline_caveat = (judge.offline && !judged_metrics.is_empty())
        .then(|| offline_caveat(&prompt_versions, semantic_used));
    let (scored, errors, skipped, skip_notes) = result_counts(facts);
    let privacy =
        privacy_line(&judge, &judged_metrics, &totals) + &advisor_line(&facts.advisor_calls);
    let judge_configs = facts.judged_by.judge_configs.clone();
    let judge_check = judge_check_line(
        &facts.judge_checks,
        &prompt_versions,
        judged_metrics.is_empty(),
    );
    Ok(Methodology {
        judge_check,
        judge_configs,
        calibration: calibration_line(facts.calibration.as_ref()),
        settings: settings(run, &facts.pipeline)?,
        judge,
        judged_metrics,
        prompt_versions,
        semantic_model,
        offline_caveat,
        totals,
        scored,
        errors,
        skipped,
        skip_notes,
        privacy,
    })
}

fn privacy_line(judge: &JudgeFacts, judged_metrics: &[String], totals: &RunTotals) -> String {
    if judged_metrics.is_empty() {
        return "No item text left this machine: every metric of this run is computed locally, without a judge."
            .to_string();
    }
    if judge.offline {
        return "No item text left this machine: the built-in offline judge runs locally."
            .to_string();
    }
    let calls = format!(
        "{} in this run, {} answered from the local cache",
        count(totals.calls as usize, "call"),
        totals.cache_hits
    );
    match &judge.host {
        _ if !judge.profile_found => format!(
            "Item text was sent to the judge profile '{}', which no longer exists, so its host cannot be named ({calls}).",
            judge.profile
        ),
        Some(host) if judge::accounting::is_loopback(&format!("http://{host}")) => format!(
            "Item text (questions, answers, contexts) was sent to a judge service on this machine ({host}, model {}); \
             nothing was sent to an external service ({calls}).",
            judge.model
        ),
        Some(host) => format!(
            "Item text (questions, answers, contexts) was sent to the external service {host} (judge profile '{}', \
             model {}) ({calls}).",
            judge.profile, judge.model
        ),
        None => format!(
            "Item text was sent to the judge of profile '{}', whose address is not recorded ({calls}).",
            judge.profile
        ),
    }
}

/// Results scored, errored and skipped over the run's metrics, and why they were
/// skipped, metric by metric.
fn result_counts(view: &RunFacts) -> (u64, u64, u64, Vec<SkipNote>) {
    let mut skip_notes = Vec::new();
    let (mut scored, mut errors, mut skipped) = (0, 0, 0);
    for id in &view.run.metrics {
        let Some(m) = view.summary.metrics.get(id) else {
            continue;
        };
        scored += m.stats.n;
        errors += m.stats.errors;
        skipped += m.stats.skipped;
        skip_notes.extend(m.skip_reasons.iter().map(|(reason, count)| SkipNote {
            metric: id.clone(),
            reason: reason.clone(),
            count: *count,
        }));
    }
    (scored, errors, skipped, skip_notes)
}

/// What a reader must know about scores the offline judge gave: how it decides, and
/// whether the embedded semantic model took part.
fn offline_caveat(prompt_versions: &[String], semantic_used: bool) -> String {
    format!(
        "The judged scores in this report come from Ragnosis's built-in offline judge ({}), not from a \
         language model. It applies fixed rules (word overlap, matching of names, numbers and dates, sentence \
         splitting, readability){}, so it is free, private and gives the same verdict every time, but it cannot \
         follow reasoning the way a model judge does, and claim support is decided on words and anchors, not \
         on entailment. Read its scores as a screening signal and confirm important findings with an LLM judge.",
        prompt_versions.join(", "),
        if semantic_used {
            format!(
                ", with the embedded semantic model {} for relevance, coverage and aspects addressed",
                crate::semantic::MODEL_NAME
            )
        } else {
            format!(" only: the semantic model {} was not in use, so paraphrase went unseen", crate::semantic::MODEL_NAME)
        }
    )
}

/// What the advisor sent to a model about the run, after the judge's line: the questions
/// asked, each with the run's figures and the questions of the items named, and where
/// they went. Empty when no model was asked.
fn advisor_line(sent: &[store::advisor_calls::Sent]) -> String {
    sent.iter()
        .map(|(judge, host, questions, items, tokens, cost)| {
            let to = match host {
                Some(h) if judge::accounting::is_loopback(&format!("http://{h}")) => {
                    format!("a model on this machine ({judge})")
                }
                Some(h) => format!("the external service {h} ({judge})"),
                None => judge.clone(),
            };
            format!(
                " The advisor sent {} about this run to {to}, each with the run's figures and actions and the questions of {items} named items ({tokens} tokens, ${cost:.4}).",
                count(*questions as usize, "question")
            )
        })
        .collect()
}

/// The latest judge check of the judge behind this run's results: same configuration,
/// and (when both recorded one) a prompt version in common, so a check of the lexical
/// offline judge is not cited for a run the semantic one judged.
fn judge_check_line(
    checks: &[crate::judge_check::JudgeCheck],
    prompt_versions: &[String],
    no_judge: bool,
) -> String {
    if no_judge {
        return "Not needed: no metric of this run asks a judge.".into();
    }
    for check in checks {
        let shares_version = check.prompt_versions.is_empty()
            || prompt_versions.is_empty()
            || check
                .prompt_versions
                .iter()
                .any(|v| prompt_versions.contains(v));
        if shares_version {
            let certificate = check
                .certificate
                .as_ref()
                .map(|c| format!(" Certificate: {}", c.sentence()))
                .unwrap_or_default();
            return format!(
                "{}{certificate} (Sample {}; run it again in Settings → Judges or with `ragnosis judge-check`.)",
                check.headline(),
                check.sample_version
            );
        }
    }
    "No judge check of this judge is on record, so how far its verdicts agree with people is unmeasured here: \
        run `ragnosis judge-check` or Settings → Judges → Check this judge, then write the report again."
        .into()
}

fn calibration_line(stored: Option<&serde_json::Value>) -> String {
    use crate::trust::calibration::Calibration;
    let Some(json) = stored else {
        return "Not run: the judge was not calibrated against other judge configurations for this run.".into();
    };
    let Ok(cal) = Calibration::deserialize(json) else {
        return "A calibration was stored for this run but could not be read by this version."
            .into();
    };
    let parts: Vec<String> = cal
        .metrics
        .iter()
        .filter_map(|m| {
            m.mean_agreement
                .map(|a| format!("{} {:.2} ({} to review)", m.metric, a, m.needs_review.len()))
        })
        .collect();
    format!(
        "Agreement across {} judge configurations (1 − spread of scores, items below {:.2} need review): {}.",
        cal.runs.len(),
        cal.review_below,
        if parts.is_empty() { "no item was scored by every configuration".to_string() } else { parts.join("; ") }
    )
}

fn settings(
    run: &store::runs::RunRow,
    pipeline: &store::pipeline_profiles::DatasetProfile,
) -> Result<Vec<Setting>> {
    let config = run::run_config(run)?;
    let has = |id: &str| run.metrics.iter().any(|m| m == id);
    let mut out = vec![Setting {
        name: "Mode".into(),
        value: run.mode.clone(),
    }];
    let selection = &config.selection;
    let items = match (selection.limit, selection.sample) {
        (None, None) => format!("all {} items of the dataset", run.item_count),
        (Some(l), None) => format!("the first {l} items"),
        (limit, Some(s)) => format!(
            "a random sample of {s} items (seed {}){}",
            selection.seed,
            limit
                .map(|l| format!(" from the first {l}"))
                .unwrap_or_default()
        ),
    };
    out.push(Setting {
        name: "Items".into(),
        value: items,
    });
    if has("reference.recall_at_k") || has("reference.mrr_at_k") {
        out.push(Setting {
            name: "k for recall@k and MRR@k".into(),
            value: config.metric_config.k.to_string(),
        });
    }
    if run.metrics.iter().any(|m| m.starts_with("citation.")) {
        let pattern = &config.metric_config.citation_pattern;
        let value = if *pattern == metrics::citation::DEFAULT_PATTERN {
            "the default: [ID: 17], [17], [doc17] and the same in full-width brackets".to_string()
        } else {
            pattern.clone()
        };
        out.push(Setting {
            name: "Citation pattern".into(),
            value,
        });
    }
    if has("ragvue.retrieval_relevance") {
        let tau = config.tau.unwrap_or(metrics::ragvue::DEFAULT_TAU);
        out.push(Setting {
            name: "Chunk relevance threshold τ".into(),
            value: format!("{tau}"),
        });
    }
    if has("ragvue.answer_overall") {
        out.push(Setting {
            name: "answer_overall weights".into(),
            value: config.weights.name.clone(),
        });
    }
    if let Some(budget) = config.budget_usd {
        out.push(Setting {
            name: "Budget".into(),
            value: format!("${budget:.2}"),
        });
    }
    out.push(Setting {
        name: "Judge cache".into(),
        value: if config.use_cache {
            "used".into()
        } else {
            "bypassed (fresh verdicts)".into()
        },
    });
    out.extend(pipeline_setting(pipeline));
    Ok(out)
}

/// The user's pipeline profile as a setting line, when they gave one.
fn pipeline_setting(pipeline: &store::pipeline_profiles::DatasetProfile) -> Option<Setting> {
    if pipeline.profile.is_empty() {
        return None;
    }
    let from = match pipeline.inherited_from {
        Some(id) => format!(" (as given for dataset {id}, an earlier version)"),
        None => String::new(),
    };
    Some(Setting {
        name: "Your pipeline".into(),
        value: format!("{}{from}", pipeline.profile.describe()),
    })
}
