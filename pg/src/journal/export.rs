//! The journal exported as a record: one version 3 record of every row ([`export`], as the
//! rows are read), or a version 2 record of one kind ([`Stored::export`]); [`Cut`] says which
//! rows.

use std::io::Write;

use project_lanes::dispatch::{ReservationId, ReservationView};
use project_lanes::journal::{Export, ExportError, Exporter, write_item};
use project_lanes::record::stream::{Item, Writer};
use project_lanes::record::{Record, Timestamp};

use super::read::{self, Rows};
use super::{JournalError, Kind, Stored, StoredEntry};
use crate::PgConfig;

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
pub fn export(
    config: &PgConfig,
    cut: &Cut,
    out: impl Write + Send,
) -> Result<Exported, JournalError> {
    crate::blocking::outside_runtime(|| export_here(config, cut, out))
}

fn export_here(config: &PgConfig, cut: &Cut, out: impl Write) -> Result<Exported, JournalError> {
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
        let exporter =
            Exporter::new(&export, &head.queues, head.start.clone()).forgetting_settled();
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
        let steps = exporter
            .finish(&mut |_, item| write_item(&mut writer, item))
            .map_err(JournalError::Export)?;
        writer.end().map_err(written)?;
        Ok(Exported { steps, projects })
    })
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
            .entry(&row.entry, &mut |_, item| {
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
