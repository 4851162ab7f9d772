//! How fast the desktop case list pages through a large run. Prints figures; asserts
//! nothing. `cargo bench -p ragnosis-core --bench case_page [-- ITEMS]` (default 100 000).
//!
//! Builds a finished run directly in the store: ITEMS items of realistic size (an answer
//! of ~450 characters, five chunks of ~400), 16 metrics each (the RAGVUE
//! set an agentic run scores on items with answer and contexts), one error in fifty
//! cells, so that the results table holds what a real 100 000-item run leaves. Then
//! times `cases::page` (count + page + cells, the whole answer to one UI request) for
//! the queries the case list sends.

use std::time::Instant;

use ragnosis_core::cases::{self, CaseFilter as Filter, CaseQuery, Order, ScoreRange};
use ragnosis_core::item::{Context, Item};
use ragnosis_core::metrics::MetricResult;
use ragnosis_core::store::{self, runs::RunStatus, Store};

const METRICS: [&str; 16] = [
    "ragvue.retrieval_relevance",
    "ragvue.retrieval_coverage",
    "ragvue.answer_relevance",
    "ragvue.answer_completeness",
    "ragvue.clarity",
    "ragvue.strict_faithfulness",
    "ragvue.context_utilization",
    "ragvue.negative_rejection",
    "ragvue.multi_hop_faithfulness",
    "ragvue.implicit_contradiction",
    "ragvue.coherence",
    "ragvue.answer_conciseness",
    "ragvue.retrieval_overall",
    "ragvue.answer_overall",
    "ragvue.token_overlap",
    "ragvue.readability",
];

/// Realistic sizes: an answer of about 450 characters, five chunks of about 400.
const ANSWER_TAIL: &str = "The warranty applies to the first owner only and requires proof of purchase from Northwind or an authorised dealer. Wear items such as tyres, brake pads, chains and grips are not covered, nor is damage from crashes, improper assembly or speed-tuning kits. Batteries are covered for two years or 800 full cycles, whichever comes first.";
const CONTEXT: &str = "Northwind Cycles warrants every e-bike frame and rigid fork against defects in materials and workmanship for 10 years from the original purchase date. Suspension forks and rear shocks are covered for 2 years. The frame warranty applies to the first owner only and requires proof of purchase from Northwind or an authorised dealer. Batteries damaged by water immersion are not covered.";

struct Lcg(u64);
impl Lcg {
    fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn build(store: &mut Store, n: i64) -> i64 {
    let mut rng = Lcg(7);
    let metrics: Vec<String> = METRICS.iter().map(|m| m.to_string()).collect();
    store
        .transaction(|tx| {
            let dataset = store::datasets::insert(tx, "bench", None)?;
            let mut ids = Vec::with_capacity(n as usize);
            for i in 0..n {
                let item = Item {
                    id: Some(format!("q-{i}")),
                    question: format!(
                        "How long is the warranty on part {i} of the frame and the battery?"
                    ),
                    answer: Some(format!(
                        "Part {i} is covered for {} years from the purchase date. {}",
                        i % 12,
                        ANSWER_TAIL
                    )),
                    contexts: (0..5)
                        .map(|k| Context {
                            id: Some(format!("D{k}")),
                            text: CONTEXT.into(),
                        })
                        .collect(),
                    ..Default::default()
                };
                ids.push(store::items::insert(
                    tx,
                    dataset,
                    i,
                    i as u64 + 1,
                    &format!("{i:032x}"),
                    &item,
                )?);
            }
            store::datasets::finish(tx, dataset, n, None, Some("custom"), "{}", "{}")?;
            let run = store::runs::insert(
                tx,
                &store::runs::NewRun {
                    dataset_id: dataset,
                    label: Some("bench"),
                    version: None,
                    notes: None,
                    mode: "agentic",
                    metrics: &metrics,
                    judge: "offline",
                    config: &serde_json::json!({}),
                    item_count: n,
                },
            )?;
            store::run_items::insert_all(tx, run, &ids)?;
            for id in &ids {
                for metric in METRICS {
                    let r = if rng.unit() < 0.02 {
                        MetricResult::error(
                            metric,
                            "internal error while evaluating this item: simulated",
                        )
                    } else {
                        MetricResult::ok(
                            metric,
                            rng.unit(),
                            "simulated score",
                            serde_json::Value::Null,
                        )
                    };
                    store::results::insert(tx, run, *id, "offline", &r)?;
                }
            }
            store::runs::mark_ended(tx, run, RunStatus::Done, None)?;
            Ok(run)
        })
        .expect("building the bench run")
}

fn time_page(store: &mut Store, run: i64, name: &str, query: &CaseQuery) {
    let mut times = Vec::new();
    let mut total = String::new();
    for _ in 0..7 {
        let started = Instant::now();
        let page = cases::page(store, run, query).expect("page");
        times.push(started.elapsed().as_secs_f64() * 1000.0);
        total = format!("{}{}", page.total, if page.total_capped { "+" } else { "" });
    }
    times.sort_by(|a, b| a.total_cmp(b));
    println!(
        "{name:<44} median {:>7.1} ms   max {:>7.1} ms   ({total} matching)",
        times[times.len() / 2],
        times[times.len() - 1]
    );
}

// long: a benchmark script: builds the database, then times each query shape in turn and prints the
// table
fn main() {
    let n: i64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(100_000);
    // CASE_PAGE_HOME keeps (and on later runs reuses) the database, for EXPLAIN sessions.
    let dir = tempfile::tempdir().unwrap();
    let home = std::env::var_os("CASE_PAGE_HOME")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| dir.path().to_path_buf());
    let mut store = Store::open(&home).unwrap();
    let run = match store::runs::list(store.conn()).unwrap().first() {
        Some(existing) => existing.id,
        None => {
            let started = Instant::now();
            let run = build(&mut store, n);
            println!(
                "built a run of {n} items × {} metrics in {:.1} s",
                METRICS.len(),
                started.elapsed().as_secs_f64()
            );
            run
        }
    };
    store
        .conn()
        .execute("DELETE FROM analyses WHERE run_id = ?1", [run])
        .unwrap();

