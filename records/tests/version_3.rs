//! Records of version 3 (JSON lines) through `lane-records`: every line validates against
//! `lines.schema.json`, `replay` gives the verdict of the core's reader and refuses a file over its
//! limit before reading it, `index` lists `<id>.jsonl` and `render --element` puts the lines
//! inside the page so that a reader reads the same record back.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use lane_records::{open_record, records_dir};
use project_lanes::dispatch::Dispatcher;
use project_lanes::journal::{Actor, Clock, Export, Journal};
use project_lanes::record::Timestamp;
use project_lanes::record::checkpoint::{Checkpoint, SigningKey};
use project_lanes::record::stream::{Gather, Reader};
use project_lanes::{Outcome, ProjectLanes};
use serde_json::Value;
use tempfile::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_lane-records");

fn ticking() -> Arc<dyn Clock> {
    let next = Arc::new(AtomicU64::new(1_777_604_400_000));
    Arc::new(move || Timestamp::from_millis(next.fetch_add(1, Ordering::Relaxed)).unwrap())
}

/// A lanes journal's record, cut after a lease was claimed (so that it starts with one held),
/// with a late cleanup and a refused claim whose run holds `</script><!--`.
fn lanes_lines() -> Vec<u8> {
    let lanes = ProjectLanes::new().with_journal(Some(ticking()));
    let old = lanes.claim("docs", "nightly-6").unwrap();
    lanes.release(&old, Outcome::Succeeded).unwrap();
    let nightly = lanes.claim("docs", "nightly-7").unwrap();
    lanes.request_stop(&nightly).unwrap();
    lanes.release(&old, Outcome::Cancelled).unwrap_err();
    lanes.release(&nightly, Outcome::Cancelled).unwrap();
    lanes.claim("docs", "</script><!-- nightly-8").unwrap_err();
    lanes.claim("docs", "nightly-8").unwrap();
    lanes.claim("site", "deploy-3").unwrap();
    let mut journal = Journal::lanes();
    journal.extend(lanes.take_journal());
    let since = journal.entries()[3].at.unwrap();
    let export = Export::new("lanes-window", "build farm <main>")
        .unwrap()
        .since(since);
    journal.write_record(&export, Vec::new()).unwrap().0
}

/// A dispatcher journal's record with callers and direct lane operations.
fn dispatcher_lines() -> Vec<u8> {
    let mut d = Dispatcher::new(&["general", "delivery"])
        .unwrap()
        .with_journal(Some(ticking()));
    d.set_actor(Actor::new("host-a/pid 4120"));
    let a = d.enqueue("general", "docs", "gen-1").unwrap();
    d.enqueue("delivery", "docs", "cafe-1").unwrap();
    d.dispatch("general").unwrap();
    d.finish(a, Outcome::Succeeded).unwrap();
    d.set_actor(Actor::new("worker delivery 1"));
    d.persisted(a, false).unwrap();
    d.resolve(a).unwrap();
    let lease = d.claim("site", "hotfix-1").unwrap();
    d.request_stop(&lease).unwrap();
    d.release(&lease, Outcome::Cancelled).unwrap();
    d.dispatch("delivery").unwrap();
    let mut journal = Journal::dispatcher(d.queues());
    journal.extend(d.take_journal());
    journal
        .write_record(
            &Export::new("dispatcher-window", "shop").unwrap(),
            Vec::new(),
        )
        .unwrap()
        .0
}

fn validator() -> jsonschema::Validator {
    let schema: Value =
        serde_json::from_slice(&std::fs::read(records_dir().join("schema.json")).unwrap()).unwrap();
    let lines: Value =
        serde_json::from_slice(&std::fs::read(records_dir().join("lines.schema.json")).unwrap())
            .unwrap();
    let registry = jsonschema::Registry::new()
        .add("https://project-lanes.invalid/records/schema.json", schema)
        .unwrap()
        .prepare()
        .unwrap();
    jsonschema::options()
        .with_registry(&registry)
        .build(&lines)
        .unwrap()
}

