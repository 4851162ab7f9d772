//! The collector every reader feeds: maps each record, hands accepted items to the
//! caller at once, and accumulates the `ValidationReport` (counts, capped lists,
//! duplicates, coverage, mapping, schema, language).
//!
//! Owns: everything counted across records. Must not: parse bytes (the readers do) or
//! keep items (each goes to the caller's callback and is dropped here).

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::aliases::SourceFields;
use super::hash::ContentHasher;
use super::language::LanguageSample;
use super::mapping::map_record;
use super::{
    AcceptedItem, DatasetError, Duplicate, Format, ImportLimits, Rejected, ValidationReport,
    Warning, MAX_LISTED,
};
use crate::item::Field;

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
}

impl<'a> Collector<'a> {
    pub(crate) fn new(
        file: String,
        file_bytes: u64,
        limits: &'a ImportLimits,
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
        }
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

    fn push_rejected(&mut self, rejected: Rejected) {
        self.report.rejected_count += 1;
        if self.report.rejected.len() < MAX_LISTED {
            self.report.rejected.push(rejected);
        }
    }

    pub(crate) fn warn(&mut self, line: u64, message: String) {
        self.report.warning_count += 1;
        if self.report.warnings.len() < MAX_LISTED {
            self.report.warnings.push(Warning { line, message });
        }
    }

    /// Maps one record; an accepted item goes straight to the caller.
    pub(crate) fn record(
        &mut self,
        line: u64,
        byte_offset: u64,
        record: Map<String, Value>,
    ) -> Result<(), DatasetError> {
        self.report.items_read += 1;
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

    pub(crate) fn finish(mut self) -> ValidationReport {
        self.report.mapping = self.sources.mapping();
        self.report.schema = Some(self.sources.schema());
        self.report.language = self.language.guess();
        self.report
    }
}
