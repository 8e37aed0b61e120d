//! The site the browser tests and benchmarks fetch from: the committed records, the corpus of
//! `records/tests/corpus/` (one verdict for the viewer and the command line), files broken in
//! every way the viewer must survive, a record full of hostile strings, and large synthetic
//! records. Everything is generated here, so hashes in the fixture indexes are always right
//! (or wrong on purpose).

use std::path::{Path, PathBuf};

use lane_records::{sha256_hex, to_json};
use project_lanes::record::{
    INDEX_FORMAT, Index, IndexEntry, Record, Recorder, Text, VERSION, VERSIONS,
};
use serde_json::Value;

use crate::dist::{copy, copy_records};
use crate::util::{Result, project_root, step};

/// Record sizes (steps) the benchmark renders, to see how the cost grows.
pub const BENCH_STEPS: [usize; 4] = [1_000, 2_500, 5_000, 10_000];
/// Steps of the farm records the benchmark opens (`farm.rs`), over 1,000 projects.
pub const FARM_STEPS: [usize; 2] = [100_000, 1_000_000];

/// Writes the site into `target/browser-site/` and returns its path; the large synthetic
/// records only `with_large` (the benchmarks), except the 10,000-step one, whose timeline the
/// tests check too.
pub fn browser_site(with_large: bool) -> Result<PathBuf> {
    step("writing the browser test site (records, broken and hostile fixtures, large records)");
    let root = project_root();
    let site = root.join("target/browser-site");
    if site.exists() {
        std::fs::remove_dir_all(&site)?;
    }
    copy_records(&root.join("records"), &site.join("records"))?;
    // The tests and benchmarks load the real stylesheet: layout is part of what they measure.
    copy(&root.join("view/viewer.css"), &site.join("viewer.css"))?;
    // The site's pages: the standalone page, for the tests of what it says and of its `#src=`,
    // and the playground with its own module.
    for page in crate::dist::PAGES {
        copy(&root.join("www").join(page), &site.join(page))?;
    }
    crate::dist::build_playground(&site.join("playground"))?;
    element_site(&root, &site)?;
    // The corpus of hostile and edge-case record files with their expected verdicts, which
    // `lane-records replay` must give too (`records/tests/corpus.rs`).
    let corpus = root.join("records/tests/corpus");
    for file in std::fs::read_dir(&corpus)? {
        let name = file?.file_name();
        copy(&corpus.join(&name), &site.join("corpus").join(&name))?;
    }
    let good = std::fs::read(root.join("records/busy-project.json"))?;
    let stale = std::fs::read(root.join("records/stale-release.json"))?;

    std::fs::create_dir_all(site.join("fixtures/missing"))?;
    write(
        &site.join("fixtures/broken-index/index.json"),
        b"{ \"format\": \"project-lanes/index\", ",
    )?;

    let mixed = site.join("fixtures/mixed");
    let mut entries = Vec::new();
    let mut add = |id: &str, bytes: &[u8], listed_hash: Option<String>| -> Result<()> {
        let file = format!("{id}.json");
        write(&mixed.join(&file), bytes)?;
        let hash = listed_hash.unwrap_or_else(|| sha256_hex(bytes));
        entries.push(entry(id, &file, hash, bytes));
        Ok(())
    };
    add("busy-project", &good, None)?;
    add(
        "future-version",
        // One past the newest version the reader knows.
        &edit(&good, |d| {
            d["version"] = (VERSIONS[VERSIONS.len() - 1] + 1).into()
        })?,
        None,
    )?;
    // Listed with the hash of the original file; one character differs.
    let tampered = String::from_utf8(stale.clone())?.replacen("nightly-102", "nightly-666", 1);
    add("tampered", tampered.as_bytes(), Some(sha256_hex(&stale)))?;
    add(
        "missing-steps",
        &edit(&good, |d| {
            d.as_object_mut().map(|o| o.remove("steps"));
        })?,
        None,
    )?;
    add("not-json", b"{{{ this is not JSON", None)?;
    add("hostile", &to_json(&hostile()?), None)?;
    entries.push(entry(
        "missing-file",
        "missing-file.json",
        "0".repeat(64),
        b"",
    ));
    write_index(&mixed, entries)?;

    // Two index entries with one id.
    let twice = site.join("fixtures/duplicate-ids");
    write(&twice.join("busy-project.json"), &good)?;
    let entries = ["busy-project", "busy-project"]
        .map(|id| entry(id, "busy-project.json", sha256_hex(&good), &good))
        .to_vec();
    write_index(&twice, entries)?;

    hostile_sources(&site, &good, &stale)?;
    dense_refusals(&site)?;
    oversized_record(&site)?;
    journal_records(&site)?;
    chained_records(&site)?;

    for steps in BENCH_STEPS
        .into_iter()
        .filter(|&n| with_large || n == 10_000)
    {
        let dir = site.join(format!("bench/{steps}"));
        let record = to_json(&large(steps)?);
        let id = format!("large-{steps}");
        write(&dir.join(format!("{id}.json")), &record)?;
        let hash = sha256_hex(&record);
        write_index(&dir, vec![entry(&id, &format!("{id}.json"), hash, &record)])?;
    }
    // A busy farm's whole journal: 100,000 and 1,000,000 steps over 1,000 projects; the
    // largest again with its hash chain, with a claim near step 900,000 answered otherwise, and
    // with no run label named twice.
    if with_large {
        use crate::farm::{Runs, farm, farm_of, misanswer_a_claim};
        let farm_file = |id: &str| site.join(format!("bench/farm/{id}.jsonl"));
        let mut largest = Vec::new();
        for steps in FARM_STEPS {
            largest = farm(&format!("farm-{steps}"), steps, 1_000, false)?;
            write(&farm_file(&format!("farm-{steps}")), &largest)?;
        }
        let steps = FARM_STEPS[FARM_STEPS.len() - 1];
        let id = format!("farm-{steps}-chained");
        write(&farm_file(&id), &farm(&id, steps, 1_000, true)?)?;
        let (misanswered, _) = misanswer_a_claim(&largest, steps / 10 * 9)
            .ok_or("the farm has no refused claim after step 900,000")?;
        write(&farm_file(&format!("farm-{steps}-mismatch")), &misanswered)?;
        let id = format!("farm-{steps}-distinct");
        write(
            &farm_file(&id),
            &farm_of(&id, steps, 1_000, false, Runs::Distinct)?,
        )?;
    }
    // The last chaos run's whole journal, if there was one (`cargo xtask chaos`).
    let chaos = root.join(crate::chaos::OUT).join("chaos.jsonl");
    if with_large && chaos.is_file() {
        copy(&chaos, &site.join("bench/chaos/chaos.jsonl"))?;
    }
    Ok(site)
}

