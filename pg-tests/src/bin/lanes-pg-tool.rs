//! The operator's `lanes-pg`, built from its library for the tests (a binary of another
//! package has no `CARGO_BIN_EXE_` path here). It prints and exits exactly as `lanes-pg` does.

fn main() -> std::process::ExitCode {
    lanes_pg::main()
}
