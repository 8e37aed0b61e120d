//! The operator's command, `lanes-pg`: exit status 0, or 1 with one line on stderr — never a
//! panic, whatever its arguments or its output.

mod common;

use std::os::unix::ffi::OsStrExt;
use std::process::{Command, Stdio};

use project_lanes_pg::PgLanes;

use common::{fresh_schema, recover_until_marked, url};

#[test]
fn arguments_that_are_not_text_are_an_error_not_a_panic() {
    let out = Command::new(env!("CARGO_BIN_EXE_lanes-pg"))
        .arg("orphans")
        .arg(std::ffi::OsStr::from_bytes(b"host=/tmp\xff"))
        .arg("lanes")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.starts_with("lanes-pg: ") && err.contains("UTF-8"),
        "{err}"
    );
}

#[test]
fn usage_errors_never_echo_the_arguments() {
    let (code, _, err) = common::lanes_pg(&["orphans", "postgresql://app:hunter2@db/app"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("usage: lanes-pg") && !err.contains("hunter2"),
        "{err}"
    );
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn lanes_pg_reports_a_closed_output_instead_of_panicking() {
    let (url, schema) = (url(), fresh_schema());
    {
        let holder = PgLanes::connect(&url, &schema).unwrap();
        holder.claim("p", "job-1").map(drop).unwrap();
    }
    let lanes = PgLanes::connect(&url, &schema).unwrap();
    assert_eq!(
        recover_until_marked(|| lanes.recover().unwrap())
            .orphans
            .len(),
        1
    );
    // Its output is a pipe nobody reads any more.
    let mut child = Command::new(env!("CARGO_BIN_EXE_lanes-pg"))
        .args(["orphans", &url, &schema])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.starts_with("lanes-pg: "), "{err}");
}
