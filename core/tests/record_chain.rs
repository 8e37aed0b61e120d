//! Chained version 3 records: an export carries the journal's hash chain, a reader recomputes
//! it, and a step changed, removed or moved after the fact breaks the record at that step,
//! whatever the window, the projects asked for, or the chunks the bytes arrive in.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use project_lanes::Outcome;
use project_lanes::dispatch::Dispatcher;
use project_lanes::journal::{Actor, Clock, Export, Journal};
use project_lanes::record::Timestamp;
use project_lanes::record::checkpoint::{Checkpoint, SigningKey};
use project_lanes::record::json::ReadError;
use project_lanes::record::stream::{Chain, Reader, Verdict};

const START: u64 = 1_780_000_000_000;

fn clock() -> Arc<dyn Clock> {
    let ticks = Arc::new(AtomicU64::new(START));
    Arc::new(move || Timestamp::from_millis(ticks.fetch_add(7, Ordering::Relaxed)).unwrap())
}

/// Direct claims and queued runs on shared projects, stale releases and refusals among them,
/// by two actors, `rounds` times over.
fn journal(rounds: usize) -> Journal {
    let mut d = Dispatcher::new(&["general", "delivery"])
        .unwrap()
        .with_journal(Some(clock()));
    for round in 0..rounds {
        d.set_actor(Actor::new("worker-1"));
        let hotfix = d.claim("docs", &format!("hotfix-{round}")).unwrap();
        let a = d
            .enqueue("general", "docs", &format!("nightly-{round}"))
            .unwrap();
        let b = d
            .enqueue("delivery", "site", &format!("cafe-{round}"))
            .unwrap();
        assert!(d.dispatch("general").unwrap().is_none());
        d.set_actor(Actor::new("worker-2"));
        assert_eq!(d.dispatch("delivery").unwrap().unwrap().reservation, b);
        d.claim("site", "hotfix-2").unwrap_err();
        d.request_stop(&hotfix).unwrap();
        d.release(&hotfix, Outcome::Cancelled).unwrap();
        d.release(&hotfix, Outcome::Failed).unwrap_err();
        assert_eq!(d.dispatch("general").unwrap().unwrap().reservation, a);
        d.finish(a, Outcome::Succeeded).unwrap();
        d.persisted(a, round % 2 == 0).unwrap();
        if round % 2 == 1 {
            d.resolve(a).unwrap();
        }
        d.finish(b, Outcome::Failed).unwrap();
        d.persisted(b, true).unwrap();
        d.cancel(b).unwrap_err();
    }
    let mut journal = Journal::dispatcher(d.queues());
    journal.extend(d.take_journal());
    journal
}

fn export(journal: &Journal, export: Export) -> Vec<u8> {
    journal
        .write_record(&export.chained(), Vec::new())
        .unwrap()
        .0
}

fn whole(journal: &Journal) -> Vec<u8> {
    export(journal, Export::new("chained", "test farm").unwrap())
}

fn read_in_chunks(bytes: &[u8], chunk: usize) -> Result<Verdict, ReadError> {
    let mut reader = Reader::new();
    for piece in bytes.chunks(chunk.max(1)) {
        reader.feed(piece, &mut |_| {})?;
    }
    reader.finish(&mut |_| {})
}

fn read(bytes: &[u8]) -> Result<Verdict, ReadError> {
    read_in_chunks(bytes, bytes.len())
}

