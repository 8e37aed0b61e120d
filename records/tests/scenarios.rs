//! Scenario files and the `run` and `index` commands: records from scenarios, indexes of
//! folders, and every kind of bad input refused with a located error, a non-zero exit and no
//! file written.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use lane_records::{INDEX_FILE, bundled_scenarios, read_record, records_dir, replay_file};
use lane_records::{ReplayReport, sha256_hex};
use project_lanes::record::{Index, StepResult};
use serde_json::Value;
use tempfile::TempDir;

mod bundled;

fn lane_records() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lane-records"))
}

/// The bundled lanes scenario `busy-project`, as text.
fn busy() -> String {
    std::fs::read_to_string(records_dir().join("scenarios/02-busy-project.toml")).unwrap()
}

/// The bundled dispatcher scenario `persistence-gate`, as text.
fn gate() -> String {
    std::fs::read_to_string(records_dir().join("scenarios/06-persistence-gate.toml")).unwrap()
}

/// Writes `text` as `name` in a fresh folder.
fn scenario(name: &str, text: &str) -> (TempDir, PathBuf) {
    let dir = TempDir::new().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

/// The files in `dir` (none if it does not exist).
fn files_in(dir: &Path) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Runs `run FILE --out DIR/out` and expects a failure that names `located` (file:line:column:
/// message start), with nothing written.
fn refused(text: &str, located: &str) -> String {
    let (dir, path) = scenario("bad.toml", text);
    let out = dir.path().join("out");
    let output = lane_records()
        .arg("run")
        .arg(&path)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    let expected = format!("{}:{located}", path.display());
    assert!(
        stderr.contains(&expected),
        "expected {expected:?} in:\n{stderr}"
    );
    assert!(stderr.contains("nothing was written"), "{stderr}");
    assert_eq!(files_in(&out), Vec::<String>::new(), "no output file");
    assert_eq!(
        files_in(dir.path()),
        ["bad.toml"],
        "no file beside the scenario"
    );
    stderr
}

#[test]
fn the_bundled_scenarios_are_files_that_generate_the_committed_records() {
    let files = bundled_scenarios().unwrap();
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let ids = bundled::ids();
    let expected: Vec<String> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| format!("{:02}-{id}.toml", i + 1))
        .collect();
    assert_eq!(names, expected);
    let out = TempDir::new().unwrap();
    lane_records()
        .arg("run")
        .args(&files)
        .arg("--out")
        .arg(out.path())
        .assert()
        .success();
    for id in &ids {
        let name = format!("{id}.json");
        assert_eq!(
            std::fs::read(out.path().join(&name)).unwrap(),
            std::fs::read(records_dir().join(&name)).unwrap(),
            "{name}: `run` writes the committed bytes"
        );
    }
    // Indexing that folder in the bundled order gives the committed index, byte for byte; the
    // JSON Schemas that sit beside the bundled records are skipped, and said so.
    for schema in ["schema.json", "scenario.schema.json"] {
        std::fs::copy(records_dir().join(schema), out.path().join(schema)).unwrap();
    }
    let output = lane_records()
        .arg("index")
        .arg(out.path())
        .args(["--order", &ids.join(",")])
        .output()
        .unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        stdout.contains("schema.json (a JSON Schema, not a record)")
            && stdout.contains("scenario.schema.json (a JSON Schema, not a record)")
            && stdout.contains(&format!("({} records)", ids.len())),
        "{stdout}"
    );
    assert_eq!(
        std::fs::read(out.path().join(INDEX_FILE)).unwrap(),
        std::fs::read(records_dir().join(INDEX_FILE)).unwrap()
    );
}

#[test]
fn run_writes_each_record_next_to_its_scenario_unless_told_where() {
    let (dir, path) = scenario("mine.toml", &busy().replace("\"busy-project\"", "\"mine\""));
    let output = lane_records().arg("run").arg(&path).output().unwrap();
    assert!(output.status.success());
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("mine.json (5 steps,"), "{stdout}");
    assert_eq!(files_in(dir.path()), ["mine.json", "mine.toml"]);
    let written = dir.path().join("mine.json");
    assert!(matches!(replay_file(&written), ReplayReport::Matched(5)));
    let record = read_record(&written).unwrap();
    assert_eq!(
        record.steps[1].result,
        StepResult::Error(project_lanes::LaneError::ProjectBusy.into())
    );
}

