//! Human labels on a run's items: one at a time (the window's case view) or from a file
//! (`ragnosis labels import`), stored in `human_labels` by item content hash so they
//! outlive the run and are read by `trust::alignment`.
//!
//! Owns: checking a label (a per-item metric of the catalogue, a score in [0, 1]) and,
//! for files, finding each row's item among the run's items — by id first, then by
//! question — with a report that names every row it could not use, by line. Nothing is
//! dropped silently: a duplicate within the file is stored once (the last row wins) and
//! reported; a label that replaces an earlier one is counted.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::dataset::labels::{read_labels, LabelRow};
use crate::error::{Error, Result};
use crate::metrics::{self, Scope};
use crate::store::{self, Store};

/// What importing a labels file did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct LabelImport {
    pub file: String,
    pub rows: u64,
    /// Labels written (each (item, metric) once).
    pub stored: u64,
    /// Of those, how many replaced a label the item already had.
    pub replaced: u64,
    /// Rows that could not be used: (line, reason).
    pub rejected: Vec<(u64, String)>,
    /// Rows that were used but deserve a word: (line, message).
    pub warnings: Vec<(u64, String)>,
}

/// Labels one item of a run. `metric` may be a bare name; `score` must be in [0, 1].
pub fn set(
    store: &Store,
    run_id: i64,
    item_id: i64,
    metric: &str,
    score: f64,
    note: Option<&str>,
    source: &str,
) -> Result<String> {
    let metric = per_item_metric(metric)?;
    check_score(score)?;
    let conn = store.conn();
    let keys = store::run_items::keys(conn, run_id)?;
    let key = keys
        .iter()
        .find(|k| k.item_id == item_id)
        .ok_or_else(|| Error::Invalid(format!("item {item_id} is not in run {run_id}")))?;
    let note = note.map(str::trim).filter(|n| !n.is_empty());
    store::human_labels::upsert(conn, &key.content_hash, &metric, score, note, source)?;
    Ok(metric)
}

/// The stored item id of an item of `run_id` named as a person would: the dataset's own
/// id ("t-01", as the file and `show` give it) or the stored number the case list shows.
pub fn item_of_run(store: &Store, run_id: i64, named: &str) -> Result<i64> {
    let keys = store::run_items::keys(store.conn(), run_id)?;
    let named = named.trim();
    keys.iter()
        .find(|k| k.external_id.as_deref() == Some(named))
        .or_else(|| {
            let number = named.parse::<i64>().ok()?;
            keys.iter().find(|k| k.item_id == number)
        })
        .map(|k| k.item_id)
        .ok_or_else(|| {
            Error::Invalid(format!(
                "run {run_id} has no item '{named}': give the item's id from your file or the number the case list shows"
            ))
        })
}

/// Removes an item's label for a metric; false when it had none.
pub fn clear(store: &Store, run_id: i64, item_id: i64, metric: &str) -> Result<bool> {
    let metric = per_item_metric(metric)?;
    let keys = store::run_items::keys(store.conn(), run_id)?;
    let Some(key) = keys.iter().find(|k| k.item_id == item_id) else {
        return Err(Error::Invalid(format!(
            "item {item_id} is not in run {run_id}"
        )));
    };
    store::human_labels::remove(store.conn(), &key.content_hash, &metric)
}

