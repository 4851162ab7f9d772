//! The case list of one run: every evaluated item, sortable by any metric or by how bad
//! it is overall, filterable by score range, failure pattern, errors and text, and read
//! one page at a time so a 100 000-item run never leaves SQLite whole.
//!
//! Owns: building the per-run case index (goodness, error count and failure patterns per
//! item, from stored results) and keeping it current, and assembling a page with the
//! cells the reader asked for. Must not: compute metrics or write SQL (`store::cases`
//! does). Patterns come from `analysis::diagnosis::patterns_for`, the same rules the
//! run's diagnosis counts, so a filter by pattern lists exactly the items counted there.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::analysis::diagnosis::{self, patterns, patterns_for};
use crate::error::Result;
use crate::metrics;
use crate::store::cases::{Filter, Start, TextMatch};
use crate::store::{self, runs::RunStatus, Store};

pub use store::cases::{CaseRow, Cell, Cursor, Order, ScoreRange};

/// `analyses` kind under which the index remembers which state of the run it reflects.
const INDEX_STAMP: &str = "case_index";

/// Which cases a page shows. Every part is optional; they combine with AND.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CaseFilter {
    /// Items whose `ok` score on a metric lies in [min, max].
    pub score: Option<ScoreRange>,
    /// Items on which the failure pattern with this letter (A–J) fired.
    pub pattern: Option<char>,
    /// Items with at least one errored result.
    pub errors_only: bool,
    /// Items whose question or answer contains this text (case-insensitive for ASCII).
    pub text: Option<String>,
}

/// What a case-list page asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseQuery {
    pub filter: CaseFilter,
    pub order: Order,
    pub offset: i64,
    pub limit: i64,
    /// Start just after this row of the page before (its `CasePage::next`) instead of
    /// counting `offset` rows off: the next page of a million-item run costs what the
    /// first does. `offset` then only numbers the rows for the reader.
    pub after: Option<Cursor>,
    /// Metrics whose cells each row carries (e.g. the overalls and the sort metric).
    pub columns: Vec<String>,
}

/// One page and how many cases match in all.
#[derive(Debug, Clone, PartialEq)]
pub struct CasePage {
    /// Cases matching the filter; for a text search at most `COUNT_CAP`.
    pub total: i64,
    /// More than `total` cases match (a text search counts up to `COUNT_CAP`).
    pub total_capped: bool,
    pub offset: i64,
    pub rows: Vec<CaseRow>,
    /// Cells of `CaseQuery::columns` for the page's items.
    pub cells: Vec<Cell>,
    /// Where the next page starts (`CaseQuery::after`), when this one was full.
    pub next: Option<Cursor>,
}

/// The largest page served: a screenful many times over, never a whole run.
pub const MAX_PAGE: i64 = 500;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Stamp {
    status: RunStatus,
    finished_at: Option<String>,
    /// The diagnosis rules the letters were computed with.
    #[serde(default)]
    rules: u32,
}

/// Everything the case list of a finished run reads: its case index and the text search
/// index of its dataset's questions and answers.
pub fn prepare(store: &mut Store, run_id: i64) -> Result<()> {
    ensure_index(store, run_id)?;
    let dataset_id = store::runs::get(store.conn(), run_id)?.dataset_id;
    store::cases::ensure_searchable(store.conn(), dataset_id)
}

/// Builds the run's case index unless it already reflects the run's current state. A
/// run that is still going is re-indexed on every call (its results keep changing).
pub fn ensure_index(store: &mut Store, run_id: i64) -> Result<()> {
    let run = store::runs::get(store.conn(), run_id)?;
    if index_is_current(store, &run)? {
        return Ok(());
    }
    rebuild_index(store, run_id, &run.metrics)?;
    store::analyses::put(
        store.conn(),
        run_id,
        INDEX_STAMP,
        &serde_json::to_value(stamp_of(&run))?,
    )?;
    Ok(())
}

fn stamp_of(run: &store::runs::RunRow) -> Stamp {
    Stamp {
        status: run.status,
        finished_at: run.finished_at.clone(),
        rules: patterns::RULES_VERSION,
    }
}

