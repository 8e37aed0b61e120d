//! The operator's command, `lanes-pg`: exit status 0, 1 with one line on stderr, or 2 for a
//! mistake in the command line — never a panic, whatever its arguments or its output.

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
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("an argument is not UTF-8 text") && !err.contains("host="),
        "{err}"
    );
}

#[test]
fn usage_errors_never_echo_the_arguments() {
    let (code, _, err) = common::lanes_pg(&["orphans", "postgresql://app:hunter2@db/app"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("Usage: lanes-pg") && !err.contains("hunter2"),
        "{err}"
    );
}

/// `lanes-pg args…` with `LANES_PG_URL` set to `url`, or unset.
fn lanes_pg_with_url(url: Option<&str>, args: &[&str]) -> (Option<i32>, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lanes-pg"));
    match url {
        Some(url) => command.env("LANES_PG_URL", url),
        None => command.env_remove("LANES_PG_URL"),
    };
    let out = command.args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn help_and_version_answer_for_the_tool_and_each_command() {
    let (code, out, _) = lanes_pg_with_url(None, &["--help"]);
    assert_eq!(code, Some(0));
    assert!(
        out.contains("Usage: lanes-pg") && out.contains("examples:"),
        "{out}"
    );
    for command in [
        "recover",
        "orphans",
        "resolve",
        "resolve-orphan",
        "export",
        "audit",
        "prune",
    ] {
        let (code, out, _) = lanes_pg_with_url(None, &[command, "--help"]);
        assert_eq!(code, Some(0), "{command}");
        assert!(out.contains("examples:\n  lanes-pg "), "{command}: {out}");
    }
    let (code, out, _) = lanes_pg_with_url(None, &["--version"]);
    assert_eq!(
        (code, out.trim()),
        (Some(0), concat!("lanes-pg ", env!("CARGO_PKG_VERSION")))
    );
}

#[test]
fn mistakes_in_the_command_line_exit_with_status_2_and_say_what_is_wrong() {
    for (args, says) in [
        (&["export"][..], "required arguments"),
        (&["audit", "lanes"], "LANES_PG_URL is not set"),
        (
            &["export", "host=/tmp", "lanes", "--since", "yesterday"],
            "span before now",
        ),
        (
            &["export", "host=/tmp", "lanes", "--until", "2026-11-30"],
            "RFC 3339",
        ),
        (&["export", "host=/tmp", "lanes", "--json"], "--out"),
        (
            &["export", "host=/tmp", "lanes", "--kind", "both"],
            "possible values",
        ),
        (&["prune", "host=/tmp", "lanes"], "--before"),
        (
            &["resolve", "host=/tmp", "lanes", "42"],
            "not a reservation id",
        ),
        (&["teleport"], "unrecognized subcommand"),
    ] {
        let (code, out, err) = lanes_pg_with_url(None, args);
        assert_eq!(code, Some(2), "{args:?}: {out}{err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(
            out.is_empty() && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn the_connection_comes_from_lanes_pg_url_when_no_url_is_given() {
    let (url, schema) = (url(), fresh_schema());
    let lanes = PgLanes::connect(&url, &schema).unwrap();
    let lease = lanes.claim("docs", "nightly-1").unwrap();
    lanes
        .release(&lease, project_lanes::Outcome::Succeeded)
        .unwrap();
    let (code, out, err) = lanes_pg_with_url(Some(&url), &["audit", &schema]);
    assert_eq!(
        (code, out.trim()),
        (Some(0), "all 2 transitions match"),
        "{err}"
    );
    let (code, out, err) = lanes_pg_with_url(Some(&url), &["orphans", &schema, "--json"]);
    assert_eq!((code, out.trim()), (Some(0), "[]"), "{err}");
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
    // Its output is a pipe nobody reads any more (closed before it starts, so its first line
    // already fails).
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_lanes-pg"))
        .args(["orphans", &url, &schema])
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.starts_with("lanes-pg: "), "{err}");
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_misspelled_schema_is_an_error_and_is_not_created() {
    let (url, schema) = (url(), fresh_schema());
    let says = format!("schema {schema} holds no lanes");
    for args in [
        vec!["orphans", &url, &schema],
        vec!["orphans", &url, &schema, "--json"],
        vec!["recover", &url, &schema],
        vec!["resolve", &url, &schema, "R1"],
        vec!["resolve-orphan", &url, &schema, "docs"],
        vec!["export", &url, &schema],
        vec!["audit", &url, &schema],
        vec!["audit", &url, &schema, "--json"],
        vec!["prune", &url, &schema, "--before", "1d"],
        vec!["prune", &url, &schema, "--before", "1d", "--dry-run"],
    ] {
        let (code, out, err) = common::lanes_pg(&args);
        assert_eq!((code, out.as_str()), (Some(1), ""), "{args:?}: {err}");
        assert!(
            err.starts_with("lanes-pg: ") && err.contains(&says) && err.lines().count() == 1,
            "{args:?}: {err}"
        );
    }
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let created: i64 = client
        .query_one(
            "SELECT count(*) FROM pg_namespace WHERE nspname = $1",
            &[&schema],
        )
        .unwrap()
        .get(0);
    assert_eq!(created, 0);
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn resolve_declares_no_queue_of_its_own() {
    let (url, schema) = (url(), fresh_schema());
    PgLanes::connect(&url, &schema).unwrap();
    let (code, out, err) = common::lanes_pg(&["resolve", &url, &schema, "R1"]);
    assert_eq!((code, out.as_str()), (Some(1), ""), "{err}");
    assert!(err.contains("UNKNOWN_RESERVATION"), "{err}");
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let queues: i64 = client
        .query_one(&format!("SELECT count(*) FROM {schema}.queues"), &[])
        .unwrap()
        .get(0);
    assert_eq!(queues, 0);
}