#[test]
fn operation_inputs_may_be_any_text_and_the_record_shows_what_the_core_did() {
    let text = busy().replacen("run = \"nightly-102\"", "run = \"not a label!\"", 1);
    let (dir, path) = scenario("busy.toml", &text);
    lane_records().arg("run").arg(&path).assert().success();
    let record = read_record(&dir.path().join("busy-project.json")).unwrap();
    assert_eq!(record.steps[1].result.code(), "INVALID_LABEL");
}

#[test]
fn index_orders_by_file_name_unless_given_an_order_and_hashes_every_file() {
    let out = TempDir::new().unwrap();
    let files = bundled_scenarios().unwrap();
    lane_records()
        .arg("run")
        .args(&files[..3])
        .arg("--out")
        .arg(out.path())
        .assert()
        .success();
    lane_records()
        .arg("index")
        .arg(out.path())
        .assert()
        .success();
    let index: Index =
        serde_json::from_slice(&std::fs::read(out.path().join(INDEX_FILE)).unwrap()).unwrap();
    index.check().unwrap();
    let ids: Vec<&str> = index.records.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(
        ids,
        ["busy-project", "independent-claims", "stop-keeps-occupancy"]
    );
    for entry in &index.records {
        let bytes = std::fs::read(out.path().join(&entry.file)).unwrap();
        assert_eq!(entry.sha256, sha256_hex(&bytes));
        assert_eq!(
            entry.title,
            read_record(&out.path().join(&entry.file)).unwrap().title
        );
    }
    lane_records()
        .arg("index")
        .arg(out.path())
        .args([
            "--order",
            "stop-keeps-occupancy,independent-claims,busy-project",
        ])
        .assert()
        .success();
    let index: Value =
        serde_json::from_slice(&std::fs::read(out.path().join(INDEX_FILE)).unwrap()).unwrap();
    let ids: Vec<&str> = index["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        ["stop-keeps-occupancy", "independent-claims", "busy-project"]
    );
}

/// `index DIR [--order …]` on a folder that must be refused: the error, and no index written.
fn index_refused(dir: &Path, order: Option<&str>, expected: &str) {
    let mut command = lane_records();
    command.arg("index").arg(dir);
    if let Some(order) = order {
        command.args(["--order", order]);
    }
    let output = command.output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(expected),
        "expected {expected:?} in:\n{stderr}"
    );
    assert!(!dir.join(INDEX_FILE).exists(), "no index.json written");
}

#[test]
fn index_refuses_a_folder_it_cannot_index_faithfully() {
    let out = TempDir::new().unwrap();
    index_refused(out.path(), None, "no record files (*.json) to index");
    let files = bundled_scenarios().unwrap();
    lane_records()
        .arg("run")
        .args(&files[..2])
        .arg("--out")
        .arg(out.path())
        .assert()
        .success();
    index_refused(
        out.path(),
        Some("busy-project"),
        "--order leaves out \"independent-claims\"",
    );
    index_refused(
        out.path(),
        Some("busy-project,independent-claims,nope"),
        "--order: no record \"nope\"",
    );
    index_refused(
        out.path(),
        Some("busy-project,busy-project,independent-claims"),
        "\"busy-project\" is listed twice",
    );
    // A record whose results were edited does not replay: it is not indexed.
    let path = out.path().join("busy-project.json");
    let good = std::fs::read_to_string(&path).unwrap();
    std::fs::write(
        &path,
        good.replacen("\"PROJECT_BUSY\"", "\"LEASE_NOT_CURRENT\"", 1),
    )
    .unwrap();
    index_refused(
        out.path(),
        None,
        "busy-project.json: the record does not replay on the core",
    );
    // A record under another name than its id.
    std::fs::write(&path, &good).unwrap();
    std::fs::rename(&path, out.path().join("renamed.json")).unwrap();
    index_refused(
        out.path(),
        None,
        "so its file must be named busy-project.json",
    );
    // Not a record at all, located.
    std::fs::rename(out.path().join("renamed.json"), &path).unwrap();
    std::fs::write(out.path().join("notes.json"), "{\n  \"format\": 3,\n}").unwrap();
    // Not JSON (a trailing comma): the syntax error is named before the wrong type of `format`.
    index_refused(out.path(), None, "notes.json: line 3, column 1");
}