/// What the `<lane-viewer>` tests load: the element next to a built viewer (`pkg/`), its
/// standalone build, and every bundled record's static picture in both languages
/// (`static/<lang>/<id>.html` and `.svg`, from `lane-records render`'s code).
fn element_site(root: &Path, site: &Path) -> Result<()> {
    crate::dist::build_pkg(&site.join("pkg"))?;
    crate::dist::copy_modules(site)?;
    crate::dist::write_standalone(site)?;
    let index: Index = serde_json::from_slice(&std::fs::read(root.join("records/index.json"))?)?;
    let files: Vec<PathBuf> = index
        .records
        .iter()
        .map(|e| root.join("records").join(&e.file))
        .collect();
    for lang in [
        project_lanes_view::i18n::Lang::En,
        project_lanes_view::i18n::Lang::Ja,
    ] {
        let dir = site.join("static").join(lang.tag());
        let outputs = lane_records::render::Outputs {
            html: Some(&dir),
            svg: Some(&dir),
            lang,
        };
        let made = lane_records::render::render(&files, &outputs)?;
        let targets: Vec<(PathBuf, &lane_records::OutputFile)> =
            made.iter().map(|(d, f)| (d.clone(), f)).collect();
        lane_records::write_files(&targets)?;
    }
    Ok(())
}

fn text(en: &str, ja: &str) -> Text {
    Text {
        en: en.into(),
        ja: ja.into(),
    }
}

