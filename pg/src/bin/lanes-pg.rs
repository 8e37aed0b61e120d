//! `lanes-pg`: operator commands for lanes and queues on PostgreSQL.
//!
//! ```text
//! lanes-pg [--timeout SECONDS] COMMAND …    each command gives up after SECONDS (default 10)
//! lanes-pg recover URL SCHEMA               mark what died with its session (prints it)
//! lanes-pg orphans URL SCHEMA               list orphaned lanes awaiting a person
//! lanes-pg resolve URL SCHEMA R<n>          clear an unresolved reservation
//! lanes-pg resolve-orphan URL SCHEMA PROJ   free an orphaned lane (receipt: needs_review)
//! ```
//!
//! Exit status 0 on success, 1 with one line on stderr otherwise (never a panic: output that
//! cannot be written, to a closed pipe for instance, is an error like any other).

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use project_lanes::dispatch::ReservationId;
use project_lanes_pg::{PgConfig, PgDispatcher, PgError, PgLanes};

const USAGE: &str = "usage: lanes-pg [--timeout SECONDS] recover|orphans URL SCHEMA | \
                     resolve URL SCHEMA R<n> | resolve-orphan URL SCHEMA PROJECT";

/// How long a command waits for the server unless told otherwise: an operator at a terminal
/// would rather hear that the database does not answer than wait without end.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

fn main() -> ExitCode {
    let args: Result<Vec<String>, _> = std::env::args_os()
        .skip(1)
        .map(|a| a.into_string())
        .collect();
    let Ok(args) = args else {
        // Not echoed either: it may be part of a URL.
        let _ = writeln!(std::io::stderr(), "lanes-pg: an argument is not UTF-8 text");
        return ExitCode::FAILURE;
    };
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mut out = std::io::stdout().lock();
    let result = match args.as_slice() {
        ["--timeout", seconds, rest @ ..] => match timeout(seconds) {
            Ok(limit) => command(&mut out, rest, limit),
            Err(e) => Err(e),
        },
        rest => command(&mut out, rest, DEFAULT_TIMEOUT),
    };
    match result.and_then(|()| out.flush().map_err(write_error)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // Nothing more can be done if stderr is closed too.
            let _ = writeln!(std::io::stderr(), "lanes-pg: {e}");
            ExitCode::FAILURE
        }
    }
}

fn command(out: &mut impl Write, args: &[&str], limit: Duration) -> Result<(), String> {
    let config = |url: &str, schema: &str| PgConfig::new(url, schema).timeout(limit);
    match args {
        ["recover", url, schema] => recover(out, &config(url, schema)),
        ["orphans", url, schema] => orphans(out, &config(url, schema)),
        ["resolve", url, schema, id] => resolve(out, &config(url, schema), id),
        ["resolve-orphan", url, schema, project] => {
            resolve_orphan(out, &config(url, schema), project)
        }
        // The arguments are not echoed: a URL can hold a password.
        [command, ..] => Err(format!(
            "unknown command {command:?} or wrong number of arguments ({}); {USAGE}",
            args.len()
        )),
        [] => Err(USAGE.to_owned()),
    }
}

/// `--timeout SECONDS`: from a millisecond to PostgreSQL's largest statement timeout.
fn timeout(seconds: &str) -> Result<Duration, String> {
    let (least, most) = (
        Duration::from_millis(1),
        Duration::from_millis(i32::MAX as u64),
    );
    seconds
        .parse::<f64>()
        .ok()
        .and_then(|s| Duration::try_from_secs_f64(s).ok())
        .filter(|d| (least..=most).contains(d))
        .ok_or_else(|| {
            format!(
                "--timeout needs a number of seconds from 0.001 to {} (about 24.8 days); \
                 not {seconds:?}",
                most.as_secs_f64()
            )
        })
}

fn err(e: PgError) -> String {
    e.to_string()
}

fn write_error(e: std::io::Error) -> String {
    format!("cannot write the output: {e}")
}

/// One line of output.
macro_rules! say {
    ($out:expr, $($arg:tt)*) => {
        writeln!($out, $($arg)*).map_err(write_error)
    };
}

fn recover(out: &mut impl Write, config: &PgConfig) -> Result<(), String> {
    let lanes = PgLanes::connect_with(config).map_err(err)?;
    let recovery = lanes.recover().map_err(err)?;
    for m in &recovery.reservations {
        let id = m.reservation.map(|r| r.to_string()).unwrap_or_default();
        say!(
            out,
            "unresolved {id} project={} run={} generation={}",
            m.project,
            m.run,
            m.generation
        )?;
    }
    for m in &recovery.orphans {
        say!(
            out,
            "orphaned project={} run={} generation={}",
            m.project,
            m.run,
            m.generation
        )?;
    }
    if recovery.is_empty() {
        say!(out, "nothing to recover")?;
    }
    Ok(())
}

fn orphans(out: &mut impl Write, config: &PgConfig) -> Result<(), String> {
    let lanes = PgLanes::connect_with(config).map_err(err)?;
    for o in lanes.orphans().map_err(err)? {
        say!(
            out,
            "orphaned project={} run={} generation={}",
            o.project,
            o.run,
            o.generation
        )?;
    }
    Ok(())
}

fn resolve(out: &mut impl Write, config: &PgConfig, id: &str) -> Result<(), String> {
    let id = ReservationId::parse(id).ok_or(format!("{id:?} is not a reservation id (R<n>)"))?;
    // No queues are needed to resolve; the handle declares one that already exists or is new.
    let mut d = PgDispatcher::connect_with(config, &["general"]).map_err(err)?;
    let view = d.resolve(id).map_err(err)?;
    say!(
        out,
        "{} {} project={}",
        view.id,
        view.state.as_str(),
        view.project
    )
}

fn resolve_orphan(out: &mut impl Write, config: &PgConfig, project: &str) -> Result<(), String> {
    let lanes = PgLanes::connect_with(config).map_err(err)?;
    let receipt = lanes.resolve_orphan(project).map_err(err)?;
    say!(
        out,
        "released project={} run={} outcome={}",
        receipt.project,
        receipt.run,
        receipt.outcome
    )
}
