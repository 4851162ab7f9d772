//! Judge calibration: the same metrics on the same items under several judge
//! configurations (model × temperature). Per item and metric, agreement is
//! 1 − (max − min) over the configurations' scores; items under the threshold need a
//! human look. Each configuration is its own run (a "calibration run" of the main one),
//! so every judge's verdicts are stored and browsable like any other run.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::metrics::{self, Status};
use crate::store::{self, Store};

/// Kind under which the calibration summary is kept in `analyses` (of the main run).
pub const CALIBRATION: &str = "calibration";

/// Items whose agreement is below this need review (METRICS.md default).
pub const DEFAULT_REVIEW_BELOW: f64 = 0.7;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ConfigScore {
    pub run_id: i64,
    pub judge: String,
    pub score: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ItemAgreement {
    pub item_id: i64,
    pub agreement: f64,
    pub scores: Vec<ConfigScore>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MetricCalibration {
    pub metric: String,
    /// Items scored `ok` by every configuration.
    pub items: u64,
    pub mean_agreement: Option<f64>,
    /// Each configuration's mean over those items, in `runs` order: how far the run's
    /// headline figure moves from one judging to the next.
    #[serde(default)]
    pub means: Vec<f64>,
    pub needs_review: Vec<ItemAgreement>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Calibration {
    pub main_run: i64,
    pub runs: Vec<(i64, String)>,
    pub review_below: f64,
    pub metrics: Vec<MetricCalibration>,
}

/// Compares the judged metrics of `runs` (the main run first) item by item and stores
/// the result with the main run.
pub fn calibrate(store: &Store, runs: &[i64], review_below: f64) -> Result<Calibration> {
    let rows: Vec<_> = runs
        .iter()
        .map(|id| store::runs::get(store.conn(), *id))
        .collect::<Result<_>>()?;
    let main = &rows[0];
    let mut out = Calibration {
        main_run: main.id,
        runs: rows.iter().map(|r| (r.id, r.judge.clone())).collect(),
        review_below,
        metrics: Vec::new(),
    };
    for metric in main
        .metrics
        .iter()
        .filter(|m| metrics::find(m).is_some_and(|s| s.judge))
    {
        // item → one score per configuration, in `runs` order.
        let mut by_item: BTreeMap<i64, Vec<ConfigScore>> = BTreeMap::new();
        for run in &rows {
            for cell in store::results::scores(store.conn(), run.id, metric)? {
                if let (Status::Ok, Some(score)) = (cell.status, cell.score) {
                    by_item.entry(cell.item_id).or_default().push(ConfigScore {
                        run_id: run.id,
                        judge: run.judge.clone(),
                        score,
                    });
                }
            }
        }
        let mut agreements: Vec<ItemAgreement> = by_item
            .into_iter()
            .filter(|(_, scores)| scores.len() == rows.len())
            .map(|(item_id, scores)| {
                let max = scores.iter().map(|s| s.score).fold(f64::MIN, f64::max);
                let min = scores.iter().map(|s| s.score).fold(f64::MAX, f64::min);
                ItemAgreement {
                    item_id,
                    agreement: 1.0 - (max - min),
                    scores,
                }
            })
            .collect();
        let n = agreements.len();
        let mean = (n > 0).then(|| agreements.iter().map(|a| a.agreement).sum::<f64>() / n as f64);
        let means = if n == 0 {
            Vec::new()
        } else {
            (0..rows.len())
                .map(|k| agreements.iter().map(|a| a.scores[k].score).sum::<f64>() / n as f64)
                .collect()
        };
        agreements.retain(|a| a.agreement < review_below);
        agreements.sort_by(|a, b| {
            a.agreement
                .total_cmp(&b.agreement)
                .then(a.item_id.cmp(&b.item_id))
        });
        out.metrics.push(MetricCalibration {
            metric: metric.clone(),
            items: n as u64,
            mean_agreement: mean,
            means,
            needs_review: agreements,
        });
    }
    store::analyses::put(
        store.conn(),
        main.id,
        CALIBRATION,
        &serde_json::to_value(&out)?,
    )?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::MetricResult;

    #[test]
    fn agreement_is_one_minus_the_spread_and_low_items_need_review() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(dir.path()).unwrap();
        let file = dir.path().join("d.jsonl");
        std::fs::write(
            &file,
            "{\"question\": \"a\", \"answer\": \"x\"}\n{\"question\": \"b\", \"answer\": \"y\"}\n",
        )
        .unwrap();
        let ds = crate::import::import_file(
            &mut store,
            &file,
            None,
            &Default::default(),
            &crate::progress::NoProgress,
        )
        .unwrap()
        .dataset
        .id;
        let req = crate::run::RunRequest {
            dataset_id: ds,
            metrics: vec!["ragvue.clarity".into()],
            ..Default::default()
        };
        let a = crate::run::plan(&mut store, &req).unwrap();
        let b = crate::run::plan(&mut store, &req).unwrap();
        let items = store::run_items::item_ids(store.conn(), a).unwrap();
        let put = |run, item, score| {
            store::results::insert(
                store.conn(),
                run,
                item,
                "j",
                &MetricResult::ok("ragvue.clarity", score, "", serde_json::Value::Null),
            )
            .unwrap();
        };
        put(a, items[0], 0.9);
        put(b, items[0], 0.8);
        put(a, items[1], 0.9);
        put(b, items[1], 0.3);
        let cal = calibrate(&store, &[a, b], 0.7).unwrap();
        let m = &cal.metrics[0];
        assert_eq!(m.items, 2);
        assert!(
            (m.mean_agreement.unwrap() - (0.9 + 0.4) / 2.0).abs() < 1e-9,
            "1-(0.9-0.8)=0.9 and 1-(0.9-0.3)=0.4"
        );
        assert_eq!(
            m.needs_review.len(),
            1,
            "only the 0.4-agreement item is below 0.7"
        );
        assert_eq!(m.needs_review[0].item_id, items[1]);
        assert!(
            store::analyses::get(store.conn(), a, CALIBRATION)
                .unwrap()
                .is_some(),
            "stored with the main run"
        );
    }
}