/// Whether the run's case index reflects its current state (never while it runs).
fn index_is_current(store: &Store, run: &store::runs::RunRow) -> Result<bool> {
    if run.status == RunStatus::Running {
        return Ok(false);
    }
    let stored = store::analyses::get(store.conn(), run.id, INDEX_STAMP)?;
    Ok(stored
        .and_then(|v| serde_json::from_value::<Stamp>(v).ok())
        .is_some_and(|s| s == stamp_of(run)))
}

/// The `limit` lowest-scoring items of a run (item id, goodness), worst first. Reads the
/// case index when it is current; otherwise averages the results here, without storing
/// anything: a read never writes (`ensure_index`, called when a run ends or is opened,
/// is what makes this fast).
pub fn worst(store: &Store, run: &store::runs::RunRow, limit: usize) -> Result<Vec<(i64, f64)>> {
    if index_is_current(store, run)? {
        return store::cases::worst(store.conn(), run.id, limit as i64);
    }
    let lower = lower_is_better(&run.metrics);
    let mut scored: Vec<(i64, i64, f64)> = store::cases::aggregates(store.conn(), run.id, &lower)?
        .into_iter()
        .filter_map(|a| Some((a.position, a.item_id, a.goodness?)))
        .collect();
    scored.sort_by(|a, b| a.2.total_cmp(&b.2).then(a.0.cmp(&b.0)));
    Ok(scored
        .into_iter()
        .take(limit)
        .map(|(_, item_id, goodness)| (item_id, goodness))
        .collect())
}

/// The run's metrics where a lower score is better (flipped in the item's goodness).
fn lower_is_better(run_metrics: &[String]) -> Vec<&'static str> {
    run_metrics
        .iter()
        .filter_map(|id| metrics::find(id))
        .filter(|m| m.lower_is_better)
        .map(|m| m.id)
        .collect()
}

fn rebuild_index(store: &mut Store, run_id: i64, run_metrics: &[String]) -> Result<()> {
    let lower = lower_is_better(run_metrics);
    let aggregates = store::cases::aggregates(store.conn(), run_id, &lower)?;
    let mut letters: HashMap<i64, String> = HashMap::new();
    diagnosis::for_each_rule_scores(store.conn(), run_id, |item| {
        let fired: String = patterns_for(&item.scores)
            .iter()
            .map(|p| p.letter())
            .collect();
        if !fired.is_empty() {
            letters.insert(item.item_id, fired);
        }
    })?;
    let rows: Vec<store::cases::IndexRow> = aggregates
        .into_iter()
        .map(|a| store::cases::IndexRow {
            patterns: letters.remove(&a.item_id).unwrap_or_default(),
            position: a.position,
            item_id: a.item_id,
            goodness: a.goodness,
            errors: a.errors,
        })
        .collect();
    store.transaction(|tx| store::cases::replace(tx, run_id, &rows))
}