#[test]
fn help_describes_every_command_with_examples() {
    let output = lane_records().arg("--help").output().unwrap();
    assert!(output.status.success());
    let help = String::from_utf8(output.stdout).unwrap();
    for needle in [
        "lane-records run FILE... [--out DIR]",
        "lane-records index DIR [--order ID,ID,...]",
        "lane-records replay FILE...",
        "lane-records --check",
        "examples:",
        "lane-records run my-scenarios/deploy-waits.toml --out my-docs/records",
    ] {
        assert!(help.contains(needle), "{needle:?} missing from:\n{help}");
    }
    let output = lane_records().arg("run").output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("name at least one scenario file"));
}

#[test]
fn every_command_has_help_with_examples_and_the_tool_a_version() {
    for command in ["run", "index", "replay"] {
        let output = lane_records().args([command, "--help"]).output().unwrap();
        assert!(output.status.success(), "{command}");
        let help = String::from_utf8(output.stdout).unwrap();
        assert!(
            help.contains(&format!("Usage: lane-records {command} ")),
            "{help}"
        );
        assert!(help.contains("examples:"), "{help}");
    }
    let output = lane_records().arg("--version").output().unwrap();
    assert!(output.status.success());
    let version = String::from_utf8(output.stdout).unwrap();
    assert_eq!(
        version.trim(),
        format!("lane-records {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn a_mistake_in_the_command_line_is_exit_status_2_and_names_it() {
    for (args, says) in [
        (&["--frobnicate"][..], "unexpected argument '--frobnicate'"),
        (&["replay"][..], "required arguments were not provided"),
        (&["--check", "--out", "x"][..], "cannot be used with"),
        (&["index"][..], "required arguments were not provided"),
        (&["teleport"][..], "unrecognized subcommand 'teleport'"),
    ] {
        let output = lane_records().args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(stderr.contains("Usage: lane-records"), "{args:?}: {stderr}");
    }
}

#[test]
fn a_syntax_error_is_reported_with_its_line_and_column() {
    let text = busy().replacen(
        "untouched_project = \"site\"",
        "untouched_project = \"site",
        1,
    );
    let stderr = refused(&text, "5:26: invalid basic string");
    assert!(
        stderr.contains("5 | untouched_project = \"site\n"),
        "{stderr}"
    );
}

#[test]
fn an_unknown_operation_is_named_where_it_is_written() {
    let text = busy().replacen("op = \"view\"", "op = \"steal\"", 1);
    refused(
        &text,
        "35:6: unknown variant `steal`, expected one of `claim`",
    );
    // A dispatcher operation in a scenario of the lanes alone.
    let text = busy().replacen(
        "op = \"view\"\nproject = \"docs\"",
        "op = \"dispatch\"\nqueue = \"general\"",
        1,
    );
    refused(&text, "35:6: `dispatch` has no place in a lanes record");
}

#[test]
fn a_handle_used_before_it_is_issued_is_refused_where_it_is_used() {
    let text = busy().replacen("lease = \"L1\"", "lease = \"L2\"", 1);
    refused(
        &text,
        "42:9: lease handle \"L2\" was never issued by an earlier step (issued so far: L1)",
    );
    let text = gate().replacen("reservation = \"R1\"", "reservation = \"R4\"", 1);
    refused(
        &text,
        "48:15: reservation \"R4\" was never enqueued by an earlier step (enqueued so far: R1 to R3)",
    );
}

#[test]
fn an_unknown_field_is_refused_where_it_is_written() {
    let text = busy().replacen(
        "run = \"nightly-101\"\n",
        "run = \"nightly-101\"\nruns = 2\n",
        1,
    );
    refused(&text, "19:1: unknown field `runs`, expected one of `op`");
    let text = busy().replacen("version = 1\n", "version = 1\nauthor = \"me\"\n", 1);
    refused(&text, "3:1: unknown field `author`");
    // A field the operation does not take, and one it needs.
    let text = busy().replacen(
        "run = \"nightly-101\"\n",
        "run = \"nightly-101\"\nlease = \"L1\"\n",
        1,
    );
    refused(
        &text,
        "19:9: `claim` takes no `lease` (it takes `project`, `run`)",
    );
    let text = busy().replacen("run = \"nightly-101\"\n", "", 1);
    refused(
        &text,
        "16:6: `claim` needs `run` (it takes `project`, `run`)",
    );
}

#[test]
fn missing_japanese_text_is_refused() {
    let text = busy().replacen("ja = \"使用中のプロジェクト\"\n", "", 1);
    refused(
        &text,
        "7:1: missing field `ja` (every title, summary and note needs both `en` and `ja`)",
    );
    let text = busy().replacen("ja = \"使用中のプロジェクト\"", "ja = \"  \"", 1);
    refused(&text, "9:6: needs 1 to 2000 characters, found 2");
    let note_ja = busy()
        .lines()
        .find(|l| l.starts_with("note.ja"))
        .unwrap()
        .to_string();
    refused(
        &busy().replacen(&(note_ja + "\n"), "", 1),
        "24:1: missing field `ja`",
    );
}

#[test]
fn a_record_id_or_project_list_that_breaks_the_label_rule_is_refused() {
    refused(
        &busy().replacen("id = \"busy-project\"", "id = \"busy project\"", 1),
        "3:6: the record id \"busy project\" breaks the label rule",
    );
    refused(
        &busy().replacen("id = \"busy-project\"", "id = \"index\"", 1),
        "3:6: the record id \"index\" is taken",
    );
    refused(
        &busy().replacen("[\"docs\", \"site\"]", "[\"docs\", \"../site\"]", 1),
        "4:21: the project \"../site\" breaks the label rule",
    );
    refused(
        &busy().replacen("[\"docs\", \"site\"]", "[\"docs\", \"site\", \"docs\"]", 1),
        "4:29: \"docs\" is listed twice",
    );
    refused(
        &busy().replacen("[\"docs\", \"site\"]", "[\"docs\"]", 1),
        "4:12: needs 2 to 64 projects, found 1",
    );
    refused(
        &busy().replacen(
            "untouched_project = \"site\"",
            "untouched_project = \"docs\"",
            1,
        ),
        "17:11: claims \"docs\", the project this record leaves untouched",
    );
    refused(
        &busy().replacen("project = \"docs\"", "project = \"billing\"", 1),
        "17:11: \"billing\" is not one of `projects`",
    );
    refused(
        &gate().replacen(
            "queues = [\"general\", \"delivery\"]",
            "queues = [\"general\", \"general\"]",
            1,
        ),
        "6:22: the queue \"general\" is listed twice",
    );
}

#[test]
fn a_file_of_another_format_or_version_is_named_as_such() {
    refused(
        &busy().replacen("version = 1", "version = 2", 1),
        "2:11: unsupported scenario version 2 (this build reads version 1)",
    );
    refused(
        &busy().replacen("project-lanes/scenario", "project-lanes/record", 1),
        "1:10: not a scenario file",
    );
}

#[test]
fn a_scenario_of_100000_operations_is_refused_before_it_runs() {
    let mut text = busy();
    for _ in 0..100_000 {
        text.push_str("\n[[steps]]\nop = \"view\"\nproject = \"docs\"\n");
    }
    // Operation 10,001 is the bundled file's five plus 9,996 added: its `[[steps]]` line.
    let line = busy().lines().count() + 1 + 9_996 * 4 - 3;
    let stderr = refused(
        &text,
        &format!("{line}:1: a scenario may hold at most 10000 operations; this file has 100005"),
    );
    assert!(stderr.contains("[[steps]]"), "{stderr}");
}

#[test]
fn a_record_that_would_outgrow_16_mib_is_refused_at_the_operation_where_it_does() {
    // Every step of a dispatcher record lists every reservation: 2,000 enqueues would make
    // hundreds of megabytes.
    let mut text = gate();
    for i in 0..2_000 {
        text.push_str(&format!(
            "\n[[steps]]\nop = \"enqueue\"\nqueue = \"general\"\nproject = \"site\"\nrun = \"r-{i}\"\n"
        ));
    }
    let stderr = refused(
        &text,
        "2812:1: the record grows past 16777216 bytes (16 MiB",
    );
    assert!(stderr.contains("2812 | [[steps]]"), "{stderr}");
}

#[test]
fn a_50_mb_file_is_refused_before_it_is_read() {
    let dir = TempDir::new().unwrap();
    let path = dir.path().join("huge.toml");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(50 * 1024 * 1024).unwrap(); // sparse: nothing is written, nothing is read
    let out = dir.path().join("out");
    let output = lane_records()
        .arg("run")
        .arg(&path)
        .args(["--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr.contains(&format!(
            "{}: the file is 52428800 bytes; scenario files may be at most 4194304 bytes (4 MiB)",
            path.display()
        )),
        "{stderr}"
    );
    assert!(!out.exists());
}

#[test]
fn one_bad_file_among_good_ones_writes_nothing_and_every_problem_is_listed() {
    let dir = TempDir::new().unwrap();
    let good = dir.path().join("good.toml");
    std::fs::write(&good, busy()).unwrap();
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, busy().replacen("op = \"view\"", "op = \"steal\"", 1)).unwrap();
    let same = dir.path().join("same.toml");
    std::fs::write(&same, busy()).unwrap();
    let missing = dir.path().join("missing.toml");
    let out = dir.path().join("out");
    let output = lane_records()
        .arg("run")
        .args([&good, &bad, &same, &missing])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr.contains(&format!("{}:35:6: unknown variant", bad.display())),
        "{stderr}"
    );
    assert!(stderr.contains("is also the id of"), "{stderr}");
    assert!(
        stderr.contains(&format!("{}: cannot read the file", missing.display())),
        "{stderr}"
    );
    assert!(
        stderr.contains("3 of 4 scenario files failed; nothing was written"),
        "{stderr}"
    );
    assert!(!out.exists());
}

