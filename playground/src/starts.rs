//! What a scenario can start from: every bundled scenario (`records/scenarios/`, as written,
//! comments and all) and two blank templates, one of the lanes and one of the dispatcher.

use std::path::Path;

use lane_records::scenario::Scenario;
use serde::Serialize;

macro_rules! bundled {
    ($file:literal) => {
        (
            $file,
            Kind::Scenario,
            include_str!(concat!("../../records/scenarios/", $file)),
        )
    };
}

/// The bundled scenarios, in display order (their file names), then the templates.
const SOURCES: [(&str, Kind, &str); 10] = [
    bundled!("01-independent-claims.toml"),
    bundled!("02-busy-project.toml"),
    bundled!("03-stop-keeps-occupancy.toml"),
    bundled!("04-explicit-outcome.toml"),
    bundled!("05-stale-release.toml"),
    bundled!("06-persistence-gate.toml"),
    bundled!("07-same-queue-retention.toml"),
    bundled!("08-unresolved-blocks.toml"),
    (
        "lanes.toml",
        Kind::Template,
        include_str!("../templates/lanes.toml"),
    ),
    (
        "dispatcher.toml",
        Kind::Template,
        include_str!("../templates/dispatcher.toml"),
    ),
];

/// A bundled scenario or a blank template.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A scenario of `records/scenarios/`: the bundled records come from these.
    Scenario,
    /// A blank start.
    Template,
}

/// One place to start from.
#[derive(Debug, Clone, Serialize)]
pub struct Start {
    /// The file name, which errors name too (`02-busy-project.toml`).
    pub file: &'static str,
    /// What it is.
    pub kind: Kind,
    /// The record id it names.
    pub id: String,
    /// The record title, in English and Japanese.
    pub title: project_lanes::record::Text,
    /// The scenario's text.
    pub text: &'static str,
}

/// Every start, bundled scenarios first. Each parses (a test runs each).
pub fn starts() -> Vec<Start> {
    SOURCES
        .iter()
        .filter_map(|&(file, kind, text)| {
            let scenario = Scenario::parse(Path::new(file), text).ok()?;
            Some(Start {
                file,
                kind,
                id: scenario.id().to_string(),
                title: scenario.title(),
                text,
            })
        })
        .collect()
}

/// The file names of the bundled scenarios this module holds.
pub fn bundled_files() -> Vec<&'static str> {
    SOURCES
        .iter()
        .filter(|s| s.1 == Kind::Scenario)
        .map(|s| s.0)
        .collect()
}
