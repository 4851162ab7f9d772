//! The JSON export: `{"run": ..., "summary": ..., "trust": [...], "criteria": [...],
//! "insights": ..., "items": [...]}`, the same report facts the window and the reports read (the trust
//! statement's sentences, the run's insights and ranked actions). Items are streamed one
//! at a time so a 100 000-item run never sits in memory.

use std::io::Write;

use serde_json::{json, Map, Value};

use crate::analysis::diagnosis;
use crate::error::{Error, Result};
use crate::store::{self, Store};
use crate::view::{ItemView, ReportView};

pub fn write(store: &Store, report: &ReportView, out: &mut impl Write) -> Result<()> {
    let view = &report.run;
    let io = |e: std::io::Error| Error::Invalid(format!("writing JSON export failed: {e}"));
    let run = json!({
        "id": view.run.id,
        "label": view.run.label,
        "version": view.run.version,
        "notes": view.run.notes,
        "mode": view.run.mode,
        "status": view.run.status,
        // Why a run stopped or what it could not score ("done with errors: …").
        "message": view.run.message,
        "judge": view.run.judge,
        "metrics": view.run.metrics,
        "items": view.run.item_count,
        "created_at": view.run.created_at,
        "started_at": view.run.started_at,
        "finished_at": view.run.finished_at,
        "dataset": { "id": view.dataset.id, "name": view.dataset.name, "source_path": view.dataset.source_path },
    });
    out.write_all(b"{\n\"run\": ").map_err(io)?;
    serde_json::to_writer_pretty(&mut *out, &run)?;
    out.write_all(b",\n\"summary\": ").map_err(io)?;
    serde_json::to_writer_pretty(&mut *out, &view.summary)?;
    out.write_all(b",\n\"trust\": ").map_err(io)?;
    serde_json::to_writer_pretty(&mut *out, &report.trust.sentences)?;
    // The user's own criteria: the version and text that scored, and how items did.
    out.write_all(b",\n\"criteria\": ").map_err(io)?;
    serde_json::to_writer_pretty(&mut *out, &report.criteria)?;
    // `null` when the run has none (a run stored before insights existed).
    out.write_all(b",\n\"insights\": ").map_err(io)?;
    serde_json::to_writer_pretty(&mut *out, &report.insights)?;
    out.write_all(b",\n\"items\": [").map_err(io)?;
    let item_ids = store::run_items::item_ids(store.conn(), view.run.id)?;
    for (position, item_id) in item_ids.iter().enumerate() {
        out.write_all(if position == 0 { b"\n" } else { b",\n" })
            .map_err(io)?;
        let item = ItemView::load(store, view.run.id, *item_id)?;
        serde_json::to_writer(&mut *out, &item_json(position, &item))?;
    }
    out.write_all(b"\n]\n}\n").map_err(io)?;
    Ok(())
}

fn item_json(position: usize, view: &ItemView) -> Value {
    let mut results = Map::new();
    for r in &view.results {
        results.insert(
            r.metric.clone(),
            json!({ "score": r.score, "status": r.status, "explanation": r.explanation, "details": r.details }),
        );
    }
    let mut item = serde_json::to_value(&view.item).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut item {
        map.insert("position".into(), json!(position));
        map.insert("item_id".into(), json!(view.item_id));
        map.insert("content_hash".into(), json!(view.content_hash));
        map.insert("results".into(), Value::Object(results));
        // The failure patterns of this item, so a script can act on the diagnosis item
        // by item (the summary only counts them).
        let reading = diagnosis::reading_of(&view.results);
        let patterns: Vec<Value> = reading
            .patterns()
            .into_iter()
            .map(|p| json!({ "pattern": p.letter().to_string(), "name": p.name(), "stage": p.stage() }))
            .collect();
        map.insert("patterns".into(), Value::Array(patterns));
        // Why no pattern is named when the item's signals disagree: it needs a look.
        map.insert("needs_a_look".into(), json!(reading.unsure));
    }
    item
}
