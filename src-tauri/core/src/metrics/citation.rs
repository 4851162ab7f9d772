//! Citation accuracy without a judge (`citation.*`, METRICS.md Family 4): find the ids an
//! answer cites inline, compare them with the item's gold article id, and summarise a
//! whole dataset as a multi-class classification (accuracy, macro P/R/F1, confusion).
//!
//! Owns: id normalisation, the per-item 0/1 metrics and the
//! dataset summary. Must not: call a judge or read storage. Compiled patterns are cached
//! by their text, so a run over millions of items compiles each pattern once.
//!
//! Id normalisation (applied to cited ids, the gold id and retrieved ids alike): trim;
//! drop an `ID:` / `ID ` prefix; drop a `doc` / `document` prefix (with an optional
//! `-`, `_`, `:`, `#` or space) when a digit follows. So `[doc17]`, `[ID: 17]`, `[17]`
//! and `【17】` all cite "17", and a gold id written "doc17" matches `[17]`. Otherwise ids
//! compare exactly (case and leading zeros matter: "007" is not "7").

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, LazyLock, Mutex};

use regex::Regex;
use serde::Serialize;
use serde_json::{json, Value};

use super::{MetricConfig, MetricResult};
use crate::item::Item;

/// The default citation pattern (see `text::CITATION_PATTERN`): shared with the offline
/// judge, which strips citation markers before reading claims.
pub use crate::text::CITATION_PATTERN as DEFAULT_PATTERN;

/// A compiled pattern, or the sentence explaining why it does not compile.
type Compiled = Result<Arc<Regex>, String>;

/// Custom patterns seen so far (and their compile errors), keyed by pattern text.
static PATTERN_CACHE: LazyLock<Mutex<HashMap<String, Compiled>>> =
    LazyLock::new(|| Mutex::new(HashMap::new()));

/// More distinct custom patterns than this in one process is unusual; start over.
const PATTERN_CACHE_LIMIT: usize = 64;

/// The compiled pattern, from the cache when it was compiled before. The error is a
/// sentence for the user naming the pattern.
pub fn compile_pattern(pattern: &str) -> Result<Arc<Regex>, String> {
    if pattern == DEFAULT_PATTERN {
        return Ok(crate::text::citation_regex());
    }
    let mut cache = PATTERN_CACHE
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(hit) = cache.get(pattern) {
        return hit.clone();
    }
    if cache.len() >= PATTERN_CACHE_LIMIT {
        cache.clear();
    }
    let compiled = Regex::new(pattern).map(Arc::new).map_err(|e| {
        format!("the citation pattern `{pattern}` is not a valid regular expression: {e}")
    });
    cache.insert(pattern.to_string(), compiled.clone());
    compiled
}

fn strip_prefix_ignore_case<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    let head = s.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix)
        .then(|| &s[prefix.len()..])
}

/// The comparable form of an id (see the module doc).
pub fn normalize_id(raw: &str) -> String {
    let mut id = raw.trim();
    if let Some(rest) = strip_prefix_ignore_case(id, "id") {
        let after =
            rest.trim_start_matches(|c: char| c.is_whitespace() || matches!(c, ':' | '：' | '#'));
        if after.len() < rest.len() && !after.is_empty() {
            id = after;
        }
    }
    for prefix in ["document", "doc"] {
        if let Some(rest) = strip_prefix_ignore_case(id, prefix) {
            let after = rest.trim_start_matches(|c: char| {
                c.is_whitespace() || matches!(c, '-' | '_' | ':' | '#')
            });
            if after.starts_with(|c: char| c.is_ascii_digit()) {
                id = after;
                break;
            }
        }
    }
    id.to_string()
}

