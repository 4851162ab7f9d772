//! The offline judge's insights: fixed sentence templates filled with the run's own
//! statistics and example items, and the rule table's action items kept as they are.
//! No model writes anything here; the run's advice says so where it is shown.
//!
//! Owns: the templates. Must not: read the store (everything comes in the task).

use crate::task::{InsightsTask, InsightsVerdict, ItemBrief, MetricBrief, MetricInsight};
use ragnosis_types::catalogue::stage::{stage_of, PipelineStage};
use ragnosis_types::text::capitalise;

pub fn write(task: &InsightsTask) -> InsightsVerdict {
    InsightsVerdict {
        insights: task
            .metrics
            .iter()
            .map(|m| MetricInsight {
                metric: m.metric.clone(),
                text: insight(m),
            })
            .collect(),
        actions: task.baseline.clone(),
    }
}

fn insight(m: &MetricBrief) -> String {
    let name = m
        .metric
        .split('.')
        .nth(1)
        .unwrap_or(&m.metric)
        .replace('_', " ");
    let goodness = if m.lower_is_better {
        1.0 - m.mean
    } else {
        m.mean
    };
    let reading = match goodness {
        _ if ragnosis_types::catalogue::is_descriptive(&m.metric) => {
            "a description of the answers rather than a verdict (a low value is not a failure by itself)"
        }
        g if g >= 0.75 => "good, with room to improve",
        g if g >= 0.5 => "in need of attention",
        _ => "critical",
    };
    let direction = if m.lower_is_better {
        " (lower is better)"
    } else {
        ""
    };
    let mut sentences = vec![format!(
        "{} averages {:.2}{direction} over {} items, which reads as {reading}.",
        capitalise(&name),
        m.mean,
        m.n
    )];
    sentences.push(format!(
        "It measures this: {}",
        lower_first(m.description.trim())
    ));
    // The weakest and the best by goodness: for a lower-is-better metric the lowest
    // scores are the best. Each is quoted only when it is what it is called — a weak
    // item below 0.5, a best item in the good band and better than the weakest — so no
    // sentence calls a 0.00 "what works".
    let item_goodness = |score: f64| {
        if m.lower_is_better {
            1.0 - score
        } else {
            score
        }
    };
    let (weakest, best) = if m.lower_is_better {
        (m.high.first(), m.low.first())
    } else {
        (m.low.first(), m.high.first())
    };
    let weakest = weakest.filter(|w| item_goodness(w.score) < 0.5);
    if let Some(low) = weakest {
        sentences.push(format!(
            "The weakest items, such as \"{}\" ({:.2}), show the problem: {}",
            low.question.trim(),
            low.score,
            first_sentence(low)
        ));
    }
    let best = best.filter(|b| {
        item_goodness(b.score) >= 0.75
            && weakest.is_none_or(|w| item_goodness(b.score) > item_goodness(w.score))
    });
    if let Some(high) = best {
        sentences.push(format!(
            "The best, such as \"{}\" ({:.2}), show what works: {}",
            high.question.trim(),
            high.score,
            first_sentence(high)
        ));
    }
    let stage = match stage_of(&m.metric) {
        Some(PipelineStage::Retrieval) => "the search step that finds the passages",
        Some(PipelineStage::Grounding) => "how closely answers stick to the passages",
        Some(PipelineStage::Generation) | None => "how the answers are written",
    };
    sentences.push(format!("Look first at {stage}."));
    sentences.join(" ")
}

fn first_sentence(item: &ItemBrief) -> String {
    let text = item.explanation.trim();
    let end = text.find(". ").map_or(text.len(), |i| i + 1);
    let mut s = lower_first(&text[..end]);
    if !s.ends_with('.') {
        s.push('.');
    }
    s
}

/// Lower-cases the first letter unless the first word looks like a name or an acronym.
fn lower_first(s: &str) -> String {
    let first_word = s.split_whitespace().next().unwrap_or("");
    let keep = first_word.chars().skip(1).any(|c| c.is_uppercase()) || first_word.len() == 1;
    if keep {
        return s.to_string();
    }
    let mut chars = s.chars();
    chars
        .next()
        .map(|c| c.to_lowercase().chain(chars).collect())
        .unwrap_or_default()
}