/// One page of the run's cases. Builds the index first when needed.
pub fn page(store: &mut Store, run_id: i64, query: &CaseQuery) -> Result<CasePage> {
    ensure_index(store, run_id)?;
    let limit = query.limit.clamp(1, MAX_PAGE);
    let offset = query.offset.max(0);
    let conn = store.conn();
    let f = &query.filter;
    let text = match f.text.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
        Some(text) => Some(store::cases::text_match(
            conn,
            store::runs::get(conn, run_id)?.dataset_id,
            text,
        )?),
        None => None,
    };
    let mut filter = Filter {
        score: f.score.clone(),
        pattern: f.pattern,
        errors_only: f.errors_only,
        text,
    };
    let total = store::cases::count(conn, run_id, &filter)?;
    if let (true, Some(TextMatch::Indexed(phrase))) = (total.capped, &filter.text) {
        filter.text = Some(TextMatch::Common(phrase.clone()));
    }
    let start = match query.after {
        Some(cursor) => Start::After(cursor),
        None => Start::Offset(offset),
    };
    let rows = store::cases::page(conn, run_id, &filter, &query.order, &start, limit)?;
    let ids: Vec<i64> = rows.iter().map(|r| r.item_id).collect();
    let cells = store::cases::cells(conn, run_id, &ids, &query.columns)?;
    let next = (rows.len() as i64 == limit)
        .then(|| rows.last().map(|r| r.cursor))
        .flatten();
    Ok(CasePage {
        total: total.n,
        total_capped: total.capped,
        offset,
        rows,
        cells,
        next,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::item::{Context, Item};
    use crate::metrics::MetricResult;
    use crate::store::cases::ScoreRange;

    /// A run of `n` items whose retrieval_relevance is i/n, with item 1 errored on
    /// strict_faithfulness; scores are written directly, as a finished run leaves them.
    fn run_with_scores(n: i64) -> (tempfile::TempDir, Store, i64, Vec<i64>) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let dataset = store::datasets::insert(store.conn(), "d", None).unwrap();
        let mut ids = Vec::new();
        for i in 0..n {
            let item = Item {
                question: format!("question {i} about 100% cotton_shirts"),
                answer: Some(format!("answer {i}")),
                contexts: vec![Context {
                    id: None,
                    text: "c".into(),
                }],
                ..Default::default()
            };
            ids.push(
                store::items::insert(
                    store.conn(),
                    dataset,
                    i,
                    i as u64 + 1,
                    &format!("h{i}"),
                    &item,
                )
                .unwrap(),
            );
        }
        let metrics = vec![
            "ragvue.retrieval_relevance".to_string(),
            "ragvue.strict_faithfulness".to_string(),
        ];
        let run = store::runs::insert(
            store.conn(),
            &store::runs::NewRun {
                dataset_id: dataset,
                label: None,
                version: None,
                notes: None,
                mode: "manual",
                metrics: &metrics,
                judge: "offline",
                config: &serde_json::json!({}),
                item_count: n,
            },
        )
        .unwrap();
        store::run_items::insert_all(store.conn(), run, &ids).unwrap();
        for (i, id) in ids.iter().enumerate() {
            let relevance = i as f64 / n as f64;
            let r = MetricResult::ok(
                "ragvue.retrieval_relevance",
                relevance,
                "",
                serde_json::Value::Null,
            );
            store::results::insert(store.conn(), run, *id, "offline", &r).unwrap();
            let f = if i == 1 {
                MetricResult::error("ragvue.strict_faithfulness", "judge failed")
            } else {
                MetricResult::ok(
                    "ragvue.strict_faithfulness",
                    0.9,
                    "",
                    serde_json::Value::Null,
                )
            };
            store::results::insert(store.conn(), run, *id, "offline", &f).unwrap();
        }
        store::runs::mark_ended(store.conn(), run, RunStatus::Done, None).unwrap();
        (dir, store, run, ids)
    }

    fn query(filter: CaseFilter, order: Order) -> CaseQuery {
        CaseQuery {
            filter,
            order,
            offset: 0,
            limit: 50,
            after: None,
            columns: vec!["ragvue.strict_faithfulness".into()],
        }
    }

    /// Every order, walked page by page after each page's last row, lists exactly what
    /// one long page lists: ties, the tail of unscored items and a filter included.
    #[test]
    fn next_pages_after_a_cursor_list_what_offsets_list() {
        let (_dir, mut store, run, _ids) = run_with_scores(11);
        let metric = |descending| Order::Metric {
            metric: "ragvue.strict_faithfulness".into(),
            descending,
        };
        let filters = [
            CaseFilter::default(),
            CaseFilter {
                text: Some("question 1".into()),
                ..Default::default()
            },
        ];
        for filter in filters {
            for order in [Order::Position, Order::Worst, metric(false), metric(true)] {
                let whole = page(&mut store, run, &query(filter.clone(), order.clone())).unwrap();
                let expected: Vec<i64> = whole.rows.iter().map(|r| r.item_id).collect();
                let mut walked = Vec::new();
                let mut q = CaseQuery {
                    limit: 3,
                    ..query(filter.clone(), order.clone())
                };
                loop {
                    let p = page(&mut store, run, &q).unwrap();
                    walked.extend(p.rows.iter().map(|r| r.item_id));
                    match p.next {
                        Some(cursor) => {
                            q.after = Some(cursor);
                            q.offset += 3;
                        }
                        None => break,
                    }
                }
                assert_eq!(walked, expected, "{order:?} {filter:?}");
                assert_eq!(walked.len() as i64, whole.total);
            }
        }
    }

    #[test]
    fn worst_first_puts_the_lowest_mean_score_on_top() {
        let (_dir, mut store, run, ids) = run_with_scores(10);
        let page = page(&mut store, run, &query(CaseFilter::default(), Order::Worst)).unwrap();
        assert_eq!(page.total, 10);
        // Item 1 has only retrieval 0.1 (its faithfulness errored), item 0 has mean(0, 0.9).
        assert_eq!(
            page.rows[0].item_id, ids[1],
            "mean 0.1 is worse than mean 0.45"
        );
        assert_eq!(
            page.rows[0].errors, 1,
            "the errored result is counted, not averaged as 0"
        );
    }

    #[test]
    fn an_errored_cell_is_an_error_not_a_zero() {
        let (_dir, mut store, run, ids) = run_with_scores(3);
        let page = page(
            &mut store,
            run,
            &query(CaseFilter::default(), Order::Position),
        )
        .unwrap();
        let cell = page.cells.iter().find(|c| c.item_id == ids[1]).unwrap();
        assert_eq!((cell.score, cell.status.as_str()), (None, "error"));
    }

    #[test]
    fn sorting_by_a_metric_descending_and_filtering_by_range_and_errors() {
        let (_dir, mut store, run, ids) = run_with_scores(10);
        let order = Order::Metric {
            metric: "ragvue.retrieval_relevance".into(),
            descending: true,
        };
        let page1 = page(
            &mut store,
            run,
            &query(CaseFilter::default(), order.clone()),
        )
        .unwrap();
        assert_eq!(page1.rows[0].item_id, ids[9]);
        let range = CaseFilter {
            score: Some(ScoreRange {
                metric: "ragvue.retrieval_relevance".into(),
                min: 0.2,
                max: 0.45,
            }),
            ..Default::default()
        };
        let ranged = page(&mut store, run, &query(range, order)).unwrap();
        let got: Vec<i64> = ranged.rows.iter().map(|r| r.item_id).collect();
        assert_eq!(
            got,
            vec![ids[4], ids[3], ids[2]],
            "0.4, 0.3, 0.2 lie in [0.2, 0.45]"
        );
        let errors = page(
            &mut store,
            run,
            &query(
                CaseFilter {
                    errors_only: true,
                    ..Default::default()
                },
                Order::Position,
            ),
        )
        .unwrap();
        assert_eq!(errors.total, 1);
    }

    #[test]
    fn sorting_by_a_metric_lists_the_items_it_did_not_score_last_across_pages() {
        let (_dir, mut store, run, ids) = run_with_scores(4);
        let order = Order::Metric {
            metric: "ragvue.strict_faithfulness".into(),
            descending: false,
        };
        let at = |store: &mut Store, offset| {
            let q = CaseQuery {
                offset,
                limit: 2,
                after: None,
                ..query(CaseFilter::default(), order.clone())
            };
            page(store, run, &q)
                .unwrap()
                .rows
                .iter()
                .map(|r| r.item_id)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            at(&mut store, 0),
            vec![ids[0], ids[2]],
            "equal scores keep run order"
        );
        assert_eq!(
            at(&mut store, 2),
            vec![ids[3], ids[1]],
            "the errored item follows the scored ones"
        );
        assert_eq!(
            at(&mut store, 3),
            vec![ids[1]],
            "a page past every scored item"
        );
        assert_eq!(at(&mut store, 4), Vec::<i64>::new());
    }

    #[test]
    fn text_search_matches_literally_and_pages_with_offset() {
        let (_dir, mut store, run, _ids) = run_with_scores(30);
        let text = CaseFilter {
            text: Some("100% COTTON_".into()),
            ..Default::default()
        };
        assert_eq!(
            page(&mut store, run, &query(text, Order::Position))
                .unwrap()
                .total,
            30,
            "case-insensitive, % literal"
        );
        let none = CaseFilter {
            text: Some("100x%".into()),
            ..Default::default()
        };
        assert_eq!(
            page(&mut store, run, &query(none, Order::Position))
                .unwrap()
                .total,
            0,
            "% is not a wildcard"
        );
        let mut second = query(CaseFilter::default(), Order::Position);
        second.offset = 25;
        let rows = page(&mut store, run, &second).unwrap().rows;
        assert_eq!((rows.len(), rows[0].position), (5, 25));
    }

    /// A phrase in more cases than the cap is counted to the cap and paged row by row;
    /// the pages are the ones the unfiltered list has (every case matches), through and
    /// past the cap. A rare phrase, or a common one with a narrow filter, counts exactly.
    #[test]
    fn a_text_search_counts_up_to_the_cap_and_pages_past_it() {
        let n = store::cases::COUNT_CAP + 60;
        let (_dir, mut store, run, _ids) = run_with_scores(n);
        let text = |t: &str| CaseFilter {
            text: Some(t.into()),
            ..Default::default()
        };
        let common = page(&mut store, run, &query(text("cotton_shirts"), Order::Worst)).unwrap();
        assert_eq!(
            (common.total, common.total_capped),
            (store::cases::COUNT_CAP, true)
        );
        let unfiltered =
            page(&mut store, run, &query(CaseFilter::default(), Order::Worst)).unwrap();
        assert_eq!(common.rows, unfiltered.rows);
        assert!(!unfiltered.total_capped && unfiltered.total == n);
        let mut past = query(text("cotton_shirts"), Order::Position);
        past.after = Some(store::cases::Cursor {
            position: store::cases::COUNT_CAP + 9,
            key: None,
        });
        past.offset = store::cases::COUNT_CAP + 10;
        let positions: Vec<i64> = page(&mut store, run, &past)
            .unwrap()
            .rows
            .iter()
            .map(|r| r.position)
            .collect();
        assert_eq!(
            positions,
            (store::cases::COUNT_CAP + 10..n).collect::<Vec<_>>()
        );
        let rare = page(
            &mut store,
            run,
            &query(text("question 10042 about"), Order::Position),
        )
        .unwrap();
        assert_eq!(
            (rare.total, rare.total_capped, rare.rows[0].position),
            (1, false, 10042)
        );
        let narrowed = CaseFilter {
            errors_only: true,
            ..text("cotton_shirts")
        };
        let errored = page(&mut store, run, &query(narrowed, Order::Position)).unwrap();
        assert_eq!((errored.total, errored.total_capped), (1, false));
    }

    #[test]
    fn pattern_letters_come_from_the_diagnosis_rules() {
        let (_dir, mut store, run, ids) = run_with_scores(4);
        // Faithfulness 0.9 fires no hallucination; retrieval alone cannot fire A (needs coverage).
        let none = page(
            &mut store,
            run,
            &query(
                CaseFilter {
                    pattern: Some('C'),
                    ..Default::default()
                },
                Order::Position,
            ),
        )
        .unwrap();
        assert_eq!(none.total, 0);
        // Mark item 2 as hallucinating: its index must be rebuilt when the run changes.
        let low = MetricResult::ok(
            "ragvue.strict_faithfulness",
            0.1,
            "",
            serde_json::Value::Null,
        );
        store
            .conn()
            .execute(
                "DELETE FROM results WHERE item_id = ?1 AND metric = 'ragvue.strict_faithfulness'",
                [ids[2]],
            )
            .unwrap();
        store::results::insert(store.conn(), run, ids[2], "offline", &low).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(5));
        store::runs::mark_ended(store.conn(), run, RunStatus::Done, None).unwrap();
        let fired = page(
            &mut store,
            run,
            &query(
                CaseFilter {
                    pattern: Some('C'),
                    ..Default::default()
                },
                Order::Position,
            ),
        )
        .unwrap();
        assert_eq!(
            fired.rows.iter().map(|r| r.item_id).collect::<Vec<_>>(),
            vec![ids[2]]
        );
        assert!(fired.rows[0].patterns.contains('C'));
    }
}
