//! `export`, `audit` and `prune`: the schema's journal, for an operator (the chain's own
//! commands are `chain.rs`).

use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use project_lanes::journal::ExportError;
use project_lanes::record::chain::ChainHead;
use project_lanes::record::checkpoint::{Note, VerifierKey};
use project_lanes::record::{MAX_RECORD_BYTES, Record, Timestamp};
use project_lanes_pg::PgConfig;
use project_lanes_pg::journal::{self as pg_journal, Audit, Cut, JournalError, Kind};
use serde_json::json;

use crate::{Done, Failure, Place, chain, say, say_json, times, write_error};

pub const EXPORT_HELP: &str =
    "The record is version 3 (JSON lines): direct lane operations and dispatcher operations \
together, of any length, written as the journal is read. Without --out it is written to stdout; \
with --out it is written to FILE; either way only once the whole export succeeded (nothing is \
written otherwise), and with --out a summary is printed (--json: as JSON).
A window starts from the state at --since: the record's first lines hold what was held then.
An empty window, an unknown project, --since not before --until, or --since before rows a prune \
removed is an error (exit 1), not an empty or partial record.
--format-version 2 writes a version 2 record (one JSON document) for readers that take no other: \
it shows direct lane operations or dispatcher operations (choose with --kind when the rows hold \
both), and a window that does not fit its limits (16 MiB, 64 projects, 100,000 steps) is refused.
Times: RFC 3339 (2026-11-30T10:00:00Z) or a span before now (90s, 15m, 1h, 2d).

examples:
  lanes-pg export postgresql://ops@db/app lanes --out tonight.jsonl
  lanes-pg export lanes --since 1h --project docs --project site --out last-hour.jsonl
  lanes-pg export lanes --since 1h --format-version 2 --kind dispatcher --out last-hour.json
  lane-records replay tonight.jsonl";

pub const AUDIT_HELP: &str =
    "Replays every transition of the journal (from --since on, starting from the state then) on \
the in-memory core in one pass, as it is read, and compares each answer. Prints \"all N transitions \
match\" (exit 0), or the first transition that does not, by its journal number (exit 1), on \
stdout (--json: as JSON); a mismatch is also the one line on stderr that every failure says. A \
journal with nothing to check (empty, or nothing from --since on), or --since before rows a \
prune removed, is an error (exit 1).
It also recomputes the hash chain over the whole journal's sealed rows (lanes-pg seal) and says, \
on a second line, how many links it verified and how many rows are not sealed yet, that the \
journal is unchained (never sealed: nothing is proven), or the first row that breaks the chain \
(a field changed, a row removed or moved, a seal removed: exit 1).
With --checkpoint FILE (lanes-pg checkpoint's) it proves that the journal still extends it: the \
same journal, at least as long, the same root at the checkpoint's link; with --public-key, that \
the checkpoint is signed by that key. Any other answer is exit 1.

examples:
  lanes-pg audit lanes
  lanes-pg audit postgresql://ops@db/app lanes --since 1d --json
  lanes-pg audit lanes --checkpoint kept/2026-12-06.txt --public-key ops.key.pub";

pub const PRUNE_HELP: &str =
    "Removes the rows before --before and keeps the state after them as the journal's start, \
so later exports and audits begin from it; a window from before the last pruned row is then \
refused (it would miss rows). Needs DELETE on the journal (the schema's owner). \
Transitions wait while it runs. A --before after the server's time is refused (exit 2, \
nothing removed): a mistyped year must not empty the journal. --dry-run says how many rows a \
prune would remove and how many would remain, and removes nothing (read-only: no DELETE \
needed, nobody waits).

examples:
  lanes-pg prune lanes --before 30d --dry-run
  lanes-pg prune lanes --before 30d
  lanes-pg prune lanes --before 2026-11-01T00:00:00Z --json";

#[derive(Clone, Copy, ValueEnum)]
pub enum KindArg {
    /// Direct claims, stop requests, releases
    Lanes,
    /// Enqueues, dispatches, finishes, persists, cancels, resolves
    Dispatcher,
}

#[derive(Args)]
#[command(
    override_usage = "lanes-pg export [URL] SCHEMA [--project P]... [--since T] [--until T]
       [--id ID] [--system NAME] [--format-version VERSION [--kind KIND]] [--key FILE]
       [--out FILE [--json]] [--timeout SECONDS]"
)]
pub struct ExportArgs {
    #[command(flatten)]
    pub place: Place,
    /// Only this project (repeat for more)
    #[arg(long = "project", value_name = "P")]
    projects: Vec<String>,
    /// Only transitions from T on (RFC 3339 or a span before now: 1h)
    #[arg(long, value_name = "T", value_parser = times::parse, allow_hyphen_values = true)]
    since: Option<Timestamp>,
    /// Only transitions before T
    #[arg(long, value_name = "T", value_parser = times::parse, allow_hyphen_values = true)]
    until: Option<Timestamp>,
    /// Write the record to FILE (default: stdout)
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// The record format's version: 3 (the default) or 2, for readers that take no other
    #[arg(long, value_name = "VERSION", value_parser = clap::value_parser!(u32).range(2..=3))]
    format_version: Option<u32>,
    /// With --format-version 2: lanes or dispatcher (default: the only kind among the
    /// transitions)
    #[arg(long, value_enum, requires = "format_version")]
    kind: Option<KindArg>,
    /// The record's id (default: the schema's name, or "journal")
    #[arg(long, value_name = "ID")]
    id: Option<String>,
    /// The system's name in the record (default: the schema's name)
    #[arg(long, value_name = "NAME")]
    system: Option<String>,
    /// Put a checkpoint of the record's root in it, signed with this key (lanes-pg keygen's
    /// FILE; never sent to the database): the record is then proven without the database
    #[arg(long, value_name = "FILE", conflicts_with = "format_version")]
    key: Option<PathBuf>,
    /// Print the summary as JSON (with --out)
    #[arg(long, requires = "out")]
    json: bool,
}

