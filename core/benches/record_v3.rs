//! `cargo bench -p project-lanes --bench record_v3`: a journal of a million transitions over a
//! thousand projects and twenty queues, direct lane operations and the dispatcher's mixed, cut
//! into a version 3 record and replayed from it, without and with the journal's hash chain: the
//! time of each, the bytes per transition (raw and gzip), and the process's peak memory; then
//! the time the journal's chain takes alone.
//!
//! Arguments: an optional filter, as for criterion (the benchmark runs if its name contains it);
//! `--transitions N` changes the journal's length.

use std::hint::black_box;
use std::io::Write;
use std::time::Instant;

use flate2::Compression;
use flate2::write::GzEncoder;
use project_lanes::dispatch::{Dispatcher, ReservationId};
use project_lanes::journal::{Actor, Export, Journal};
use project_lanes::record::stream::Reader;
use project_lanes::{Lease, Outcome};

const PROJECTS: usize = 1_000;
const QUEUES: usize = 20;

fn main() {
    let mut transitions = 1_000_000;
    let mut filter = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--transitions" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) if n > 0 => transitions = n,
                _ => {
                    eprintln!("record_v3: --transitions needs a positive number");
                    std::process::exit(2);
                }
            },
            flag if flag.starts_with("--") => {}
            name => filter = Some(name.to_owned()),
        }
    }
    if filter.is_some_and(|f| !"record_v3".contains(f.as_str())) {
        return;
    }
    let start = Instant::now();
    let journal = journal(transitions);
    println!(
        "record_v3: a journal of {} transitions over {PROJECTS} projects and {QUEUES} queues, \
         made in {:.2} s",
        journal.entries().len(),
        start.elapsed().as_secs_f64()
    );
    let plain = Export::new("bench", "bench").unwrap();
    for (name, export) in [("unchained", plain.clone()), ("chained", plain.chained())] {
        let start = Instant::now();
        let (bytes, steps) = journal.write_record(&export, Vec::new()).unwrap();
        let exported = start.elapsed().as_secs_f64();
        let mut gzip = GzEncoder::new(Vec::new(), Compression::default());
        gzip.write_all(&bytes).unwrap();
        let gzipped = gzip.finish().unwrap().len();
        let start = Instant::now();
        let mut reader = Reader::new();
        for chunk in bytes.chunks(64 * 1024) {
            reader.feed(chunk, &mut |_| {}).unwrap();
        }
        let verdict = reader.finish(&mut |_| {}).unwrap();
        let replayed = start.elapsed().as_secs_f64();
        assert_eq!((verdict.steps, verdict.mismatch.is_none()), (steps, true));
        black_box(&verdict);
        let n = steps as f64;
        println!(
            "  {name}: export {exported:.2} s, replay {replayed:.2} s; {} bytes ({:.1} a \
             transition), gzip {gzipped} bytes ({:.1} a transition); peak memory {} MB",
            bytes.len(),
            bytes.len() as f64 / n,
            gzipped as f64 / n,
            peak_megabytes()
        );
    }
    let start = Instant::now();
    let head = black_box(journal.chain());
    println!(
        "  the journal's chain: {} links in {:.2} s ({:.0} ns a link)",
        head.links,
        start.elapsed().as_secs_f64(),
        start.elapsed().as_secs_f64() * 1e9 / head.links as f64
    );
}

/// `transitions` operations: enqueues, dispatches, finishes, saves (some failed, then
/// resolved), cancels, and direct claims, stop requests and releases on the same projects,
/// refusals included, from six actors.
fn journal(transitions: usize) -> Journal {
    let queues: Vec<String> = (0..QUEUES).map(|q| format!("q{q}")).collect();
    let names: Vec<&str> = queues.iter().map(String::as_str).collect();
    let mut d = Dispatcher::new(&names).unwrap().with_journal(None);
    let actors: Vec<Actor> = (0..6)
        .map(|w| Actor::new(&format!("w{w}")).unwrap())
        .collect();
    let projects: Vec<String> = (0..PROJECTS).map(|p| format!("p{p}")).collect();
    let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
    let mut next = move |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as usize
    };
    let mut running: Vec<ReservationId> = Vec::new();
    let mut persisting: Vec<ReservationId> = Vec::new();
    let mut unresolved: Vec<ReservationId> = Vec::new();
    let mut queued: Vec<ReservationId> = Vec::new();
    let mut held: Vec<Lease> = Vec::new();
    let mut journal = Journal::dispatcher(d.queues());
    let mut run = 0u64;
    while journal.entries().len() < transitions {
        if run.is_multiple_of(4096) {
            journal.extend(d.take_journal());
        }
        d.set_actor(Some(actors[next(actors.len())].clone()));
        run += 1;
        let project = &projects[next(PROJECTS)];
        match next(16) {
            0..=3 => {
                let id = d.enqueue(&queues[next(QUEUES)], project, &format!("r{run}"));
                queued.extend(id.ok());
            }
            4..=6 => {
                if let Ok(Some(job)) = d.dispatch(&queues[next(QUEUES)]) {
                    running.push(job.reservation);
                }
            }
            7 | 8 if !running.is_empty() => {
                let id = running.swap_remove(next(running.len()));
                let outcome = [Outcome::Succeeded, Outcome::Failed][next(2)];
                d.finish(id, outcome).unwrap();
                persisting.push(id);
            }
            9 if !persisting.is_empty() => {
                let id = persisting.swap_remove(next(persisting.len()));
                let saved = next(20) != 0;
                d.persisted(id, saved).unwrap();
                if !saved {
                    unresolved.push(id);
                }
            }
            10 if !unresolved.is_empty() => {
                let id = unresolved.swap_remove(0);
                d.resolve(id).unwrap();
            }
            11 if !queued.is_empty() => {
                let id = queued.swap_remove(next(queued.len()));
                let _ = d.cancel(id);
            }
            12 | 13 => {
                if let Ok(lease) = d.claim(project, &format!("r{run}")) {
                    held.push(lease);
                }
            }
            14 if !held.is_empty() => {
                let lease = &held[next(held.len())];
                let _ = d.request_stop(lease);
            }
            _ if !held.is_empty() => {
                let lease = held.swap_remove(next(held.len()));
                d.release(&lease, Outcome::Succeeded).unwrap();
                if next(10) == 0 {
                    // A late cleanup: refused, journaled too.
                    let _ = d.release(&lease, Outcome::Failed);
                }
            }
            _ => {}
        }
    }
    journal
}

/// The process's peak resident memory (`VmHWM`), in megabytes.
fn peak_megabytes() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map_or(0, |kb| kb / 1024)
}
