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

/// The record, `steps` steps over `projects` projects (`p0`, `p1`, …), as its file's bytes;
/// `chained`, with the journal's hash chain (`Export::chained`).
pub fn farm(id: &str, steps: usize, projects: usize, chained: bool) -> Result<Vec<u8>> {
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
        match held[p].take() {
            None => {
                runs[p] += 1;
                held[p] = Some(lanes.claim(name, &format!("{name}-run-{}", runs[p]))?);
            }
            Some(lease) => match choices.below(100) {
                0..5 => {
                    lanes.claim(name, "impatient").unwrap_err();
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
}
