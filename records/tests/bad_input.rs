//! Bad record files get a clear error, never a panic.

use lane_records::{MAX_RECORD_BYTES, ReadError, parse_record, read_record, records_dir};
use project_lanes::record::RecordError;
use project_lanes::record::json::ReadError as Parse;
use serde_json::Value;

/// A change made to a good record to make it bad.
type Edit = fn(&mut Value);

fn good() -> Value {
    serde_json::from_slice(&std::fs::read(records_dir().join("stale-release.json")).unwrap())
        .unwrap()
}

fn read(doc: &Value) -> ReadError {
    parse_record(&serde_json::to_vec_pretty(doc).unwrap()).unwrap_err()
}

fn message(e: &ReadError) -> String {
    e.to_string()
}

#[test]
fn malformed_json_reports_line_and_column() {
    let text = "{\n  \"format\": \"project-lanes/record\",\n  \"version\": 1,\n  \"id\": \"x\"\n  \"title\": {}\n}";
    match parse_record(text.as_bytes()).unwrap_err() {
        ReadError::Parse(Parse::Json {
            line,
            column,
            message,
            ..
        }) => {
            assert_eq!((line, column), (5, 3), "{message}");
            assert!(message.contains("expected `,` or `}`"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    let e = parse_record(b"\xff\xfe").unwrap_err();
    assert!(
        matches!(e, ReadError::Parse(Parse::Json { line: 1, .. })),
        "{e:?}"
    );
    assert!(matches!(
        parse_record(b"").unwrap_err(),
        ReadError::Parse(Parse::Json { .. })
    ));
}

#[test]
fn an_unknown_format_version_is_named_as_such() {
    let mut doc = good();
    doc["version"] = 4.into();
    // Even with fields a future version might add, the version is what the error names.
    doc["steps"][0]["op"] = "teleport".into();
    let e = read(&doc);
    assert!(
        matches!(
            e,
            ReadError::Parse(Parse::Record(RecordError::UnsupportedVersion(4)))
        ),
        "{e:?}"
    );
    assert_eq!(
        message(&e),
        "unsupported record version 4 (this build reads versions 1, 2 and 3)"
    );
    let mut doc = good();
    doc["format"] = "something-else".into();
    assert!(matches!(
        read(&doc),
        ReadError::Parse(Parse::Record(RecordError::UnknownFormat { .. }))
    ));
}

#[test]
fn an_unknown_operation_is_named_with_the_known_ones() {
    let mut doc = good();
    doc["steps"][2]["op"] = "steal".into();
    let text = message(&read(&doc));
    assert!(text.contains("unknown variant `steal`"), "{text}");
    assert!(
        text.contains("claim") && text.contains("request_stop"),
        "{text}"
    );
}

#[test]
fn a_lease_handle_that_was_never_issued_is_refused() {
    let mut doc = good();
    doc["steps"][3]["input"]["lease"] = "L7".into();
    let text = message(&read(&doc));
    assert_eq!(
        text,
        "steps[3].input.lease: lease handle \"L7\" was never issued by an earlier step (issued so far: L1 to L2)"
    );
    let mut doc = good();
    doc["steps"][1]["input"]["lease"] = "L2".into(); // used before the step that issues it
    assert!(message(&read(&doc)).contains("issued so far: L1)"));
    let mut doc = good();
    doc["steps"][3]["input"]["lease"] = "L+1".into();
    assert!(message(&read(&doc)).contains("was never issued"));
    let mut doc = good();
    doc["steps"][0]["input"]["project"] = "elsewhere".into();
    assert!(message(&read(&doc)).contains("is not one of `projects`"));
}

#[test]
fn a_missing_field_is_named() {
    let mut doc = good();
    doc.as_object_mut().unwrap().remove("untouched_project");
    let text = message(&read(&doc));
    assert!(text.contains("missing field `untouched_project`"), "{text}");
    let mut doc = good();
    doc["steps"][0]["input"]
        .as_object_mut()
        .unwrap()
        .remove("run");
    assert_eq!(message(&read(&doc)), "steps[0].input: `claim` needs `run`");
    let mut doc = good();
    doc["steps"][0]["input"]["outcome"] = "failed".into();
    assert_eq!(
        message(&read(&doc)),
        "steps[0].input: `claim` takes no `outcome`"
    );
}

#[test]
fn a_label_that_breaks_the_rule_is_refused_where_labels_are_required() {
    for pointer in [
        "/projects/0",
        "/untouched_project",
        "/steps/0/result/lease/run",
        "/id",
    ] {
        let mut doc = good();
        *doc.pointer_mut(pointer).unwrap() = "../../etc/passwd".into();
        let text = message(&read(&doc));
        assert!(text.contains("breaks the label rule"), "{pointer}: {text}");
    }
    let mut doc = good();
    doc["steps"][0]["lanes"][0]["run"] = "no spaces allowed".into();
    assert!(message(&read(&doc)).contains("breaks the label rule"));
}

#[test]
fn operation_inputs_may_break_the_label_rule_but_not_the_size_limit() {
    // A record may show INVALID_LABEL: the input is a plain string, the result the error.
    let mut doc = good();
    doc["steps"][5]["op"] = "view".into();
    doc["steps"][5]["input"] = serde_json::json!({"project": "bad label"});
    doc["steps"][5]["result"] = serde_json::json!({"error": "INVALID_LABEL"});
    doc["steps"][5]["note"] = Value::Null;
    doc["steps"][5].as_object_mut().unwrap().remove("note");
    let record = parse_record(&serde_json::to_vec(&doc).unwrap()).unwrap();
    project_lanes::record::replay(&record).unwrap();
    doc["steps"][5]["input"]["project"] = "x".repeat(201).into();
    assert!(message(&read(&doc)).contains("longer than 200 characters"));
}

#[test]
fn an_enormous_file_is_refused_before_it_is_read() {
    let dir = std::env::temp_dir().join(format!("lane-records-big-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("enormous.json");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(MAX_RECORD_BYTES + 1).unwrap(); // sparse: costs no disk
    let e = read_record(&path).unwrap_err();
    assert!(
        matches!(e, ReadError::Parse(Parse::TooLarge { .. })),
        "{e:?}"
    );
    assert!(message(&e).contains("at most 16777216 bytes"));
    std::fs::remove_file(&path).unwrap();
    let e = read_record(&dir.join("missing.json")).unwrap_err();
    assert!(matches!(e, ReadError::Io(_)));
}

#[test]
fn records_that_break_format_rules_get_a_located_error() {
    let cases: [(&str, Edit); 7] = [
        (
            "work_executed_here: must be false: records show lane metadata, no work runs",
            |d| d["work_executed_here"] = true.into(),
        ),
        (
            "untouched_project: \"elsewhere\" is not one of `projects`",
            |d| d["untouched_project"] = "elsewhere".into(),
        ),
        (
            "steps[0].lanes: needs one view per project (2), found 1",
            |d| {
                d["steps"][0]["lanes"].as_array_mut().unwrap().pop();
            },
        ),
        ("steps[0].result: `claim` cannot return a receipt", |d| {
            d["steps"][0]["result"] = serde_json::json!({"receipt": {"project": "docs", "run": "r",
                "outcome": "failed", "stop_requested": false, "work_executed_here": false}});
        }),
        ("projects[1]: \"docs\" is listed twice", |d| {
            d["projects"][1] = "docs".into()
        }),
        (
            "steps[0].input.project: claims \"site\", the project this record leaves untouched",
            |d| d["steps"][0]["input"]["project"] = "site".into(),
        ),
        ("title.ja: needs 1 to 2000 characters, found 0", |d| {
            d["title"]["ja"] = "".into()
        }),
    ];
    for (expected, edit) in cases {
        let mut doc = good();
        edit(&mut doc);
        assert_eq!(message(&read(&doc)), expected);
    }
}

fn dispatcher_record() -> Value {
    serde_json::from_slice(&std::fs::read(records_dir().join("persistence-gate.json")).unwrap())
        .unwrap()
}

#[test]
fn dispatcher_records_refuse_unknown_reservations_and_misplaced_operations() {
    let mut doc = dispatcher_record();
    doc["steps"][5]["input"]["reservation"] = "R9".into();
    assert_eq!(
        message(&read(&doc)),
        "steps[5].input.reservation: reservation \"R9\" was never enqueued by an earlier step (enqueued so far: R1 to R3)"
    );
    for sneaky in ["R+1", "R+0", "R01"] {
        let mut doc = dispatcher_record();
        doc["steps"][5]["input"]["reservation"] = sneaky.into();
        assert!(
            message(&read(&doc)).contains("was never enqueued"),
            "{sneaky}"
        );
    }
    let mut doc = dispatcher_record();
    doc["steps"][0]["input"]["project"] = "elsewhere".into();
    assert_eq!(
        message(&read(&doc)),
        "steps[0].input.project: \"elsewhere\" is not one of `projects`: every project a step can occupy is shown"
    );
    let mut doc = dispatcher_record();
    doc["steps"][3]["op"] = "claim".into();
    doc["steps"][3]["input"] = serde_json::json!({"project": "docs", "run": "x"});
    assert!(message(&read(&doc)).contains("`claim` has no place in a dispatcher record"));
    let mut doc = dispatcher_record();
    doc["steps"][3]
        .as_object_mut()
        .unwrap()
        .remove("reservations");
    assert_eq!(
        message(&read(&doc)),
        "steps[3].reservations: dispatcher records need it"
    );
    let mut doc = dispatcher_record();
    doc["steps"][0]["input"]["project"] = "billing".into();
    assert!(
        message(&read(&doc))
            .contains("enqueues \"billing\", the project this record leaves untouched")
    );
    let mut doc = good();
    doc["steps"][0]["op"] = "dispatch".into();
    doc["steps"][0]["input"] = serde_json::json!({"queue": "general"});
    assert!(message(&read(&doc)).contains("`dispatch` has no place in a lanes record"));
    let mut doc = dispatcher_record();
    doc["steps"][8]["input"]["saved"] = "yes".into();
    assert!(
        message(&read(&doc)).contains("invalid type"),
        "{}",
        message(&read(&doc))
    );
}
