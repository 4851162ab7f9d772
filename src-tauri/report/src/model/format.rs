//! How numbers read in a report: scores with three decimals, shares as whole percents.

/// A score with three decimals: `0.812`.
pub fn score(value: f64) -> String {
    format!("{value:.3}")
}

/// A score, or an en dash when there is none.
pub fn score_or_dash(value: Option<f64>) -> String {
    value.map(score).unwrap_or_else(|| "–".into())
}

/// A share in [0, 1] as a whole percent; "<1%" so a real failure never reads "0%".
pub fn percent(share: f64) -> String {
    let rounded = (share * 100.0).round();
    if rounded == 0.0 && share > 0.0 {
        "<1%".into()
    } else {
        format!("{rounded:.0}%")
    }
}

/// A signed change with a real minus sign: `+0.050`, `−0.120`.
pub fn signed(value: f64) -> String {
    if value > 0.0 {
        format!("+{value:.3}")
    } else if value < 0.0 {
        format!("−{:.3}", -value)
    } else {
        "0.000".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_the_same_everywhere() {
        assert_eq!(score(0.81249), "0.812");
        assert_eq!(score_or_dash(None), "–");
        assert_eq!(percent(0.004), "<1%");
        assert_eq!(percent(0.0), "0%");
        assert_eq!(percent(0.125), "13%");
        assert_eq!(signed(-0.12), "−0.120");
        assert_eq!(signed(0.05), "+0.050");
    }

    /// The cases the window's `format.ts` is tested against too.
    #[test]
    fn scores_and_shares_read_as_the_window_shows_them() {
        let cases: serde_json::Value =
            serde_json::from_str(include_str!("../../../../ui/src/lib/number-formats.json"))
                .unwrap();
        let pairs = |key: &str| cases[key].as_array().unwrap().clone();
        for case in pairs("score") {
            assert_eq!(score_or_dash(case[0].as_f64()), case[1], "{case}");
        }
        for case in pairs("percent") {
            assert_eq!(percent(case[0].as_f64().unwrap()), case[1], "{case}");
        }
        assert_eq!(score_or_dash(None), cases["missing"]);
    }
}