/// An index entry; its title is the record's own when the file holds a readable record (as the
/// generator writes it), else a fixture title.
fn entry(id: &str, file: &str, sha256: String, bytes: &[u8]) -> IndexEntry {
    let title = serde_json::from_slice::<Record>(bytes)
        .map(|r| r.title)
        .unwrap_or_else(|_| text(&format!("Fixture {id}"), &format!("テスト用 {id}")));
    IndexEntry {
        id: project_lanes::Label::new(id).unwrap_or_else(|e| unreachable!("fixture id {id}: {e}")),
        file: file.into(),
        title,
        sha256,
    }
}

fn write_index(dir: &Path, records: Vec<IndexEntry>) -> Result<()> {
    let index = Index {
        format: INDEX_FORMAT.into(),
        version: VERSION,
        records,
    };
    write(&dir.join("index.json"), &to_json(&index))
}

fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()).into())
}

fn edit(bytes: &[u8], change: impl FnOnce(&mut Value)) -> Result<Vec<u8>> {
    let mut doc: Value = serde_json::from_slice(bytes)?;
    change(&mut doc);
    Ok(serde_json::to_vec_pretty(&doc)?)
}

/// Markup and script in every free-text place a record has. The viewer must show it as text.
pub fn hostile() -> Result<Record> {
    let img = r#"<img src=x onerror="window.__lanesPwned=1">"#;
    let script = "<script>window.__lanesPwned=2</script>";
    let mut rec = Recorder::new(
        "hostile",
        text(img, script),
        text(
            r#""><svg onload="window.__lanesPwned=3"></svg>"#,
            "<iframe src=\"javascript:window.__lanesPwned=4\"></iframe>",
        ),
        &["docs", "site"],
        "site",
    )?;
    rec.claim("<b onmouseover=window.__lanesPwned=5>docs</b>", "run-1")
        .note(text(script, img));
    rec.claim("docs", "run-1");
    rec.release("L1", "<img src=x onerror=window.__lanesPwned=6>");
    rec.release("L1", "succeeded");
    Ok(rec.finish()?)
}

/// A record of `steps` steps over four projects, in blocks of 50 steps: a run claims one of
/// three projects and holds it while the block views it, every fourth run is asked to stop,
/// every tenth block has a refused second claim (`PROJECT_BUSY`), and the run releases at the
/// end of its block. Runs hold their lanes for many steps, as in real records, so the timeline
/// merges the 10,000-step record into a few hundred segments.
pub fn large(steps: usize) -> Result<Record> {
    let projects = ["alpha", "beta", "gamma", "quiet"];
    let mut rec = Recorder::new(
        &format!("large-{steps}"),
        text(&format!("{steps} steps"), &format!("{steps} ステップ")),
        text(
            "A synthetic record for benchmarks.",
            "ベンチマーク用の合成記録です。",
        ),
        &projects,
        "quiet",
    )?;
    let mut handles = 0;
    for i in 0..steps {
        let (block, at) = (i / 50, i % 50);
        let project = projects[block % 3];
        let last = at == 49 || i + 1 == steps;
        if at == 0 {
            rec.claim(project, &format!("run-{block}"));
            handles += 1;
        } else if last {
            rec.release(&format!("L{handles}"), "succeeded");
        } else if at == 20 && block % 10 == 9 {
            rec.claim(project, &format!("late-{block}"));
        } else if at == 40 && block % 4 == 3 {
            rec.request_stop(&format!("L{handles}"));
        } else {
            rec.view(project);
        }
    }
    Ok(rec.finish()?)
}

