//! The operator's command, `lanes-pg`: exit status 0, 1 with one line on stderr, or 2 for a
//! mistake in the command line — never a panic, whatever its arguments or its output.

mod common;

use std::os::unix::ffi::OsStrExt;
use std::process::{Command, Stdio};

use project_lanes_pg::PgLanes;

use common::{fresh_schema, recover_until_marked, url};

#[test]
fn arguments_that_are_not_text_are_an_error_not_a_panic() {
    let out = Command::new(env!("CARGO_BIN_EXE_lanes-pg-tool"))
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
    let url = "postgresql://app:hunter2@db/app";
    for args in [
        &["orphans", url][..],
        &["resolve", "lanes", url],
        &["resolve", url, "lanes"],
        &["resolve-orphan", url, "lanes"],
        &["status", url, "lanes", "extra"],
    ] {
        // With LANES_PG_URL set, so that each is read to its end (no connection is made).
        let (code, _, err) = lanes_pg_with_url(Some("host=/nowhere"), args);
        assert_eq!(code, Some(2), "{err}");
        assert!(
            err.contains("Usage: lanes-pg") && !err.contains("hunter2"),
            "{err}"
        );
    }
}

/// `lanes-pg args…` with `LANES_PG_URL` set to `url`, or unset.
fn lanes_pg_with_url(url: Option<&str>, args: &[&str]) -> (Option<i32>, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lanes-pg-tool"));
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

/// The commands `lanes-pg --help` lists (without `help`).
fn commands() -> Vec<String> {
    let (code, out, _) = lanes_pg_with_url(None, &["--help"]);
    assert_eq!(code, Some(0));
    let listed = out
        .split("Commands:\n")
        .nth(1)
        .and_then(|rest| rest.split("\n\n").next())
        .unwrap_or_else(|| panic!("no list of commands: {out}"));
    let names: Vec<String> = listed
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect();
    assert!(names.len() >= 7, "{out}");
    names
}

/// The lines of `help` under `heading` (up to the next blank line followed by no indent).
fn section<'a>(help: &'a str, heading: &str) -> Vec<&'a str> {
    let Some(rest) = help.split(&format!("\n{heading}\n")).nth(1) else {
        return Vec::new();
    };
    rest.lines()
        .take_while(|line| line.is_empty() || line.starts_with(' '))
        .filter(|line| !line.is_empty())
        .collect()
}

