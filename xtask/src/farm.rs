//! The benchmarks' largest record: the lanes' journal of a busy build farm, exported as a
//! version 3 record. A run claims a project's lane and holds it while other projects are
//! served; now and then a second run is refused (`PROJECT_BUSY`), a stop is requested, an old
//! lease is released again (`LEASE_NOT_CURRENT`) or a run ends `needs_review` (a recovery).
//! Every answer and time comes from the core's lanes and their journal; the choices come from
//! a fixed seed, so the file is the same every time.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use project_lanes::journal::{Clock, Export, Journal};
use project_lanes::record::{Text, Timestamp};
use project_lanes::{Lease, Outcome, ProjectLanes};
use project_lanes_view::i18n::group;

use crate::util::Result;

/// 2026-05-01T03:00:00.000Z.
pub const START: u64 = 1_777_604_400_000;

/// A clock the caller sets: the time it reads, in milliseconds (from [`START`]), and the clock.
pub fn set_clock() -> (Arc<AtomicU64>, Arc<dyn Clock>) {
    let now = Arc::new(AtomicU64::new(START));
    let clock: Arc<dyn Clock> = {
        let now = now.clone();
        Arc::new(move || {
            Timestamp::from_millis(now.load(Ordering::Relaxed))
                .unwrap_or_else(|e| unreachable!("fixture time: {e}"))
        })
    };
    (now, clock)
}

/// A small, fixed pseudo-random sequence (a 64-bit linear congruential generator's high bits).
struct Choices(u64);

impl Choices {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// How a farm's runs are named.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Runs {
    /// `p7-run-3`, the third run of project `p7`; a refused second run is `impatient`.
    Numbered,
    /// Every claim, refused or not, names a run of its own, 36 characters long: no two steps
    /// share a run label, and none is short enough to be kept inline.
    Distinct,
}

/// 62 bits of noise drawn from `step`, for a label that looks like a system's.
fn noise(step: usize) -> u64 {
    let mut c = Choices(step as u64);
    (c.below(1 << 31) << 31) | c.below(1 << 31)
}

/// The record, `steps` steps over `projects` projects (`p0`, `p1`, …), as its file's bytes;
/// `chained`, with the journal's hash chain (`Export::chained`).
pub fn farm(id: &str, steps: usize, projects: usize, chained: bool) -> Result<Vec<u8>> {
    farm_of(id, steps, projects, chained, Runs::Numbered)
}

/// [`farm`], its runs named as `runs` says.
pub fn farm_of(
    id: &str,
    steps: usize,
    projects: usize,
    chained: bool,
    runs_named: Runs,
) -> Result<Vec<u8>> {
    let (now, clock) = set_clock();
    let lanes = ProjectLanes::new().with_journal(Some(clock));
    let names: Vec<String> = (0..projects).map(|p| format!("p{p}")).collect();
    let mut held: Vec<Option<Lease>> = (0..projects).map(|_| None).collect();
    let mut old: Vec<Option<Lease>> = (0..projects).map(|_| None).collect();
    let mut runs = vec![0u64; projects];
    let mut choices = Choices(7);
    let mut journal = Journal::lanes();
    for step in 0..steps {
        // Every step at its own millisecond: the shards' journals merge in one order.
        now.fetch_add(1 + choices.below(40), Ordering::Relaxed);
        let p = choices.below(projects as u64) as usize;
        let name = &names[p];
        let run = |numbered: &str| match runs_named {
            Runs::Numbered => numbered.to_owned(),
            Runs::Distinct => format!("run-{step:09}-{:022x}", noise(step)),
        };
        match held[p].take() {
            None => {
                runs[p] += 1;
                held[p] = Some(lanes.claim(name, &run(&format!("{name}-run-{}", runs[p])))?);
            }
            Some(lease) => match choices.below(100) {
                0..5 => {
                    lanes.claim(name, &run("impatient")).unwrap_err();
                    held[p] = Some(lease);
                }
                5..15 => {
                    lanes.request_stop(&lease)?;
                    held[p] = Some(lease);
                }
                15..17 if old[p].is_some() => {
                    if let Some(stale) = &old[p] {
                        lanes.release(stale, Outcome::Succeeded).unwrap_err();
                    }
                    held[p] = Some(lease);
                }
                n => {
                    let outcome = match n {
                        17..20 => Outcome::NeedsReview,
                        20..25 => Outcome::Failed,
                        _ => Outcome::Succeeded,
                    };
                    lanes.release(&lease, outcome)?;
                    old[p] = Some(lease);
                }
            },
        }
        // The journal is taken now and then, as a system would.
        if step % 65_536 == 65_535 {
            journal.extend(lanes.take_journal());
        }
    }
    journal.extend(lanes.take_journal());
    let text = |en: &str, ja: &str| Text {
        en: en.into(),
        ja: ja.into(),
    };
    let (steps, projects) = (group(steps), group(projects));
    let export = Export::new(id, "build farm")?
        .title(text(
            &format!("A busy build farm: {steps} steps over {projects} projects"),
            &format!("忙しいビルドファーム：{projects} プロジェクトの {steps} ステップ"),
        ))
        .summary(text(
            "The lanes' journal of a farm whose runs hold their projects while others are served, exported whole.",
            "ほかのプロジェクトを処理する間も実行がプロジェクトを保持し続けるファームの、レーンのジャーナル全体を書き出したものです。",
        ));
    let export = if chained { export.chained() } else { export };
    let (bytes, _) = journal.write_record(&export, Vec::new())?;
    Ok(bytes)
}

