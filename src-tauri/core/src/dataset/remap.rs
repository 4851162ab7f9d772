//! The user's mapping overrides (`--map question=vars.query`, the Data screen's mapping
//! editor): a canonical field read from a path in each source record, ahead of whatever
//! the aliases or a tool's dialect would pick.
//!
//! Owns: parsing and checking overrides, finding a path's value in a record, and
//! counting how many records each override matched (one that matched none is reported).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The fields an override can set, with the record key that then carries them (the most
/// specific alias, so the override wins over any other name for the field).
const TARGETS: [(&str, &str); 9] = [
    ("question", "question"),
    ("answer", "answer"),
    ("contexts", "retrieved_contexts"),
    ("ground_truth", "ground_truth"),
    ("reference_contexts", "reference_contexts"),
    ("id", "id"),
    ("retrieved_ids", "retrieved_ids"),
    ("gold_context_ids", "gold_context_ids"),
    ("citation_label", "citation_label"),
];

/// One override: `field` is read from `path` (dot-separated keys, array indexes as
/// numbers: `vars.query`, `response.output`, `contexts.0`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FieldOverride {
    pub field: String,
    pub path: String,
}

/// The overrides of one import, in the order given, and a file of scores to read beside
/// a trace export (Langfuse keeps scores apart from its traces).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FieldMap {
    pub overrides: Vec<FieldOverride>,
    /// Not part of the mapping's text: the import names the file by its content.
    #[serde(skip)]
    pub scores_file: Option<std::path::PathBuf>,
}

impl FieldMap {
    /// Parses `field=path` specs; an unknown field or an empty path is an error naming it.
    pub fn parse<S: AsRef<str>>(specs: &[S]) -> Result<FieldMap, String> {
        let mut overrides: Vec<FieldOverride> = Vec::new();
        for spec in specs {
            let spec = spec.as_ref();
            let Some((field, path)) = spec.split_once('=') else {
                return Err(format!(
                    "mapping `{spec}` is not FIELD=PATH (for example question=vars.query)"
                ));
            };
            overrides.push(FieldOverride {
                field: field.trim().to_string(),
                path: path.trim().to_string(),
            });
        }
        let map = FieldMap {
            overrides,
            scores_file: None,
        };
        map.check()?;
        Ok(map)
    }

    /// Every field known and given once, every path non-empty.
    pub fn check(&self) -> Result<(), String> {
        for (i, o) in self.overrides.iter().enumerate() {
            if target_key(&o.field).is_none() {
                let known: Vec<&str> = TARGETS.iter().map(|(f, _)| *f).collect();
                return Err(format!(
                    "cannot map `{}`: the fields are {}",
                    o.field,
                    known.join(", ")
                ));
            }
            if o.path.is_empty() {
                return Err(format!("mapping for `{}` has no path", o.field));
            }
            if self.overrides[..i].iter().any(|p| p.field == o.field) {
                return Err(format!("`{}` is mapped twice", o.field));
            }
        }
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.overrides.is_empty() && self.scores_file.is_none()
    }

    /// The overridden values found in `record` (before any reshaping), as (record key,
    /// value); `hits[i]` counts the records where override `i` found a value.
    pub(crate) fn pick(
        &self,
        record: &Map<String, Value>,
        hits: &mut [u64],
    ) -> Vec<(String, Value)> {
        let mut picked = Vec::new();
        for (i, o) in self.overrides.iter().enumerate() {
            let key = target_key(&o.field).expect("checked when parsed");
            if let Some(value) = lookup(record, &o.path) {
                hits[i] += 1;
                picked.push((key.to_string(), value.clone()));
            }
        }
        picked
    }
}

fn target_key(field: &str) -> Option<&'static str> {
    TARGETS.iter().find(|(f, _)| *f == field).map(|(_, k)| *k)
}

/// Puts the picked values into the (reshaped) record; a value already under the key is
/// kept in metadata under `<key>_replaced`, never lost.
pub(crate) fn apply(record: &mut Map<String, Value>, picked: Vec<(String, Value)>) {
    for (key, value) in picked {
        if let Some(old) = record.insert(key.clone(), value) {
            record.insert(format!("{key}_replaced"), old);
        }
    }
}

/// The value at `path`; a key may itself contain dots (`attributes.input.value`), so
/// the longest key present wins at each level.
pub fn lookup<'v>(record: &'v Map<String, Value>, path: &str) -> Option<&'v Value> {
    let parts: Vec<&str> = path.split('.').collect();
    lookup_parts(record, &parts)
}

fn lookup_parts<'v>(map: &'v Map<String, Value>, parts: &[&str]) -> Option<&'v Value> {
    for take in (1..=parts.len()).rev() {
        let key = parts[..take].join(".");
        if let Some(value) = map.get(&key) {
            let rest = &parts[take..];
            if rest.is_empty() {
                return Some(value);
            }
            if let Some(found) = descend(value, rest) {
                return Some(found);
            }
        }
    }
    None
}

fn descend<'v>(value: &'v Value, parts: &[&str]) -> Option<&'v Value> {
    match value {
        Value::Object(map) => lookup_parts(map, parts),
        Value::Array(items) => {
            let index: usize = parts[0].parse().ok()?;
            let item = items.get(index)?;
            if parts.len() == 1 {
                Some(item)
            } else {
                descend(item, &parts[1..])
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_reach_nested_keys_array_items_and_dotted_keys() {
        let Value::Object(r) = json!({"vars": {"q": "hi"}, "docs": [{"t": "a"}, {"t": "b"}],
                                      "input.value": "dotted"})
        else {
            unreachable!()
        };
        assert_eq!(lookup(&r, "vars.q"), Some(&json!("hi")));
        assert_eq!(lookup(&r, "docs.1.t"), Some(&json!("b")));
        assert_eq!(lookup(&r, "input.value"), Some(&json!("dotted")));
        assert_eq!(lookup(&r, "vars.missing"), None);
    }

    #[test]
    fn unknown_fields_and_repeats_are_refused_by_name() {
        assert!(FieldMap::parse(&["questoin=vars.q"])
            .unwrap_err()
            .contains("cannot map `questoin`"));
        assert!(FieldMap::parse(&["question=a", "question=b"])
            .unwrap_err()
            .contains("mapped twice"));
        assert!(FieldMap::parse(&["question"])
            .unwrap_err()
            .contains("FIELD=PATH"));
        let map = FieldMap::parse(&["contexts = vars.docs"]).unwrap();
        assert_eq!(map.overrides[0].path, "vars.docs");
    }
}