#[test]
fn every_commands_usage_and_help_name_exactly_the_arguments_it_takes() {
    let mut taken = std::collections::HashMap::new();
    for command in commands() {
        let (code, help, err) = lanes_pg_with_url(None, &[&command, "--help"]);
        assert_eq!(code, Some(0), "{command}: {err}");
        // The usage, with the lines it continues on.
        let usage = help
            .split("Usage: ")
            .nth(1)
            .and_then(|rest| rest.split("\n\n").next())
            .unwrap_or_else(|| panic!("{command}: no usage line: {help}"));
        let words: Vec<&str> = usage.split_whitespace().collect();
        assert_eq!(words[..2], ["lanes-pg", command.as_str()], "{usage}");
        // Placeholders are written once each, plainly: never `<[URL] SCHEMA>...`.
        assert!(
            !help.contains("<[") && !help.contains("...  "),
            "{command}: {help}"
        );
        // Every positional of the Arguments section, in the usage's order.
        let arguments: Vec<&str> = section(&help, "Arguments:")
            .iter()
            .filter_map(|line| line.split_whitespace().next())
            .collect();
        // Every command reaches a database but keygen, which makes a key file.
        if command == "keygen" {
            assert!(arguments.is_empty(), "{command}: {help}");
        } else {
            assert_eq!(arguments[..2], ["[URL]", "SCHEMA"], "{command}: {help}");
        }
        let positionals: Vec<&str> = words[2..]
            .iter()
            .copied()
            .take_while(|w| !w.starts_with(['[', '-']) || *w == "[URL]")
            .collect();
        assert_eq!(positionals, arguments, "{command}: {usage}");
        // Every option of the Options section (but --help), with its value's name, in the
        // usage; and no option in the usage that the command lacks.
        let mut options = Vec::new();
        for line in section(&help, "Options:") {
            let mut parts = line.split_whitespace();
            let Some(mut flag) = parts.next() else {
                continue;
            };
            if flag.starts_with("-") && !flag.starts_with("--") {
                flag = parts.next().unwrap_or_default();
            }
            let Some(name) = flag.strip_prefix("--") else {
                continue;
            };
            let value = parts
                .next()
                .and_then(|v| v.strip_prefix('<'))
                .and_then(|v| v.strip_suffix('>'));
            // The global --timeout does nothing for keygen, which asks no database.
            if name != "help" && !(command == "keygen" && name == "timeout") {
                options.push((name.to_owned(), value.map(str::to_owned)));
            }
        }
        for (name, value) in &options {
            let shown = match value {
                Some(value) => format!("--{name} {value}"),
                None => format!("--{name}"),
            };
            assert!(
                usage.contains(&shown),
                "{command}: {shown} is not in {usage:?}"
            );
        }
        for word in &words {
            let word = word.trim_matches(['[', ']', '.']);
            if let Some(name) = word.strip_prefix("--") {
                assert!(
                    options.iter().any(|(o, _)| o == name),
                    "{command}: {usage:?} names --{name}, which it does not take"
                );
            }
        }
        // The examples use only what the command takes.
        for example in section(&help, "examples:") {
            let example = example.trim();
            let Some(rest) = example.strip_prefix("lanes-pg ") else {
                continue;
            };
            assert!(
                rest.starts_with(&format!("{command} ")),
                "{command}: {example}"
            );
            for word in rest.split_whitespace().filter(|w| w.starts_with("--")) {
                let name = &word[2..];
                assert!(
                    options.iter().any(|(o, _)| o == name),
                    "{command}: the example {example:?} uses {word}, which it does not take"
                );
            }
        }
        let names: Vec<String> = options.into_iter().map(|(name, _)| name).collect();
        taken.insert(command, names);
    }
    // And so do the tool's own examples.
    let (_, help, _) = lanes_pg_with_url(None, &["--help"]);
    for example in section(&help, "examples:") {
        let Some(rest) = example.trim().strip_prefix("lanes-pg ") else {
            continue;
        };
        let mut words = rest.split_whitespace();
        let command = words.next().unwrap_or_default();
        let options = taken
            .get(command)
            .unwrap_or_else(|| panic!("{example:?} names no command"));
        for word in words.filter(|w| w.starts_with("--")) {
            assert!(
                options.iter().any(|o| *o == word[2..]),
                "the example {example:?} uses {word}, which {command} does not take"
            );
        }
    }
}

#[test]
fn a_mistake_inside_a_command_prints_that_commands_usage() {
    // What lanes-pg checks itself, with the command's usage.
    let mut cases: Vec<(Vec<String>, String, &str)> = Vec::new();
    let owned = |args: &[&str]| args.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    for command in commands() {
        cases.push((owned(&[&command]), command.clone(), "required arguments"));
        if command != "keygen" {
            cases.push((owned(&[&command, "host=/tmp"]), command.clone(), "URL"));
        }
    }
    cases.push((
        owned(&["resolve", "host=/tmp", "lanes", "7"]),
        "resolve".into(),
        "not a reservation id",
    ));
    cases.push((
        owned(&["resolve", "lanes", "R7"]),
        "resolve".into(),
        "LANES_PG_URL is not set",
    ));
    for (args, command, says) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, out, err) = lanes_pg_with_url(None, &args);
        assert_eq!((code, out.as_str()), (Some(2), ""), "{args:?}: {err}");
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(
            err.contains(&format!("\nUsage: lanes-pg {command} ")),
            "{args:?}: {err}"
        );
    }
    // A value clap refuses itself is said without a usage, never the tool's.
    let (code, _, err) = lanes_pg_with_url(
        None,
        &["export", "host=/tmp", "lanes", "--since", "yesterday"],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("span before now") && !err.contains("<COMMAND>"),
        "{err}"
    );
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
        (code, out.lines().next().unwrap_or_default()),
        (Some(0), "all 2 transitions match"),
        "{err}"
    );
    let (code, out, err) = lanes_pg_with_url(Some(&url), &["orphans", &schema, "--json"]);
    assert_eq!(
        (code, out.trim()),
        (Some(0), r#"{"not_marked":[],"orphaned":[]}"#),
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
    // Its output is a pipe nobody reads any more (closed before it starts, so its first line
    // already fails).
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_lanes-pg-tool"))
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
        vec!["status", &url, &schema],
        vec!["status", &url, &schema, "--json"],
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
