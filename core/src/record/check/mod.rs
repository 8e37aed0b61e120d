//! The format's rules that JSON parsing alone cannot check, record by record: the header, the
//! limits, the projects and queues, every step ([`step`]) and the final lanes.

mod common;
mod step;

use crate::LaneView;
use crate::label::Quoted;

use super::error::RecordError;
use super::format::{
    FORMAT, Header, INDEX_FORMAT, Index, MAX_PROJECTS, MAX_STEPS, Record, VERSION,
};
use common::{Issued, check_text};

impl Header {
    /// Refuses a file that is not a record of this version.
    pub fn check(&self) -> Result<(), RecordError> {
        self.check_as(FORMAT)
    }

    /// Refuses a file that is not an index of this version.
    pub fn check_index(&self) -> Result<(), RecordError> {
        self.check_as(INDEX_FORMAT)
    }

    fn check_as(&self, format: &'static str) -> Result<(), RecordError> {
        if self.format != format {
            return Err(RecordError::UnknownFormat {
                found: self.format.clone(),
                expected: format,
            });
        }
        if self.version != VERSION {
            return Err(RecordError::UnsupportedVersion(self.version));
        }
        Ok(())
    }
}

impl Index {
    /// Checks the header, ids (unique), file names (plain `*.json` names, no folders, so a
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
            let stem = entry.file.strip_suffix(".json").unwrap_or_default();
            if !crate::is_valid_label(stem) {
                return Err(RecordError::invalid(
                    at("file"),
                    format!(
                        "{} is not a plain record file name like `my-record.json`",
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
    /// snapshots covering every project, the untouched project staying untouched.
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
        if !(2..=MAX_PROJECTS).contains(&self.projects.len()) {
            return Err(RecordError::invalid(
                "projects",
                format!(
                    "needs 2 to {MAX_PROJECTS} projects, found {}",
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
        if !self.projects.contains(&self.untouched_project) {
            return Err(RecordError::invalid(
                "untouched_project",
                format!(
                    "{} is not one of `projects`",
                    Quoted(&self.untouched_project)
                ),
            ));
        }
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
        let mut issued = Issued::default();
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
            if view.project != project.as_str() {
                return Err(RecordError::invalid(
                    format!("{at}[{j}]"),
                    format!(
                        "expected the view of {}, found {}",
                        Quoted(project),
                        Quoted(&view.project)
                    ),
                ));
            }
            if *project == self.untouched_project && view.busy {
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