/// `record` (a farm's bytes) with one answer changed to one the core does not give: the first
/// claim at or after step `from` (from 0) refused as busy is said to be refused for its label
/// (`INVALID_LABEL`), which leaves every later step as it was. Returns the bytes and that step,
/// or `None` if no claim after `from` was refused.
pub fn misanswer_a_claim(record: &[u8], from: usize) -> Option<(Vec<u8>, usize)> {
    const BUSY: &[u8] = br#""result":"PROJECT_BUSY"}"#;
    let mut step = 0;
    let mut start = 0;
    for line in record.split_inclusive(|&b| b == b'\n') {
        if line.starts_with(br#"{"op":"#) {
            let body = line.trim_ascii_end();
            if step >= from && line.starts_with(br#"{"op":"claim""#) && body.ends_with(BUSY) {
                let cut = start + body.len() - BUSY.len();
                let mut changed = record[..cut].to_vec();
                changed.extend_from_slice(br#""result":"INVALID_LABEL"}"#);
                changed.extend_from_slice(&record[start + body.len()..]);
                return Some((changed, step));
            }
            step += 1;
        }
        start += line.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use project_lanes::record::stream::Reader;

    #[test]
    fn the_farm_replays_with_refusals_stops_and_recoveries() {
        let bytes = farm("farm", 20_000, 100, false).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        for code in [
            "PROJECT_BUSY",
            "LEASE_NOT_CURRENT",
            "needs_review",
            "request_stop",
        ] {
            assert!(text.contains(code), "{code}");
        }
        let mut reader = Reader::new();
        reader.feed(&bytes, &mut |_| {}).unwrap();
        let verdict = reader.finish(&mut |_| {}).unwrap();
        assert_eq!((verdict.steps, verdict.mismatch), (20_000, None));
        assert!(
            farm("farm", 20_000, 100, false).unwrap() == bytes,
            "the same every time"
        );
    }

    #[test]
    fn a_farm_of_distinct_runs_names_no_run_twice() {
        let bytes = farm_of("farm", 20_000, 100, false, Runs::Distinct).unwrap();
        let text = String::from_utf8(bytes.clone()).unwrap();
        let runs: Vec<&str> = text
            .split(r#""run":""#)
            .skip(1)
            .map(|rest| &rest[..rest.find('"').unwrap()])
            .collect();
        let distinct: std::collections::HashSet<&str> = runs.iter().copied().collect();
        assert!(runs.len() > 8_000, "{} claims", runs.len());
        assert_eq!(distinct.len(), runs.len());
        assert!(runs.iter().all(|r| r.len() == 36), "{:?}", &runs[..3]);
        let mut reader = Reader::new();
        reader.feed(&bytes, &mut |_| {}).unwrap();
        let verdict = reader.finish(&mut |_| {}).unwrap();
        assert_eq!((verdict.steps, verdict.mismatch), (20_000, None));
    }

    #[test]
    fn a_misanswered_claim_is_the_only_step_the_core_answers_otherwise() {
        let bytes = farm("farm", 20_000, 100, false).unwrap();
        let (changed, step) = misanswer_a_claim(&bytes, 18_000).unwrap();
        assert!((18_000..18_200).contains(&step), "{step}");
        assert_eq!(changed.len(), bytes.len() + 1);
        let mut reader = Reader::new();
        reader.feed(&changed, &mut |_| {}).unwrap();
        let verdict = reader.finish(&mut |_| {}).unwrap();
        assert_eq!(verdict.mismatch.map(|m| m.step), Some(step as u64));
        assert_eq!(misanswer_a_claim(&bytes, 20_000), None);
    }
}
