use super::*;

fn claim(text: &str, evidence: &Evidence) -> Claim {
    Claim::new(text, evidence)
}

#[test]
fn evidence_negating_a_claimed_word_is_a_flip() {
    let e = Evidence::new(&["The Moon has no liquid water on its surface."]);
    let c = negation_flip(
        &claim("Liquid water covers the surface.", &e),
        &e.passages[0].sentences[0],
    );
    let c = c.expect("no liquid water vs liquid water");
    assert_eq!(
        (c.kind, c.evidence_part.as_str()),
        ("negation_flip", "no liquid water")
    );
}

#[test]
fn sharing_a_word_with_a_denial_is_not_a_flip() {
    let e = Evidence::new(&[
        "An update takes about 10 minutes; do not switch the bike off while it runs.",
    ]);
    let s = &e.passages[0].sentences[e.passages[0].sentences.len() - 1];
    let c = negation_flip(&claim("The bike must stay on while it runs.", &e), s);
    assert!(c.is_none(), "the claim restates the instruction: {c:?}");
    let flipped = negation_flip(&claim("You can switch the bike off while it runs.", &e), s);
    assert_eq!(
        flipped.map(|c| c.kind),
        Some("negation_flip"),
        "switching off is what the evidence denies"
    );
}

#[test]
fn a_negation_inside_an_if_condition_denies_nothing() {
    let e = Evidence::new(&["Pass limit (default 25, maximum 100) to choose the page size."]);
    let s = &e.passages[0].sentences[0];
    let conditional = negation_flip(
        &claim("If you don't pass limit, you get 25 items per page.", &e),
        s,
    );
    assert!(
        conditional.is_none(),
        "the condition names a case: {conditional:?}"
    );
    let denial = negation_flip(&claim("You don't pass limit.", &e), s);
    assert_eq!(
        denial.map(|c| c.kind),
        Some("negation_flip"),
        "outside a condition the same words deny"
    );
}

#[test]
fn claim_negating_what_the_evidence_states_is_a_flip() {
    let e = Evidence::new(&["Copper is the better conductor."]);
    let c = negation_flip(
        &claim("Copper is not the better conductor.", &e),
        &e.passages[0].sentences[0],
    );
    assert_eq!(c.map(|c| c.kind), Some("negation_flip"));
    let same = negation_flip(
        &claim("Copper is the better conductor.", &e),
        &e.passages[0].sentences[0],
    );
    assert!(same.is_none(), "agreement is no conflict");
}

#[test]
fn an_opposite_word_in_a_restated_sentence_is_a_reversal() {
    // SQuAD 2.0 dev, "Immune system": the example of a reversed fact.
    let e =
        Evidence::new(&["Neutrophils are the first cells to arrive at the scene of an infection."]);
    let s = &e.passages[0].sentences[0];
    let got = reversal(
        &claim(
            "Neutrophils are the last cells to arrive at the scene of an infection.",
            &e,
        ),
        s,
    );
    assert_eq!(
        got.map(|c| (c.claim_part, c.evidence_part)),
        Some(("last".into(), "first".into()))
    );
    assert!(reversal(&claim("Neutrophils are the first cells to arrive.", &e), s).is_none());
    let both = Evidence::new(&["The first train leaves at six and the last at midnight."]);
    assert!(
        reversal(
            &claim("The last train leaves at midnight.", &both),
            &both.passages[0].sentences[0]
        )
        .is_none(),
        "a sentence that says both supports either"
    );
}

#[test]
fn a_value_swapped_in_from_the_same_sentence_is_caught_by_the_words_before_it() {
    // SQuAD 2.0 dev, "Harvard University": the tuition swapped for the total cost.
    let e = Evidence::new(&["For the 2012–13 school year annual tuition was $38,000, with a total cost of attendance of $57,000."]);
    let s = &e.passages[0].sentences[0];
    let swapped = claim("For the 2012–13 school year annual tuition was $57,000, with a total cost of attendance of $57,000.", &e);
    // The sentence states $57,000 too, so alignment alone does not call it a swap
    // (which value goes with which name is scoping's question); the words before it do.
    assert!(aligned_swap(&swapped, s).is_none());
    let got = context_swap(&swapped, s).expect("$57,000 stands where the sentence has $38,000");
    assert_eq!(
        (got.kind, got.evidence_part.as_str()),
        ("magnitude_shift", "38,000")
    );
    let faithful = claim(
        "Annual tuition was $38,000 for the 2012–13 school year.",
        &e,
    );
    assert!(
        aligned_swap(&faithful, s).is_none(),
        "reordered but the same values"
    );
    let years =
        Evidence::new(&["It has topped the ARWU since 2003 and the THE rankings since 2011."]);
    let swapped = claim(
        "It has topped the ARWU since 2011 and the THE rankings since 2011.",
        &years,
    );
    assert_eq!(
        context_swap(&swapped, &years.passages[0].sentences[0]).map(|c| c.kind),
        Some("temporal_misattribution")
    );
}

