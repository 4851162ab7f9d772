//! Label-level behaviour of `support::assess`: the rules a claim × passage label
//! follows, each pinned by a case that fails if the rule is lost.

use crate::offline::claims::claim::Claim;
use crate::offline::claims::support::{assess, SupportParams};
use crate::offline::words::evidence::Evidence;
use ragnosis_types::item::Label;

fn label(claim: &str, passages: &[&str], passage: usize) -> Label {
    let e = Evidence::new(passages);
    assess(
        &Claim::new(claim, &e),
        &e,
        &[passage],
        &SupportParams::default(),
    )
    .label
}

#[test]
fn paraphrase_with_the_same_anchors_is_entailed() {
    let p = ["The film was directed by Mark Waters and released in 2004."];
    assert_eq!(
        label("Mark Waters directed the film in 2004.", &p, 0),
        Label::Entailment
    );
}

#[test]
fn a_name_given_in_another_passage_still_counts() {
    // Passages of one document refer back ("He"); the name is checked over the item.
    let p = [
        "Arnold is a publisher.",
        "He founded the trade magazine in 1990.",
    ];
    assert_eq!(
        label("Arnold founded the trade magazine in 1990.", &p, 1),
        Label::Entailment
    );
    assert_ne!(
        label("Arnold founded the trade magazine in 1990.", &p, 0),
        Label::Entailment,
        "a passage that only names Arnold does not entail what he did"
    );
}

#[test]
fn finding_the_names_without_the_predicate_is_not_support() {
    let p = ["The Eiffel Tower is in Paris, France."];
    assert_ne!(label("The Eiffel Tower is tall.", &p, 0), Label::Entailment);
}

#[test]
fn statements_about_the_speaker_are_never_entailed_by_overlap() {
    let p = ["Tom Brady has a plan for your life: good health and peak performance."];
    assert_eq!(
        label("Tom Brady has a plan for good health.", &p, 0),
        Label::Entailment
    );
    assert_eq!(
        label("I love that Tom Brady has a plan for good health.", &p, 0),
        Label::Neutral
    );
}

#[test]
fn an_unsupported_number_blocks_entailment() {
    let p = ["The NFL has 32 teams in two conferences."];
    assert_eq!(label("The NFL has 32 teams.", &p, 0), Label::Entailment);
    assert_eq!(
        label("The NFL has 30 teams.", &p, 0),
        Label::Contradiction,
        "30 vs 32 is a magnitude shift"
    );
}

#[test]
fn nothing_to_check_is_neutral() {
    assert_eq!(
        label("Hello!", &["Hello there, reader."], 0),
        Label::Neutral
    );
    let e = Evidence::new(&[] as &[&str]);
    let a = assess(
        &Claim::new("Paris is in France.", &e),
        &e,
        &[0],
        &SupportParams::default(),
    );
    assert_eq!(a.label, Label::Neutral, "no passages: nothing entails");
}

#[test]
fn a_day_the_best_sentence_lacks_is_judged_where_it_is_stated() {
    // The opening-hours sentence matches the claim best, but Sundays are only in the
    // sentence that closes them.
    let p = ["Brackenford City Library is open Monday to Friday from 9 am to 8 pm and on Saturdays from 10 am to 5 pm. The library is closed on Sundays and on public holidays."];
    assert_eq!(
        label(
            "Yes, the library is open on Sundays, with the same hours as on Saturdays.",
            &p,
            0
        ),
        Label::Contradiction
    );
    assert_ne!(
        label("The library is open on Saturdays from 10 am.", &p, 0),
        Label::Contradiction,
        "a day the passage opens is no reversal"
    );
}

#[test]
fn an_outright_yes_to_what_the_passage_denies_contradicts_it() {
    let p = ["A doctor's note is required from the fourth day of sickness. Sick days do not reduce your annual leave allowance."];
    assert_eq!(
        label(
            "Yes, each sick day is deducted from your annual leave allowance.",
            &p,
            0
        ),
        Label::Contradiction
    );
    assert_ne!(
        label(
            "Yes, a doctor's note is required from the fourth day of sickness.",
            &p,
            0
        ),
        Label::Contradiction,
        "a yes restating an affirmed sentence agrees"
    );
}

#[test]
fn a_clock_time_the_passage_does_not_give_is_not_supported() {
    let p = ["The library is open Monday to Friday from 9 am to 8 pm. The children's floor closes 30 minutes before the rest of the building."];
    assert_ne!(
        label(
            "On weekdays the library opens at 8:30 am and closes at 8 pm.",
            &p,
            0
        ),
        Label::Entailment
    );
}

#[test]
fn a_number_counts_as_found_only_with_its_unit() {
    let p = [
        "The library lends up to 12 items at a time and up to 8 on a children's card.",
        "DVDs carry a rental fee of 2 euros per item per week.",
    ];
    assert_ne!(
        label("You would pay 8 euros.", &p, 0),
        Label::Entailment,
        "eight items are not eight euros"
    );
    assert_eq!(
        label("The rental fee is 2 euros per item per week.", &p, 1),
        Label::Entailment
    );
    let signed = ["The rental fee is €2 per item per week."];
    assert_eq!(
        label("The rental fee is 2 euros per item per week.", &signed, 0),
        Label::Entailment,
        "a currency sign and a currency word are two spellings"
    );
}