#[derive(Args)]
#[command(
    override_usage = "lanes-pg audit [URL] SCHEMA [--since T] [--checkpoint FILE \
                      [--public-key FILE]] [--json] [--timeout SECONDS]"
)]
pub struct AuditArgs {
    #[command(flatten)]
    pub place: Place,
    /// Only transitions from T on, starting from the state then
    #[arg(long, value_name = "T", value_parser = times::parse, allow_hyphen_values = true)]
    since: Option<Timestamp>,
    /// Prove that the journal still extends this checkpoint (lanes-pg checkpoint's)
    #[arg(long, value_name = "FILE")]
    checkpoint: Option<PathBuf>,
    /// The checkpoint must be signed by this key (lanes-pg keygen's FILE.pub)
    #[arg(long, value_name = "FILE", requires = "checkpoint")]
    public_key: Option<PathBuf>,
    /// Print the verdict as JSON
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
#[command(
    override_usage = "lanes-pg prune [URL] SCHEMA --before T [--dry-run] [--json]
       [--timeout SECONDS]"
)]
pub struct PruneArgs {
    #[command(flatten)]
    pub place: Place,
    /// Remove the transitions before T (RFC 3339 or a span before now: 30d)
    #[arg(long, value_name = "T", value_parser = times::parse, allow_hyphen_values = true, required = true)]
    before: Option<Timestamp>,
    /// Say what a prune would remove, and remove nothing
    #[arg(long)]
    dry_run: bool,
    /// Print what was removed (with --dry-run: would be) as JSON
    #[arg(long)]
    json: bool,
}

fn failed(e: JournalError) -> Failure {
    Failure::Error(e.to_string())
}

