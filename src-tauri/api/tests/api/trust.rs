//! People's labels: one at a time, or a file; a file with nothing usable is refused.

use std::sync::Arc;

use ragnosis_api::runs::{self, RunRequest};
use ragnosis_api::trust::{self, Label};
use ragnosis_api::{CancelToken, ErrorCode, NoProgress};

use crate::{datasets_example, home, refusal, Home};

fn finished_run(h: &Home) -> i64 {
    let request = RunRequest {
        dataset_id: datasets_example(h),
        mode: "manual".into(),
        metrics: vec!["ragvue.clarity".into()],
        judge: "offline".into(),
        ..RunRequest::default()
    };
    let planned = runs::plan(&h.ctx, &request).unwrap();
    let run_id = planned.run_id;
    runs::execute(&h.ctx, planned, Arc::new(NoProgress), &CancelToken::new()).unwrap();
    run_id
}

#[test]
fn a_labels_file_with_no_usable_label_is_refused_after_its_report_is_seen() {
    let h = home();
    let run_id = finished_run(&h);
    let file = h.dir.path().join("labels.csv");
    std::fs::write(&file, "item,metric,score\n999999,ragvue.clarity,1\n").unwrap();
    let mut seen = None;
    let (code, message) = refusal(trust::import_labels(&h.ctx, run_id, &file, |r| {
        seen = Some(r.rejected.len())
    }));
    assert_eq!(code, ErrorCode::Invalid);
    assert!(
        message.contains("nothing was stored") && message.contains("line 2"),
        "{message}"
    );
    assert_eq!(seen, Some(1));
}

#[test]
fn a_label_replaces_the_items_earlier_one_and_can_be_removed() {
    let h = home();
    let run_id = finished_run(&h);
    let item_id = ragnosis_api::cases::list(
        &h.ctx,
        run_id,
        serde_json::from_value(serde_json::json!({ "order": "position", "offset": 0, "limit": 1 }))
            .unwrap(),
    )
    .unwrap()
    .rows[0]
        .row
        .item_id;
    let mut label = Label {
        run_id,
        item_id,
        metric: "clarity",
        score: Some(trust::parse_score("pass").unwrap()),
        note: None,
        source: "test",
    };
    let (metric, labels) = trust::label(&h.ctx, &label).unwrap();
    assert_eq!(metric, "ragvue.clarity", "a bare name is the metric's id");
    assert_eq!((labels.len(), labels[0].score), (1, 1.0));
    label.score = None;
    assert!(trust::label(&h.ctx, &label).unwrap().1.is_empty());
}
