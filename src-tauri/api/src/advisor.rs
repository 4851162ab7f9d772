//! Asking a run: the rule-based advisor (`ragnosis_core::advisor`) over the run's facts.
//! Gathers them: the run opened and its report model read, the item the question is
//! about (`--item`, or an id of the user's file named in the question), and the first
//! items of the pattern it asks about. Every item an answer cites is one of these.
//!
//! With a judge profile (`--judge NAME`, the window's model picker) a language model
//! answers instead, through the judge layer like any judge call (its key from the
//! keyring, retries, cost and tokens): it is sent the question and the facts the
//! rule-based answer was made from, as data in one delimited block, and nothing else of
//! the run. A reply citing an item the facts do not name is refused and asked again once
//! (the judge layer's repair request); if the model still cannot answer, the rule-based
//! answer is given with the reason.

use std::sync::Arc;

use ragnosis_core::advisor::{self, Facts, ItemFacts};
use ragnosis_core::analysis::{compare, diagnosis};
use ragnosis_core::cases::{self, CaseFilter, CaseQuery};
use ragnosis_core::judge::task::{AdviceTask, Task, Verdict};
use ragnosis_core::judge::{CallContext, Judge, Judgement};
use ragnosis_core::store::{self, cases::Order, Store};
use ragnosis_core::view::{ItemView, ReportOptions, ReportView};
use ragnosis_core::{Error, Result};

use crate::Ctx;

pub use ragnosis_core::advisor::{Answer, Intent};

/// How many items an answer lists for a pattern.
const LISTED: i64 = 10;

/// What a question is asked of: the run, the item asked about (its id in the user's file,
/// or the run's item id), and an earlier run to compare it with.
#[derive(Debug, Clone, Default)]
pub struct Asked<'a> {
    /// The item asked about: its id in the user's file, or the run's item id.
    pub item: Option<&'a str>,
    /// An earlier run to compare this one with ("what got worse?").
    pub against: Option<i64>,
    /// The judge profile whose model answers; none (or the offline judge): the rules.
    pub judge: Option<&'a str>,
}

/// The advisor's answer to `question` about run `run_id`.
pub fn ask(ctx: &Ctx, run_id: i64, question: &str, asked: &Asked) -> Result<Answer> {
    let question = question.trim();
    if question.is_empty() {
        return Err(Error::Invalid(
            "the question is empty: ask something about the run".into(),
        ));
    }
    let mut store = ctx.store()?;
    crate::runs::open(&mut store, run_id)?;
    let report = ReportView::load(&store, run_id, &ReportOptions::default())?;
    let comparison = match asked.against {
        Some(a) if a == run_id => {
            return Err(Error::Invalid(
                "compare the run with another run, not with itself".into(),
            ))
        }
        Some(a) => Some(compare::compare_runs(
            &store,
            a,
            run_id,
            compare::DEFAULT_THRESHOLD,
            true,
        )?),
        None => None,
    };
    let item_id = match asked.item {
        Some(name) => Some(
            resolve(&store, run_id, name)?.ok_or_else(|| Error::NotFound {
                what: "item",
                id: format!("{name} of run {run_id}"),
            })?,
        ),
        None => named_in(&store, run_id, question)?,
    };
    let item = item_id
        .map(|id| item_facts(&store, run_id, id))
        .transpose()?;
    let pattern_items = match advisor::intent(question, item.is_some(), comparison.is_some()) {
        (Intent::ItemsWithPattern, Some(p)) => first_with(&mut store, run_id, p.letter())?,
        _ => Vec::new(),
    };
    let experiments =
        ragnosis_core::analysis::experiment::of_test_set(&store, report.run.run.dataset_id)?;
    let ruled = advisor::answer(
        question,
        &Facts {
            report: &report,
            item,
            pattern_items,
            comparison: comparison.as_ref(),
            experiments: &experiments,
        },
    );
    let judge = asked
        .judge
        .filter(|j| *j != ragnosis_core::judge::open::OFFLINE);
    match judge {
        Some(name) => {
            let task = advice_task(&store, run_id, question, &report, &ruled)?;
            asked_of_model(ctx, store, run_id, name, task, ruled)
        }
        None => Ok(ruled),
    }
}

/// The model of judge profile `name` answers `task`, and the call goes into the run's
/// privacy record whether or not its answer stood: the facts were sent.
fn asked_of_model(
    ctx: &Ctx,
    store: std::sync::MutexGuard<'_, Store>,
    run_id: i64,
    name: &str,
    task: AdviceTask,
    ruled: Answer,
) -> Result<Answer> {
    let host = ragnosis_core::judge::open::profile(&store, name)
        .ok()
        .map(|p| ragnosis_core::view::host_of(&p.base_url))
        .filter(|h| !h.is_empty());
    let judge = ragnosis_core::judge::open::open_judge(&store, name, ctx.secrets())?;
    let model = judge.identity().config_key();
    // The store is not held across the model's call: the window keeps reading.
    drop(store);
    let question = task.question.clone();
    let (facts, items) = (task.facts.len() as u64, task.items.len() as u64);
    let answer = by_model(judge, task, ruled);
    let call = store::advisor_calls::AdvisorCall {
        run_id,
        judge: &model,
        host: host.as_deref(),
        question: &question,
        facts,
        items,
        tokens: answer.tokens,
        cost_usd: answer.cost_usd,
    };
    store::advisor_calls::insert(ctx.store()?.conn(), &call)?;
    Ok(answer)
}

