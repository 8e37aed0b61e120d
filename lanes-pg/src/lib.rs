//! # lanes-pg
//!
//! Operator commands for lanes and queues on PostgreSQL. Run `lanes-pg --help`; the guide's
//! PostgreSQL chapter is its manual. This library is the command itself ([`main`]), so the tests
//! of `project-lanes-pg` can build it; it has no other API (its other public items are the
//! command's own helpers).
//!
//! ```no_run
//! // The `lanes-pg` binary, whole (not run here: it reads the process's arguments and needs a
//! // database).
//! fn main() -> std::process::ExitCode {
//!     lanes_pg::main()
//! }
//! ```
//!
//! Exit status 0 on success, 1 with one line on stderr when the command fails (never a panic:
//! output that cannot be written, to a closed pipe for instance, is an error like any other), 2
//! for a mistake in the command line. URLs are never echoed: they can hold a password.

#![warn(missing_docs)]

/// A command's help with its positionals written out: clap writes `[URL] SCHEMA` as one
/// placeholder (`<[URL] SCHEMA>...`), since a list of positionals cannot start with an optional
/// one. `help_with_arguments!("  R<n>     the reservation")` adds a line for one more.
macro_rules! help_with_arguments {
    ($($more:literal),*) => {
        concat!(
            "{about-with-newline}\n{usage-heading} {usage}\n\nArguments:\n",
            "  [URL]    the database: a libpq connection string or URL (default: $LANES_PG_URL)\n",
            "  SCHEMA   the schema holding the lanes\n",
            $($more, "\n",)*
            "\n{all-args}{after-help}"
        )
    };
}

mod chain;
mod journal;
mod status;
mod times;

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use clap::error::ErrorKind;
use clap::{Args, CommandFactory, Parser, Subcommand};
use project_lanes::dispatch::{DispatchError, ReservationId};
use project_lanes_pg::{PgConfig, PgDispatcher, PgError, PgLanes};
use serde_json::json;

/// The variable holding the connection when no URL is given.
const URL_VAR: &str = "LANES_PG_URL";

/// How long a command waits for the server unless told otherwise: an operator at a terminal
/// would rather hear that the database does not answer than wait without end.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// Operator commands for project lanes and queues on PostgreSQL.
///
/// URL is a libpq connection string or URL (host=/run/postgresql user=app dbname=app,
/// postgresql://app@db.example/app), with libpq's TLS options (sslmode, default prefer;
/// sslrootcert, a PEM file or system; sslcert, sslkey); without it, LANES_PG_URL is used. SCHEMA
/// holds the lanes.
#[derive(Parser)]
#[command(
    name = "lanes-pg",
    bin_name = "lanes-pg",
    version,
    after_help = "Exit status: 0 done, 1 the command failed (one line on stderr), 2 a mistake in the command line.

examples:
  lanes-pg status postgresql://ops@db/app lanes
  lanes-pg status 'postgresql://ops@db/app?sslmode=verify-full&sslrootcert=/etc/ssl/db-ca.pem' lanes
  lanes-pg recover postgresql://ops@db/app lanes
  export LANES_PG_URL=postgresql://ops@db/app
  lanes-pg orphans lanes --json
  lanes-pg resolve-orphan lanes docs
  lanes-pg export lanes --since 1h --out last-hour.jsonl
  lanes-pg audit lanes
  lanes-pg prune lanes --before 30d
  lanes-pg checkpoint lanes --key ops.key --out kept/today.txt"
)]
struct Cli {
    /// Give up on the database after SECONDS (default 10)
    #[arg(long, global = true, value_name = "SECONDS", value_parser = timeout, allow_hyphen_values = true)]
    timeout: Option<Duration>,
    #[command(subcommand)]
    command: Command,
}

/// Where the lanes are: `[URL] SCHEMA`, shown by [`help_with_arguments`] and checked by
/// [`positionals`].
#[derive(Args)]
pub struct Place {
    #[arg(hide = true)]
    place: Vec<String>,
}

