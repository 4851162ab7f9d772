//! Asking a run: the rule-based advisor (`ragnosis_core::advisor`) over the run's facts.
//! Gathers them: the run opened and its report model read, the item the question is
//! about (`--item`, or an id of the user's file named in the question), and the first
//! items of the pattern it asks about. Every item an answer cites is one of these.

use ragnosis_core::advisor::{self, Facts, ItemFacts};
use ragnosis_core::analysis::{compare, diagnosis};
use ragnosis_core::cases::{self, CaseFilter, CaseQuery};
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
    pub item: Option<&'a str>,
    pub against: Option<i64>,
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
    Ok(advisor::answer(
        question,
        &Facts {
            report: &report,
            item,
            pattern_items,
            comparison: comparison.as_ref(),
            experiments: &experiments,
        },
    ))
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
