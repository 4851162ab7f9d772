//! The longer sections of `Report`: diagnosis, action items, comparison, methodology and
//! the appendix.

use ragnosis_core::analysis::compare::items::ItemChanges;
use ragnosis_core::analysis::compare::{Flag, FlippedItem};
use ragnosis_core::analysis::diagnosis::MetricScore;
use ragnosis_core::metrics::{self, Status};
use ragnosis_core::view::report::{item_label, CaseView};
use ragnosis_core::view::{Detail, ReportView};

use super::format::{percent, score, score_or_dash, signed};
use super::{
    field, Action, AlignmentRow, AlignmentSection, Appendix, AppendixItem, Case, ComparisonSection,
    DeltaRow, DiagnosisSection, Field, FlipGroup, InsightsSection, MethodologySection,
    PatternBlock, ResultRow,
};

/// Flipped items listed per metric and direction; the rest are counted.
const FLIPS_LISTED: usize = 15;

pub fn judge_name(view: &ReportView) -> String {
    let j = &view.methodology.judge;
    if view.methodology.judged_metrics.is_empty() {
        "none needed: every metric of this run is computed without a judge".into()
    } else if j.offline {
        let m = &view.methodology;
        format!(
            "built-in offline judge ({}), deterministic, no LLM{}",
            m.prompt_versions.join(", "),
            m.semantic_model
                .as_deref()
                .map(|model| format!("; embedded semantic model {model}"))
                .unwrap_or_default()
        )
    } else if j.profile_found {
        format!(
            "{} ({}, model {}, temperature {})",
            j.profile, j.kind, j.model, j.temperature
        )
    } else {
        format!("{} (profile no longer configured)", j.profile)
    }
}

