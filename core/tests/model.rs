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