#[derive(Subcommand)]
enum Command {
    /// Mark what died with its session: reservations unresolved, lanes held directly orphaned
    #[command(
        override_usage = "lanes-pg recover [URL] SCHEMA [--json] [--timeout SECONDS]",
        help_template = help_with_arguments!(),
        after_help = "examples:\n  lanes-pg recover postgresql://ops@db/app lanes\n  lanes-pg recover lanes --json"
    )]
    Recover {
        #[command(flatten)]
        place: Place,
        /// Print JSON: {"unresolved": [...], "orphaned": [...]}
        #[arg(long)]
        json: bool,
    },
    /// Show what is held now: lanes (by whom, since when, holder alive) and what waits per queue
    #[command(
        override_usage = "lanes-pg status [URL] SCHEMA [--json] [--timeout SECONDS]",
        help_template = help_with_arguments!(),
        after_help = status::STATUS_HELP
    )]
    Status {
        #[command(flatten)]
        place: Place,
        /// Print JSON (below)
        #[arg(long)]
        json: bool,
    },
    /// List orphaned lanes awaiting a person, and holders gone that recovery has not marked yet
    #[command(
        override_usage = "lanes-pg orphans [URL] SCHEMA [--json] [--timeout SECONDS]",
        help_template = help_with_arguments!(),
        after_help = status::ORPHANS_HELP
    )]
    Orphans {
        #[command(flatten)]
        place: Place,
        /// Print JSON: {"orphaned": [{"project", "run", "generation"}, ...], "not_marked":
        /// [{"project", "run", "generation", "reservation"}, ...]}
        #[arg(long)]
        json: bool,
    },
    /// Clear an unresolved reservation after a person looked at it
    #[command(
        override_usage = "lanes-pg resolve [URL] SCHEMA R<n> [--timeout SECONDS]",
        help_template = help_with_arguments!("  R<n>     the unresolved reservation (R42)"),
        after_help = "examples:\n  lanes-pg resolve lanes R42"
    )]
    Resolve {
        #[arg(hide = true)]
        args: Vec<String>,
    },
    /// Free an orphaned lane after a person looked at it (receipt: needs_review)
    #[command(
        override_usage = "lanes-pg resolve-orphan [URL] SCHEMA PROJECT [--timeout SECONDS]",
        help_template = help_with_arguments!("  PROJECT  the project whose lane is orphaned"),
        after_help = "examples:\n  lanes-pg resolve-orphan lanes docs"
    )]
    ResolveOrphan {
        #[arg(hide = true)]
        args: Vec<String>,
    },
    /// Export the journal (or a window, or some projects) as a record the viewer proves
    #[command(help_template = help_with_arguments!(), after_help = journal::EXPORT_HELP)]
    Export(journal::ExportArgs),
    /// Replay the journal on the in-memory core: all transitions match, or the first that does not
    #[command(help_template = help_with_arguments!(), after_help = journal::AUDIT_HELP)]
    Audit(journal::AuditArgs),
    /// Remove the journal's rows before a time, keeping the state after them as its start
    #[command(help_template = help_with_arguments!(), after_help = journal::PRUNE_HELP)]
    Prune(journal::PruneArgs),
    /// Link the committed transitions into the journal's hash chain
    #[command(help_template = help_with_arguments!(), after_help = chain::SEAL_HELP)]
    Seal(chain::SealArgs),
    /// Seal, then print a checkpoint of the journal to keep elsewhere (signed with --key)
    #[command(help_template = help_with_arguments!(), after_help = chain::CHECKPOINT_HELP)]
    Checkpoint(chain::CheckpointArgs),
    /// Make an Ed25519 key to sign checkpoints with (FILE) and its public key (FILE.pub)
    #[command(after_help = chain::KEYGEN_HELP)]
    Keygen(chain::KeygenArgs),
}

/// The `lanes-pg` command: reads the process's arguments, runs the command, and says how it
/// ended (the exit status the help promises).
pub fn main() -> ExitCode {
    if std::env::args_os().any(|a| a.to_str().is_none()) {
        // A mistake in the command line (exit status 2), not echoed: it may be part of a URL.
        usage("", ErrorKind::InvalidUtf8, "an argument is not UTF-8 text");
    }
    let cli = Cli::parse();
    let limit = cli.timeout.unwrap_or(DEFAULT_TIMEOUT);
    let mut out = std::io::stdout().lock();
    let result = run(&mut out, cli.command, limit);
    match result.and_then(|()| out.flush().map_err(write_error)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Error(e)) => {
            // Nothing more can be done if stderr is closed too.
            let _ = writeln!(std::io::stderr(), "lanes-pg: {}", one_line(&e));
            ExitCode::FAILURE
        }
        Err(Failure::Usage(e)) => {
            let _ = writeln!(std::io::stderr(), "lanes-pg: {}", one_line(&e));
            ExitCode::from(2)
        }
    }
}