/// Fixtures of hostile servers and files, and of the verification tests.
fn hostile_sources(site: &Path, good: &[u8], stale: &[u8]) -> Result<()> {
    let fixtures = site.join("fixtures");

    // An index far over the format's 1,024 entries (the viewer must refuse it at once).
    let wide_index = fixtures.join("wide-index");
    let entries: Vec<IndexEntry> = (0..80_000)
        .map(|i| {
            let id = format!("r{i:05}");
            IndexEntry {
                id: label(&id),
                file: format!("{id}.json"),
                title: text("r", "r"),
                sha256: "0".repeat(64),
            }
        })
        .collect();
    // Compact JSON: 11 MB, under the 16 MiB limit, so the entry count is what refuses it.
    let index = Index {
        format: INDEX_FORMAT.into(),
        version: VERSION,
        records: entries,
    };
    write(&wide_index.join("index.json"), &serde_json::to_vec(&index)?)?;

    // 200 small records: the viewer fetches them a few at a time.
    let many = fixtures.join("many");
    let mut entries = Vec::new();
    for i in 0..200 {
        let id = format!("many-{i:03}");
        let mut rec = Recorder::new(
            &id,
            text(&format!("Record {i}"), &format!("記録 {i}")),
            text("One claim.", "取得を一度だけ行います。"),
            &["docs", "site"],
            "site",
        )?;
        rec.claim("docs", "run-1");
        let bytes = to_json(&rec.finish()?);
        let file = format!("{id}.json");
        write(&many.join(&file), &bytes)?;
        entries.push(entry(&id, &file, sha256_hex(&bytes), &bytes));
    }
    write_index(&many, entries)?;

    // A record with 270,000 final lanes (about 11 MB): it breaks the format (two projects),
    // and must not freeze the page.
    let wide = fixtures.join("wide");
    let bytes = edit(good, |d| {
        d["final_lanes"] = Value::Array(
            (0..270_000)
                .map(|i| serde_json::json!({ "project": format!("p{i}"), "busy": false }))
                .collect(),
        );
    })?;
    write(&wide.join("busy-project.json"), &bytes)?;
    write_index(
        &wide,
        vec![entry(
            "busy-project",
            "busy-project.json",
            sha256_hex(&bytes),
            good,
        )],
    )?;

    // An index that lists nothing.
    write_index(&fixtures.join("empty-index"), Vec::new())?;

    // One entry names a file outside its folder; the other record still loads.
    let bad_file = fixtures.join("bad-file");
    write(&bad_file.join("busy-project.json"), good)?;
    let mut outside = entry("outside", "busy-project.json", sha256_hex(good), good);
    outside.file = "../mixed/busy-project.json".into();
    write_index(
        &bad_file,
        vec![
            entry("busy-project", "busy-project.json", sha256_hex(good), good),
            outside,
        ],
    )?;

    // stale-release with its last release saved as refused (`LEASE_NOT_CURRENT`) although the
    // core returns a receipt; the index's hash is the tampered file's, so only replay tells.
    let tampered = fixtures.join("tampered-replay");
    let bytes = edit(stale, |d| {
        d["steps"][6]["result"] = serde_json::json!({ "error": "LEASE_NOT_CURRENT" });
    })?;
    write(&tampered.join("stale-release.json"), &bytes)?;
    write_index(
        &tampered,
        vec![entry(
            "stale-release",
            "stale-release.json",
            sha256_hex(&bytes),
            &bytes,
        )],
    )?;
    Ok(())
}

/// A record of 10,000 steps of which 1,200 are refused (a second claim of the held project six
/// times in each block of 50 steps): the timeline must count its refused marks per bucket.
fn dense_refusals(site: &Path) -> Result<()> {
    let projects = ["alpha", "beta", "gamma", "quiet"];
    let mut rec = Recorder::new(
        "dense-refusals",
        text("Many refused claims", "多くの拒否された取得"),
        text(
            "A synthetic record with a refused claim every eight steps.",
            "8 ステップごとに取得が拒否される合成記録です。",
        ),
        &projects,
        "quiet",
    )?;
    for block in 0..200 {
        let project = projects[block % 3];
        for at in 0..50 {
            if at == 0 {
                rec.claim(project, &format!("run-{block}"));
            } else if at == 49 {
                rec.release(&format!("L{}", block + 1), "succeeded");
            } else if at % 8 == 3 {
                rec.claim(project, &format!("late-{block}-{at}"));
            } else {
                rec.view(project);
            }
        }
    }
    let dir = site.join("fixtures/dense-refusals");
    let bytes = to_json(&rec.finish()?);
    write(&dir.join("dense-refusals.json"), &bytes)?;
    write_index(
        &dir,
        vec![entry(
            "dense-refusals",
            "dense-refusals.json",
            sha256_hex(&bytes),
            &bytes,
        )],
    )
}