/// The schema's errors for each line of `bytes` that has any, with its line number.
fn schema_errors(schema: &jsonschema::Validator, bytes: &[u8]) -> Vec<String> {
    let text = std::str::from_utf8(bytes).unwrap();
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut errors = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let doc: Value = serde_json::from_str(line).unwrap();
        if !schema.is_valid(&doc) {
            errors.push(format!("line {}: {line}", n + 1));
        }
    }
    errors
}

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

#[test]
fn every_line_of_exported_and_valid_records_validates_against_the_schema() {
    let schema = validator();
    let mut files: Vec<(String, Vec<u8>)> = vec![
        ("lanes".into(), lanes_lines()),
        ("dispatcher".into(), dispatcher_lines()),
    ];
    for entry in std::fs::read_dir(corpus()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with("v3-valid") {
            files.push((name, std::fs::read(&path).unwrap()));
        }
    }
    assert!(files.len() >= 6, "{} files", files.len());
    for (name, bytes) in &files {
        let errors = schema_errors(&schema, bytes);
        assert!(errors.is_empty(), "{name}: {errors:#?}");
    }
}

#[test]
fn the_schema_refuses_the_lines_the_reader_refuses_by_shape() {
    let schema = validator();
    for name in [
        "v3-unknown-field.jsonl",
        "v3-unknown-op.jsonl",
        "v3-finish-without-outcome.jsonl",
    ] {
        let bytes = std::fs::read(corpus().join(name)).unwrap();
        assert!(!schema_errors(&schema, &bytes).is_empty(), "{name}");
    }
    let good = lanes_lines();
    let text = std::str::from_utf8(&good).unwrap();
    let bad_lines = [
        // A head of another version; a claim naming a lease; an end without a count.
        text.lines()
            .next()
            .unwrap()
            .replace("\"version\":3", "\"version\":4"),
        r#"{"dt":-1,"op":"claim","project":"docs","run":"x","lease":"L1","result":"ok"}"#.into(),
        r#"{"end":{}}"#.into(),
    ];
    // The same claim without the lease is a line of its own (a `dt` may be negative: callers'
    // clocks can be a millisecond apart).
    let claim: Value =
        serde_json::from_str(r#"{"dt":-1,"op":"claim","project":"docs","run":"x","result":"ok"}"#)
            .unwrap();
    assert!(schema.is_valid(&claim));
    for line in bad_lines {
        let doc: Value = serde_json::from_str(&line).unwrap();
        assert!(!schema.is_valid(&doc), "{line}");
    }
}

fn replay(file: &Path, extra: &[&str]) -> (bool, String) {
    let out = Command::new(BIN)
        .arg("replay")
        .arg(file)
        .args(extra)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

#[test]
fn replay_refuses_a_huge_file_before_reading_it() {
    let dir = TempDir::new().unwrap();
    // A version 3 head, then two gigabytes that are never read (a sparse file costs no disk).
    let lines = dir.path().join("huge.jsonl");
    let head = lanes_lines()
        .split(|&b| b == b'\n')
        .next()
        .unwrap()
        .to_vec();
    std::fs::write(&lines, [head.as_slice(), b"\n"].concat()).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&lines)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    // Two gigabytes of zeros: no line at all.
    let zeros = dir.path().join("zeros.json");
    std::fs::File::create(&zeros)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    for file in [&lines, &zeros] {
        let started = std::time::Instant::now();
        let (ok, text) = replay(file, &[]);
        assert!(!ok, "{text}");
        assert!(text.contains("RECORD_TOO_LARGE"), "{text}");
        // Refused from its size, not after reading it: far less than reading 2 GiB takes.
        assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
    }
    let (_, text) = replay(&lines, &[]);
    assert!(text.contains("268435456"), "{text}");
    let (ok, text) = replay(&lines, &["--max-bytes", "100"]);
    assert!(
        !ok && text.contains("RECORD_TOO_LARGE") && text.contains("100 bytes"),
        "{text}"
    );
    // A limit raised past the file's size reads it, and stops where its zeros outgrow a line.
    let (ok, text) = replay(&lines, &["--max-bytes", "4294967296"]);
    assert!(
        !ok && text.contains("line 2") && !text.contains("RECORD_TOO_LARGE"),
        "{text}"
    );
}

#[test]
fn replay_gives_the_readers_verdict_and_a_limit_refuses_a_larger_record() {
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("dispatcher-window.jsonl");
    let bytes = dispatcher_lines();
    std::fs::write(&file, &bytes).unwrap();
    let mut reader = Reader::new();
    reader.feed(&bytes, &mut |_| {}).unwrap();
    let verdict = reader.finish(&mut |_| {}).unwrap();
    assert_eq!(verdict.mismatch, None);
    let (ok, text) = replay(&file, &[]);
    assert!(ok, "{text}");
    assert!(text.contains(&format!("{} steps", verdict.steps)), "{text}");
    let limit = (bytes.len() - 1).to_string();
    let (ok, text) = replay(&file, &["--max-bytes", &limit]);
    assert!(!ok && text.contains("RECORD_TOO_LARGE"), "{text}");
    let (ok, text) = replay(&file, &["--max-bytes", "many"]);
    assert!(!ok && text.contains("--max-bytes"), "{text}");
}

#[test]
fn index_lists_version_3_records_as_jsonl_and_refuses_another_name() {
    let dir = TempDir::new().unwrap();
    std::fs::write(dir.path().join("lanes-window.jsonl"), lanes_lines()).unwrap();
    std::fs::write(
        dir.path().join("dispatcher-window.jsonl"),
        dispatcher_lines(),
    )
    .unwrap();
    let out = Command::new(BIN)
        .arg("index")
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let index: Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("index.json")).unwrap()).unwrap();
    let files: Vec<&str> = index["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["file"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["dispatcher-window.jsonl", "lanes-window.jsonl"]);
    // Version 3 under a `.json` name is not what its id says.
    std::fs::rename(
        dir.path().join("lanes-window.jsonl"),
        dir.path().join("lanes-window.json"),
    )
    .unwrap();
    let out = Command::new(BIN)
        .arg("index")
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("lanes-window.jsonl"), "{stderr}");
}

