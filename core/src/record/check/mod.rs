//! The format's rules that JSON parsing alone cannot check, record by record: the header, the
//! limits, the projects and queues, every step ([`step`]) and the final lanes.

mod common;
mod start;
mod step;

use crate::LaneView;
use crate::label::Quoted;

use super::error::RecordError;
use super::format::{
    FORMAT, Header, INDEX_FORMAT, Index, MAX_PROJECTS, MAX_STEPS, Origin, OriginKind, Record,
    VERSION, VERSIONS,
};
use common::Issued;
pub use common::handle_number;
#[cfg(feature = "json")]
pub(crate) use common::issued_list;
pub(crate) use common::{check_name, check_text};

impl Header {
    /// Refuses a file that is not a record of a version this build reads ([`VERSIONS`]).
    pub fn check(&self) -> Result<(), RecordError> {
        self.check_format(FORMAT)?;
        if !VERSIONS.contains(&self.version) {
            return Err(RecordError::UnsupportedVersion(self.version));
        }
        Ok(())
    }

    /// Refuses a file that is not an index of this version ([`VERSION`]).
    pub fn check_index(&self) -> Result<(), RecordError> {
        self.check_format(INDEX_FORMAT)?;
        if self.version != VERSION {
            return Err(RecordError::UnsupportedIndexVersion(self.version));
        }
        Ok(())
    }

    fn check_format(&self, format: &'static str) -> Result<(), RecordError> {
        if self.format != format {
            return Err(RecordError::UnknownFormat {
                found: self.format.clone(),
                expected: format,
            });
        }
        Ok(())
    }
}

impl Index {
    /// Checks the header, ids (unique), file names (plain `*.json` or `*.jsonl` names, no folders, so a
    /// viewer never fetches outside the index's folder) and hashes (64 lowercase hex digits).
    pub fn check(&self) -> Result<(), RecordError> {
        Header {
            format: self.format.clone(),
            version: self.version,
        }
        .check_index()?;
        if self.records.is_empty() || self.records.len() > MAX_PROJECTS * 16 {
            return Err(RecordError::invalid("records", "needs 1 to 1024 records"));
        }
        for (i, entry) in self.records.iter().enumerate() {
            let at = |what: &str| format!("records[{i}].{what}");
            if self.records[..i].iter().any(|e| e.id == entry.id) {
                return Err(RecordError::invalid(
                    at("id"),
                    format!("{} is listed twice", Quoted(&entry.id)),
                ));
            }
            let stem = entry
                .file
                .strip_suffix(".json")
                .or_else(|| entry.file.strip_suffix(".jsonl"))
                .unwrap_or_default();
            if !crate::is_valid_label(stem) {
                return Err(RecordError::invalid(
                    at("file"),
                    format!(
                        "{} is not a plain record file name like `my-record.json` (or `.jsonl`)",
                        Quoted(&entry.file)
                    ),
                ));
            }
            if entry.sha256.len() != 64
                || !entry
                    .sha256
                    .bytes()
                    .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
            {
                return Err(RecordError::invalid(
                    at("sha256"),
                    "needs 64 lowercase hex digits",
                ));
            }
            check_text(&at("title"), &entry.title)?;
        }
        Ok(())
    }
}

impl Record {
    /// Checks every rule of the format that JSON parsing alone cannot: header, limits, inputs
    /// matching their operation, results of the right kind, lease handles issued before use,
    /// snapshots covering every project, the untouched project staying untouched, and in
    /// version 2 the origin, the starting state, and each step's time and caller.
    pub fn check(&self) -> Result<(), RecordError> {
        Header {
            format: self.format.clone(),
            version: self.version,
        }
        .check()?;
        for (at, text) in [("title", &self.title), ("summary", &self.summary)] {
            check_text(at, text)?;
        }
        if self.work_executed_here {
            return Err(RecordError::invalid(
                "work_executed_here",
                "must be false: records show lane metadata, no work runs",
            ));
        }
        self.check_projects()?;
        if self.steps.is_empty() || self.steps.len() > MAX_STEPS {
            return Err(RecordError::invalid(
                "steps",
                format!("needs 1 to {MAX_STEPS} steps, found {}", self.steps.len()),
            ));
        }
        for (i, queue) in self.queues.iter().enumerate() {
            if self.queues[..i].contains(queue) || i >= MAX_PROJECTS {
                return Err(RecordError::invalid(
                    format!("queues[{i}]"),
                    format!(
                        "{} is listed twice, or there are over 64 queues",
                        Quoted(queue)
                    ),
                ));
            }
        }
        if self.version == VERSION {
            for (field, present) in [
                ("origin", self.origin.is_some()),
                ("start", self.start.is_some()),
            ] {
                if present {
                    return Err(RecordError::invalid(
                        field,
                        "only version 2 records have it",
                    ));
                }
            }
        }
        if let Some(origin) = &self.origin {
            check_origin(origin)?;
        }
        let mut issued = match &self.start {
            Some(start) => start::check(self, start)?,
            None => Issued::default(),
        };
        for (i, step) in self.steps.iter().enumerate() {
            step::check(self, i, step, &mut issued)?;
            self.check_lanes(&format!("steps[{i}].lanes"), &step.lanes)?;
        }
        self.check_lanes("final_lanes", &self.final_lanes)
    }