/// Version 2 records exported from journals of a running system, with times (uneven: a pause
/// of ten seconds, steps a millisecond apart) and callers: a dispatcher's whole journal and a
/// window of a lanes journal that starts with a lane held.
fn journal_records(site: &Path) -> Result<()> {
    use crate::farm::{START, set_clock};
    use project_lanes::ProjectLanes;
    use project_lanes::dispatch::Dispatcher;
    use project_lanes::journal::{Actor, Export, Journal};
    use project_lanes::record::Timestamp;
    use std::sync::atomic::Ordering;

    // 2026-05-01T03:00:00.000Z, then as each call sets it.
    let (now, clock) = set_clock();
    let at = |ms: u64| now.store(START + ms, Ordering::Relaxed);

    let mut d = Dispatcher::new(&["general", "delivery"])?.with_journal(Some(clock.clone()));
    d.set_actor(Actor::new("web-1/pid 4120"));
    at(0);
    let a = d.enqueue("general", "docs", "gen-1")?;
    at(1);
    let b = d.enqueue("delivery", "docs", "cafe-1")?;
    d.set_actor(Actor::new("worker general 1"));
    at(120);
    d.dispatch("general")?;
    at(10_120);
    d.finish(a, project_lanes::Outcome::Succeeded)?;
    at(10_121);
    d.persisted(a, true)?;
    d.set_actor(Actor::new("worker delivery 1"));
    at(10_130);
    d.dispatch("delivery")?;
    at(10_131);
    d.cancel(b).unwrap_err();
    at(12_500);
    d.finish(b, project_lanes::Outcome::Failed)?;
    at(12_502);
    d.persisted(b, false)?;
    let mut journal = Journal::dispatcher(d.queues());
    journal.extend(d.take_journal());
    let dispatcher = journal.record(
        &Export::new("shop-journal", "shop")?
            .title(text("The shop's dispatcher, as it ran", "ショップのディスパッチャーの実際の動き"))
            .summary(text(
                "Two reservations of one project in two queues, exported from the dispatcher's journal.",
                "1 つのプロジェクトの予約 2 件を 2 つのキューで処理した記録を、ディスパッチャーのジャーナルから書き出したものです。",
            )),
    )?;

    let lanes = ProjectLanes::new().with_journal(Some(clock));
    at(60_000);
    let nightly = lanes.claim("docs", "nightly-7")?;
    at(61_000);
    lanes.request_stop(&nightly)?;
    // The window starts here, with the lane held and a stop requested.
    at(62_000);
    lanes.release(&nightly, project_lanes::Outcome::Cancelled)?;
    at(62_004);
    let next = lanes.claim("docs", "nightly-8")?;
    at(62_005);
    lanes.claim("docs", "deploy-3").unwrap_err();
    at(90_000);
    lanes.release(&next, project_lanes::Outcome::Succeeded)?;
    let mut journal = Journal::lanes();
    journal.extend(lanes.take_journal());
    let since = Timestamp::from_millis(START + 62_000)?;
    let window = journal.record(
        &Export::new("farm-window", "build farm")?
            .since(since)
            .title(text(
                "A window of the build farm's lanes",
                "ビルドファームのレーンの一部",
            ))
            .summary(text(
                "The lanes' journal from the moment a stopped run was released.",
                "停止を要求された実行が解放された時点からのレーンのジャーナルです。",
            )),
    )?;

    let dir = site.join("fixtures/journal");
    let mut entries = Vec::new();
    for record in [dispatcher, window] {
        let bytes = to_json(&record);
        let file = format!("{}.json", record.id.as_str());
        write(&dir.join(&file), &bytes)?;
        entries.push(entry(record.id.as_str(), &file, sha256_hex(&bytes), &bytes));
    }
    write_index(&dir, entries)
}

/// The seed of the key that signs the chained fixtures' checkpoint ([`chained_records`]).
const SIGNING_SEED: [u8; 32] = [7; 32];