fn lines(bytes: &[u8]) -> Vec<String> {
    String::from_utf8(bytes.to_vec())
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn joined(lines: &[String]) -> Vec<u8> {
    let mut text = lines.join("\n");
    text.push('\n');
    text.into_bytes()
}

fn chained(verdict: &Verdict) -> &project_lanes::record::stream::Chained {
    match &verdict.chain {
        Chain::Chained(chained) => chained,
        Chain::Unchained => panic!("unchained"),
    }
}

/// The line and message a broken record is refused with.
fn broken_at(bytes: &[u8]) -> (u64, String) {
    match read(bytes).unwrap_err() {
        ReadError::Line { line, error, .. } => (line, error.to_string()),
        other => panic!("not a line error: {other}"),
    }
}

/// The number of the first line holding `needle`.
fn line_of(lines: &[String], needle: &str) -> u64 {
    lines.iter().position(|l| l.contains(needle)).unwrap() as u64 + 1
}

#[test]
fn a_chained_export_verifies_and_its_root_is_the_journals_chain() {
    let journal = journal(4);
    let bytes = whole(&journal);
    for chunk in [1, 7, 64, bytes.len()] {
        let verdict = read_in_chunks(&bytes, chunk).unwrap();
        assert_eq!(verdict.mismatch, None);
        let chain = chained(&verdict);
        assert_eq!(chain.end, journal.chain());
        assert_eq!(chain.steps, journal.entries().len() as u64);
        assert_eq!((chain.unchained, chain.left_out), (0, 0));
    }
    // The same journal exported without the chain reads as unchained.
    let plain = journal
        .write_record(&Export::new("plain", "test farm").unwrap(), Vec::new())
        .unwrap()
        .0;
    assert_eq!(read(&plain).unwrap().chain, Chain::Unchained);
}

#[test]
fn windows_and_projects_carry_the_journals_own_links() {
    let journal = journal(6);
    let n = journal.entries().len();
    let since = journal.entries()[n / 3].at.unwrap();
    let until = journal.entries()[2 * n / 3].at.unwrap();
    let window = export(
        &journal,
        Export::new("window", "test farm")
            .unwrap()
            .since(since)
            .until(until),
    );
    let verdict = read(&window).unwrap();
    let chain = chained(&verdict);
    assert_eq!(chain.start, {
        let mut early = journal.clone();
        early.forget_first(n / 3);
        early.chain_start()
    });
    assert_eq!(chain.end.links, (2 * n / 3) as u64);
    // One project: the others' entries are carried as links.
    let docs = export(
        &journal,
        Export::new("docs", "test farm")
            .unwrap()
            .projects(&["docs"])
            .unwrap(),
    );
    let verdict = read(&docs).unwrap();
    let chain = chained(&verdict);
    assert_eq!(chain.end, journal.chain());
    assert!(chain.left_out > 0 && chain.steps > 0);
    assert_eq!(chain.left_out + chain.steps, n as u64);
    // A journal that forgot its first entries exports the same links.
    let mut pruned = journal.clone();
    pruned.forget_first(n / 2);
    let verdict = read(&whole(&pruned)).unwrap();
    assert_eq!(chained(&verdict).end, journal.chain());
}

#[test]
fn an_outcome_a_time_or_an_actor_changed_breaks_the_chain_at_its_step() {
    let bytes = whole(&journal(3));
    let original = lines(&bytes);
    let release = line_of(&original, r#""outcome":"cancelled""#);
    for (from, to) in [
        (r#""outcome":"cancelled""#, r#""outcome":"succeeded""#),
        (r#""dt":7"#, r#""dt":8"#),
        (r#""by":2"#, r#""by":1"#),
    ] {
        let mut changed = original.clone();
        let i = (release as usize - 1..changed.len())
            .find(|&i| changed[i].contains(from))
            .unwrap();
        changed[i] = changed[i].replacen(from, to, 1);
        let (line, message) = broken_at(&joined(&changed));
        assert_eq!(line, i as u64 + 1, "{from} → {to}: {message}");
        assert!(
            message.contains("the chain breaks at this step"),
            "{message}"
        );
    }
}

#[test]
fn a_step_removed_or_two_swapped_break_the_chain_where_the_order_changes() {
    let bytes = whole(&journal(3));
    let original = lines(&bytes);
    let steps: Vec<usize> = (0..original.len())
        .filter(|&i| original[i].contains(r#""op":"#))
        .collect();
    // Removed in the middle (the end line's count fixed, as a careful forger would).
    let mut removed = original.clone();
    let gone = steps[steps.len() / 2];
    removed.remove(gone);
    let last = removed.len() - 1;
    removed[last] = removed[last].replacen(
        &format!(r#""steps":{}"#, steps.len()),
        &format!(r#""steps":{}"#, steps.len() - 1),
        1,
    );
    let (line, _) = broken_at(&joined(&removed));
    assert_eq!(line, gone as u64 + 1, "the step after the gap");
    // Two steps swapped (both with `at`-free times the same, so only the chain sees it).
    let mut swapped = original.clone();
    let (a, b) = (steps[4], steps[5]);
    swapped.swap(a, b);
    let result = read(&joined(&swapped));
    match result {
        Err(ReadError::Line { line, .. }) => assert!(line == a as u64 + 1),
        other => panic!("a swap went unnoticed: {other:?}"),
    }
}

#[test]
fn the_end_and_the_chain_lines_must_agree_with_the_steps() {
    let bytes = whole(&journal(2));
    let original = lines(&bytes);
    let last = original.len() - 1;
    // A root that is not the chain's.
    let mut other_root = original.clone();
    let root = other_root[last].split(r#""root":""#).nth(1).unwrap()[..64].to_owned();
    let forged = if root.starts_with('0') { "1" } else { "0" }.to_owned() + &root[1..];
    other_root[last] = other_root[last].replace(&root, &forged);
    let (line, message) = broken_at(&joined(&other_root));
    assert_eq!(line, last as u64 + 1);
    assert!(message.contains("the chain ends at link"), "{message}");
    // A chain line whose start is not the one the steps follow.
    let mut other_start = original.clone();
    let chain = line_of(&other_start, r#"{"chain":"#) as usize - 1;
    other_start[chain] = other_start[chain].replace(&"0".repeat(64), &"1".repeat(64));
    let (line, _) = broken_at(&joined(&other_start));
    assert_eq!(line, line_of(&original, r#""op":"#));
    // A tag that is not hex, a generation on a refused claim.
    for (from, to) in [
        (r#""h":""#, r#""h":"Z"#),
        (
            r#""result":"PROJECT_BUSY""#,
            r#""result":"PROJECT_BUSY","g":3"#,
        ),
    ] {
        let mut changed = original.clone();
        let i = changed.iter().position(|l| l.contains(from)).unwrap();
        changed[i] = changed[i].replacen(from, to, 1);
        let (line, _) = broken_at(&joined(&changed));
        assert_eq!(line, i as u64 + 1, "{to}");
    }
}

#[test]
fn a_record_rewritten_with_a_recomputed_chain_still_verifies_so_a_checkpoint_is_needed() {
    // What the chain alone cannot prove: a forger who re-exports an edited journal gets a
    // record whose chain holds. Only its root differs — which is what a checkpoint kept
    // elsewhere (or a pinned root) compares.
    let honest = journal(2);
    let mut edited = Journal::dispatcher(honest.queues());
    let mut entries = honest.entries().to_vec();
    let i = entries
        .iter()
        .position(|e| matches!(e.call, project_lanes::journal::Call::Release { .. }))
        .unwrap();
    if let project_lanes::journal::Call::Release { outcome, .. } = &mut entries[i].call {
        *outcome = Outcome::Succeeded;
    }
    if let project_lanes::journal::Answer::Receipt(receipt) = &mut entries[i].answer {
        receipt.outcome = Outcome::Succeeded;
    }
    edited.extend(entries);
    let verdict = read(&whole(&edited)).unwrap();
    assert_ne!(chained(&verdict).end.hash, honest.chain().hash);
}

/// The record with a checkpoint of its root, signed by `key`, before its end line.
fn checkpointed(bytes: &[u8], key: &SigningKey, journal: &str) -> Vec<u8> {
    let verdict = read(bytes).unwrap();
    let end = chained(&verdict).end;
    let note = Checkpoint {
        journal: journal.to_owned(),
        links: end.links,
        root: end.hash,
        time: Timestamp::from_millis(START + 1_000_000).unwrap(),
    }
    .sign(key);
    let mut all = lines(bytes);
    let line = serde_json::json!({"checkpoint": note, "key": key.verifier().to_text()});
    all.insert(all.len() - 1, line.to_string());
    joined(&all)
}

#[test]
fn a_signed_checkpoint_names_its_signer_and_a_rewritten_record_fails_it() {
    let key = SigningKey::from_seed("ops.example", [7; 32]).unwrap();
    let bytes = checkpointed(&whole(&journal(2)), &key, "farm");
    let verdict = read(&bytes).unwrap();
    let checkpoint = chained(&verdict).checkpoint.clone().unwrap();
    assert_eq!(checkpoint.signer, Some(key.verifier().fingerprint()));
    assert_eq!(checkpoint.journal, "farm");
    // A step edited and its tag and the root recomputed (a forger with the chain's code but
    // not the key): the checkpoint's root is no longer the chain's.
    let mut edited = journal(2);
    let mut entries = edited.entries().to_vec();
    let i = entries
        .iter()
        .position(|e| matches!(e.call, project_lanes::journal::Call::Release { .. }))
        .unwrap();
    if let project_lanes::journal::Call::Release { outcome, .. } = &mut entries[i].call {
        *outcome = Outcome::Succeeded;
    }
    if let project_lanes::journal::Answer::Receipt(receipt) = &mut entries[i].answer {
        receipt.outcome = Outcome::Succeeded;
    }
    edited = {
        let mut j = Journal::dispatcher(edited.queues());
        j.extend(entries);
        j
    };
    let forged = lines(&whole(&edited));
    let mut with_old_checkpoint = forged.clone();
    let checkpoint_line = lines(&bytes)[lines(&bytes).len() - 2].clone();
    with_old_checkpoint.insert(forged.len() - 1, checkpoint_line);
    let (line, message) = broken_at(&joined(&with_old_checkpoint));
    assert_eq!(line, forged.len() as u64);
    assert!(message.contains("the checkpoint is of link"), "{message}");
    // Re-signed by the forger's own key: it verifies, but names another signer.
    let other = SigningKey::from_seed("forger", [9; 32]).unwrap();
    let verdict = read(&checkpointed(&joined(&forged), &other, "farm")).unwrap();
    assert_ne!(
        chained(&verdict).checkpoint.clone().unwrap().signer,
        Some(key.verifier().fingerprint())
    );
    // The honest checkpoint with the forger's key given: the signature does not verify.
    let mut wrong_key = lines(&bytes);
    let n = wrong_key.len() - 2;
    let value: serde_json::Value = serde_json::from_str(&wrong_key[n]).unwrap();
    let line = serde_json::json!({
        "checkpoint": value["checkpoint"],
        "key": other.verifier().to_text(),
    });
    wrong_key[n] = line.to_string();
    let (line, message) = broken_at(&joined(&wrong_key));
    assert_eq!(line, n as u64 + 1);
    assert!(message.contains("forger"), "{message}");
}