#[test]
fn a_value_after_the_same_words_as_in_the_sentence_must_be_the_same_value() {
    let years =
        Evidence::new(&["It has topped the ARWU since 2003, and the THE rankings since 2011."]);
    let s = &years.passages[0].sentences[0];
    // Split from the clause that holds 2011, the claim aligns with it as a whole.
    let split = claim("It has topped the ARWU since 2011.", &years);
    let got = context_swap(&split, s).expect("2011 where the ARWU has 2003");
    assert_eq!(
        (got.claim_part.as_str(), got.evidence_part.as_str()),
        ("2011", "2003")
    );
    assert!(context_swap(&claim("It has topped the ARWU since 2003.", &years), s).is_none());
    let named = Evidence::new(&["It was soon named for John Harvard, its first benefactor."]);
    let s = &named.passages[0].sentences[0];
    let swapped = claim(
        "It was soon named for James Bryant Conant, its first benefactor.",
        &named,
    );
    assert_eq!(
        context_swap(&swapped, s).map(|c| c.kind),
        Some("entity_substitution")
    );
    for same in [
        "It was named for Harvard, its first benefactor.",
        "It was named for John Harvard.",
    ] {
        assert!(context_swap(&claim(same, &named), s).is_none(), "{same}");
    }
    let weights = Evidence::new(&[
        "Votes are weighted so that smaller states are not dominated by larger states.",
    ]);
    let reversed = claim(
        "Votes are weighted so that smaller states are not dominated by smaller states.",
        &weights,
    );
    let got = context_swap(&reversed, &weights.passages[0].sentences[0])
        .expect("smaller where it says larger");
    assert_eq!(
        (got.kind, got.evidence_part.as_str()),
        ("negation_flip", "larger")
    );
    // Values in another order, each after its own words, agree.
    let fees = Evidence::new(&["Students pay 45 euros and adults pay 60 euros."]);
    let reordered = claim("Adults pay 60 euros and students pay 45 euros.", &fees);
    assert!(context_swap(&reordered, &fees.passages[0].sentences[0]).is_none());
}

#[test]
fn the_same_amount_in_another_spelling_of_its_unit_agrees() {
    for (said, evidence) in [
        ("The fee is 5 euros.", "The fee is 5 EUR."),
        (
            "The session lasts 30 mins.",
            "The session lasts 30 minutes.",
        ),
        (
            "Refunds take 15 working days.",
            "Refunds take 15 business days.",
        ),
    ] {
        let e = Evidence::new(&[evidence]);
        let got = unit_shift(&claim(said, &e), &e.passages[0].sentences[0]);
        assert!(got.is_none(), "{said} / {evidence}: {got:?}");
    }
    // Durations compare in one unit: "30 weeks" is 210 days, so "30 days" is another
    // figure, which the support check calls a contradiction.
    let e = Evidence::new(&["Returns are accepted within 30 weeks."]);
    let said = claim("Returns are accepted within 30 days.", &e);
    let assessed = crate::offline::claims::support::assess(&said, &e, &[0], &Default::default());
    assert_eq!(
        assessed.label,
        ragnosis_types::item::Label::Contradiction,
        "{assessed:?}"
    );
    let e = Evidence::new(&["The office opens at 5 pm."]);
    assert!(
        unit_shift(
            &claim("The office opens at 5 am.", &e),
            &e.passages[0].sentences[0]
        )
        .is_none(),
        "times of day are compared as times, not as units"
    );
}

#[test]
fn a_changed_number_is_a_magnitude_shift() {
    let e = Evidence::new(&["Watson threw for 1,472 yards in five games."]);
    let c = claim("Watson threw for 1,500 yards in five games.", &e);
    let missing: Vec<&Anchor> = c.anchors.iter().filter(|a| a.text == "1,500").collect();
    let got =
        substitution(&c, &missing, &e.passages[0].sentences[0], &e).expect("a figure is offered");
    assert_eq!(
        (got.kind, got.evidence_part.as_str()),
        ("magnitude_shift", "1,472")
    );
}
