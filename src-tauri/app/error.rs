//! The error every command returns: the api's `ErrorView`, `{ code, message, detail }`,
//! so the UI can branch on `code` and show `message` as text. Never a bare string.

pub use ragnosis_api::ErrorView as CommandError;

pub type CommandResult<T> = Result<T, CommandError>;

#[cfg(test)]
mod tests {
    use ragnosis_api::ErrorCode;

    /// The window branches on some codes by their text (ui/src/lib/errors.ts): each must
    /// be one the core can send.
    #[test]
    fn every_code_the_window_acts_on_exists() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/src/lib/errors.ts");
        let source = std::fs::read_to_string(&path).unwrap();
        let used: Vec<&str> = source
            .lines()
            .filter(|l| {
                l.starts_with("export const JUDGE_") || l.starts_with("export const COMPARE_")
            })
            .filter_map(|l| l.split('\'').nth(1))
            .collect();
        assert!(used.len() >= 4, "found {used:?} in {}", path.display());
        for code in used {
            assert!(
                ErrorCode::ALL.iter().any(|c| c.as_str() == code),
                "{code} is not an ErrorCode"
            );
        }
    }
}