fn scores_line(scores: &[MetricScore]) -> String {
    scores
        .iter()
        .map(|s| format!("{} {}", s.metric, score(s.score)))
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn diagnosis(view: &ReportView) -> DiagnosisSection {
    let Some(d) = &view.run.summary.diagnosis else {
        return DiagnosisSection {
            intro: "No failure patterns were checked: the patterns read the judged RAGVUE metrics (retrieval \
                    relevance and coverage, strict faithfulness, completeness and the others), and this run has \
                    none of them. The metric table and the appendix still show where items scored low."
                .into(),
            patterns: Vec::new(),
        };
    };
    let mut intro = if d.patterns.is_empty() {
        format!(
            "None of the {} checked items matched a failure pattern.",
            d.items_checked
        )
    } else {
        format!(
            "{} of {} checked items ({}) show at least one failure pattern. Each pattern below lists its two worst \
             items with the evidence that failed.",
            d.items_with_patterns,
            d.items_checked,
            percent(d.items_with_patterns as f64 / d.items_checked.max(1) as f64)
        )
    };
    if !d.unchecked.is_empty() && d.items_checked > 0 {
        let names: Vec<String> = d.unchecked.iter().map(|p| p.label()).collect();
        intro.push_str(&format!(
            " Not checked, because the metrics they read were not scored: {}.",
            names.join(", ")
        ));
    }
    intro.push_str(&ragnosis_core::analysis::diagnosis::uncertainty_note(d));
    let patterns = view
        .patterns
        .iter()
        .map(|p| PatternBlock {
            heading: format!("{} · {}", p.summary.letter, p.summary.name),
            stage: p.summary.stage.label().to_string(),
            count: format!(
                "{} of {} checked items ({})",
                p.summary.count,
                d.items_checked,
                percent(p.summary.share)
            ),
            description: p.summary.description.clone(),
            cases: p.cases.iter().map(case).collect(),
        })
        .collect();
    DiagnosisSection { intro, patterns }
}

fn case(c: &CaseView) -> Case {
    let e = &c.evidence;
    Case {
        label: c.label.clone(),
        question: capped(&c.question),
        answer: c
            .answer_excerpt
            .clone()
            .unwrap_or_else(|| "(no answer)".into()),
        scores: scores_line(&c.scores),
        claims: e
            .unsupported_claims
            .iter()
            .map(|cl| {
                let claim = capped(&cl.claim);
                if cl.reason.is_empty() {
                    format!("{}: “{claim}”", cl.support)
                } else {
                    format!("{}: “{claim}” — {}", cl.support, capped(&cl.reason))
                }
            })
            .collect(),
        chunks: e
            .irrelevant_chunks
            .iter()
            .map(|ch| {
                let doc = ch
                    .doc_id
                    .as_ref()
                    .map(|d| format!(" ({d})"))
                    .unwrap_or_default();
                let reason = if ch.reason.is_empty() {
                    String::new()
                } else {
                    format!(" — {}", ch.reason)
                };
                // `+ 0.0` turns a negative zero into "0.00", not "-0.00".
                format!(
                    "chunk {}{doc}, relevance {:.2}: “{}”{reason}",
                    ch.rank,
                    ch.relevance.clamp(0.0, 1.0) + 0.0,
                    ch.excerpt
                )
            })
            .collect(),
        aspects: e
            .missing_aspects
            .iter()
            .map(|a| format!("missing from the {}: {}", a.missing_from, a.aspect))
            .collect(),
    }
}

/// The run's advice in words: per-metric insights, the strong metrics and the failure
/// taxonomy counts.
pub fn insights(view: &ReportView) -> Option<InsightsSection> {
    let insights = view.insights.as_ref();
    let taxonomy = view.run.summary.taxonomy.as_ref();
    if insights.is_none() && taxonomy.is_none() {
        return None;
    }
    Some(InsightsSection {
        note: insights.map(|i| i.note.clone()).unwrap_or_default(),
        metrics: insights
            .map(|i| {
                i.insights
                    .iter()
                    .map(|m| Field {
                        label: m.metric.clone(),
                        value: m.text.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        strong: insights.filter(|i| !i.strong.is_empty()).map(|i| {
            format!(
                "Strong (mean at least 0.95; changing them will not move much): {}.",
                i.strong.join(", ")
            )
        }),
        taxonomy: taxonomy
            .map(|t| {
                t.counts
                    .iter()
                    .map(|(category, n)| Field {
                        label: category.replace('_', " "),
                        value: format!("{n} of {}", t.items),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        taxonomy_items: taxonomy.map(|t| t.items),
    })
}

pub fn actions(view: &ReportView) -> Vec<Action> {
    view.actions()
        .iter()
        .enumerate()
        .map(|(i, a)| Action {
            rank: (i + 1).to_string(),
            impact: match a.impact.as_str() {
                "none" => "Note".to_string(),
                other => {
                    let mut label: Vec<char> = other.chars().collect();
                    if let Some(first) = label.first_mut() {
                        *first = first.to_ascii_uppercase();
                    }
                    format!("{} impact", label.into_iter().collect::<String>())
                }
            },
            title: a.title.clone(),
            whats_wrong: a.whats_wrong.clone(),
            why: a.why.clone(),
            example: a.example.as_ref().map(|e| e.quoted()),
            how_to_fix: a.how_to_fix.clone(),
        })
        .collect()
}

fn flag_key(flag: Flag) -> &'static str {
    match flag {
        Flag::Green => "green",
        Flag::Amber => "amber",
        Flag::Red => "red",
        Flag::NotCompared => "neutral",
    }
}

fn flip_lines(items: &[FlippedItem]) -> Vec<String> {
    let mut lines: Vec<String> = items
        .iter()
        .take(FLIPS_LISTED)
        .map(|f| format!("{}: {} → {}", f.label, score(f.score_a), score(f.score_b)))
        .collect();
    if items.len() > FLIPS_LISTED {
        lines.push(format!("and {} more", items.len() - FLIPS_LISTED));
    }
    lines
}

/// The items that got worse, improved or now have another problem, worse first.
fn item_groups(items: &ItemChanges) -> Vec<FlipGroup> {
    [
        ("Got worse", &items.worse),
        ("Improved", &items.improved),
        ("Another problem", &items.other_problem),
    ]
    .into_iter()
    .filter(|(_, list)| !list.is_empty())
    .map(|(heading, list)| {
        let mut lines: Vec<String> = list
            .iter()
            .take(FLIPS_LISTED)
            .map(|i| format!("{}: {} → {}", i.label, i.before, i.after))
            .collect();
        if list.len() > FLIPS_LISTED {
            lines.push(format!("and {} more", list.len() - FLIPS_LISTED));
        }
        FlipGroup {
            heading: format!("{heading} ({})", list.len()),
            items: lines,
        }
    })
    .collect()
}

// long: the comparison section's paragraphs in reading order, each a few lines; split, the section
// scatters
pub fn comparison(view: &ReportView) -> Option<ComparisonSection> {
    let c = view.comparison.as_ref()?;
    let mut intro = vec![
        format!(
            "A = {} on {}; B = {} on {} (this report's run).",
            c.a.title,
            c.a.dataset,
            c.b.title,
            c.b.dataset
        ),
        format!(
            "{} items matched {} ({} only in A, {} only in B). {}. Deltas are B − A over the matched items \
             scored in both runs, with a paired bootstrap 95% interval ({} resamples, fixed seed): the noise of \
             sampling items, i.e. whether other questions like these would move the same way.",
            c.matched,
            c.matched_by.label(),
            c.only_in_a,
            c.only_in_b,
            c.headline(),
            c.resamples
        ),
    ];
    for warning in &c.judged_differently {
        intro.push(format!(
            "Warning: the two runs were judged differently, so part of any change is the judges': {warning}."
        ));
    }
    if c.matched == 0 {
        intro.push(
            "No item matched: items pair up by their id, or else by question and ground truth, and the two runs \
             share neither, so they cannot be compared item by item."
                .into(),
        );
    }
    let red: Vec<&str> = c.regressions().map(|m| m.metric.as_str()).collect();
    intro.push(if red.is_empty() {
        let caveat = match c.items.worse.len() {
            0 => String::new(),
            n => format!(" Single items can still break while means hold: {n} got worse (listed above)."),
        };
        format!("No metric regressed: none got worse by more than {:.2} with its whole interval below 0.{caveat}", c.threshold)
    } else {
        format!("Regressions (worse by more than {:.2}, whole interval on the worse side): {}.", c.threshold, red.join(", "))
    });
    // A short report's table keeps the metrics that moved; the full one lists them all.
    let still = c
        .metrics
        .iter()
        .filter(|m| m.moved() == 0 || m.flag == Flag::NotCompared)
        .count();
    let rows = c
        .metrics
        .iter()
        .filter(|m| view.detail == Detail::Full || (m.moved() > 0 && m.flag != Flag::NotCompared))
        .map(|m| DeltaRow {
            metric: m.metric.clone(),
            lower_is_better: m.lower_is_better,
            mean_a: score_or_dash(m.mean_a),
            mean_b: score_or_dash(m.mean_b),
            delta: match m.delta {
                Some(_) if m.moved() == 0 => "0".into(),
                Some(d) => signed(d),
                None => "–".into(),
            },
            ci: match (m.ci95_low, m.ci95_high) {
                (Some(lo), Some(hi)) if m.moved() > 0 => {
                    format!("{} to {}", signed(lo), signed(hi))
                }
                _ => "–".into(),
            },
            pairs: m.pairs.to_string(),
            flag: m.in_words.clone(),
            flag_key: flag_key(m.flag).into(),
            to_fail: m.to_fail.len().to_string(),
            to_pass: m.to_pass.len().to_string(),
        })
        .collect();
    let mut flips = Vec::new();
    for m in &c.metrics {
        if !m.to_fail.is_empty() {
            flips.push(FlipGroup {
                heading: format!("{}: pass → fail ({})", m.metric, m.to_fail.len()),
                items: flip_lines(&m.to_fail),
            });
        }
        if !m.to_pass.is_empty() {
            flips.push(FlipGroup {
                heading: format!("{}: fail → pass ({})", m.metric, m.to_pass.len()),
                items: flip_lines(&m.to_pass),
            });
        }
    }
    let mut notes = vec![
        "A flip is an item whose score crossed 0.5 between the runs (for ↓ metrics, passing means ≤ 0.5).".to_string()
    ];
    if view.detail != Detail::Full && still > 0 {
        notes.push(format!(
            "{still} metric(s) moved on no item or were scored in only one run, and are left out of the table; \
             the full report (--detail full) lists every metric."
        ));
    }
    if !c.metrics_only_in_a.is_empty() {
        notes.push(format!(
            "Only in A, not compared: {}.",
            c.metrics_only_in_a.join(", ")
        ));
    }
    if !c.metrics_only_in_b.is_empty() {
        notes.push(format!(
            "Only in B, not compared: {}.",
            c.metrics_only_in_b.join(", ")
        ));
    }
    Some(ComparisonSection {
        verdict: c.items.sentence(),
        items: item_groups(&c.items),
        intro,
        rows,
        flips,
        notes,
        chart: None,
    })
}

// long: the methodology section's paragraphs in reading order, each a few lines; splitting scatters
// the section
pub fn methodology(view: &ReportView) -> MethodologySection {
    let m = &view.methodology;
    let shown = super::shown_metrics(view);
    let definitions = view
        .run
        .run
        .metrics
        .iter()
        .filter(|id| view.detail == Detail::Full || shown.contains(id))
        .filter_map(|id| metrics::find(id))
        .map(|spec| {
            // A criterion is defined by the version that scored this run, quoted whole.
            if let Some(c) = view.criteria.iter().find(|c| c.metric == spec.id) {
                return field(spec.id, format!("Your criterion {}.", c.methodology));
            }
            let mut text = spec.description.to_string();
            if spec.judge {
                text.push_str(" Judged.");
            }
            field(spec.id, text)
        })
        .collect();
    let mut judge = vec![field("Judge", judge_name(view))];
    if !m.judge.offline && m.judge.profile_found {
        judge.push(field(
            "Host",
            m.judge
                .host
                .clone()
                .unwrap_or_else(|| "not recorded".into()),
        ));
    }
    judge.push(field(
        "Judged metrics",
        if m.judged_metrics.is_empty() {
            "none (every metric is computed without a judge)".into()
        } else {
            m.judged_metrics.join(", ")
        },
    ));
    judge.push(field(
        "Judge configurations in the results",
        if m.judge_configs.is_empty() {
            "–".into()
        } else {
            m.judge_configs.join(", ")
        },
    ));
    judge.push(field("Judge check", m.judge_check.clone()));
    judge.push(field(
        "Prompt versions",
        if m.prompt_versions.is_empty() {
            "– (no judge prompt was used)".into()
        } else {
            m.prompt_versions.join(", ")
        },
    ));
    let t = &m.totals;
    let accounting = vec![
        field("Judge calls", t.calls.to_string()),
        field("Answered from cache", t.cache_hits.to_string()),
        field("Failed calls", t.failures.to_string()),
        field(
            "Tokens",
            format!("{} in, {} out", t.input_tokens, t.output_tokens),
        ),
        field("Cost", format!("${:.4}", t.cost_usd)),
        field("Evaluation time", format!("{:.1} s", t.seconds)),
        field(
            "Results",
            format!(
                "{} scored, {} errors, {} skipped",
                m.scored, m.errors, m.skipped
            ),
        ),
    ];
    let mut errors: Vec<String> = view
        .run
        .summary
        .errors
        .iter()
        .map(|e| {
            format!(
                "{} could not be scored on {} item(s): {}",
                e.metric, e.count, e.message
            )
        })
        .collect();
    errors.extend(
        m.skip_notes
            .iter()
            .map(|s| format!("{} skipped on {} item(s): {}", s.metric, s.count, s.reason)),
    );
    if errors.is_empty() {
        errors.push("Every metric scored every item.".into());
    }
    MethodologySection {
        definitions,
        stage_rule: "Stage scores average the means of the stage's metrics in this run, each read so that higher is \
                     better (1 − mean for ↓ metrics), all weighted equally. Retrieval: retrieval relevance and \
                     coverage, claim recall, context precision, recall@k, MRR@k. Grounding: strict, multi-hop and \
                     claim faithfulness, context utilisation, negative rejection, implicit contradiction, token \
                     overlap, context similarity, hallucination and noise sensitivity, citation accuracy and \
                     citation rates. Generation: answer relevance, completeness, clarity, coherence, conciseness, \
                     answer length, claim precision, recall and F1, exact match, token F1, ROUGE-L, BLEU. \
                     Readability and the synthesised overalls are reported but not averaged in. Bands: ≥ 0.75 good, \
                     0.50–0.74 needs attention, < 0.50 critical."
            .into(),
        judge,
        caveat: m.offline_caveat.clone(),
        calibration: m.calibration.clone(),
        settings: m.settings.iter().map(|s| field(&s.name, s.value.clone())).collect(),
        accounting,
        errors,
        privacy: m.privacy.clone(),
    }
}

/// The most characters of one text a report prints. A report is for reading: a 5 MB answer
/// printed whole made a 781-page PDF in 159 s; the cut says how much is left out and where
/// to find it, so a full report stays proportional to its items.
pub const TEXT_LIMIT: usize = 2_000;

/// `text`, or its first `TEXT_LIMIT` characters and how many more there are.
pub fn capped(text: &str) -> String {
    let total = text.chars().count();
    if total <= TEXT_LIMIT {
        return text.to_string();
    }
    let kept: String = text.chars().take(TEXT_LIMIT).collect();
    format!(
        "{}… ({} more characters; see the JSON export)",
        kept.trim_end(),
        total - TEXT_LIMIT
    )
}

pub fn appendix(view: &ReportView) -> Appendix {
    let items: Vec<AppendixItem> = view
        .run
        .worst
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let order: Vec<&String> = view.run.run.metrics.iter().collect();
            let mut results: Vec<_> = item.results.iter().collect();
            results.sort_by_key(|r| {
                order
                    .iter()
                    .position(|m| **m == r.metric)
                    .unwrap_or(usize::MAX)
            });
            AppendixItem {
                heading: format!(
                    "{}. Item {}",
                    i + 1,
                    item_label(item.item.id.as_deref(), item.ordinal)
                ),
                question: capped(&item.item.question),
                answer: item
                    .item
                    .answer
                    .as_deref()
                    .map_or_else(|| "(no answer)".into(), capped),
                ground_truth: item.item.ground_truth.as_deref().map(capped),
                contexts: item
                    .item
                    .contexts
                    .iter()
                    .enumerate()
                    .map(|(k, c)| {
                        let id = c.id.as_ref().map(|d| format!(" ({d})")).unwrap_or_default();
                        format!("[{}]{id} {}", k + 1, capped(&c.text))
                    })
                    .collect(),
                results: results
                    .into_iter()
                    .map(|r| ResultRow {
                        metric: r.metric.clone(),
                        score: score_or_dash(r.score),
                        status: match r.status {
                            Status::Ok => "ok",
                            Status::Error => "error",
                            Status::Skipped => "skipped",
                        }
                        .into(),
                        explanation: capped(&r.explanation),
                    })
                    .collect(),
            }
        })
        .collect();
    Appendix {
        heading: format!("Appendix: the {} worst items", items.len()),
        intro: "Items ranked by their mean score over all metrics (↓ metrics read as 1 − score), lowest first, with \
                every result in full."
            .into(),
        items,
    }
}

pub fn alignment(view: &ReportView) -> Option<AlignmentSection> {
    let a = &view.alignment;
    if a.metrics.is_empty() {
        return None;
    }
    let figure = |v: Option<f64>| v.map(|v| format!("{v:.3}")).unwrap_or_else(|| "–".into());
    let rows = a
        .metrics
        .iter()
        .map(|m| AlignmentRow {
            metric: m.metric.clone(),
            n: m.n.to_string(),
            spearman: match (m.spearman, m.spearman_se) {
                (Some(r), Some(se)) => format!("{r:.3} ± {se:.3}"),
                (r, _) => figure(r),
            },
            kendall: figure(m.kendall_tau),
            mae: figure(m.mae),
            pass_fail: m
                .binary
                .map(|b| {
                    format!(
                        "balanced accuracy {:.2} at score ≥ {:.2}",
                        b.balanced_accuracy, b.threshold
                    )
                })
                .unwrap_or_else(|| "–".into()),
        })
        .collect();
    Some(AlignmentSection {
        rows,
        note: format!(
            "{} labels on this run's items. Spearman ρ with its Bonett–Wright standard error and Kendall's τ-b \
             compare the order of judge scores and labels; the mean absolute error their distance on the 0–1 \
             scale. ρ and τ need two labelled items that differ, the standard error four.",
            a.labels
        ),
    })
}
