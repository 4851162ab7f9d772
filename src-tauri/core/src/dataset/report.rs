//! The collector every reader feeds: maps each record, hands accepted items to the
//! caller at once, and accumulates the `ValidationReport` (counts, capped lists,
//! duplicates, coverage, mapping, schema, language).
//!
//! Owns: everything counted across records, and deciding from the first record what
//! the file is: spans of a trace export (grouped by `traces` and mapped when the file
//! ends) or items, possibly in another evaluator's dialect (reshaped by `dialects`);
//! applying the user's mapping overrides. Must not: parse bytes (the readers do) or keep
//! items (each goes to the caller's callback and is dropped here).

use std::collections::{BTreeMap, HashMap};

use serde_json::{Map, Value};

use super::aliases::{classify, SourceFields, CANON_COUNT};
use super::dialects::{Dialect, Notes};
use super::hash::ContentHasher;
use super::language::LanguageSample;
use super::mapping::map_record;
use super::remap::{self, FieldMap};
use super::traces::{self, SpanDialect, SpanError, TraceGroups};
use super::{
    AcceptedItem, DatasetError, Duplicate, Format, ImportLimits, MappingChoice, Rejected,
    ValidationReport, Warning, MAX_LISTED,
};
use crate::item::Field;

/// The temp file the span reader spills to could not be written or read back.
fn spill_failed(e: std::io::Error) -> DatasetError {
    DatasetError::Aborted(format!(
        "the spans could not be set aside in a temporary file: {e}"
    ))
}

pub(crate) type OnItem<'a> = dyn FnMut(AcceptedItem) -> Result<(), String> + 'a;

pub(crate) struct Collector<'a> {
    report: ValidationReport,
    limits: &'a ImportLimits,
    on_item: &'a mut OnItem<'a>,
    sources: SourceFields,
    language: LanguageSample,
    /// Content hash (128 bits of it) -> line of the first item with it.
    first_seen: HashMap<u128, u64>,
    hasher: ContentHasher,
    /// Decided by the first record.
    mode: Option<Mode>,
    notes: Notes,
    map: &'a FieldMap,
    /// Records each override found a value in.
    map_hits: Vec<u64>,
    /// Question and answer of one-span traces read so far -> line, to read a repeated
    /// call once.
    calls_seen: HashMap<String, u64>,
    /// Paths of answer-like text in items that got no answer -> (items, first line).
    answers_elsewhere: BTreeMap<String, (u64, u64)>,
    /// Records of a JSON document so far, and the line the last one started on.
    records: u64,
    last_record_line: u64,
    /// While a record that shares its line with the one before is read: its number,
    /// which its rejections and warnings name (a one-line document's are all "line 1").
    record_label: Option<u64>,
}

enum Mode {
    Items(Dialect),
    Spans(TraceGroups),
    /// The spans were read; their traces have become items.
    Traces(SpanDialect),
}

impl<'a> Collector<'a> {
    pub(crate) fn new(
        file: String,
        file_bytes: u64,
        limits: &'a ImportLimits,
        map: &'a FieldMap,
        on_item: &'a mut OnItem<'a>,
    ) -> Self {
        let report = ValidationReport {
            file,
            file_bytes,
            ..ValidationReport::default()
        };
        Collector {
            report,
            limits,
            on_item,
            sources: SourceFields::default(),
            language: LanguageSample::default(),
            first_seen: HashMap::new(),
            hasher: ContentHasher::default(),
            mode: None,
            notes: Notes::default(),
            map,
            map_hits: vec![0; map.overrides.len()],
            calls_seen: HashMap::new(),
            answers_elsewhere: BTreeMap::new(),
            records: 0,
            last_record_line: 0,
            record_label: None,
        }
    }

    /// Whether the user mapped the question themselves (a CSV then needs no question
    /// column of its own).
    pub(crate) fn maps_question(&self) -> bool {
        self.map.overrides.iter().any(|o| o.field == "question")
    }

