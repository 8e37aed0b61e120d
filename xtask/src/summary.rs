//! The summary of `cargo xtask test`: one line per stage (running, passed or failed, and its
//! seconds), rewritten to `target/xtask-test-summary.txt` as each stage starts and ends, so a
//! run cut short still says how far it got, and printed at the end of the run, pass or fail.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::util::{Result, step};

/// Where `cargo xtask test` keeps its summary, below the workspace root.
pub const FILE: &str = "target/xtask-test-summary.txt";

/// The stages run so far, and the file they are written to.
pub struct Summary {
    path: PathBuf,
    stages: Vec<Stage>,
}

struct Stage {
    name: &'static str,
    state: State,
    seconds: f64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum State {
    Running,
    Passed,
    Failed,
}

impl Summary {
    /// Starts an empty summary at `path`, replacing an earlier run's.
    pub fn create(path: PathBuf) -> Result<Self> {
        let summary = Summary {
            path,
            stages: Vec::new(),
        };
        if let Some(dir) = summary.path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        }
        summary.write()?;
        Ok(summary)
    }

    /// Runs one stage: announces it, writes it as running, then as passed or failed with its
    /// seconds. The stage's own error comes first; a summary that cannot be written is an
    /// error too.
    pub fn stage<T>(&mut self, name: &'static str, work: impl FnOnce() -> Result<T>) -> Result<T> {
        step(name);
        self.stages.push(Stage {
            name,
            state: State::Running,
            seconds: 0.0,
        });
        self.write()?;
        let started = Instant::now();
        let result = work();
        let stage = self.stages.last_mut().expect("pushed above");
        stage.seconds = started.elapsed().as_secs_f64();
        stage.state = if result.is_ok() {
            State::Passed
        } else {
            State::Failed
        };
        let written = self.write();
        let value = result?;
        written?;
        Ok(value)
    }

    /// The stage that failed, if one did.
    pub fn failed(&self) -> Option<&'static str> {
        self.stages
            .iter()
            .find(|stage| stage.state == State::Failed)
            .map(|stage| stage.name)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// One line a stage: `passed    12.3 s  formatting`.
    pub fn text(&self) -> String {
        let mut text = String::new();
        for stage in &self.stages {
            let state = match stage.state {
                State::Running => "running",
                State::Passed => "passed",
                State::Failed => "failed",
            };
            let _ = match stage.state {
                State::Running => writeln!(text, "{state:<7} {:>9}  {}", "-", stage.name),
                _ => writeln!(text, "{state:<7} {:>7.1} s  {}", stage.seconds, stage.name),
            };
        }
        text
    }

    fn write(&self) -> Result<()> {
        std::fs::write(&self.path, self.text())
            .map_err(|e| format!("cannot write {}: {e}", self.path.display()).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stage(name: &'static str, state: State, seconds: f64) -> Stage {
        Stage {
            name,
            state,
            seconds,
        }
    }

    #[test]
    fn a_line_says_the_state_the_seconds_and_the_stage() {
        let summary = Summary {
            path: PathBuf::new(),
            stages: vec![
                stage("formatting", State::Passed, 1.04),
                stage("native tests", State::Failed, 312.75),
                stage("the site", State::Running, 0.0),
            ],
        };
        assert_eq!(
            summary.text(),
            "passed      1.0 s  formatting\n\
             failed    312.8 s  native tests\n\
             running         -  the site\n"
        );
        assert_eq!(summary.failed(), Some("native tests"));
    }

    #[test]
    fn the_file_says_how_far_the_run_got_while_it_runs() {
        let dir = std::env::temp_dir().join(format!("xtask-summary-{}", std::process::id()));
        let path = dir.join("nested/summary.txt");
        let mut summary = Summary::create(path.clone()).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "");

        summary.stage("first", || Ok(())).unwrap();
        let during = summary
            .stage("second", || Ok(std::fs::read_to_string(&path)?))
            .unwrap();
        let lines: Vec<&str> = during.lines().collect();
        assert_eq!(lines.len(), 2);
        assert!(lines[0].starts_with("passed ") && lines[0].ends_with("  first"));
        assert_eq!(lines[1], "running         -  second");

        let error = summary
            .stage("third", || -> Result<()> { Err("it broke".into()) })
            .unwrap_err();
        assert_eq!(error.to_string(), "it broke");
        let after = std::fs::read_to_string(&path).unwrap();
        let states: Vec<&str> = after
            .lines()
            .map(|line| line.split_whitespace().next().unwrap())
            .collect();
        assert_eq!(states, ["passed", "passed", "failed"]);
        assert!(after.ends_with("  third\n"));
        assert_eq!(summary.failed(), Some("third"));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_unwritable_summary_is_an_error_naming_the_file() {
        let dir = std::env::temp_dir().join(format!("xtask-summary-dir-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // A folder where the file should be.
        let error = Summary::create(dir.clone()).err().unwrap();
        assert!(error.to_string().contains(&dir.display().to_string()));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
