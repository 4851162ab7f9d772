use super::*;

fn strings(xs: &[&str]) -> Vec<String> {
    xs.iter().map(|s| s.to_string()).collect()
}

#[test]
fn a_designed_failure_is_named_by_any_expected_pattern_and_no_forbidden_one() {
    use FailurePattern::*;
    assert!(names(
        &strings(&["C", "F"]),
        &[RetrievalMiss, SubtleDistortion]
    ));
    assert!(!names(&strings(&["C", "F"]), &[RetrievalMiss]));
    assert!(
        names(&strings(&["!C", "!D", "!H"]), &[RetrievalMiss]),
        "a declined item may show the retrieval miss"
    );
    assert!(!names(&strings(&["!C", "!D", "!H"]), &[Hallucination]));
    assert!(names(&[], &[]), "a good item is named by silence");
    assert!(
        !names(&[], &[GenerationQuality]),
        "anything on a good item is a false alarm"
    );
}

#[test]
fn expectations_read_as_plain_words() {
    assert_eq!(describe(&strings(&["A"])), "A");
    assert_eq!(describe(&strings(&["C", "F"])), "C or F");
    assert_eq!(describe(&strings(&["!C", "!D", "!H"])), "not C, D or H");
    assert_eq!(describe(&[]), "no pattern");
}