    /// For a CSV file: the dialect its header names (before any row is read).
    pub(crate) fn set_columns(&mut self, columns: &[String]) {
        self.mode = Some(Mode::Items(Dialect::detect(
            columns.iter().map(String::as_str),
        )));
    }

    /// No record came from the file at all (not even one rejected).
    pub(crate) fn nothing_read(&self) -> bool {
        self.mode.is_none() && self.report.items_read == 0
    }

    pub(crate) fn limits(&self) -> &ImportLimits {
        self.limits
    }

    pub(crate) fn set_format(&mut self, format: Format) {
        self.report.format = Some(format);
    }

    /// A record that could not be read as an item at all.
    pub(crate) fn reject(&mut self, line: u64, byte_offset: u64, reason: String) {
        self.report.items_read += 1;
        self.push_rejected(Rejected {
            line,
            byte_offset,
            reason,
        });
    }

    /// A JSON document's next record starts on `line`; until `end_record`, what is said
    /// of it names its number when an earlier record started on the same line.
    pub(crate) fn start_record(&mut self, line: u64) {
        self.records += 1;
        self.record_label =
            (self.records > 1 && line == self.last_record_line).then_some(self.records);
        self.last_record_line = line;
    }

    pub(crate) fn end_record(&mut self) {
        self.record_label = None;
    }

    fn labelled(&self, text: String) -> String {
        match self.record_label {
            Some(n) => format!("record {n}: {text}"),
            None => text,
        }
    }

    fn push_rejected(&mut self, mut rejected: Rejected) {
        rejected.reason = self.labelled(rejected.reason);
        self.report.rejected_count += 1;
        if self.report.rejected.len() < MAX_LISTED {
            self.report.rejected.push(rejected);
        }
    }

    /// Whether the file read so far can take scores from a file beside it.
    pub(crate) fn takes_scores(&self) -> Result<(), String> {
        match &self.mode {
            Some(Mode::Spans(groups)) => groups.takes_scores(),
            _ => Err("a scores file goes beside a Langfuse trace export, and the main file holds no traces".into()),
        }
    }

    /// A score from a file beside the traces (`takes_scores`): it joins its trace as a
    /// score inside the export would. `Err` says why the record is no score.
    pub(crate) fn score_beside(&mut self, record: Map<String, Value>) -> Result<(), String> {
        match &mut self.mode {
            Some(Mode::Spans(groups)) => groups.add_score(record),
            _ => self.takes_scores(),
        }
    }

    /// Says in the import report how a field was read, once per file.
    pub(crate) fn note_choice(
        &mut self,
        field: &str,
        chosen: &str,
        alternatives: Vec<String>,
        why: &str,
    ) {
        self.notes.choose(field, chosen, alternatives, why);
    }

    pub(crate) fn warn(&mut self, line: u64, message: String) {
        let message = self.labelled(message);
        self.report.warning_count += 1;
        if self.report.warnings.len() < MAX_LISTED {
            self.report.warnings.push(Warning { line, message });
        }
    }

    /// A file whose envelope says it holds spans of `dialect` (LangSmith's `{post,
    /// patch}`, Langfuse's `{trace, observations}`), whatever its first record looks like.
    pub(crate) fn expect_spans(&mut self, dialect: SpanDialect) {
        self.mode
            .get_or_insert_with(|| Mode::Spans(TraceGroups::new(dialect)));
    }

    /// The trace object of a Langfuse trace download: its scores, its input and output
    /// (read when the root observation has none) and, when the file has no top-level
    /// `observations`, the observations it holds.
    pub(crate) fn envelope(&mut self, line: u64, offset: u64, trace: Value, spans_elsewhere: bool) {
        let Some(Mode::Spans(groups)) = &mut self.mode else {
            return;
        };
        let mut refused = Vec::new();
        for (span_line, record) in groups.trace_envelope(line, trace, spans_elsewhere) {
            match groups.add(span_line, offset, record) {
                Ok(()) => {}
                Err(SpanError::Refused(reason)) => refused.push(reason),
                Err(SpanError::Spill(e)) => refused.push(e.to_string()),
            }
        }
        for reason in refused {
            self.reject(line, offset, reason);
        }
    }