pub fn export(out: &mut impl Write, config: &PgConfig, args: &ExportArgs) -> Done {
    let schema = args.place.schema().to_owned();
    let id = args.id.clone().unwrap_or_else(|| {
        if project_lanes::is_valid_label(&schema) {
            schema.clone()
        } else {
            "journal".to_owned()
        }
    });
    let version_2 = args.format_version == Some(2);
    if args.kind.is_some() && !version_2 {
        return Err(Failure::Usage(
            "--kind chooses the kind of a version 2 record (--format-version 2); a version 3 \
             record holds both"
                .into(),
        ));
    }
    let cut = Cut {
        id,
        system: args.system.clone().unwrap_or_else(|| schema.clone()),
        projects: args.projects.clone(),
        since: args.since,
        until: args.until,
        kind: args.kind.map(|k| match k {
            KindArg::Lanes => Kind::Lanes,
            KindArg::Dispatcher => Kind::Dispatcher,
        }),
    };
    let (steps, projects, kind) = if version_2 {
        let stored = pg_journal::read(config).map_err(failed)?;
        let (kind, record) = stored.export(&cut).map_err(failed)?;
        let bytes = version_2_bytes(&record)?;
        whole(args.out.as_deref(), out, &mut |file| file.write_all(&bytes))?;
        let projects = record.projects.iter().map(|p| p.to_string()).collect();
        (record.steps.len() as u64, projects, Some(kind))
    } else {
        let key = args
            .key
            .as_deref()
            .map(crate::chain::read_signing_key)
            .transpose()?;
        let mut exported = None;
        whole(args.out.as_deref(), out, &mut |file| {
            let file = std::io::BufWriter::new(file);
            let written = match &key {
                Some(key) => pg_journal::export_signed(config, &cut, key, file),
                None => pg_journal::export(config, &cut, file),
            };
            match written {
                Ok(e) => {
                    exported = Some(e);
                    Ok(())
                }
                Err(e) => Err(std::io::Error::other(Exporting(e))),
            }
        })?;
        let exported = exported.ok_or_else(|| Failure::Error("nothing was exported".into()))?;
        (exported.steps, exported.projects, None)
    };
    let Some(path) = &args.out else {
        return Ok(());
    };
    if args.json {
        say_json(
            out,
            &json!({
                "out": path.display().to_string(),
                "id": cut.id,
                "version": if version_2 { 2 } else { 3 },
                "kind": kind.map(Kind::as_str),
                "steps": steps,
                "projects": projects,
                "since": cut.since.map(|t| t.to_string()),
                "until": cut.until.map(|t| t.to_string()),
            }),
        )
    } else {
        let what = match kind {
            Some(kind) => format!("{} (version 2)", kind.as_str()),
            None => "(version 3)".into(),
        };
        say!(
            out,
            "wrote {}: {steps} steps {what} of {} project(s)",
            path.display(),
            projects.len()
        )
    }
}

/// A version 2 record as its file holds it, refused over readers' 16 MiB.
fn version_2_bytes(record: &Record) -> Result<Vec<u8>, Failure> {
    let mut bytes = serde_json::to_vec_pretty(record)
        .map_err(|e| Failure::Error(format!("cannot write the record as JSON: {e}")))?;
    bytes.push(b'\n');
    if bytes.len() as u64 > MAX_RECORD_BYTES {
        return Err(Failure::Error(format!(
            "the record would be {} bytes; version 2 readers take records of at most \
             {MAX_RECORD_BYTES} bytes (16 MiB): export a shorter window (--since, --until) or \
             fewer projects (--project), or leave --format-version out for a version 3 record",
            bytes.len()
        )));
    }
    Ok(bytes)
}

/// An export's own error, carried through the file's writing.
#[derive(Debug)]
struct Exporting(JournalError);

impl std::fmt::Display for Exporting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for Exporting {}

/// Writes what `write` writes to `path`, or to `out` without one, all or nothing: into a
/// temporary file first, which replaces `path` (or is copied to `out`) only once `write`
/// succeeded.
fn whole(
    path: Option<&Path>,
    out: &mut impl Write,
    write: &mut dyn FnMut(&mut std::fs::File) -> std::io::Result<()>,
) -> Done {
    let Some(path) = path else {
        let mut temp = tempfile::tempfile()
            .map_err(|e| Failure::Error(format!("cannot make a temporary file: {e}")))?;
        write(&mut temp).map_err(export_error)?;
        use std::io::Seek;
        temp.rewind()
            .and_then(|()| std::io::copy(&mut temp, out))
            .map_err(write_error)?;
        return Ok(());
    };
    write_whole(path, write)
}

/// The reason a write failed: an export's own, or the file's.
fn export_error(e: std::io::Error) -> Failure {
    match e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<Exporting>())
    {
        Some(Exporting(e)) => Failure::Error(e.to_string()),
        None => Failure::Error(format!("cannot write the record: {e}")),
    }
}

