//! The journal exported as a record: one version 3 record of every row ([`export`], as the
//! rows are read), or a version 2 record of one kind ([`Stored::export`]); [`Cut`] says which
//! rows.

use std::io::Write;

use project_lanes::dispatch::{ReservationId, ReservationView};
use project_lanes::journal::{Export, ExportError, Exporter, write_item};
use project_lanes::record::chain::ChainHead;
use project_lanes::record::checkpoint::SigningKey;
use project_lanes::record::stream::{Item, Writer};
use project_lanes::record::{Record, Timestamp};

use super::read::{self, Rows};
use super::{JournalError, Kind, Stored, StoredEntry};
use crate::{PgConfig, PgError};

/// What to export: the record's id and the system's name, and which rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    /// The record's id (the label rule).
    pub id: String,
    /// The system's name, as its operators say it (the record's origin).
    pub system: String,
    /// Only these projects (all if empty).
    pub projects: Vec<String>,
    /// Only the rows from this time on (inclusive); the record starts from the state then.
    pub since: Option<Timestamp>,
    /// Only the rows before this time.
    pub until: Option<Timestamp>,
    /// Version 2 records only: lanes or dispatcher (by default the only kind among the rows).
    pub kind: Option<Kind>,
}

impl Cut {
    /// Every row, as the record `id` of the system `system`.
    pub fn new(id: &str, system: &str) -> Cut {
        Cut {
            id: id.to_owned(),
            system: system.to_owned(),
            projects: Vec::new(),
            since: None,
            until: None,
            kind: None,
        }
    }
}

impl Stored {
    /// The rows `cut` asks for, as a version 2 record of its kind (by default the only kind
    /// among them), whose origin is this journal.
    pub fn export(&self, cut: &Cut) -> Result<(Kind, Record), JournalError> {
        self.check_since(cut.since)?;
        let export = core_export(cut)?;
        let kind = self.kind_for(cut)?;
        let of = self.of(kind);
        let record = self.journal(kind).record(&export).map_err(|e| match e {
            ExportError::Inconsistent { entry, message } => JournalError::Corrupt {
                seq: of.get(entry).map_or(0, |e| e.seq),
                message,
            },
            ExportError::UnknownProject(project) => {
                let other = match kind {
                    Kind::Lanes => Kind::Dispatcher,
                    Kind::Dispatcher => Kind::Lanes,
                };
                let named = match other {
                    Kind::Lanes => self.start.leases().any(|(k, _)| k.project == project),
                    Kind::Dispatcher => self.start.reservations().any(|v| v.project == project),
                } || self
                    .of(other)
                    .iter()
                    .any(|e| e.project() == Some(project.as_str()));
                if named {
                    JournalError::OtherKind {
                        project,
                        kind: other,
                    }
                } else {
                    JournalError::Export(ExportError::UnknownProject(project))
                }
            }
            e => JournalError::Export(e),
        })?;
        Ok((kind, record))
    }
}

/// What [`export`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exported {
    /// The record's steps.
    pub steps: u64,
    /// The projects its start and steps name, in order of first appearance.
    pub projects: Vec<String>,
}

/// Writes the rows `cut` asks for to `out` as one version 3 record, direct lane operations and
/// dispatcher operations together, as they are read: one consistent snapshot, in the memory
/// the journal's live state takes, whatever its length. `cut.kind` is for version 2 records
/// ([`Stored::export`]) and must be `None`. An error may come after some of the record was
/// written: write to a file that is kept only if this succeeds.
///
/// A sealed journal's record is chained: each step carries the link its row was sealed with,
/// so a row changed after it was sealed breaks the record's chain at its step; rows not yet
/// sealed are its last steps, unchained ([`seal`](super::seal) first to chain them all), and a
/// journal never sealed exports unchained.
pub fn export(
    config: &PgConfig,
    cut: &Cut,
    out: impl Write + Send,
) -> Result<Exported, JournalError> {
    crate::blocking::outside_runtime(|| export_here(config, cut, None, out))
}

/// [`export`], with a checkpoint of the journal at the record's root signed by `key` (the
/// journal's identity, the root's link and hash, the server's time) before the record's end:
/// anyone with the verifier key proves the record against it, without the database. The key
/// never reaches the database. A record with no chained step carries no checkpoint.
pub fn export_signed(
    config: &PgConfig,
    cut: &Cut,
    key: &SigningKey,
    out: impl Write + Send,
) -> Result<Exported, JournalError> {
    crate::blocking::outside_runtime(|| export_here(config, cut, Some(key), out))
}