    /// Takes one source record: a span joins its trace; an item is reshaped from its
    /// tool's dialect, mapped, and goes straight to the caller.
    pub(crate) fn record(
        &mut self,
        line: u64,
        byte_offset: u64,
        mut record: Map<String, Value>,
    ) -> Result<(), DatasetError> {
        // A NUL written as `\u0000` is no text anyone meant, and a raw NUL breaks the
        // files exports are read with: it is removed, and the line says so.
        if record
            .values_mut()
            .fold(false, |any, v| strip_nuls(v) | any)
        {
            self.warn(
                line,
                "a NUL character (\\u0000) was removed from the text".to_string(),
            );
        }
        let envelope = traces::unpack_envelope(&mut record);
        let mode = self.mode.get_or_insert_with(|| {
            let first_span = envelope
                .as_ref()
                .map_or(Some(&record), |spans| spans.first());
            match first_span.and_then(SpanDialect::of) {
                Some(dialect) => Mode::Spans(TraceGroups::new(dialect)),
                // An OTLP envelope of spans with no OpenInference kind.
                None if envelope.is_some() => Mode::Spans(TraceGroups::new(SpanDialect::GenAi)),
                None => Mode::Items(Dialect::detect(record.keys().map(String::as_str))),
            }
        });
        let dialect = match mode {
            Mode::Spans(groups) => {
                let mut refused = Vec::new();
                for span in envelope.unwrap_or_else(|| vec![record]) {
                    match groups.add(line, byte_offset, span) {
                        Ok(()) => {}
                        Err(SpanError::Refused(reason)) => refused.push(reason),
                        Err(SpanError::Spill(e)) => return Err(spill_failed(e)),
                    }
                }
                for reason in refused {
                    self.reject(line, byte_offset, reason);
                }
                return Ok(());
            }
            Mode::Items(dialect) => {
                if let Some(reason) = dialect.refusal() {
                    self.reject(line, byte_offset, reason.to_string());
                    return Ok(());
                }
                if let Some(note) = dialect.not_an_item(&record) {
                    self.warn(line, note);
                    return Ok(());
                }
                *dialect
            }
            Mode::Traces(_) => Dialect::Plain,
        };
        let csv = matches!(self.report.format, Some(Format::Csv { .. }));
        let picked = self.map.pick(&record, &mut self.map_hits);
        let mut record = dialect.reshape(record, csv, &mut self.notes);
        remap::apply(&mut record, picked);
        self.accept(line, byte_offset, record)
    }

    /// The traces of a span export, read whole, become items (in the order each trace
    /// first appeared). Call once after the reader is done.
    pub(crate) fn end(&mut self) -> Result<(), DatasetError> {
        if !matches!(self.mode, Some(Mode::Spans(_))) {
            return Ok(());
        }
        let Some(Mode::Spans(groups)) = self.mode.take() else {
            unreachable!("checked above")
        };
        self.report.format = Some(groups.format());
        let dialect = groups.dialect();
        for trace in groups.scores_without_spans() {
            self.warn(
                0,
                format!("scores were given for trace {trace}, which has no spans in the file; they were not stored"),
            );
        }
        self.mode = Some(Mode::Traces(dialect));
        for trace in groups.into_records().map_err(spill_failed)? {
            let (line, offset, trace) = trace.map_err(spill_failed)?;
            match trace {
                Ok((mut record, warnings)) => {
                    for w in warnings {
                        self.warn(line, w);
                    }
                    let priors = record
                        .get("metadata")
                        .and_then(|m| m.get(super::PRIOR_SCORES_KEY))
                        .and_then(Value::as_object);
                    for name in priors.into_iter().flat_map(|p| p.keys()) {
                        self.notes
                            .prior_scores
                            .insert(format!("{name} ({})", dialect.name()));
                    }
                    let rules = record.remove(traces::RULES_KEY);
                    for (field, rule) in rules.iter().flat_map(|r| r.as_object()).flatten() {
                        let rule = rule.as_str().unwrap_or_default();
                        self.notes.choose(
                            field,
                            rule,
                            Vec::new(),
                            "the rule that found it in the root span (change it with --map FIELD=root.input.… or root.output.…)",
                        );
                    }
                    // The root's raw input and output are there for the user's mapping only.
                    let mut view = record.clone();
                    if let Some(Value::Object(raw)) = record.remove(traces::RAW_KEY) {
                        view.remove(traces::RAW_KEY);
                        view.extend(raw);
                    }
                    let picked = self.map.pick(&view, &mut self.map_hits);
                    remap::apply(&mut record, picked);
                    let missing = record.remove(traces::MISSING_KEY);
                    if !record.contains_key("question") {
                        let reason = missing.and_then(|m| m.as_str().map(str::to_string));
                        self.reject(
                            line,
                            offset,
                            reason.unwrap_or_else(|| "missing question".into()),
                        );
                        continue;
                    }
                    if let Some(first) = self.repeated_call(&record, line) {
                        self.warn(line, format!("this span repeats the question and answer of the span at line {first} (an outer call and its do* model call, exported as separate traces): imported once"));
                        continue;
                    }
                    self.accept(line, offset, record)?;
                }
                Err(reason) => self.reject(line, offset, reason),
            }
        }
        Ok(())
    }

