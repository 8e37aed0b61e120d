//! The playground's module, natively: it runs scenarios with `lane-records`' runner and gives
//! the command's bytes, its starts are the bundled scenarios and two templates, its share link and
//! its `.zip` read back, and bad input gets a coded, located error.

use std::io::Read;

use lane_playground::{Ran, bundle, ran, run_text, share, starts};
use lane_records::scenario::{MAX_SCENARIO_BYTES, MAX_SCENARIO_STEPS};
use lane_records::{ReplayReport, records_dir, replay_file, run_scenarios, scenarios_dir};

fn record_of(file: &str, text: &str) -> String {
    match ran(file, text) {
        Ran::Record { json, .. } => json,
        Ran::Error(e) => panic!("{}", e.shown),
    }
}

fn failure(file: &str, text: &str) -> lane_playground::Failure {
    match ran(file, text) {
        Ran::Record { id, .. } => panic!("{id} ran"),
        Ran::Error(e) => e,
    }
}

#[test]
fn every_bundled_scenario_gives_the_commands_bytes() {
    let files = lane_records::bundled_scenarios().unwrap();
    let made = run_scenarios(&files).unwrap();
    let starts = starts::starts();
    let bundled: Vec<_> = starts
        .iter()
        .filter(|s| s.kind == starts::Kind::Scenario)
        .collect();
    assert_eq!(bundled.len(), made.len());
    for (start, made) in bundled.iter().zip(&made) {
        assert_eq!(
            scenarios_dir().join(start.file),
            made.scenario,
            "the starts list the bundled scenarios in their order"
        );
        let json = record_of(start.file, start.text);
        assert!(json.as_bytes() == made.file.bytes, "{}", start.file);
        let committed = std::fs::read(records_dir().join(&made.file.name)).unwrap();
        assert!(json.as_bytes() == committed, "{}", start.file);
    }
}

#[test]
fn the_starts_hold_every_bundled_scenario_and_two_templates_that_run() {
    let mut on_disk: Vec<String> = std::fs::read_dir(scenarios_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    on_disk.sort();
    assert_eq!(starts::bundled_files(), on_disk);
    let all = starts::starts();
    assert_eq!(all.len(), on_disk.len() + 2, "every start parses");
    for start in all.iter().filter(|s| s.kind == starts::Kind::Template) {
        record_of(start.file, start.text);
    }
}

#[test]
fn a_share_link_holds_the_text_and_nothing_else_reads_as_one() {
    let text = starts::starts()[5].text;
    let value = share::encode(text);
    assert!(
        value.len() < text.len(),
        "{} of {}",
        value.len(),
        text.len()
    );
    assert!(
        value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    );
    assert_eq!(share::decode(&value).unwrap(), text);
    let longer = format!("{value}AAAA");
    assert_eq!(share::decode(&longer).unwrap_err().code, "LINK_INVALID");
    for bad in ["", "!!!", "aGVsbG8", "%%%", &"A".repeat(100)] {
        let error = share::decode(bad).unwrap_err();
        assert_eq!(error.code, "LINK_INVALID", "{bad}: {}", error.message);
    }
    // 8 MiB of spaces deflate to a few KiB: refused without inflating them all.
    let bomb = share::encode(&" ".repeat(2 * MAX_SCENARIO_BYTES as usize));
    assert!(bomb.len() < 20_000);
    assert_eq!(share::decode(&bomb).unwrap_err().code, "SCENARIO_TOO_LARGE");
    let not_text = {
        use std::io::Write;
        let mut d = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        d.write_all(&[0xff, 0xfe, 0x00]).unwrap();
        base64::Engine::encode(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD,
            d.finish().unwrap(),
        )
    };
    assert_eq!(
        share::decode(&not_text).unwrap_err().code,
        "SCENARIO_NOT_UTF8"
    );
}

#[test]
fn the_zip_holds_the_scenario_its_record_and_an_index_and_the_record_replays() {
    let start = &starts::starts()[1];
    let (scenario, record, output) = run_text(start.file, start.text).unwrap();
    let files = bundle::files("busy-project.toml", start.text, &record, &output);
    let zip = bundle::zip(&files);
    assert_eq!(
        zip,
        bundle::zip(&files),
        "the same files give the same bytes"
    );
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip)).unwrap();
    let names: Vec<String> = (0..archive.len())
        .map(|i| archive.by_index(i).unwrap().name().unwrap().to_string())
        .collect();
    assert_eq!(
        names,
        ["busy-project.toml", "busy-project.json", "index.json"]
    );
    let dir = tempfile::tempdir().unwrap();
    for name in &names {
        let mut bytes = Vec::new();
        archive
            .by_name(name)
            .unwrap()
            .read_to_end(&mut bytes)
            .unwrap();
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    assert_eq!(
        std::fs::read_to_string(dir.path().join("busy-project.toml")).unwrap(),
        start.text
    );
    assert_eq!(scenario.id(), "busy-project");
    // What `lane-records replay` does with the file, and the index's hash of it.
    let path = dir.path().join("busy-project.json");
    assert!(matches!(replay_file(&path), ReplayReport::Matched(5)));
    let index: project_lanes::record::Index =
        serde_json::from_slice(&std::fs::read(dir.path().join("index.json")).unwrap()).unwrap();
    assert_eq!(
        index.records[0].sha256,
        lane_records::sha256_hex(&std::fs::read(&path).unwrap())
    );
}