/// What the model is given: the question and the facts the rule-based answer read —
/// its own lines, the report's headline and actions, and each cited item's question —
/// each item written "[item N]".
fn advice_task(
    store: &Store,
    run_id: i64,
    question: &str,
    report: &ReportView,
    ruled: &Answer,
) -> Result<AdviceTask> {
    let mut facts: Vec<String> = ruled.lines.clone();
    facts.extend(report.headline.iter().cloned());
    let mut items = ruled.items.clone();
    if let Some(d) = &report.run.summary.diagnosis {
        for a in &d.actions {
            let example = match &a.example {
                Some(e) => {
                    items.push(e.item_id);
                    format!(" Example: [item {}].", e.item_id)
                }
                None => String::new(),
            };
            facts.push(format!(
                "Action ({} impact): {}. What is wrong: {} How to fix: {}{example}",
                a.impact.as_str(),
                a.title,
                a.whats_wrong,
                a.how_to_fix
            ));
        }
    }
    facts.extend(report.trust.sentences.iter().take(2).cloned());
    items.sort_unstable();
    items.dedup();
    for id in &items {
        let view = ItemView::load(store, run_id, *id)?;
        let name = view.item.id.as_deref().unwrap_or("no id");
        facts.push(format!(
            "[item {id}] is \"{name}\" in the user's file; its question: {}",
            view.item.question
        ));
    }
    Ok(AdviceTask {
        question: question.to_string(),
        facts,
        items,
    })
}

/// The model's answer, or the rule-based one with the reason it could not answer.
fn by_model(judge: Arc<dyn Judge>, task: AdviceTask, ruled: Answer) -> Answer {
    let model = judge.identity().config_key();
    let call = async {
        judge
            .judge(&Task::Advice(Box::new(task)), &CallContext::default())
            .await
    };
    let reply = crate::jobs::wait_for("the advisor's call", call);
    match reply {
        Ok(Ok(Judgement {
            verdict: Verdict::Advice(v),
            usage,
            cost_usd,
            cached,
            ..
        })) => Answer {
            intent: ruled.intent,
            lines: v.answer,
            items: v.items,
            rule_based: false,
            note: format!(
                "Answered by {model} from this run's facts{}; every item it cites was checked against them. \
                 Sent: your question and the facts listed for it (the rule-based answer, the report's headline \
                 and actions, the cited items' questions), nothing else of the run.",
                if cached { " (a stored answer to the same question)" } else { "" }
            ),
            model: Some(model),
            tokens: usage.input_tokens + usage.output_tokens,
            cost_usd,
        },
        other => {
            let (why, spent) = match other {
                Ok(Err(e)) => (e.to_string(), e.spent()),
                Ok(Ok(j)) => (
                    format!("it answered a {} task instead", j.verdict.kind().as_str()),
                    Some((j.usage, j.cost_usd)),
                ),
                Err(e) => (e.to_string(), None),
            };
            // Replies that could not be used were still paid for: their tokens and cost
            // stay on the answer and in the privacy record.
            let (usage, cost_usd) = spent.unwrap_or_default();
            Answer {
                note: format!(
                    "{model} could not answer ({why}); this is the rule-based answer from the run's stored facts."
                ),
                tokens: usage.input_tokens + usage.output_tokens,
                cost_usd,
                ..ruled
            }
        }
    }
}

/// The run's item `name` names: its id in the user's file, else the run's item id.
fn resolve(store: &Store, run_id: i64, name: &str) -> Result<Option<i64>> {
    if let Some(id) = store::run_items::by_external_id(store.conn(), run_id, name)? {
        return Ok(Some(id));
    }
    match name.parse::<i64>() {
        Ok(id) if store::run_items::contains(store.conn(), run_id, id)? => Ok(Some(id)),
        _ => Ok(None),
    }
}

/// The item a question names by its id in the user's file ("why is t-13 flagged?").
fn named_in(store: &Store, run_id: i64, question: &str) -> Result<Option<i64>> {
    for word in question.split_whitespace() {
        let word = word.trim_matches(|c: char| !c.is_alphanumeric() && c != '-' && c != '_');
        // An id has a digit ("t-13", "q7", "air-22"); plain words are no ids.
        if word.is_empty() || word.len() > 64 || !word.chars().any(|c| c.is_ascii_digit()) {
            continue;
        }
        if let Some(id) = store::run_items::by_external_id(store.conn(), run_id, word)? {
            return Ok(Some(id));
        }
    }
    Ok(None)
}

fn item_facts(store: &Store, run_id: i64, item_id: i64) -> Result<ItemFacts> {
    let view = ItemView::load(store, run_id, item_id)?;
    Ok(ItemFacts {
        item_id,
        name: view
            .item
            .id
            .clone()
            .unwrap_or_else(|| format!("item {item_id}")),
        reading: diagnosis::reading_of(view.results.iter()),
        question: view.item.question,
    })
}

/// The first items of the run that show the pattern with `letter`, in run order.
fn first_with(store: &mut Store, run_id: i64, letter: char) -> Result<Vec<(i64, String)>> {
    let query = CaseQuery {
        filter: CaseFilter {
            pattern: Some(letter),
            ..CaseFilter::default()
        },
        order: Order::Position,
        offset: 0,
        limit: LISTED,
        after: None,
        columns: Vec::new(),
    };
    Ok(cases::page(store, run_id, &query)?
        .rows
        .into_iter()
        .map(|row| {
            let name = row
                .external_id
                .unwrap_or_else(|| format!("item {}", row.item_id));
            (row.item_id, name)
        })
        .collect())
}
