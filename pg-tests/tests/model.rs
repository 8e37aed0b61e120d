//! The core's model-based check of the lanes (`core/tests/suite/model.rs`) on PostgreSQL: random
//! sequences on two handles, each on a schema of its own, against the model.

mod common;
#[path = "../../core/tests/suite/model.rs"]
mod model_suite;

use proptest::prelude::*;

use common::fresh_lanes;

proptest! {
    // Each case is two new schemas and a few hundred round trips: fewer cases than in memory
    // (512), so the PostgreSQL suite stays fast.
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
    #[test]
    fn lanes_agree_with_the_model(ops in proptest::collection::vec(model_suite::op(), 1..80)) {
        model_suite::agrees_with_the_model([fresh_lanes(), fresh_lanes()], ops)?;
    }
}