    let started = Instant::now();
    cases::ensure_index(&mut store, run).unwrap();
    println!(
        "case index built once in {:.2} s (on first open of the run's case list)",
        started.elapsed().as_secs_f64()
    );

    let columns: Vec<String> = [
        "ragvue.retrieval_overall",
        "ragvue.answer_overall",
        "ragvue.strict_faithfulness",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let q = |filter: Filter, order: Order, offset: i64| CaseQuery {
        filter,
        order,
        offset,
        limit: 50,
        after: None,
        columns: columns.clone(),
    };
    let by = |metric: &str, descending| Order::Metric {
        metric: metric.into(),
        descending,
    };
    time_page(
        &mut store,
        run,
        "first page, run order",
        &q(Filter::default(), Order::Position, 0),
    );
    time_page(
        &mut store,
        run,
        "worst cases preset",
        &q(Filter::default(), Order::Worst, 0),
    );
    time_page(
        &mut store,
        run,
        "sort by strict_faithfulness ascending",
        &q(
            Filter::default(),
            by("ragvue.strict_faithfulness", false),
            0,
        ),
    );
    time_page(
        &mut store,
        run,
        "sort by answer_overall, page 1000",
        &q(
            Filter::default(),
            by("ragvue.answer_overall", true),
            50_000.min(n - 50),
        ),
    );
    // The same deep pages reached as the window does from "Next": after the last row
    // of the page before (a cursor), not by counting rows off.
    for (name, order) in [
        ("worst first, page 1000 after a cursor", Order::Worst),
        (
            "answer_overall, page 1000 after a cursor",
            by("ragvue.answer_overall", true),
        ),
        ("run order, page 1000 after a cursor", Order::Position),
    ] {
        let deep = 50_000.min(n - 100);
        let before =
            cases::page(&mut store, run, &q(Filter::default(), order.clone(), deep)).expect("page");
        let mut next = q(Filter::default(), order, deep + 50);
        next.after = before.next;
        time_page(&mut store, run, name, &next);
    }
    let range = Filter {
        score: Some(ScoreRange {
            metric: "ragvue.retrieval_relevance".into(),
            min: 0.0,
            max: 0.3,
        }),
        ..Default::default()
    };
    time_page(
        &mut store,
        run,
        "retrieval_relevance in [0, 0.3], worst first",
        &q(range, Order::Worst, 0),
    );
    time_page(
        &mut store,
        run,
        "pattern C (hallucination)",
        &q(
            Filter {
                pattern: Some('C'),
                ..Default::default()
            },
            Order::Worst,
            0,
        ),
    );
    time_page(
        &mut store,
        run,
        "errors only",
        &q(
            Filter {
                errors_only: true,
                ..Default::default()
            },
            Order::Position,
            0,
        ),
    );
    let search = |text: &str| {
        q(
            Filter {
                text: Some(text.into()),
                ..Default::default()
            },
            Order::Position,
            0,
        )
    };
    let started = Instant::now();
    cases::page(&mut store, run, &search("part 4242")).unwrap();
    println!(
        "search index built once in {:.2} s (on the dataset's first text search)",
        started.elapsed().as_secs_f64()
    );
    time_page(
        &mut store,
        run,
        "text search \"part 4242\"",
        &search("part 4242"),
    );
    time_page(
        &mut store,
        run,
        "text search \"warranty\" (every item)",
        &search("warranty"),
    );
    time_page(
        &mut store,
        run,
        "text search \"42\" (short: a scan)",
        &search("42"),
    );
}