/// Writes to `path` all or nothing: a temporary file beside it, renamed into place.
fn write_whole(
    path: &Path,
    write: &mut dyn FnMut(&mut std::fs::File) -> std::io::Result<()>,
) -> Done {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let cannot =
        |e: std::io::Error| Failure::Error(format!("cannot write {}: {e}", path.display()));
    // The record replaces a file (keeping its permissions), never a link, a device or a folder.
    let existing = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_file() => Some(meta.permissions()),
        Ok(_) => {
            return Err(Failure::Error(format!(
                "cannot write {}: it is not a regular file (a link, a device or a folder): name \
                 a file, or leave out --out to print the record",
                path.display()
            )));
        }
        Err(_) => None,
    };
    // A new file is readable as the umask allows, like any other the user creates.
    let mut temp = tempfile::Builder::new()
        .prefix(".lanes-pg-export")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .map_err(cannot)?;
    if let Some(permissions) = existing {
        temp.as_file()
            .set_permissions(permissions)
            .map_err(cannot)?;
    }
    write(temp.as_file_mut()).map_err(|e| match export_error(e) {
        Failure::Error(m) if m.starts_with("cannot write the record: ") => {
            Failure::Error(format!("cannot write {}: {}", path.display(), &m[25..]))
        }
        other => other,
    })?;
    temp.as_file().sync_all().map_err(cannot)?;
    temp.persist(path).map_err(|e| cannot(e.error))?;
    Ok(())
}

pub fn audit(out: &mut impl Write, config: &PgConfig, args: &AuditArgs) -> Done {
    // The files first: a mistake in them costs no reading of the journal.
    let key = args
        .public_key
        .as_deref()
        .map(chain::read_verifier_key)
        .transpose()?;
    let note = args
        .checkpoint
        .as_deref()
        .map(|path| chain::read_checkpoint(path, key.as_ref()))
        .transpose()?;
    let against = note.as_ref().map(|n| ChainHead {
        links: n.checkpoint().links,
        hash: n.checkpoint().root,
    });
    let audit = match pg_journal::audit_against(config, args.since, against) {
        Ok(audit) => audit,
        // As an export of an empty window: nothing was checked, so nothing is said to match.
        Err(JournalError::Export(ExportError::Nothing)) => {
            return Err(Failure::Error(match args.since {
                Some(since) => format!(
                    "no transition of the journal is at or after {since}: there is nothing to \
                     audit"
                ),
                None => "the journal holds no transition: there is nothing to audit".into(),
            }));
        }
        Err(e) => return Err(failed(e)),
    };
    if let Some(note) = &note {
        let journal = &note.checkpoint().journal;
        if *journal != audit.identity {
            return Err(Failure::Error(format!(
                "the checkpoint is for another journal ({journal:?}); this one is {:?}",
                audit.identity
            )));
        }
    }
    let n = audit.transitions;
    let chained = chained(&audit, note.as_ref(), key.as_ref());
    let Some(m) = &audit.mismatch else {
        match args.json {
            true => {
                let mut verdict = json!({"transitions": n, "match": true});
                verdict["chain"] = chained.json;
                say_json(out, &verdict)?;
            }
            false if n == 1 => say!(out, "the 1 transition matches")?,
            false => say!(out, "all {n} transitions match")?,
        };
        if !args.json {
            for line in &chained.lines {
                say!(out, "{line}")?;
            }
        }
        return match chained.failure {
            Some(failure) => Err(Failure::Error(failure)),
            None => Ok(()),
        };
    };
    // The verdict on stdout, where scripts read it, and as the one line on stderr that every
    // failure says.
    let at = m.at.map(|t| format!(" at {t}")).unwrap_or_default();
    let project = m
        .project
        .as_ref()
        .map(|p| format!(" of {p}"))
        .unwrap_or_default();
    let verdict = if m.op.is_empty() {
        format!("journal row {}: {}", m.seq, m.message)
    } else {
        format!(
            "transition {} ({}{project} by {}{at}) does not match: {}",
            m.seq, m.op, m.actor, m.message
        )
    };
    if args.json {
        let text = |s: &str| (!s.is_empty()).then(|| s.to_owned());
        say_json(
            out,
            &json!({
                "transitions": n,
                "match": false,
                "first_mismatch": {
                    "seq": m.seq,
                    "op": text(&m.op),
                    "actor": text(&m.actor),
                    "at": m.at.map(|t| t.to_string()),
                    "project": m.project,
                    "journaled": m.journaled,
                    "core": text(&m.core),
                    "message": m.message,
                },
                "chain": chained.json,
            }),
        )?;
    } else {
        say!(out, "{verdict}")?;
        for line in &chained.lines {
            say!(out, "{line}")?;
        }
    }
    Err(Failure::Error(verdict))
}

/// What an audit says of the chain: its lines, its JSON, and the failure if it is one.
struct Chained {
    lines: Vec<String>,
    json: serde_json::Value,
    failure: Option<String>,
}