/// The text inside the element's `<script>`.
fn inline_text(element: &str) -> &str {
    let start = element.find("<script type=\"application/json\">").unwrap();
    let start = start + "<script type=\"application/json\">".len();
    let end = element[start..].find("</script>").unwrap();
    &element[start..start + end]
}

#[test]
fn render_element_carries_the_lines_and_reads_back_as_the_same_record() {
    let dir = TempDir::new().unwrap();
    let file = dir.path().join("lanes-window.jsonl");
    std::fs::write(&file, lanes_lines()).unwrap();
    let out = Command::new(BIN)
        .arg("render")
        .arg(&file)
        .arg("--element")
        .output()
        .unwrap();
    let element = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!element.contains("</script><!--"), "{element}");
    assert!(
        !element.contains("\n\n"),
        "a blank line would end the HTML block"
    );
    let inline = inline_text(&element);
    let mut reader = Reader::new();
    let mut gather = Gather::new();
    reader
        .feed(inline.as_bytes(), &mut |seen| gather.seen(seen))
        .unwrap();
    let verdict = reader.finish(&mut |seen| gather.seen(seen)).unwrap();
    assert_eq!(verdict.mismatch, None);
    let (record, _, mismatch) = open_record(&file).unwrap();
    assert_eq!(mismatch, None);
    assert_eq!(gather.record(), record);
    assert_eq!(record.version, 3);
    assert!(
        record.start.is_some(),
        "cut from a history: it starts with a lease held"
    );
}

