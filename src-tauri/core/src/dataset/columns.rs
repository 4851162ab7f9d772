//! Column-oriented results (Haystack's evaluation inputs and results): parallel lists,
//! `questions[i]`, `contexts[i]`, `predicted_answers[i]`, made into one record per `i`.
//! Scalars beside the lists (or at the document's top) describe the run, not an item,
//! and go to every record's metadata; a metric elsewhere in the document with one `individual_scores` entry per
//! item becomes that item's prior score.
//!
//! Owns: the transposition. Must not: map names (the mapper reads `questions` by its
//! words) or read the file (`json` hands the document over).

use serde_json::{json, Map, Value};

use super::dialects::PRIOR_SCORES_KEY;

/// The records of the parallel lists at `path` in `document`, in list order; the
/// length of the longest list decides how many (a shorter list leaves its field out).
pub(crate) fn records(document: &Value, path: &[String]) -> Vec<Map<String, Value>> {
    let mut at = document;
    for key in path {
        match at.get(key) {
            Some(inner) => at = inner,
            None => return Vec::new(),
        }
    }
    let Value::Object(object) = at else {
        return Vec::new();
    };
    let n = object
        .values()
        .filter_map(Value::as_array)
        .map(Vec::len)
        .max()
        .unwrap_or(0);
    // The run's own scalars: beside the lists, and at the top of the document.
    let scalars = |map: &Map<String, Value>| -> Vec<(String, Value)> {
        map.iter()
            .filter(|(_, v)| !v.is_array() && !v.is_object())
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    let mut run: Map<String, Value> = document
        .as_object()
        .map(scalars)
        .unwrap_or_default()
        .into_iter()
        .collect();
    run.extend(scalars(object));
    let scores = individual_scores(document, n);
    (0..n)
        .map(|i| {
            let mut record: Map<String, Value> = object
                .iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_array()?.get(i)?.clone())))
                .collect();
            let mut metadata = run.clone();
            let priors: Map<String, Value> = scores
                .iter()
                .filter_map(|(name, list)| {
                    let score = super::values::number(list.get(i)?)?;
                    Some((name.clone(), json!({ "score": score })))
                })
                .collect();
            if !priors.is_empty() {
                metadata.insert(PRIOR_SCORES_KEY.into(), Value::Object(priors));
            }
            if !metadata.is_empty() {
                record.insert("metadata".into(), Value::Object(metadata));
            }
            record
        })
        .collect()
}

/// Every `{name: {individual_scores: [...]}}` with `n` entries, up to two levels down.
fn individual_scores(document: &Value, n: usize) -> Vec<(String, Vec<Value>)> {
    let mut out = Vec::new();
    let mut visit = |object: &Map<String, Value>| {
        for (name, v) in object {
            if let Some(Value::Array(list)) = v.get("individual_scores") {
                if list.len() == n {
                    out.push((name.clone(), list.clone()));
                }
            }
        }
    };
    if let Value::Object(root) = document {
        visit(root);
        for v in root.values() {
            if let Value::Object(inner) = v {
                visit(inner);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_i_of_every_list_makes_record_i_with_its_metric_scores() {
        let doc = json!({
            "run_name": "rag v2",
            "inputs": {
                "questions": ["Q1?", "Q2?"],
                "contexts": [["a"], ["b", "c"]],
                "predicted_answers": ["A1", "A2"]
            },
            "results": {"faithfulness": {"score": 0.5, "individual_scores": [1.0, 0.0]}}
        });
        let records = records(&doc, &["inputs".to_string()]);
        assert_eq!(records.len(), 2);
        assert_eq!(records[1]["questions"], "Q2?");
        assert_eq!(records[1]["contexts"], json!(["b", "c"]));
        assert_eq!(
            records[1]["metadata"][PRIOR_SCORES_KEY]["faithfulness"]["score"],
            0.0
        );
    }
}