    /// For a one-span trace: the line of an earlier one-span trace with the same question
    /// and answer (Vercel AI SDK spans exported with no parent links), if any.
    fn repeated_call(&mut self, record: &Map<String, Value>, line: u64) -> Option<u64> {
        let spans = record.get("metadata").and_then(|m| m.get("spans"));
        if spans.and_then(Value::as_u64) != Some(1) {
            return None;
        }
        let key = format!(
            "{}\u{0}{}",
            record
                .get("question")
                .map(Value::to_string)
                .unwrap_or_default(),
            record
                .get("answer")
                .map(Value::to_string)
                .unwrap_or_default()
        );
        match self.calls_seen.get(&key) {
            Some(&first) => Some(first),
            None => {
                self.calls_seen.insert(key, line);
                None
            }
        }
    }

    /// Maps one canonical record; an accepted item goes straight to the caller.
    fn accept(
        &mut self,
        line: u64,
        byte_offset: u64,
        record: Map<String, Value>,
    ) -> Result<(), DatasetError> {
        self.report.items_read += 1;
        self.note_alias_choices(&record);
        let mapped = match map_record(record, self.limits, &mut self.sources) {
            Ok(mapped) => mapped,
            Err(reason) => {
                self.push_rejected(Rejected {
                    line,
                    byte_offset,
                    reason,
                });
                return Ok(());
            }
        };
        for message in mapped.warnings {
            self.warn(line, message);
        }
        for path in mapped.answer_elsewhere {
            self.answers_elsewhere.entry(path).or_insert((0, line)).0 += 1;
        }
        self.report.oversize_contexts += mapped.oversize_contexts;
        let item = mapped.item;
        self.count_coverage(&item);
        self.language.add(&item.question);

        let (content_hash, key) = self.hasher.hash(&item);
        let duplicate_of = match self.first_seen.get(&key) {
            Some(&first_line) => {
                if self.report.duplicates.len() < MAX_LISTED {
                    self.report.duplicates.push(Duplicate {
                        line,
                        first_line,
                        content_hash: content_hash.clone(),
                    });
                }
                Some(first_line)
            }
            None => {
                self.first_seen.insert(key, line);
                None
            }
        };
        self.report.items_accepted += 1;
        (self.on_item)(AcceptedItem {
            line,
            item,
            content_hash,
            duplicate_of,
        })
        .map_err(DatasetError::Aborted)
    }

    fn count_coverage(&mut self, item: &crate::item::Item) {
        let c = &mut self.report.coverage;
        for field in Field::ALL {
            if !item.has(field) {
                continue;
            }
            match field {
                Field::Question => c.question += 1,
                Field::Answer => c.answer += 1,
                Field::Contexts => c.contexts += 1,
                Field::GroundTruth => c.ground_truth += 1,
                Field::CitationLabel => c.citation_label += 1,
                Field::Ranking => c.ranking += 1,
                Field::RagCheckerLabels => c.ragchecker_labels += 1,
            }
        }
    }

