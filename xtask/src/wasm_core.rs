//! The core's regression tests on a 32-bit target: `core/tests/reservation_ids.rs` compiled for
//! wasm32 and run by wasm-bindgen-test-runner under Node.js. The viewer replays dispatcher
//! records in wasm32, where `usize` has 32 bits and reservation ids once wrapped.

use std::process::Command;

use crate::tools::{WASM_TARGET, wasm_bindgen_bin};
use crate::util::{Result, project_root, run};

/// Runs `cargo test -p project-lanes --test reservation_ids` for wasm32 under Node.js.
pub fn core_tests_on_wasm32() -> Result<()> {
    let runner = wasm_bindgen_bin()?.join("wasm-bindgen-test-runner");
    if Command::new("node").arg("--version").output().is_err() {
        return Err(
            "the wasm32 tests of the core run under Node.js: install `node` \
                    (Debian: apt-get install nodejs) and run again"
                .into(),
        );
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    run(Command::new(cargo)
        .current_dir(project_root())
        .args(["test", "-p", "project-lanes", "--target", WASM_TARGET])
        .args(["--test", "reservation_ids"])
        // Tests without `run_in_browser` run in Node.js.
        .env("CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER", &runner))
}
