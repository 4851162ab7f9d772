//! The small parsers of outside text: Retry-After values (delay-seconds, HTTP dates,
//! the `retry-after-ms` header), `--map` specs and the paths they name, and label
//! files (CSV / TSV / JSONL of item, metric, score, note).

use proptest::collection::vec;
use proptest::prelude::*;
use ragnosis_core::dataset::labels::read_labels;
use ragnosis_core::dataset::{lookup, FieldMap};
use ragnosis_core::judge::provider::retry_after::{parse_retry_after, parse_retry_after_ms};
use serde_json::{Map, Value};

use super::dictionary::FIELD_NAMES;
use super::engine::campaign;
use super::importer::scratch;
use super::mutate::{apply, mutation, Mutation, Seed};

fn now() -> std::time::SystemTime {
    httpdate::parse_http_date("Wed, 21 Oct 2015 07:28:00 GMT").unwrap()
}

pub fn retry_after(default_cases: u32) {
    let seeds: Vec<Seed> = [
        "120",
        " 1.5 ",
        "0",
        "Wed, 21 Oct 2015 07:28:30 GMT",
        "Wednesday, 21-Oct-15 07:29:00 GMT",
        "Wed Oct 21 07:28:05 2015",
        "Tue, 20 Oct 2015 07:28:00 GMT",
        "-3",
        "soon",
        "1e3",
        "Fri, 31 Dec 9999 23:59:59 GMT",
        "Thu, 01 Jan 1970 00:00:00 GMT",
    ]
    .iter()
    .map(|s| Seed::new(*s, s.as_bytes().to_vec()))
    .collect();
    campaign(
        "retry_after",
        default_cases,
        mutation(seeds.len()),
        |m: &Mutation| apply(&seeds, m),
        |bytes, _| {
            let text = String::from_utf8_lossy(bytes);
            let wait = parse_retry_after(&text, now());
            let wait_ms = parse_retry_after_ms(&text);
            for w in [wait, wait_ms].into_iter().flatten() {
                // A wait is a real duration the retry loop can sleep for.
                let _ = std::time::Instant::now().checked_add(w);
            }
            Ok(())
        },
    );
}

/// A record with keys that are themselves dotted paths at every level (`a`, `a.a`,
/// `a.a.a` ...), the worst case for a lookup that tries every split of a path. Its size
/// is `width^depth`: a lookup's work stays bounded by the record's size.
fn dotted_record(depth: usize, width: usize) -> Map<String, Value> {
    let mut inner = Value::String("leaf".into());
    for _ in 0..depth {
        let mut map = Map::new();
        for w in 1..=width {
            map.insert(vec!["a"; w].join("."), inner.clone());
        }
        inner = Value::Object(map);
    }
    match inner {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

pub fn field_map(seeds: &[Seed], default_cases: u32) {
    let records: Vec<Map<String, Value>> = seeds
        .iter()
        .filter_map(|s| {
            let text = std::str::from_utf8(&s.bytes).ok()?;
            let first = text.lines().next()?;
            match serde_json::from_str::<Value>(first).or_else(|_| serde_json::from_str(text)) {
                Ok(Value::Object(map)) => Some(map),
                _ => None,
            }
        })
        .chain((1..4).map(|d| dotted_record(d * 2, 3)))
        .collect();
    let part = prop_oneof![
        3 => (0..FIELD_NAMES.len()).prop_map(|i| FIELD_NAMES[i].to_string()),
        2 => Just("a".to_string()),
        1 => (0u32..5).prop_map(|i| i.to_string()),
        1 => "\\PC{0,5}",
    ];
    let spec = prop_oneof![
        3 => ("[a-z_]{0,20}", vec(part, 0..40)).prop_map(|(f, p)| format!("{f}={}", p.join("."))),
        1 => "\\PC{0,40}",
    ];
    campaign(
        "field_map",
        default_cases,
        (0..records.len(), vec(spec, 0..4)),
        |(_, specs): &(usize, Vec<String>)| specs.join("\n").into_bytes(),
        |_, (r, specs)| {
            match FieldMap::parse(specs) {
                Ok(map) => {
                    map.check()
                        .map_err(|e| format!("parsed, then refused: {e}"))?;
                    for o in &map.overrides {
                        let _ = lookup(&records[*r], &o.path);
                    }
                }
                Err(e) if e.is_empty() => return Err("an empty error".into()),
                Err(_) => {}
            }
            for spec in specs {
                let path = spec.split_once('=').map_or(spec.as_str(), |(_, p)| p);
                let _ = lookup(&records[*r], path);
            }
            Ok(())
        },
    );
}

pub fn label_seeds() -> Vec<Seed> {
    let csv = "item,metric,score,note\nq1,clarity,0.8,\"fine, mostly\"\n\n,clarity,pass,\nq3,clarity,1.4,\nq4,clarity,maybe,\nq5,ragvue.strict_faithfulness,fail,\"a \"\"quoted\"\" note\"\n";
    let tsv = "question\tmetric_id\thuman_score\tcomment\nHow long is the warranty?\tclarity\t1\tok\nWho is covered?\tclarity\t0\t\n";
    let mut jsonl = String::new();
    for (i, score) in ["0.5", "\"pass\"", "1", "\"FAIL\"", "0.25", "null"]
        .iter()
        .enumerate()
    {
        jsonl.push_str(&format!(
            "{{\"item\": \"q{i}\", \"metric\": \"token_overlap\", \"score\": {score}, \"note\": \"n{i}\"}}\n"
        ));
    }
    jsonl.push_str("{\"query_id\": 17, \"metric_id\": \"clarity\", \"value\": 0.9}\n");
    [
        ("labels.csv", csv),
        ("labels.tsv", tsv),
        ("labels.jsonl", jsonl.as_str()),
    ]
    .iter()
    .map(|(n, t)| Seed::new(*n, t.as_bytes().to_vec()))
    .collect()
}

pub fn labels(default_cases: u32) {
    let seeds = label_seeds();
    let dir = scratch();
    let path = dir.path().join("labels.csv");
    campaign(
        "labels",
        default_cases,
        mutation(seeds.len()),
        |m: &Mutation| apply(&seeds, m),
        |bytes, _| {
            std::fs::write(&path, bytes).unwrap();
            match read_labels(&path) {
                Ok((rows, problems)) => {
                    if let Some(r) = rows.iter().find(|r| !(0.0..=1.0).contains(&r.score)) {
                        return Err(format!("line {}: score {} accepted", r.line, r.score));
                    }
                    if let Some(p) = problems.iter().find(|p| p.reason.trim().is_empty()) {
                        return Err(format!("line {}: a problem without a reason", p.line));
                    }
                    if let Some(r) = rows.iter().find(|r| r.metric.trim().is_empty()) {
                        return Err(format!("line {}: a label without a metric", r.line));
                    }
                    Ok(())
                }
                Err(e) if e.to_string().contains(&path.display().to_string()) => Ok(()),
                Err(e) => Err(format!("the error does not name the file: {e}")),
            }
        },
    );
}