    /// Two names for one field in a record (`contexts` and `context`, `question` and
    /// `input`): the file-level choice and why; the per-line warning says the same.
    fn note_alias_choices(&mut self, record: &Map<String, Value>) {
        let mut by_field: [Vec<(usize, &str)>; CANON_COUNT] = std::array::from_fn(|_| Vec::new());
        for (key, value) in record {
            if let Some(alias) = classify(key) {
                if !super::values::is_absent(value) && !alias.canon.is_ragchecker() {
                    by_field[alias.canon as usize].push((alias.index, key));
                }
            }
        }
        for names in by_field.iter_mut().filter(|n| n.len() > 1) {
            names.sort();
            let field = classify(names[0].1).expect("classified above").canon.name();
            let alternatives = names[1..].iter().map(|(_, k)| k.to_string()).collect();
            self.notes.choose(
                field,
                names[0].1,
                alternatives,
                "the more specific name wins; the other value is kept in the item's metadata",
            );
        }
    }

    /// Items imported without an answer while their records hold answer-like text
    /// elsewhere: never a silent partial import.
    fn warn_answers_elsewhere(&mut self) {
        let found = std::mem::take(&mut self.answers_elsewhere);
        let Some(first_line) = found.values().map(|(_, line)| *line).min() else {
            return;
        };
        let without = self.report.items_accepted - self.report.coverage.answer;
        let mut by_count: Vec<(&String, u64)> = found.iter().map(|(p, (n, _))| (p, *n)).collect();
        by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let listed: Vec<String> = by_count
            .iter()
            .take(4)
            .map(|(path, n)| format!("`{path}` ({n} items)"))
            .collect();
        let best = by_count[0].0;
        self.warn(
            first_line,
            format!(
                "{without} of {} items have no answer, but the file holds answer-like text at {}: \
                 import again with `--map answer={best}` to take it",
                self.report.items_accepted,
                listed.join(", ")
            ),
        );
    }

    pub(crate) fn finish(mut self) -> ValidationReport {
        self.warn_answers_elsewhere();
        self.report.mapping = self.sources.mapping();
        self.report.schema = Some(self.sources.schema());
        self.report.language = self.language.guess();
        match self.mode {
            Some(Mode::Traces(dialect)) => traces::describe(&mut self.report, dialect),
            Some(Mode::Items(dialect)) => {
                if let Some(schema) = dialect.schema() {
                    self.report.schema = Some(schema);
                }
            }
            _ => {}
        }
        for (field, from) in std::mem::take(&mut self.notes.sources) {
            self.report
                .mapping
                .insert(field, from.into_iter().collect());
        }
        if !self.notes.prior_scores.is_empty() {
            let names = std::mem::take(&mut self.notes.prior_scores);
            self.report
                .mapping
                .insert("prior_scores".into(), names.into_iter().collect());
        }
        for (o, hits) in self.map.overrides.iter().zip(&self.map_hits) {
            self.report
                .mapping
                .insert(o.field.clone(), vec![format!("{} (your mapping)", o.path)]);
            self.notes.choices.insert(
                0,
                MappingChoice {
                    field: o.field.clone(),
                    chosen: o.path.clone(),
                    alternatives: Vec::new(),
                    why: if *hits == 0 {
                        "your mapping; it matched no record, so the field was read as without it"
                            .into()
                    } else {
                        format!("your mapping; found in {hits} records")
                    },
                },
            );
        }
        self.report.choices = self.notes.choices;
        self.report
    }
}

/// Removes NUL characters from every string of `value`; whether any was there.
fn strip_nuls(value: &mut Value) -> bool {
    match value {
        Value::String(s) if s.contains('\0') => {
            s.retain(|c| c != '\0');
            true
        }
        Value::Array(items) => items.iter_mut().fold(false, |any, v| strip_nuls(v) | any),
        Value::Object(map) => map.values_mut().fold(false, |any, v| strip_nuls(v) | any),
        _ => false,
    }
}