fn export_here(
    config: &PgConfig,
    cut: &Cut,
    key: Option<&SigningKey>,
    out: impl Write,
) -> Result<Exported, JournalError> {
    if cut.kind.is_some() {
        return Err(JournalError::Schema(
            "a version 3 record holds direct lane operations and dispatcher operations together: \
             a kind is chosen only for a version 2 record"
                .into(),
        ));
    }
    let export = core_export(cut)?;
    export.check().map_err(JournalError::Export)?;
    let mut client = read::connect(config)?;
    read::in_snapshot(&mut client, |tx| {
        let head = read::head_in(tx, &config.schema)?;
        super::check_since(&head, cut.since)?;
        let mut exporter =
            Exporter::new(&export, &head.queues, head.start.clone()).forgetting_settled();
        // The record carries the chain as sealed, up to the first unsealed row; a journal
        // never sealed exports unchained.
        if let Some(start) = head.chain
            && (start.links > 0 || first_sealed(tx, &config.schema, head.start_seq)?)
        {
            exporter = exporter.chained(start);
        }
        let written = |e: std::io::Error| JournalError::Export(ExportError::Write(e.to_string()));
        let writer = Writer::new(out, &exporter.head()).map_err(written)?;
        let mut named: std::collections::HashSet<String> = head
            .start
            .leases()
            .map(|(key, _)| key.project.to_string())
            .chain(head.start.reservations().map(|v| v.project.to_string()))
            .collect();
        let mut lines = Lines {
            exporter,
            writer,
            seq: 0,
            projects: Vec::new(),
            in_record: std::collections::HashSet::new(),
            named: &mut named,
        };
        read::rows_in(tx, &config.schema, &head, &mut lines)?;
        let Lines {
            exporter,
            mut writer,
            projects,
            ..
        } = lines;
        // A project asked for that the journal names nowhere is a mistake, not an empty window.
        if let Some(asked) = cut.projects.iter().find(|p| !named.contains(p.as_str())) {
            let label = project_lanes::Label::new(asked)
                .map_err(|_| JournalError::Export(ExportError::InvalidProject(asked.clone())))?;
            return Err(JournalError::Export(ExportError::UnknownProject(label)));
        }
        let note = match (key, exporter.root()) {
            (Some(key), Some(root)) if root.links > 0 => {
                Some(signed_checkpoint(tx, &config.schema, root, key)?)
            }
            _ => None,
        };
        let verifier = key.map(|k| k.verifier().to_text());
        let checkpoint = note.as_deref().map(|note| (note, verifier.as_deref()));
        let steps = exporter
            .finish_with(checkpoint, &mut |_, item| write_item(&mut writer, item))
            .map_err(JournalError::Export)?;
        writer.end().map_err(written)?;
        Ok(Exported { steps, projects })
    })
}

/// Whether the journal's first row after `start_seq` is sealed.
fn first_sealed(
    tx: &mut postgres::Transaction<'_>,
    schema: &str,
    start_seq: i64,
) -> Result<bool, JournalError> {
    let row = tx
        .query_opt(
            &format!(
                "SELECT link IS NOT NULL FROM {schema}.lanes_journal WHERE seq > $1 \
                 ORDER BY seq LIMIT 1"
            ),
            &[&start_seq],
        )
        .map_err(PgError::from)?;
    Ok(match row {
        Some(row) => row.try_get(0).map_err(PgError::from)?,
        None => false,
    })
}

/// A checkpoint of the journal at `root`, signed by `key`: the journal's identity and the
/// server's time, read in the export's snapshot.
fn signed_checkpoint(
    tx: &mut postgres::Transaction<'_>,
    schema: &str,
    root: ChainHead,
    key: &SigningKey,
) -> Result<String, JournalError> {
    let checkpoint = super::checkpoint_at(tx, schema, root)?;
    checkpoint.check().map_err(|e| {
        PgError::Config(format!(
            "this journal's identity cannot be checkpointed: {e}"
        ))
    })?;
    Ok(checkpoint.sign(key))
}

/// The core's export of `cut`.
fn core_export(cut: &Cut) -> Result<Export, JournalError> {
    let mut export = Export::new(&cut.id, &cut.system)
        .and_then(|e| e.projects(&cut.projects))
        .map_err(JournalError::Export)?;
    if let Some(since) = cut.since {
        export = export.since(since);
    }
    if let Some(until) = cut.until {
        export = export.until(until);
    }
    Ok(export)
}

/// The rows, through the core's exporter, written as they come.
struct Lines<'a, W: Write> {
    exporter: Exporter,
    writer: Writer<W>,
    /// The row being exported (an inconsistent one is named by it).
    seq: i64,
    /// The projects the record names, in order, and as a set.
    projects: Vec<String>,
    in_record: std::collections::HashSet<String>,
    /// Every project the journal names, in the record or not.
    named: &'a mut std::collections::HashSet<String>,
}

impl<W: Write> Rows for Lines<'_, W> {
    fn knows(&self, id: ReservationId) -> bool {
        self.exporter.knows(id)
    }

    fn wants(&self, id: ReservationId) -> bool {
        self.exporter.wants(id)
    }

    fn settled(&mut self, view: ReservationView) {
        self.exporter.settled(view);
    }

    fn row(&mut self, row: StoredEntry) -> Result<bool, JournalError> {
        self.seq = row.seq;
        if let Some(project) = row.project()
            && !self.named.contains(project)
        {
            self.named.insert(project.to_owned());
        }
        let Lines {
            exporter,
            writer,
            projects,
            in_record,
            ..
        } = self;
        exporter
            .entry_sealed(&row.entry, row.chain.map(|c| c.hash), &mut |_, item| {
                note_projects(projects, in_record, item);
                write_item(writer, item)
            })
            .map_err(|e| match e {
                ExportError::Inconsistent { message, .. } => JournalError::Corrupt {
                    seq: row.seq,
                    message,
                },
                e => JournalError::Export(e),
            })?;
        Ok(true)
    }
}

/// Adds the projects `item` names to `projects`, in order of first appearance.
fn note_projects(
    projects: &mut Vec<String>,
    in_record: &mut std::collections::HashSet<String>,
    item: &Item,
) {
    let named = match item {
        Item::Lease(lease, _) => Some(lease.project.as_str()),
        Item::Reservation(view, _) => Some(view.project.as_str()),
        Item::Step(step, _) => step.input.project.as_deref(),
        _ => None,
    };
    if let Some(project) = named
        && !in_record.contains(project)
    {
        in_record.insert(project.to_owned());
        projects.push(project.to_owned());
    }
}
