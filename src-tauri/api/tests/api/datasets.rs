//! Importing: what both shells refuse and what they keep.

use ragnosis_api::datasets::{self, ImportRequest};
use ragnosis_api::{ErrorCode, NoProgress};

use crate::{home, ragvue_example, refusal};

#[test]
fn a_file_with_no_valid_item_is_refused_and_leaves_no_dataset() {
    let h = home();
    let broken = h.dir.path().join("broken.jsonl");
    std::fs::write(&broken, "{\"answer\": \"no question\"}\nnot json\n").unwrap();
    let mut seen = None;
    let (code, message) = refusal(
        datasets::import_inspected(
            &h.ctx,
            &ImportRequest::new(&broken),
            &NoProgress,
            |imported| seen = Some(imported.report.rejected_count),
        )
        .map(|imported| imported.dataset.id),
    );
    assert_eq!(code, ErrorCode::DatasetNoItems);
    assert!(message.contains("line 2"), "the first reasons: {message}");
    assert_eq!(seen, Some(2), "the CLI sees the report before the refusal");
    assert!(datasets::list(&h.ctx).unwrap().is_empty(), "nothing kept");
}

#[test]
fn a_mapping_names_known_fields_and_a_blank_one_means_as_detected() {
    let overrides = |field: &str, path: &str| {
        vec![ragnosis_api::datasets::FieldOverride {
            field: field.into(),
            path: path.into(),
        }]
    };
    let request = ImportRequest::new(ragvue_example());
    assert!(request
        .clone()
        .with_overrides(overrides("answer", " "))
        .is_ok());
    let (code, message) = refusal(request.with_overrides(overrides("colour", "x")));
    assert_eq!(code, ErrorCode::Invalid);
    assert!(message.contains("cannot map `colour`"), "{message}");
}

#[test]
fn the_same_bytes_imported_again_reuse_their_dataset() {
    let h = home();
    let request = ImportRequest::new(ragvue_example());
    let first = datasets::import(&h.ctx, &request, &NoProgress).unwrap();
    let again = datasets::import(&h.ctx, &request, &NoProgress).unwrap();
    assert!(!first.reused && again.reused);
    assert_eq!(first.dataset.id, again.dataset.id);
    let page = datasets::items(&h.ctx, first.dataset.id, 0, 1000).unwrap();
    assert_eq!((page.total, page.items.len()), (8, 8));
}