/// The dispatcher journal's record, chained, with a checkpoint signed by `key` before its end.
fn chained_lines(key: &SigningKey) -> Vec<u8> {
    let mut d = Dispatcher::new(&["general"])
        .unwrap()
        .with_journal(Some(ticking()));
    d.set_actor(Actor::new("host-a/pid 4120"));
    for i in 0..3 {
        let a = d.enqueue("general", "docs", &format!("gen-{i}")).unwrap();
        d.dispatch("general").unwrap();
        d.finish(a, Outcome::Succeeded).unwrap();
        d.persisted(a, true).unwrap();
        let lease = d.claim("site", &format!("hotfix-{i}")).unwrap();
        d.release(&lease, Outcome::Failed).unwrap();
    }
    let mut journal = Journal::dispatcher(d.queues());
    journal.extend(d.take_journal());
    let export = Export::new("chained", "shop").unwrap().chained();
    let bytes = journal.write_record(&export, Vec::new()).unwrap().0;
    let root = journal.chain();
    let note = Checkpoint {
        journal: "shop".into(),
        links: root.links,
        root: root.hash,
        time: Timestamp::from_millis(1_777_604_500_000).unwrap(),
    }
    .sign(key);
    let text = String::from_utf8(bytes).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let line = serde_json::json!({"checkpoint": note, "key": key.verifier().to_text()});
    lines.insert(lines.len() - 1, line.to_string());
    (lines.join("\n") + "\n").into_bytes()
}

#[test]
fn replay_says_what_a_chain_proves_and_refuses_another_signer_or_an_edit() {
    let key = SigningKey::from_seed("ops.example", [3; 32]).unwrap();
    let other = SigningKey::from_seed("someone-else", [4; 32]).unwrap();
    let bytes = chained_lines(&key);
    assert!(schema_errors(&validator(), &bytes).is_empty());
    let dir = TempDir::new().unwrap();
    let record = dir.path().join("chained.jsonl");
    std::fs::write(&record, &bytes).unwrap();
    for (name, k) in [("ops.pub", &key), ("other.pub", &other)] {
        std::fs::write(dir.path().join(name), k.verifier().to_text()).unwrap();
    }
    let replay = |args: &[&Path]| Command::new(BIN).arg("replay").args(args).output().unwrap();
    let plain = replay(&[&record]);
    let out = String::from_utf8_lossy(&plain.stdout);
    assert!(plain.status.success(), "{out}");
    assert!(
        out.contains(&format!("signed by {}", key.verifier().fingerprint())),
        "{out}"
    );
    let key_flag = Path::new("--public-key");
    let proven = replay(&[&record, key_flag, &dir.path().join("ops.pub")]);
    assert!(proven.status.success());
    let unproven = replay(&[&record, key_flag, &dir.path().join("other.pub")]);
    let out = String::from_utf8_lossy(&unproven.stdout);
    assert!(!unproven.status.success());
    assert!(
        out.contains("NOT PROVEN") && out.contains("someone-else"),
        "{out}"
    );
    // An outcome changed after the fact: the chain breaks at that step's line.
    let text = String::from_utf8(bytes).unwrap();
    let line = text
        .lines()
        .position(|l| l.contains(r#""outcome":"failed""#))
        .unwrap()
        + 1;
    std::fs::write(
        &record,
        text.replacen(r#""outcome":"failed""#, r#""outcome":"succeeded""#, 1),
    )
    .unwrap();
    let edited = replay(&[&record]);
    let out = String::from_utf8_lossy(&edited.stdout);
    assert!(!edited.status.success());
    assert!(
        out.contains(&format!("line {line}")) && out.contains("the chain breaks"),
        "{out}"
    );
    // A key file that is no key: one clear error.
    std::fs::write(dir.path().join("bad.pub"), "ops+00000000+AQ==").unwrap();
    let bad = replay(&[&record, key_flag, &dir.path().join("bad.pub")]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("bad.pub"));
}