/// TOML to the JSON data model the schema describes.
fn as_json(text: &str) -> Value {
    toml::from_str(text).unwrap()
}

#[test]
fn the_bundled_scenarios_validate_against_the_scenario_schema_and_bad_ones_do_not() {
    let schema: Value =
        serde_json::from_slice(&std::fs::read(records_dir().join("scenario.schema.json")).unwrap())
            .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for file in bundled_scenarios().unwrap() {
        let doc = as_json(&std::fs::read_to_string(&file).unwrap());
        let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{}: {errors:#?}", file.display());
    }
    let bad = [
        busy().replacen("op = \"view\"", "op = \"steal\"", 1),
        busy().replacen("ja = \"使用中のプロジェクト\"\n", "", 1),
        busy().replacen(
            "run = \"nightly-101\"\n",
            "run = \"nightly-101\"\nruns = 2\n",
            1,
        ),
        busy().replacen("run = \"nightly-101\"\n", "", 1),
        busy().replacen("id = \"busy-project\"", "id = \"busy project\"", 1),
        busy().replacen("version = 1", "version = 2", 1),
        // A dispatcher operation in a lanes scenario.
        busy().replacen(
            "op = \"view\"\nproject = \"docs\"",
            "op = \"dispatch\"\nqueue = \"general\"",
            1,
        ),
    ];
    for text in bad {
        assert!(
            !validator.is_valid(&as_json(&text)),
            "the schema accepts:\n{text}"
        );
    }
}