/// Why a command failed (exit status 1), or a mistake in the command line that only the server
/// could tell (exit status 2): one line on stderr either way.
pub enum Failure {
    /// The command failed (exit status 1): the line to write.
    Error(String),
    /// A mistake in the command line (exit status 2): the line to write.
    Usage(String),
}

/// `text` on one line, as the exit status promises: a line break (in a file's name, in a
/// server's message) is written `\n`.
fn one_line(text: &str) -> String {
    text.trim_end_matches(['\n', '\r'])
        .replace('\n', "\\n")
        .replace('\r', "\\r")
}

impl From<String> for Failure {
    fn from(e: String) -> Self {
        Failure::Error(e)
    }
}

/// What a command returns: done, or why not.
pub type Done = Result<(), Failure>;

fn run(out: &mut impl Write, command: Command, limit: Duration) -> Done {
    let config = |url: String, schema: &str| PgConfig::new(&url, schema).timeout(limit);
    match command {
        Command::Recover { place, json } => {
            let (url, schema) = place.split("recover");
            recover(out, &config(url, &schema), json)
        }
        Command::Status { place, json } => {
            let (url, schema) = place.split("status");
            status::status(out, &config(url, &schema), json)
        }
        Command::Orphans { place, json } => {
            let (url, schema) = place.split("orphans");
            status::orphans(out, &config(url, &schema), json)
        }
        Command::Resolve { args } => {
            let (url, schema, id) = positionals("resolve", args, Some("R<n>"));
            let Some(id) = ReservationId::parse(&id) else {
                // Never echoed if it may be a URL (given last by mistake).
                let what = if looks_like_a_url(&id) {
                    "the last argument".to_owned()
                } else {
                    format!("{id:?}")
                };
                usage(
                    "resolve",
                    ErrorKind::ValueValidation,
                    &format!("{what} is not a reservation id (R<n>)"),
                )
            };
            resolve(out, &config(url, &schema), id)
        }
        Command::ResolveOrphan { args } => {
            let (url, schema, project) = positionals("resolve-orphan", args, Some("PROJECT"));
            resolve_orphan(out, &config(url, &schema), &project)
        }
        Command::Export(args) => {
            let (url, schema) = args.place.split("export");
            journal::export(out, &config(url, &schema), &args)
        }
        Command::Audit(args) => {
            let (url, schema) = args.place.split("audit");
            journal::audit(out, &config(url, &schema), &args)
        }
        Command::Prune(args) => {
            let (url, schema) = args.place.split("prune");
            journal::prune(out, &config(url, &schema), &args)
        }
        Command::Seal(args) => {
            let (url, schema) = args.place.split("seal");
            chain::seal(out, &config(url, &schema), &args)
        }
        Command::Checkpoint(args) => {
            let (url, schema) = args.place.split("checkpoint");
            chain::checkpoint(out, &config(url, &schema), &args)
        }
        Command::Keygen(args) => chain::keygen(out, &args),
    }
}

impl Place {
    /// The URL (given, or from the environment) and the schema; a usage error of `command`
    /// otherwise.
    pub fn split(&self, command: &str) -> (String, String) {
        let (url, schema, _) = positionals(command, self.place.clone(), None);
        (url, schema)
    }

    /// The schema's name as given (the last positional).
    pub fn schema(&self) -> &str {
        self.place.last().map_or("", String::as_str)
    }
}

/// `command`'s positionals, `[URL] SCHEMA` and `more` (`R<n>`, `PROJECT`) if it takes one: the
/// URL (given, or from `LANES_PG_URL`), the schema and the last one (empty without `more`).
/// Clap takes them as one list, so their number is checked here, with `command`'s usage, and
/// never echoed (a URL can hold a password).
fn positionals(
    command: &str,
    mut args: Vec<String>,
    more: Option<&str>,
) -> (String, String, String) {
    let named: Vec<&str> = std::iter::once("SCHEMA").chain(more).collect();
    let missing = ErrorKind::MissingRequiredArgument;
    let with_url = args.first().is_some_and(|a| looks_like_a_url(a));
    if args.len() > named.len() + 1 {
        usage(
            command,
            ErrorKind::TooManyValues,
            &format!(
                "too many arguments: lanes-pg {command} takes [URL] {}",
                named.join(" ")
            ),
        );
    }
    if args.len() < named.len() + usize::from(with_url) {
        let message = match (with_url, named.as_slice()) {
            (true, [_]) => "a URL was given but no SCHEMA".to_owned(),
            (true, named) => format!("a URL was given but not both {}", named.join(" and ")),
            (false, named) => format!(
                "the following required arguments were not provided: {}",
                named[args.len()..].join(" ")
            ),
        };
        usage(command, missing, &message);
    }
    let last = if more.is_some() {
        args.pop().unwrap_or_default()
    } else {
        String::new()
    };
    let schema = args.pop().unwrap_or_default();
    match args
        .pop()
        .or_else(|| std::env::var(URL_VAR).ok().filter(|u| !u.is_empty()))
    {
        Some(url) => (url, schema, last),
        None => usage(
            command,
            missing,
            &format!(
                "no URL given and {URL_VAR} is not set: give the database's URL before SCHEMA"
            ),
        ),
    }
}