/// Chained version 3 records of one journal, in `fixtures/chained/` (`tests/tests/chain.rs`):
/// `signed.jsonl` carries a checkpoint of its root signed by the key it gives (`ops.example`),
/// `unsigned.jsonl` none, `other-key.jsonl` one signed by a key it does not give, and
/// `edited.jsonl` is `signed.jsonl` with the cancelled release's outcome changed to succeeded
/// after the fact (its line is the first with `"outcome":"succeeded"`).
fn chained_records(site: &Path) -> Result<()> {
    use crate::farm::{START, set_clock};
    use project_lanes::ProjectLanes;
    use project_lanes::journal::{Export, Journal};
    use project_lanes::record::Timestamp;
    use project_lanes::record::checkpoint::{Checkpoint, SigningKey};
    use project_lanes::record::stream::{Chain, Reader};

    let (_, clock) = set_clock();
    let lanes = ProjectLanes::new().with_journal(Some(clock));
    let nightly = lanes.claim("docs", "nightly-7")?;
    lanes.claim("docs", "hotfix-2").unwrap_err();
    lanes.request_stop(&nightly)?;
    lanes.release(&nightly, project_lanes::Outcome::Cancelled)?;
    let next = lanes.claim("docs", "nightly-8")?;
    lanes.release(&next, project_lanes::Outcome::Succeeded)?;
    let mut journal = Journal::lanes();
    journal.extend(lanes.take_journal());
    let export = Export::new("chained", "build farm")?
        .title(text("A chained record", "ハッシュチェーンを持つ記録"))
        .summary(text(
            "The lanes' journal, with its hash chain.",
            "レーンのジャーナルを、ハッシュチェーンとともに書き出したものです。",
        ))
        .chained();
    let unsigned = journal.write_record(&export, Vec::new())?.0;
    let mut reader = Reader::new();
    reader.feed(&unsigned, &mut |_| {})?;
    let Chain::Chained(chained) = reader.finish(&mut |_| {})?.chain else {
        return Err("the chained fixture has no chain".into());
    };
    let note = |key: &SigningKey| -> Result<String> {
        Ok(Checkpoint {
            journal: "build farm".to_owned(),
            links: chained.end.links,
            root: chained.end.hash,
            time: Timestamp::from_millis(START + 1_000_000)?,
        }
        .sign(key))
    };
    // The checkpoint line goes before the end line.
    let with = |line: serde_json::Value| -> Vec<u8> {
        let text = String::from_utf8_lossy(&unsigned);
        let mut lines: Vec<String> = text.lines().map(String::from).collect();
        lines.insert(lines.len() - 1, line.to_string());
        (lines.join("\n") + "\n").into_bytes()
    };
    let key = SigningKey::from_seed("ops.example", SIGNING_SEED)?;
    let signed = with(serde_json::json!({
        "checkpoint": note(&key)?,
        "key": key.verifier().to_text(),
    }));
    let other = with(serde_json::json!({ "checkpoint": note(&key)? }));
    // A cancelled run made to look successful, as an SQL edit of the journal would.
    let edited = String::from_utf8_lossy(&signed).replacen(
        "\"outcome\":\"cancelled\"",
        "\"outcome\":\"succeeded\"",
        1,
    );
    let dir = site.join("fixtures/chained");
    write(&dir.join("signed.jsonl"), &signed)?;
    write(&dir.join("unsigned.jsonl"), &unsigned)?;
    write(&dir.join("other-key.jsonl"), &other)?;
    write(&dir.join("edited.jsonl"), edited.as_bytes())
}

/// A single record file over the 16 MiB limit, for `src` (it names a record, not an index).
fn oversized_record(site: &Path) -> Result<()> {
    let mut bytes =
        br#"{"format": "project-lanes/record", "version": 1, "id": "big", "padding": ""#.to_vec();
    bytes.resize(bytes.len() + 17 * 1024 * 1024, b'x');
    bytes.extend_from_slice(b"\"}\n");
    write(&site.join("fixtures/oversized/big-record.json"), &bytes)
}

fn label(id: &str) -> project_lanes::Label {
    project_lanes::Label::new(id).unwrap_or_else(|e| unreachable!("fixture id {id}: {e}"))
}