    /// Whether this is a record of the dispatcher (it names queues).
    pub fn is_dispatcher(&self) -> bool {
        !self.queues.is_empty()
    }

    /// `projects`: distinct labels, 2 to 64 in version 1 (one of them the untouched project),
    /// 1 to 64 in version 2 (where the untouched project is optional).
    fn check_projects(&self) -> Result<(), RecordError> {
        let least = if self.version == VERSION { 2 } else { 1 };
        if !(least..=MAX_PROJECTS).contains(&self.projects.len()) {
            return Err(RecordError::invalid(
                "projects",
                format!(
                    "needs {least} to {MAX_PROJECTS} projects, found {}",
                    self.projects.len()
                ),
            ));
        }
        for (i, project) in self.projects.iter().enumerate() {
            if self.projects[..i].contains(project) {
                return Err(RecordError::invalid(
                    format!("projects[{i}]"),
                    format!("{} is listed twice", Quoted(project)),
                ));
            }
        }
        match self.untouched_project.get() {
            Some(untouched) if !self.projects.contains(untouched) => Err(RecordError::invalid(
                "untouched_project",
                format!("{} is not one of `projects`", Quoted(untouched)),
            )),
            None if self.version == VERSION => Err(RecordError::invalid(
                "untouched_project",
                "missing field `untouched_project`: version 1 records name the project they leave untouched",
            )),
            _ => Ok(()),
        }
    }

    pub(super) fn check_lanes(&self, at: &str, lanes: &[LaneView]) -> Result<(), RecordError> {
        if lanes.len() != self.projects.len() {
            return Err(RecordError::invalid(
                at,
                format!(
                    "needs one view per project ({}), found {}",
                    self.projects.len(),
                    lanes.len()
                ),
            ));
        }
        for (j, (view, project)) in lanes.iter().zip(&self.projects).enumerate() {
            if *view.project != *project.as_str() {
                return Err(RecordError::invalid(
                    format!("{at}[{j}]"),
                    format!(
                        "expected the view of {}, found {}",
                        Quoted(project),
                        Quoted(&view.project)
                    ),
                ));
            }
            if self.untouched_project == *project && view.busy {
                return Err(RecordError::invalid(
                    format!("{at}[{j}]"),
                    format!(
                        "{} is the untouched project but shows busy",
                        Quoted(project)
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// A scenario's origin names nothing more; a journal's names its system, and its window if any
/// (which must not be empty).
pub(crate) fn check_origin(origin: &Origin) -> Result<(), RecordError> {
    match (origin.kind, &origin.system) {
        (OriginKind::Journal, Some(system)) => check_name("origin.system", system)?,
        (OriginKind::Journal, None) => {
            return Err(RecordError::invalid(
                "origin.system",
                "a journal's origin names its system",
            ));
        }
        (OriginKind::Scenario, _) => {
            for (field, present) in [
                ("system", origin.system.is_some()),
                ("since", origin.since.is_some()),
                ("until", origin.until.is_some()),
            ] {
                if present {
                    return Err(RecordError::invalid(
                        format!("origin.{field}"),
                        "only a journal's origin has it",
                    ));
                }
            }
        }
    }
    if let (Some(since), Some(until)) = (origin.since, origin.until)
        && since >= until
    {
        return Err(RecordError::invalid(
            "origin.until",
            "the window ends before it starts, or where it starts",
        ));
    }
    Ok(())
}
