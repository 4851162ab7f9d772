//! The closed set of error codes a consumer (the desktop window, a script reading the
//! CLI) may branch on. Each says what the user can do and whether trying again helps.
//! A code exists because something acts on it or must tell failures apart; add one only
//! with its consumer.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum ErrorCode {
    /// A file could not be read. Check the path and permissions.
    Io,
    /// The dataset file is empty.
    DatasetEmptyFile,
    /// The dataset file is not text.
    DatasetBinaryFile,
    /// The dataset file is over the import limit.
    DatasetTooLarge,
    /// The file is neither JSONL, a JSON list of items nor CSV with a question column.
    DatasetUnsupportedShape,
    /// The dataset file could not be opened or read.
    DatasetUnreadable,
    /// The import stopped part-way (writing failed); nothing was kept.
    DatasetAborted,
    /// The file was read but gave no valid item; nothing was stored.
    DatasetNoItems,
    /// The database could not be read or written. Retrying rarely helps; check disk space.
    Store,
    /// The metric list names something unknown.
    MetricsSelection,
    /// A dataset, run, item or profile id that does not exist.
    NotFound,
    /// The request itself is wrong; the message says which part.
    Invalid,
    /// Stopped by the user.
    Cancelled,
    /// A JSON document could not be read or written.
    Json,
    /// An output file could not be written. Check the folder and free space.
    Write,
    /// The judge service refused the key (HTTP 401/403): store the right key for the
    /// profile. Retrying with the same key does not help.
    JudgeAuth,
    /// The judge kept answering HTTP 429: wait (the service may say how long) or lower
    /// the profile's requests per minute. Retrying later helps.
    JudgeRateLimited,
    /// The judge did not answer in time: retry, or raise the profile's timeout.
    JudgeTimeout,
    /// The judge's server could not be reached: check the URL and that it runs.
    JudgeUnreachable,
    /// The judge answered, but not with the JSON asked for, even after a repair request:
    /// inspect the reply; another model usually helps, retrying rarely does.
    JudgeBadReply,
    /// The judge's server answered with another HTTP error; 5xx may pass on retry.
    JudgeHttp,
    /// The profile cannot make a judge (unknown kind, bad URL).
    JudgeConfig,
    /// The run's budget would be exceeded; raise it to continue.
    BudgetExceeded,
    /// The OS keyring could not be used; the environment variable named in the message
    /// still works.
    Secret,
    /// Two runs judged differently (another judge, model, prompt version, a metric set
    /// that changes a metric's computation, or another version of a user's criterion)
    /// were asked to be compared: their differences
    /// would be the judges', not the pipeline's. Compare anyway only knowingly
    /// (`--allow-different-judges`, or the window's "Compare anyway").
    CompareJudgedDifferently,
    /// A judge profile's address moved to another host while a key is stored for it:
    /// keep the key for the new host knowingly (`--keep-key`, the window's confirmation)
    /// or forget it (`--forget-key`). The key is never sent to a new host unasked.
    KeyHostChanged,
    /// The operation is already running (here, or in another Ragnosis process).
    Busy,
    /// Cancel was asked for a run or generation this process is not executing.
    NotRunning,
    /// A chart or the PDF of a report could not be made.
    Report,
    /// A defect; the message says where.
    Internal,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 30] = [
        ErrorCode::Io,
        ErrorCode::DatasetEmptyFile,
        ErrorCode::DatasetBinaryFile,
        ErrorCode::DatasetTooLarge,
        ErrorCode::DatasetUnsupportedShape,
        ErrorCode::DatasetUnreadable,
        ErrorCode::DatasetAborted,
        ErrorCode::DatasetNoItems,
        ErrorCode::Store,
        ErrorCode::MetricsSelection,
        ErrorCode::NotFound,
        ErrorCode::Invalid,
        ErrorCode::Cancelled,
        ErrorCode::Json,
        ErrorCode::Write,
        ErrorCode::JudgeAuth,
        ErrorCode::JudgeRateLimited,
        ErrorCode::JudgeTimeout,
        ErrorCode::JudgeUnreachable,
        ErrorCode::JudgeBadReply,
        ErrorCode::JudgeHttp,
        ErrorCode::JudgeConfig,
        ErrorCode::BudgetExceeded,
        ErrorCode::Secret,
        ErrorCode::CompareJudgedDifferently,
        ErrorCode::KeyHostChanged,
        ErrorCode::Busy,
        ErrorCode::NotRunning,
        ErrorCode::Report,
        ErrorCode::Internal,
    ];

    /// The stable text sent to consumers.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Io => "io",
            ErrorCode::DatasetEmptyFile => "dataset.empty_file",
            ErrorCode::DatasetBinaryFile => "dataset.binary_file",
            ErrorCode::DatasetTooLarge => "dataset.too_large",
            ErrorCode::DatasetUnsupportedShape => "dataset.unsupported_shape",
            ErrorCode::DatasetUnreadable => "dataset.unreadable",
            ErrorCode::DatasetAborted => "dataset.aborted",
            ErrorCode::DatasetNoItems => "dataset.no_items",
            ErrorCode::Store => "store",
            ErrorCode::MetricsSelection => "metrics.selection",
            ErrorCode::NotFound => "not_found",
            ErrorCode::Invalid => "invalid",
            ErrorCode::Cancelled => "cancelled",
            ErrorCode::Json => "json",
            ErrorCode::Write => "write",
            ErrorCode::JudgeAuth => "judge.auth",
            ErrorCode::JudgeRateLimited => "judge.rate_limited",
            ErrorCode::JudgeTimeout => "judge.timeout",
            ErrorCode::JudgeUnreachable => "judge.unreachable",
            ErrorCode::JudgeBadReply => "judge.bad_reply",
            ErrorCode::JudgeHttp => "judge.http",
            ErrorCode::JudgeConfig => "judge.config",
            ErrorCode::BudgetExceeded => "budget.exceeded",
            ErrorCode::Secret => "secret",
            ErrorCode::CompareJudgedDifferently => "compare.judged_differently",
            ErrorCode::KeyHostChanged => "secret.host_changed",
            ErrorCode::Busy => "busy",
            ErrorCode::NotRunning => "not_running",
            ErrorCode::Report => "report",
            ErrorCode::Internal => "internal",
        }
    }

    /// Whether the same request may succeed if simply tried again (later).
    pub fn retry_helps(self) -> bool {
        matches!(
            self,
            ErrorCode::JudgeRateLimited
                | ErrorCode::JudgeTimeout
                | ErrorCode::JudgeUnreachable
                | ErrorCode::JudgeHttp
                | ErrorCode::Busy
        )
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_its_own_text() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            assert!(seen.insert(code.as_str()), "{} twice", code.as_str());
        }
    }
}