/// The distinct ids the answer cites, normalised, in order of first appearance. Each
/// match contributes its first non-empty capture group (the whole match when the pattern
/// has no group), split on `,` and `;` so `[1, 2]` cites two ids.
pub fn extract_cited(answer: &str, pattern: &Regex) -> Vec<String> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for caps in pattern.captures_iter(answer) {
        let raw = (1..caps.len())
            .filter_map(|g| caps.get(g))
            .map(|m| m.as_str())
            .find(|s| !s.trim().is_empty())
            .or_else(|| (caps.len() == 1).then(|| caps.get(0).map_or("", |m| m.as_str())))
            .unwrap_or("");
        for piece in raw.split([',', ';']) {
            let id = normalize_id(piece);
            if !id.is_empty() && seen.insert(id.clone()) {
                out.push(id);
            }
        }
    }
    out
}

pub fn compute(id: &str, item: &Item, config: &MetricConfig) -> MetricResult {
    if matches!(
        id,
        "citation.macro_precision" | "citation.macro_recall" | "citation.macro_f1"
    ) {
        return MetricResult::skipped(
            id,
            format!("{id} is computed over the whole dataset, not per item"),
        );
    }
    let (Some(answer), Some(gold_raw)) = (item.answer.as_deref(), item.citation_label.as_deref())
    else {
        return MetricResult::skipped(id, "the item needs both an answer and a gold citation id");
    };
    let pattern = match compile_pattern(&config.citation_pattern) {
        Ok(p) => p,
        Err(message) => return MetricResult::error(id, message),
    };
    let cited = extract_cited(answer, &pattern);
    let gold = normalize_id(gold_raw);
    let has_gold = cited.contains(&gold);
    let score = match id {
        "citation.strict_accuracy" => has_gold && cited.len() == 1,
        "citation.lenient_accuracy" => has_gold,
        "citation.no_citation_rate" => cited.is_empty(),
        "citation.multi_citation_rate" => cited.len() > 1,
        _ => return MetricResult::error(id, format!("{id} is not a citation metric")),
    };
    let ranked = item.ranked_ids();
    let cited_not_retrieved = if ranked.is_empty() {
        Value::Null
    } else {
        let retrieved: HashSet<String> = ranked.iter().map(|r| normalize_id(r)).collect();
        json!(cited
            .iter()
            .filter(|c| !retrieved.contains(*c))
            .collect::<Vec<_>>())
    };
    let explanation = explain(id, &cited, &gold, has_gold);
    let mut details = json!({
        "cited": cited,
        "gold": gold,
        "gold_raw": gold_raw,
        "cited_not_retrieved": cited_not_retrieved,
    });
    // A team's own pattern is part of the evidence (what counted as a citation); the
    // default one is stated once in the report's methodology. Repeated in all four
    // citation results of every item, it was a quarter of a judge-free run's bytes.
    if config.citation_pattern != DEFAULT_PATTERN {
        details["pattern"] = json!(config.citation_pattern);
    }
    MetricResult::ok(id, if score { 1.0 } else { 0.0 }, explanation, details)
}