/// Whether an argument is a connection string rather than a schema name (never echoed).
fn looks_like_a_url(text: &str) -> bool {
    text.contains("://") || text.contains('=') || text.contains('/') || text.contains('@')
}

/// A mistake in the command line: clap's message and `command`'s usage (the tool's, if it is
/// none of its commands), exit status 2.
pub fn usage(command: &str, kind: ErrorKind, message: &str) -> ! {
    let mut cli = Cli::command();
    cli.build();
    match cli.find_subcommand_mut(command) {
        Some(command) => command.error(kind, message).exit(),
        None => cli.error(kind, message).exit(),
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
                "a number of seconds from 0.001 to {} (about 24.8 days)",
                most.as_secs_f64()
            )
        })
}

/// The schema holds lanes, asked before a handle connects: a handle would create a misspelled
/// one.
fn check_schema(config: &PgConfig) -> Done {
    project_lanes_pg::journal::check_schema(config).map_err(|e| Failure::Error(e.to_string()))
}

/// A database error as a failed command (exit status 1).
pub fn err(e: PgError) -> Failure {
    Failure::Error(e.to_string())
}

/// Output that could not be written (a closed pipe, a full disk) as a failed command.
pub fn write_error(e: std::io::Error) -> Failure {
    Failure::Error(format!("cannot write the output: {e}"))
}

/// One line of output.
#[macro_export]
macro_rules! say {
    ($out:expr, $($arg:tt)*) => {
        writeln!($out, $($arg)*).map_err($crate::write_error)
    };
}

/// A JSON value on one line.
pub fn say_json(out: &mut impl Write, value: &serde_json::Value) -> Done {
    say!(out, "{value}")
}

fn recover(out: &mut impl Write, config: &PgConfig, as_json: bool) -> Done {
    check_schema(config)?;
    let lanes = PgLanes::connect_with(config).map_err(err)?;
    let recovery = lanes.recover().map_err(err)?;
    if as_json {
        let marked = |m: &project_lanes_pg::Marked| {
            json!({
                "reservation": m.reservation.map(|r| r.to_string()),
                "project": m.project.as_str(),
                "run": m.run.as_str(),
                "generation": m.generation,
            })
        };
        return say_json(
            out,
            &json!({
                "unresolved": recovery.reservations.iter().map(marked).collect::<Vec<_>>(),
                "orphaned": recovery.orphans.iter().map(marked).collect::<Vec<_>>(),
            }),
        );
    }
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

fn resolve(out: &mut impl Write, config: &PgConfig, id: ReservationId) -> Done {
    // A handle declares queues: one the schema knows, never a new one. A schema without queues
    // holds no reservation.
    let queues = project_lanes_pg::journal::known_queues(config)
        .map_err(|e| Failure::Error(e.to_string()))?;
    let Some(queue) = queues.first() else {
        return Err(err(DispatchError::UnknownReservation.into()));
    };
    let mut d = PgDispatcher::connect_with(config, &[queue]).map_err(err)?;
    let view = d.resolve(id).map_err(err)?;
    say!(
        out,
        "{} {} project={}",
        view.id,
        view.state.as_str(),
        view.project
    )
}

fn resolve_orphan(out: &mut impl Write, config: &PgConfig, project: &str) -> Done {
    check_schema(config)?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_is_said_on_one_line() {
        assert_eq!(one_line("no\nway\r\nout\n"), "no\\nway\\r\\nout");
        assert_eq!(one_line("one line"), "one line");
    }
}