#[test]
fn bad_input_gets_a_coded_located_error() {
    let start = &starts::starts()[1];
    // Over 4 MiB: refused before it is parsed.
    let huge = format!(
        "{}\n# {}",
        start.text,
        "x".repeat(MAX_SCENARIO_BYTES as usize)
    );
    assert_eq!(failure("big.toml", &huge).code, "SCENARIO_TOO_LARGE");
    // More operations than a scenario may hold: located at the first one too many.
    let mut many = start.text.to_string();
    for _ in 0..MAX_SCENARIO_STEPS {
        many.push_str("\n[[steps]]\nop = \"view\"\nproject = \"docs\"\n");
    }
    let e = failure("many.toml", &many);
    assert_eq!(e.code, "SCENARIO_TOO_MANY_STEPS");
    assert!(e.line.unwrap() > 40_000, "{}", e.shown);
    // Binary garbage, as text.
    let garbage: String = (0..4096u32)
        .map(|i| char::from_u32((i * 7919) % 0xd7ff).unwrap_or('?'))
        .collect();
    let e = failure("garbage.toml", &garbage);
    assert_eq!(e.code, "SCENARIO_SYNTAX", "{}", e.shown);
    assert!(e.line.is_some() && e.shown.contains('^'), "{}", e.shown);
    // A record is not a scenario.
    let record = std::fs::read_to_string(records_dir().join("busy-project.json")).unwrap();
    assert_eq!(failure("record.toml", &record).code, "SCENARIO_SYNTAX");
    let e = failure(
        "other.toml",
        "format = \"project-lanes/record\"\nversion = 1\n",
    );
    assert_eq!(
        (e.code, e.line, e.column),
        ("NOT_A_SCENARIO", Some(1), Some(10))
    );
    // A syntax error: the command's words, line and caret.
    let broken = start
        .text
        .replacen("run = \"nightly-102\"", "run = nightly-102\"", 1);
    let e = failure("02-busy-project.toml", &broken);
    assert_eq!(e.code, "SCENARIO_SYNTAX");
    assert_eq!((e.line, e.column), (Some(23), Some(7)), "{}", e.shown);
    assert!(
        e.shown.starts_with("02-busy-project.toml:23:7: "),
        "{}",
        e.shown
    );
    assert!(
        e.shown.contains("\n23 | run = nightly-102\"\n   |       ^"),
        "{}",
        e.shown
    );
}