fn explain(id: &str, cited: &[String], gold: &str, has_gold: bool) -> String {
    let list = |ids: &[String]| {
        ids.iter()
            .map(|c| format!("[{c}]"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if cited.is_empty() {
        return format!("The answer cites no source; the gold source is {gold}.");
    }
    let others: Vec<String> = cited.iter().filter(|c| *c != gold).cloned().collect();
    match id {
        "citation.no_citation_rate" | "citation.multi_citation_rate" if cited.len() == 1 => {
            format!("The answer cites a single source, {}.", list(cited))
        }
        "citation.no_citation_rate" | "citation.multi_citation_rate" => {
            format!("The answer cites {} sources: {}.", cited.len(), list(cited))
        }
        _ if !has_gold => format!("The answer cites {} but the gold source is {gold}.", list(cited)),
        "citation.strict_accuracy" if !others.is_empty() => format!(
            "The answer cites the gold source [{gold}] but also {}, and strict accuracy needs the gold source alone.",
            list(&others)
        ),
        "citation.strict_accuracy" => format!("The answer cites only the gold source [{gold}]."),
        _ => format!("The answer's citations include the gold source [{gold}]."),
    }
}

/// Citation quality of a whole dataset, as multi-class classification over article ids.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CitationSummary {
    pub items: usize,
    /// Share of items citing exactly one id, the gold one.
    pub strict_accuracy: f64,
    /// Share of items whose cited ids include the gold one.
    pub lenient_accuracy: f64,
    pub no_citation_rate: f64,
    pub multi_citation_rate: f64,
    /// Means over gold article ids of the per-article scores below.
    pub macro_precision: f64,
    pub macro_recall: f64,
    pub macro_f1: f64,
    /// Distinct gold article ids (the classes the macro averages run over).
    pub gold_articles: usize,
    /// Per-article scores of the `top_n` most frequent gold ids.
    pub top_articles: Vec<ArticleScore>,
    pub confusion: ConfusionMatrix,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ArticleScore {
    pub id: String,
    /// Items whose gold is this article.
    pub support: usize,
    /// Items that cite this article.
    pub cited: usize,
    pub precision: f64,
    pub recall: f64,
    pub f1: f64,
}

/// Rows are gold ids, columns predicted ids, both limited to the top-N gold ids plus
/// "other"; columns add "none" (nothing cited). An item's predicted id is the gold id
/// when it cites it (so the diagonal counts leniently correct items), else its first
/// cited id, else "none".
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ConfusionMatrix {
    pub rows: Vec<String>,
    pub columns: Vec<String>,
    pub counts: Vec<Vec<u64>>,
}

#[derive(Default)]
struct Tally {
    support: usize,
    cited: usize,
    hits: usize,
}

/// `(gold id, cited ids)` pairs, their ids normalised and each distinct id kept once: a
/// million items citing a few thousand articles cost twelve bytes each, not their strings.
#[derive(Default)]
pub struct CitationPairs {
    ids: Vec<String>,
    index: HashMap<String, u32>,
    golds: Vec<u32>,
    /// Where each pair's cited ids end in `cited`.
    ends: Vec<u32>,
    cited: Vec<u32>,
}

impl CitationPairs {
    fn intern(&mut self, id: String) -> u32 {
        if let Some(&n) = self.index.get(&id) {
            return n;
        }
        let n = self.ids.len() as u32;
        self.ids.push(id.clone());
        self.index.insert(id, n);
        n
    }

    /// Adds one item's gold id and the ids its answer cites (normalised, empty ones
    /// dropped, each counted once).
    pub fn add(&mut self, gold: &str, cited: &[String]) {
        let gold = self.intern(normalize_id(gold));
        let start = self.cited.len();
        for c in cited {
            let c = normalize_id(c);
            if c.is_empty() {
                continue;
            }
            let c = self.intern(c);
            if !self.cited[start..].contains(&c) {
                self.cited.push(c);
            }
        }
        self.golds.push(gold);
        self.ends.push(self.cited.len() as u32);
    }

    pub fn len(&self) -> usize {
        self.golds.len()
    }

    pub fn is_empty(&self) -> bool {
        self.golds.is_empty()
    }

    /// Each pair as (gold, cited), interned.
    fn iter(&self) -> impl Iterator<Item = (u32, &[u32])> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        self.golds
            .iter()
            .zip(starts.zip(self.ends.iter().copied()))
            .map(|(&gold, (start, end))| (gold, &self.cited[start as usize..end as usize]))
    }
}

/// Summarises `(gold id, cited ids)` pairs; see [`summarize_pairs`].
pub fn summarize(
    pairs: impl IntoIterator<Item = (String, Vec<String>)>,
    top_n: usize,
) -> CitationSummary {
    let mut interned = CitationPairs::default();
    for (gold, cited) in pairs {
        interned.add(&gold, &cited);
    }
    summarize_pairs(&interned, top_n)
}

/// Per gold article g: precision = items citing g whose gold is g / items citing g (0
/// when nobody cites g); recall = items with gold g that cite g / items with gold g;
/// F1 = 2PR/(P+R) (0 when either is 0). The macro scores are unweighted means over the
/// distinct gold ids (ids that are only ever cited, never gold, are not classes; citing
/// them only lowers their items' scores). Macro F1 is the mean of per-article F1s, as
/// scikit-learn's `f1_score(average="macro")`. An empty input gives all zeros.
pub fn summarize_pairs(pairs: &CitationPairs, top_n: usize) -> CitationSummary {
    let n = pairs.len();
    let rate = |count: usize| if n == 0 { 0.0 } else { count as f64 / n as f64 };
    let mut tallies: Vec<Tally> = (0..pairs.ids.len()).map(|_| Tally::default()).collect();
    let (mut strict, mut lenient, mut none, mut multi) = (0, 0, 0, 0);
    for (gold, cited) in pairs.iter() {
        let has_gold = cited.contains(&gold);
        strict += usize::from(has_gold && cited.len() == 1);
        lenient += usize::from(has_gold);
        none += usize::from(cited.is_empty());
        multi += usize::from(cited.len() > 1);
        let t = &mut tallies[gold as usize];
        t.support += 1;
        t.hits += usize::from(has_gold);
        for &c in cited {
            tallies[c as usize].cited += 1;
        }
    }
    let mut articles: Vec<ArticleScore> = tallies
        .iter()
        .zip(&pairs.ids)
        .filter(|(t, _)| t.support > 0)
        .map(|(t, id)| {
            let precision = if t.cited == 0 {
                0.0
            } else {
                t.hits as f64 / t.cited as f64
            };
            let recall = t.hits as f64 / t.support as f64;
            let f1 = if precision > 0.0 && recall > 0.0 {
                2.0 * precision * recall / (precision + recall)
            } else {
                0.0
            };
            ArticleScore {
                id: id.clone(),
                support: t.support,
                cited: t.cited,
                precision,
                recall,
                f1,
            }
        })
        .collect();
    // A total order (support, then id): the macro averages sum in the same order every run.
    articles.sort_by(|a, b| b.support.cmp(&a.support).then_with(|| a.id.cmp(&b.id)));
    let mean = |f: fn(&ArticleScore) -> f64| {
        if articles.is_empty() {
            0.0
        } else {
            articles.iter().map(f).sum::<f64>() / articles.len() as f64
        }
    };
    let (macro_precision, macro_recall, macro_f1) =
        (mean(|a| a.precision), mean(|a| a.recall), mean(|a| a.f1));
    let gold_articles = articles.len();
    articles.truncate(top_n);
    let confusion = confusion(pairs, &articles);
    CitationSummary {
        items: n,
        strict_accuracy: rate(strict),
        lenient_accuracy: rate(lenient),
        no_citation_rate: rate(none),
        multi_citation_rate: rate(multi),
        macro_precision,
        macro_recall,
        macro_f1,
        gold_articles,
        top_articles: articles,
        confusion,
    }
}

fn confusion(pairs: &CitationPairs, top: &[ArticleScore]) -> ConfusionMatrix {
    let (other, none) = (top.len(), top.len() + 1);
    // Each interned id's row and column: its place among the top articles, else "other".
    let mut place = vec![other; pairs.ids.len()];
    for (i, a) in top.iter().enumerate() {
        if let Some(&n) = pairs.index.get(&a.id) {
            place[n as usize] = i;
        }
    }
    let mut counts = vec![vec![0u64; top.len() + 2]; top.len() + 1];
    for (gold, cited) in pairs.iter() {
        let row = place[gold as usize];
        let predicted = if cited.contains(&gold) {
            Some(gold)
        } else {
            cited.first().copied()
        };
        let col = match predicted {
            None => none,
            Some(p) => place[p as usize],
        };
        counts[row][col] += 1;
    }
    let ids: Vec<String> = top.iter().map(|a| a.id.clone()).collect();
    let rows = ids.iter().cloned().chain(["other".to_string()]).collect();
    let columns = ids
        .into_iter()
        .chain(["other".to_string(), "none".to_string()])
        .collect();
    ConfusionMatrix {
        rows,
        columns,
        counts,
    }
}

#[cfg(test)]
#[path = "citation_tests.rs"]
mod tests;