/// The chain's verdict, and the checkpoint's (its signature verified already, by `key`).
fn chained(audit: &Audit, note: Option<&Note>, key: Option<&VerifierKey>) -> Chained {
    let Some(chain) = &audit.chain else {
        let line = "the chain: none, the schema predates it (connect a handle of this release \
                    once to upgrade it, then lanes-pg seal)"
            .to_owned();
        return Chained {
            failure: note.map(|_| line.clone()),
            lines: vec![line],
            json: json!({"unchained": true}),
        };
    };
    let mut lines = Vec::new();
    let mut failure = None;
    if let Some(broken) = &chain.broken {
        lines.push(broken.to_string());
        failure = Some(broken.to_string());
    } else if chain.is_unchained() {
        lines.push(format!(
            "the chain: unchained, no row is sealed ({} rows): nothing proves the journal \
             unedited; run lanes-pg seal, and keep lanes-pg checkpoint's output elsewhere",
            chain.unsealed
        ));
    } else {
        lines.push(format!(
            "the chain: {} links verified, up to link {} (root {}); {} rows not sealed yet",
            chain.verified, chain.head.links, chain.head.hash, chain.unsealed
        ));
    }
    let checkpoint = match (&chain.checkpoint, note) {
        (Some(proof), Some(note)) => {
            let signed = key.map(VerifierKey::fingerprint);
            let mut line = format!("checkpoint: {proof}");
            if proof.holds() {
                line = format!(
                    "checkpoint: the journal extends it (link {}, {}){}",
                    note.checkpoint().links,
                    note.checkpoint().time,
                    match &signed {
                        Some(fingerprint) => format!(", signed by {fingerprint}"),
                        None if note.is_signed() => {
                            ", its signature not checked (no --public-key)".to_owned()
                        }
                        None => ", unsigned".to_owned(),
                    }
                );
            } else if failure.is_none() {
                failure = Some(line.clone());
            }
            lines.push(line);
            json!({
                "holds": proof.holds(),
                "message": proof.to_string(),
                "links": note.checkpoint().links,
                "signed_by": signed,
            })
        }
        _ => serde_json::Value::Null,
    };
    Chained {
        lines,
        json: json!({
            "unchained": chain.is_unchained(),
            "verified": chain.verified,
            "unsealed": chain.unsealed,
            "links": chain.head.links,
            "root": chain.head.hash.to_hex(),
            "broken": chain.broken.as_ref().map(|b| json!({
                "seq": b.seq,
                "link": b.link,
                "message": b.message,
            })),
            "checkpoint": checkpoint,
        }),
        failure,
    }
}

pub fn prune(out: &mut impl Write, config: &PgConfig, args: &PruneArgs) -> Done {
    let Some(before) = args.before else {
        return Err(Failure::Error("--before is required".into()));
    };
    let pruned = if args.dry_run {
        pg_journal::would_prune(config, before)
    } else {
        pg_journal::prune(config, before)
    };
    let pruned = pruned.map_err(|e| match e {
        // A mistake in the command line, which only the server's clock could tell.
        e @ JournalError::AfterNow { .. } => Failure::Usage(e.to_string()),
        e => failed(e),
    })?;
    match (args.json, args.dry_run) {
        (true, false) => say_json(
            out,
            &json!({
                "removed": pruned.removed,
                "remaining": pruned.remaining,
                "starts_after": pruned.start_seq,
                "before": before.to_string(),
            }),
        ),
        (true, true) => say_json(
            out,
            &json!({
                "dry_run": true,
                "would_remove": pruned.removed,
                "would_remain": pruned.remaining,
                "would_start_after": pruned.start_seq,
                "before": before.to_string(),
            }),
        ),
        (false, _) if pruned.removed == 0 => say!(
            out,
            "nothing before {before}: {} transitions kept",
            pruned.remaining
        ),
        (false, false) => say!(
            out,
            "removed {} transitions before {before}; the journal now starts after transition {} \
             ({} remain)",
            pruned.removed,
            pruned.start_seq,
            pruned.remaining
        ),
        (false, true) => say!(
            out,
            "would remove {} transitions before {before}; the journal would then start after \
             transition {} ({} remain); nothing was removed (--dry-run)",
            pruned.removed,
            pruned.start_seq,
            pruned.remaining
        ),
    }
}