/// Imports a labels file for the items of `run_id`. Row problems are in the report; a
/// file that cannot be read at all is an error and stores nothing.
pub fn import(store: &mut Store, run_id: i64, path: &Path) -> Result<LabelImport> {
    let (rows, problems) = read_labels(path).map_err(Error::Dataset)?;
    let conn = store.conn();
    let keys = store::run_items::keys(conn, run_id)?;
    let items = store::items::get_many(conn, &keys.iter().map(|k| k.item_id).collect::<Vec<_>>())?;
    // id → content hash, normalised question → content hash (first occurrence wins).
    let mut by_id: HashMap<&str, &str> = HashMap::new();
    let mut by_question: HashMap<String, &str> = HashMap::new();
    for (key, stored) in keys.iter().zip(&items) {
        if let Some(id) = &key.external_id {
            by_id.entry(id.as_str()).or_insert(&key.content_hash);
        }
        by_question
            .entry(crate::item::question_key(&stored.item.question, None))
            .or_insert(&key.content_hash);
    }
    let mut report = LabelImport {
        file: path.display().to_string(),
        rows: (rows.len() + problems.len()) as u64,
        rejected: problems.into_iter().map(|p| (p.line, p.reason)).collect(),
        ..LabelImport::default()
    };
    let (chosen, order) = winning_rows(rows, &by_id, &by_question, run_id, &mut report);
    let source = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "file".into());
    store.transaction(|tx| {
        for key in &order {
            let (_, row) = &chosen[key];
            let replaced = store::human_labels::upsert(
                tx,
                &key.0,
                &key.1,
                row.score,
                row.note.as_deref(),
                &source,
            )?;
            report.stored += 1;
            report.replaced += u64::from(replaced);
        }
        Ok(())
    })?;
    report.rejected.sort();
    report.warnings.sort();
    Ok(report)
}

/// A label's (content hash, metric).
type LabelKey = (String, String);

/// Each row matched to an item by id, then by question: the row that wins for each
/// (content hash, metric) and those keys in the order first seen. Rows that match no
/// item or name no per-item metric are rejected in `report`; a later row for the same
/// item and metric wins, with a warning.
fn winning_rows(
    rows: Vec<LabelRow>,
    by_id: &HashMap<&str, &str>,
    by_question: &HashMap<String, &str>,
    run_id: i64,
    report: &mut LabelImport,
) -> (HashMap<LabelKey, (u64, LabelRow)>, Vec<LabelKey>) {
    // (content hash, metric) → the row that wins, with the line of the first one seen.
    let mut chosen: HashMap<(String, String), (u64, LabelRow)> = HashMap::new();
    let mut order: Vec<(String, String)> = Vec::new();
    for row in rows {
        let line = row.line;
        let metric = match per_item_metric(&row.metric) {
            Ok(m) => m,
            Err(e) => {
                report.rejected.push((line, e.to_string()));
                continue;
            }
        };
        let hash = row
            .item
            .as_deref()
            .and_then(|id| by_id.get(id))
            .or_else(|| {
                row.question
                    .as_deref()
                    .or(row.item.as_deref())
                    .and_then(|q| by_question.get(&crate::item::question_key(q, None)))
            });
        let Some(hash) = hash else {
            let what = match (&row.item, &row.question) {
                (Some(id), None) => format!("id or question '{id}'"),
                (_, Some(q)) => format!("question '{q}'"),
                (None, None) => "item".to_string(),
            };
            report
                .rejected
                .push((line, format!("no item of run {run_id} has the {what}")));
            continue;
        };
        let key = (hash.to_string(), metric);
        match chosen.get(&key) {
            Some((earlier, _)) => {
                report.warnings.push((
                    line,
                    format!(
                        "labels the same item and metric as line {earlier}; the later row wins"
                    ),
                ));
                let earlier = *earlier;
                chosen.insert(key, (earlier, row));
            }
            None => {
                order.push(key.clone());
                chosen.insert(key, (line, row));
            }
        }
    }
    (chosen, order)
}

fn per_item_metric(name: &str) -> Result<String> {
    let specs = metrics::resolve_selection(&[name])?;
    match specs.as_slice() {
        [spec] if spec.scope == Scope::Item => Ok(spec.id.to_string()),
        [spec] => Err(Error::Invalid(format!(
            "{} is computed over the whole dataset; labels are given per item",
            spec.id
        ))),
        _ => Err(Error::Invalid(format!(
            "'{name}' names a family; label one metric at a time"
        ))),
    }
}

fn check_score(score: f64) -> Result<()> {
    if (0.0..=1.0).contains(&score) {
        Ok(())
    } else {
        Err(Error::Invalid(format!(
            "a label's score must be between 0 and 1, got {score}"
        )))
    }
}
