//! Random operation sequences against a simple model of the contract: every result must match.
//!
//! The model and its check live in `suite/model.rs`, shared with the PostgreSQL backend
//! (`pg-tests/tests/model.rs`); this file runs them on `ProjectLanes` and adds the label rule's check.

#[path = "suite/model.rs"]
mod model_suite;

use project_lanes::{ProjectLanes, is_valid_label};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn lanes_agree_with_the_model(ops in proptest::collection::vec(model_suite::op(), 1..80)) {
        model_suite::agrees_with_the_model([ProjectLanes::new(), ProjectLanes::new()], ops)?;
    }

    #[test]
    fn the_label_rule_matches_its_regular_expression(label in "[A-Za-z0-9._ /é-]{0,90}|[a-z0-9]{75,85}") {
        let rule = regex::Regex::new(r"\A[A-Za-z0-9][A-Za-z0-9._-]{0,79}\z").unwrap();
        prop_assert_eq!(is_valid_label(&label), rule.is_match(&label));
    }
}

#[test]
fn every_character_below_256_first_or_following_is_judged_as_the_rule_says() {
    let rule = regex::Regex::new(r"\A[A-Za-z0-9][A-Za-z0-9._-]{0,79}\z").unwrap();
    let mut accepted = 0;
    for c in (0..=255u32).filter_map(char::from_u32) {
        for label in [
            format!("{c}"),
            format!("a{c}"),
            format!("a{c}z"),
            format!("{c}{c}"),
        ] {
            assert_eq!(is_valid_label(&label), rule.is_match(&label), "{label:?}");
            accepted += usize::from(is_valid_label(&label));
        }
    }
    // Per position: 62 characters first, 65 following.
    assert_eq!(accepted, 62 + 65 + 65 + 62);
}
