//! The journal on PostgreSQL: every transition of many processes (some killed mid-run) exports
//! as one version 3 record (and as version 2 records of each kind) that `lane-records replay`
//! verifies and `lanes-pg audit` matches on the core; a row changed behind the library's back
//! is named; bad input is refused with exit status 1 and no file; a prune keeps what later
//! exports start from.

mod common;

use std::path::Path;
use std::time::Duration;

use lane_records::{ReplayReport, replay_file};
use project_lanes::Outcome;
use project_lanes_pg::schema::SCHEMA_VERSION;
use project_lanes_pg::{PgConfig, PgDispatcher, PgLanes};

use common::roles::as_admin;
use common::{TestProcess, fresh_schema, journal_rows, lanes_pg, url};

const WORKERS: usize = 8;

/// With `LANES_PG_KEEP=DIR`, a copy of an export in DIR under `name`: the real exports behind
/// the corpus files `records/tests/corpus/pg-journal-*.json` were kept this way.
fn keep(file: &Path, name: &str) {
    if let Some(dir) = std::env::var_os("LANES_PG_KEEP") {
        std::fs::copy(file, Path::new(&dir).join(name)).unwrap();
    }
}

/// `lane-records replay`'s verdict on a file: the number of steps, or why it failed.
fn replayed(path: &Path) -> Result<usize, String> {
    match replay_file(path) {
        ReplayReport::Matched(n) => Ok(n),
        ReplayReport::Mismatch(m) => Err(lane_records::describe_mismatch(&m)),
        ReplayReport::StepMismatch(m) => Err(lane_records::describe_step_mismatch(&m)),
        ReplayReport::Unreadable(e) => Err(e.to_string()),
    }
}

/// `lanes-pg export URL SCHEMA args… --out DIR/name.json`: the exit code, stdout, stderr.
fn export(schema: &str, out: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let url = url();
    let out = out.to_str().unwrap();
    let mut all = vec!["export", &url, schema];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--out", out]);
    lanes_pg(&all)
}

/// `lanes-pg audit URL SCHEMA`: the exit code, the replay's verdict (stdout's first line) and
/// stderr. The second line is the chain's (unchained: these journals are sealed only by a
/// prune).
fn audit(schema: &str) -> (Option<i32>, String, String) {
    let (code, out, err) = lanes_pg(&["audit", &url(), schema]);
    let mut lines = out.lines();
    let verdict = lines.next().unwrap_or_default().to_owned();
    if !out.is_empty() {
        let chain = lines.next().unwrap_or_default();
        assert!(chain.starts_with("the chain: "), "{out}");
    }
    (code, verdict, err)
}

/// Changes `project`'s first claim to a refusal by SQL, and checks that `audit` names it;
/// returns its `seq`.
fn refuse_a_claim_behind_the_librarys_back(schema: &str, project: &str) -> i64 {
    let seq = seq_of(schema, "claim", "OK", project);
    as_admin(&format!(
        "UPDATE {schema}.lanes_journal SET code = 'PROJECT_BUSY' WHERE seq = {seq}"
    ));
    let (code, out, err) = audit(schema);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        out.starts_with(&format!("transition {seq} (claim of {project} by ")),
        "{out}"
    );
    assert!(
        out.contains("the system answered PROJECT_BUSY, the core answers ok"),
        "{out}"
    );
    seq
}

/// A fresh schema whose journal holds one claim and one release.
fn one_pair() -> String {
    let schema = fresh_schema();
    let lanes = PgLanes::connect(&url(), &schema).unwrap();
    let lease = lanes.claim("docs", "nightly-1").unwrap();
    lanes.release(&lease, Outcome::Succeeded).unwrap();
    schema
}

/// The time now, as the command line takes it.
fn now() -> String {
    let since_epoch = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    project_lanes::record::Timestamp::from_millis(since_epoch.as_millis() as u64)
        .unwrap()
        .to_string()
}

/// The `seq` of the journal's first row of `op` with `code` for `project`.
fn seq_of(schema: &str, op: &str, code: &str, project: &str) -> i64 {
    let mut client = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
    client
        .query_one(
            &format!(
                "SELECT min(seq) FROM {schema}.lanes_journal \
                 WHERE op = $1 AND code = $2 AND project = $3"
            ),
            &[&op, &code, &project],
        )
        .unwrap()
        .get(0)
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn eight_processes_some_killed_leave_a_journal_that_replays_and_audits() {
    let schema = fresh_schema();
    let (url, dir) = (url(), tempfile::tempdir().unwrap());
    // Three of them stop after their operations holding what they hold, and are killed.
    let mut workers: Vec<TestProcess> = (0..WORKERS)
        .map(|w| {
            let mut args = vec!["journal-worker", &url, &schema];
            let id = w.to_string();
            args.extend([id.as_str(), "120"]);
            if w < 3 {
                args.push("--hang");
            }
            TestProcess::start(&args)
        })
        .collect();
    for w in &mut workers {
        assert_eq!(w.line(), "READY");
    }
    let rest = workers.split_off(3);
    for mut w in workers {
        assert_eq!(w.line(), "DONE");
        w.kill();
    }
    for w in rest {
        w.succeeds();
    }
    // What the dead left: recovery marks it, a person resolves it (both journaled).
    let lanes = PgLanes::connect(&url, &schema).unwrap();
    let recovered = common::recover_until_marked(|| lanes.recover().unwrap());
    assert!(!recovered.is_empty(), "the killed workers held nothing");
    let mut d = PgDispatcher::connect(&url, &schema, &["general", "delivery"]).unwrap();
    for orphan in lanes.orphans().unwrap() {
        lanes.resolve_orphan(&orphan.project).unwrap();
    }
    for r in d.reservations().unwrap() {
        if r.state == project_lanes::dispatch::ReservationState::Unresolved {
            d.resolve(r.id).unwrap();
        }
    }

    // Both were journaled as the core operations of the same effect.
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    for via in ["recover", "resolve_orphan"] {
        let n: i64 = client
            .query_one(
                &format!("SELECT count(*) FROM {schema}.lanes_journal WHERE via = $1"),
                &[&via],
            )
            .unwrap()
            .get(0);
        assert!(n >= 1, "no transition via {via}");
    }

    // The whole journal, both kinds, as one record.
    let file = dir.path().join("whole.jsonl");
    let (code, out, err) = export(&schema, &file, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.starts_with(&format!("wrote {}", file.display())) && out.contains("(version 3)"),
        "{out}"
    );
    let steps = replayed(&file).unwrap_or_else(|e| panic!("{e}"));
    keep(&file, "pg-journal.jsonl");
    let (code, out, err) = audit(&schema);
    assert_eq!(code, Some(0), "{out}{err}");
    assert_eq!(out.trim(), format!("all {steps} transitions match"));
    // Readers of version 2 get each kind in a record of its own.
    let mut both = 0;
    for kind in ["lanes", "dispatcher"] {
        let file = dir.path().join(format!("{kind}.json"));
        let (code, out, err) = export(&schema, &file, &["--format-version", "2", "--kind", kind]);
        assert_eq!(code, Some(0), "{err}");
        assert!(out.contains("(version 2)"), "{out}");
        let n = replayed(&file).unwrap_or_else(|e| panic!("{kind}: {e}"));
        assert!(n > 50, "{kind}: only {n} steps");
        keep(&file, &format!("pg-journal-{kind}.json"));
        both += n;
    }
    assert_eq!(both, steps);
    // The journal names its callers, and says where it comes from.
    let (_, lines, _) = lanes_pg(&["export", &url, &schema]);
    assert!(
        lines.contains("\"name\":\"worker-"),
        "no actor in the record"
    );
    assert!(
        lines.contains("\"kind\":\"journal\""),
        "no origin in the record"
    );
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_journal_row_changed_behind_the_librarys_back_is_named_by_audit_and_replay() {
    let schema = fresh_schema();
    let lanes = PgLanes::connect(&url(), &schema).unwrap();
    let a = lanes.claim("docs", "nightly-1").unwrap();
    lanes.claim("docs", "deploy-2").unwrap_err();
    lanes.release(&a, Outcome::Succeeded).unwrap();
    let b = lanes.claim("site", "nightly-3").unwrap();
    lanes.request_stop(&b).unwrap();
    lanes.release(&b, Outcome::Cancelled).unwrap();
    assert_eq!(audit(&schema).1.trim(), "all 6 transitions match");

    let seq = refuse_a_claim_behind_the_librarys_back(&schema, "site");
    let (code, out, _) = lanes_pg(&["audit", &url(), &schema, "--json"]);
    assert_eq!(code, Some(1));
    let verdict: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(verdict["match"], false);
    assert_eq!(verdict["first_mismatch"]["seq"], seq);

    // The export still writes what the journal says, and replay finds the same step.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("tampered.jsonl");
    let (code, _, err) = export(&schema, &file, &[]);
    assert_eq!(code, Some(0), "{err}");
    let mismatch = replayed(&file).unwrap_err();
    assert!(
        mismatch.starts_with("step 4 (claim, line ")
            && mismatch.ends_with("the record says PROJECT_BUSY, the core answers ok"),
        "{mismatch}"
    );
    keep(&file, "pg-journal-changed-row.jsonl");
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn an_audits_mismatch_is_its_verdict_on_stdout_and_one_line_on_stderr() {
    let schema = one_pair();
    let seq = refuse_a_claim_behind_the_librarys_back(&schema, "docs");
    // The verdict where scripts read it, and the line the help promises for exit status 1.
    let (code, out, err) = audit(&schema);
    assert_eq!(code, Some(1), "{out}");
    let verdict = format!("transition {seq} (claim of docs by ");
    assert!(out.starts_with(&verdict), "{out}");
    assert_eq!(err, format!("lanes-pg: {out}\n"));
    let (code, out, err) = lanes_pg(&["audit", &url(), &schema, "--json"]);
    assert_eq!(code, Some(1), "{out}");
    let said: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (&said["match"], &said["first_mismatch"]["seq"]),
        (&serde_json::json!(false), &serde_json::json!(seq)),
        "{out}"
    );
    assert!(
        err.starts_with(&format!("lanes-pg: {verdict}")) && err.lines().count() == 1,
        "{err}"
    );
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_failure_whose_words_hold_a_line_break_is_still_one_line_on_stderr() {
    let schema = one_pair();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("no\nsuch").join("x.json");
    let (code, _, err) = export(&schema, &out, &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.lines().count() == 1 && err.contains("no\\nsuch/x.json"),
        "{err}"
    );
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn an_audit_covers_more_projects_than_a_record_shows() {
    let schema = fresh_schema();
    let lanes = PgLanes::connect(&url(), &schema).unwrap();
    // 100 projects, the first one held over the rest, then released with a changed row.
    let first = lanes.claim("p0", "run-0").unwrap();
    for i in 1..100 {
        let lease = lanes.claim(&format!("p{i}"), &format!("run-{i}")).unwrap();
        lanes.release(&lease, Outcome::Succeeded).unwrap();
    }
    lanes.release(&first, Outcome::Succeeded).unwrap();
    let (code, out, err) = audit(&schema);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(out.trim(), "all 200 transitions match");

    refuse_a_claim_behind_the_librarys_back(&schema, "p70");
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_row_naming_a_reservation_never_enqueued_is_named_not_left_out() {
    let schema = fresh_schema();
    let mut d = PgDispatcher::connect(&url(), &schema, &["general"]).unwrap();
    let id = d.enqueue("general", "docs", "nightly-1").unwrap();
    let job = d.dispatch("general").unwrap().unwrap();
    d.finish(job.reservation, Outcome::Succeeded).unwrap();
    d.persisted(id, true).unwrap();
    d.cancel(id).unwrap_err();
    let (code, out, err) = audit(&schema);
    assert_eq!(
        (code, out.trim()),
        (Some(0), "all 5 transitions match"),
        "{err}"
    );

    // The refused cancel now names a reservation that does not exist: the library never
    // journals a call on one, so the row was not written by it.
    let mut client = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
    let seq: i64 = client
        .query_one(
            &format!("SELECT seq FROM {schema}.lanes_journal WHERE op = 'cancel'"),
            &[],
        )
        .unwrap()
        .get(0);
    as_admin(&format!(
        "UPDATE {schema}.lanes_journal SET reservation = 99999 WHERE seq = {seq}"
    ));
    let says = format!("journal row {seq}: names reservation R99999, which no earlier row");
    let (code, _, err) = audit(&schema);
    assert_eq!(code, Some(1));
    assert!(err.contains(&says), "{err}");
    let (code, out, err) = lanes_pg(&["audit", &url(), &schema, "--json"]);
    assert_eq!(code, Some(1));
    assert!(err.contains(&says), "{err}");
    let verdict: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(verdict["match"], false);
    assert_eq!(verdict["first_mismatch"]["seq"], seq);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out.json");
    let (code, _, err) = export(&schema, &file, &[]);
    assert_eq!(code, Some(1));
    assert!(err.contains(&says), "{err}");
    assert!(!file.exists());
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_queue_of_any_length_exports_as_one_record_and_a_version_2_export_is_refused() {
    // A version 2 record lists every reservation after every step: 1,500 enqueues would make
    // one of about 90 MB. Version 3 keeps no snapshot.
    let schema = fresh_schema();
    let mut d = PgDispatcher::connect(&url(), &schema, &["general"]).unwrap();
    for i in 0..1_500 {
        d.enqueue("general", &format!("p{}", i % 64), &format!("nightly-{i}"))
            .unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out.json");
    let (code, _, err) = export(&schema, &file, &["--format-version", "2"]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("the record would be larger than readers take (16777216 bytes, 16 MiB)"),
        "{err}"
    );
    assert!(!file.exists());
    let (code, _, err) = export(&schema, &file, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(replayed(&file), Ok(1_500));
    let bytes = std::fs::metadata(&file).unwrap().len();
    assert!(bytes < 1_500 * 100, "{bytes} bytes");
    let (code, out, err) = audit(&schema);
    assert_eq!(
        (code, out.trim()),
        (Some(0), "all 1500 transitions match"),
        "{err}"
    );
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn an_audit_that_checks_nothing_says_so() {
    let schema = fresh_schema();
    let lanes = PgLanes::connect(&url(), &schema).unwrap();
    let (code, out, err) = audit(&schema);
    assert_eq!(code, Some(1), "{out}");
    assert!(err.contains("the journal holds no transition"), "{err}");
    let lease = lanes.claim("docs", "nightly-1").unwrap();
    lanes.release(&lease, Outcome::Succeeded).unwrap();
    let (code, out, err) = lanes_pg(&["audit", &url(), &schema, "--since", "2999-01-01T00:00:00Z"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(err.contains("there is nothing to audit"), "{err}");
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn direct_claims_and_dispatches_racing_on_the_same_projects_journal_an_order_that_replays() {
    // Two threads claim and release three projects directly while two enqueue and dispatch
    // them: a release journaled before a dispatch must not have been hidden from it.
    let schema = fresh_schema();
    PgDispatcher::connect(&url(), &schema, &["general"]).unwrap();
    const PROJECTS: [&str; 3] = ["docs", "site", "blog"];
    // A number of rounds, not a time: every round journals at least one transition per thread,
    // however loaded the machine.
    const ROUNDS: usize = 300;
    let mut threads = Vec::new();
    for t in 0..2 {
        let schema = schema.clone();
        threads.push(std::thread::spawn(move || {
            let lanes = PgLanes::connect(&url(), &schema).unwrap();
            for n in 1..=ROUNDS {
                if let Ok(lease) = lanes.claim(PROJECTS[(n + t) % 3], &format!("d{t}-{n}")) {
                    lanes.release(&lease, Outcome::Succeeded).unwrap();
                }
            }
        }));
    }
    for t in 0..2 {
        let schema = schema.clone();
        threads.push(std::thread::spawn(move || {
            let mut d = PgDispatcher::connect(&url(), &schema, &["general"]).unwrap();
            for n in 1..=ROUNDS {
                d.enqueue("general", PROJECTS[(n + t) % 3], &format!("q{t}-{n}"))
                    .unwrap();
                if let Some(job) = d.dispatch("general").unwrap() {
                    let id = job.reservation;
                    // Another thread's reservation may be finished by its own thread first.
                    if d.finish(id, Outcome::Succeeded).is_ok() {
                        d.persisted(id, true).unwrap();
                    }
                }
            }
        }));
    }
    for t in threads {
        t.join().unwrap();
    }
    let (code, out, err) = audit(&schema);
    assert_eq!(code, Some(0), "{out}{err}");
    let checked: usize = out
        .trim()
        .strip_prefix("all ")
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{out}"));
    assert!(checked > 1_000, "only {checked} transitions raced");
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_project_used_directly_and_through_the_queues_replays_in_one_record() {
    let schema = one_pair();
    let mut d = PgDispatcher::connect(&url(), &schema, &["general"]).unwrap();
    d.enqueue("general", "site", "nightly-2").unwrap();
    d.enqueue("general", "blog", "nightly-3").unwrap();
    // A direct claim refused because a reservation holds the lane, then one that waits for
    // nothing once the reservation is saved: one core replays both.
    d.dispatch("general").unwrap().unwrap();
    let lanes = PgLanes::connect(&url(), &schema).unwrap();
    lanes.claim("site", "by-hand").unwrap_err();
    let id = project_lanes::dispatch::ReservationId::from_number(1).unwrap();
    assert_eq!(d.reservation(id).unwrap().project.as_str(), "site");
    d.finish(id, Outcome::Succeeded).unwrap();
    d.persisted(id, true).unwrap();
    let by_hand = lanes.claim("site", "by-hand").unwrap();
    lanes.release(&by_hand, Outcome::Succeeded).unwrap();
    let (code, out, err) = audit(&schema);
    assert_eq!(
        (code, out.trim()),
        (Some(0), "all 10 transitions match"),
        "{err}"
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out.jsonl");
    let (code, _, err) = export(&schema, &file, &["--project", "site"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(replayed(&file), Ok(7));

    // A version 2 record shows one kind: a project asked of the other is named with the kind
    // that shows it, and --kind is for version 2 alone.
    for (project, kind, says) in [
        (
            "blog",
            "lanes",
            "the project blog appears only among the journal's dispatcher operations: export it in a version 2 record of its own, with --kind dispatcher",
        ),
        (
            "docs",
            "dispatcher",
            "the project docs appears only among the journal's direct lane operations: export it in a version 2 record of its own, with --kind lanes",
        ),
    ] {
        let (code, _, err) = export(
            &schema,
            &file,
            &[
                "--format-version",
                "2",
                "--project",
                project,
                "--kind",
                kind,
            ],
        );
        assert_eq!(code, Some(1));
        assert!(err.contains(says), "{err}");
    }
    let (code, _, err) = export(
        &schema,
        &file,
        &["--format-version", "3", "--kind", "lanes"],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--kind chooses the kind of a version 2 record"),
        "{err}"
    );
    let (code, _, err) = export(&schema, &file, &["--format-version", "2"]);
    assert_eq!(code, Some(1));
    assert!(
        err.contains("a version 2 record shows one or the other"),
        "{err}"
    );
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn bad_exports_fail_with_a_clear_message_and_write_nothing() {
    let schema = one_pair();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out.json");
    let refused = |args: &[&str], says: &str| {
        let (code, out, err) = export(&schema, &file, args);
        assert_eq!(code, Some(1), "{args:?}: {out}{err}");
        assert!(
            err.starts_with("lanes-pg: ") && err.contains(says),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "{args:?} wrote"
        );
    };
    refused(&["--since", "3h", "--until", "2h"], "no transition");
    refused(
        &["--project", "nowhere"],
        "\"nowhere\" appears nowhere in the journal",
    );
    refused(
        &[
            "--since",
            "2026-11-30T10:00:00Z",
            "--until",
            "2026-11-30T09:00:00Z",
        ],
        "before it starts",
    );
    refused(
        &[
            "--since",
            "2026-11-30T10:00:00Z",
            "--until",
            "2026-11-30T10:00:00Z",
        ],
        "the window starts and ends at 2026-11-30T10:00:00.000Z",
    );

    // Corrupted rows are named by their number.
    let seq = seq_of(&schema, "release", "OK", "docs");
    as_admin(&format!(
        "UPDATE {schema}.lanes_journal SET outcome = 'great' WHERE seq = {seq}"
    ));
    refused(
        &[],
        &format!("journal row {seq}: unknown outcome \"great\""),
    );
    as_admin(&format!(
        "UPDATE {schema}.lanes_journal SET outcome = 'succeeded', actor = E'two\\nlines' \
         WHERE seq = {seq}"
    ));
    refused(&[], &format!("journal row {seq}: the actor"));
    as_admin(&format!(
        "UPDATE {schema}.lanes_journal SET actor = 'ops', op = 'teleport' WHERE seq = {seq}"
    ));
    refused(
        &[],
        &format!("journal row {seq}: unknown operation \"teleport\""),
    );
    let (code, _, err) = audit(&schema);
    assert_eq!(code, Some(1));
    assert!(err.contains("unknown operation"), "{err}");
    // A value is shown cut after 100 characters, a missing number as NULL.
    as_admin(&format!(
        "UPDATE {schema}.lanes_journal SET op = repeat('x', 5000) WHERE seq = {seq}"
    ));
    let quoted = format!("\"{}\"…", "x".repeat(100));
    refused(
        &[],
        &format!("journal row {seq}: unknown operation {quoted}"),
    );
    let (_, _, err) = audit(&schema);
    assert!(err.len() < 300, "{err}");
    as_admin(&format!(
        "UPDATE {schema}.lanes_journal SET op = 'release', generation = NULL WHERE seq = {seq}"
    ));
    refused(
        &[],
        &format!("journal row {seq}: no generation, or one below 1 (NULL)"),
    );

    // A pre-release schema older than the one this release upgrades says how to upgrade it.
    as_admin(&format!(
        "DELETE FROM {schema}.lanes_schema_version;
         INSERT INTO {schema}.lanes_schema_version (version, description)
         SELECT v, CASE v WHEN 1 THEN 'lanes, queues, reservations' ELSE 'pre' END
         FROM generate_series(1, 6) v"
    ));
    refused(
        &[],
        "made by a pre-release build of project-lanes-pg and is at its version 6",
    );
    as_admin(&format!(
        "DELETE FROM {schema}.lanes_schema_version;
         INSERT INTO {schema}.lanes_schema_version (version, description)
         VALUES ({SCHEMA_VERSION}, 'restored')"
    ));

    // A journal written by a newer schema is not read.
    as_admin(&format!(
        "INSERT INTO {schema}.lanes_schema_version (version, description) VALUES (99, 'future')"
    ));
    refused(&[], "newer than this lanes-pg");
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_pruned_journal_starts_from_the_state_it_kept() {
    let schema = fresh_schema();
    let config = PgConfig::new(&url(), &schema).actor("ops-1");
    let lanes = PgLanes::connect_with(&config).unwrap();
    let mut d = PgDispatcher::connect_with(&config, &["general"]).unwrap();
    let held = lanes.claim("docs", "long-run").unwrap();
    lanes.request_stop(&held).unwrap();
    let early = lanes.claim("site", "short").unwrap();
    lanes.release(&early, Outcome::Succeeded).unwrap();
    let r = d.enqueue("general", "build", "b-1").unwrap();
    d.enqueue("general", "build", "b-2").unwrap();
    d.dispatch("general").unwrap().unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let cut = now();
    std::thread::sleep(Duration::from_millis(20));
    // After the cut: a late release of a lease released before it, the held lease's release,
    // and the dispatched reservation's end.
    lanes.release(&early, Outcome::Succeeded).unwrap_err();
    lanes.release(&held, Outcome::Failed).unwrap();
    d.finish(r, Outcome::Succeeded).unwrap();
    d.persisted(r, true).unwrap();
    d.dispatch("general").unwrap().unwrap();

    let (code, out, err) = lanes_pg(&["prune", &url(), &schema, "--before", &cut]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("removed 7 transitions before"), "{out}");
    let (code, out, err) = audit(&schema);
    assert_eq!(
        (code, out.trim()),
        (Some(0), "all 5 transitions match"),
        "{err}"
    );
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("whole.jsonl");
    let (code, _, err) = export(&schema, &file, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(replayed(&file), Ok(5));
    for kind in ["lanes", "dispatcher"] {
        let file = dir.path().join(format!("{kind}.json"));
        let (code, _, err) = export(&schema, &file, &["--format-version", "2", "--kind", kind]);
        assert_eq!(code, Some(0), "{err}");
        replayed(&file).unwrap_or_else(|e| panic!("{kind}: {e}"));
    }
    // A window from before the prune would miss its rows: refused, whether the time is long
    // before or the prune's own `--before`, which lies past the last pruned row.
    let (code, out, err) = lanes_pg(&["audit", &url(), &schema, "--since", &cut]);
    assert_eq!(
        (code, out.lines().next().unwrap_or_default()),
        (Some(0), "all 5 transitions match"),
        "{err}"
    );
    for since in ["2000-01-01T00:00:00Z", "100d"] {
        let says = "the journal was pruned: its rows before ";
        let (code, out, err) = lanes_pg(&["audit", &url(), &schema, "--since", since]);
        assert_eq!(code, Some(1), "{out}");
        assert!(
            err.contains(says) && err.contains("leave --since out"),
            "{err}"
        );
        let file = dir.path().join("early.json");
        let (code, _, err) = export(&schema, &file, &["--since", since]);
        assert_eq!(code, Some(1));
        assert!(err.contains(says), "{err}");
        assert!(!file.exists());
    }
    // Pruning again before the same time removes nothing more.
    let (_, out, _) = lanes_pg(&["prune", &url(), &schema, "--before", &cut, "--json"]);
    let pruned: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(pruned["removed"], 0);

    // Pruning everything: the start keeps what is live (b-2, dispatched), not r, which is done
    // and never changes again; a later row naming r reads it from the reservations table.
    std::thread::sleep(Duration::from_millis(20));
    let (code, _, err) = lanes_pg(&["prune", &url(), &schema, "--before", "0s"]);
    assert_eq!(code, Some(0), "{err}");
    let mut client = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
    let start: String = client
        .query_one(
            &format!("SELECT state FROM {schema}.lanes_journal_start"),
            &[],
        )
        .unwrap()
        .get(0);
    assert!(start.contains("b-2") && !start.contains("b-1"), "{start}");
    std::thread::sleep(Duration::from_millis(20));
    let after_prune = now();
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(
        d.cancel(r).unwrap_err().to_string(),
        "NOT_QUEUED: only a queued reservation can be cancelled"
    );
    let (code, out, err) = audit(&schema);
    assert_eq!(
        (code, out.lines().next().unwrap_or_default()),
        (Some(0), "the 1 transition matches"),
        "{err}"
    );
    let file = dir.path().join("after.json");
    let (code, _, err) = export(&schema, &file, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(replayed(&file), Ok(1));

    let (code, out, err) = lanes_pg(&["audit", &url(), &schema, "--since", &after_prune]);
    assert_eq!(
        (code, out.lines().next().unwrap_or_default()),
        (Some(0), "the 1 transition matches"),
        "{err}"
    );

    // A prune by an earlier lanes-pg kept its --before, here one in the future: the first row
    // kept bounds the pruned ones instead, and a window from it is taken.
    as_admin(&format!(
        "UPDATE {schema}.lanes_journal_start SET before = '2030-01-01T00:00:00Z'"
    ));
    let (code, _, err) = lanes_pg(&["audit", &url(), &schema, "--since", &after_prune]);
    assert_eq!(code, Some(1));
    let bound = err
        .split("start at ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .unwrap_or_else(|| panic!("{err}"));
    assert!(bound.starts_with("20") && bound < "2030", "{err}");
    let (code, out, err) = lanes_pg(&["audit", &url(), &schema, "--since", bound]);
    assert_eq!(
        (code, out.lines().next().unwrap_or_default()),
        (Some(0), "the 1 transition matches"),
        "{err}"
    );
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_prune_before_a_time_after_the_servers_now_is_refused_and_removes_nothing() {
    let schema = one_pair();
    // A mistyped year, a day ahead, with or without --dry-run and --json: a usage error, one
    // line saying the server's time, and the journal whole.
    let tomorrow = {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap();
        project_lanes::record::Timestamp::from_millis(now.as_millis() as u64 + 86_400_000)
            .unwrap()
            .to_string()
    };
    let url = url();
    for extra in [
        &[][..],
        &["--json"],
        &["--dry-run"],
        &["--dry-run", "--json"],
    ] {
        for before in ["2099-01-01T00:00:00Z", &tomorrow] {
            let mut args = vec!["prune", &url, &schema, "--before", before];
            args.extend_from_slice(extra);
            let (code, out, err) = lanes_pg(&args);
            assert_eq!((code, out.as_str()), (Some(2), ""), "{args:?}: {err}");
            assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
            assert!(
                err.starts_with("lanes-pg: ")
                    && err.contains("is after the server's time, 20")
                    && err.contains("nothing was removed"),
                "{args:?}: {err}"
            );
        }
    }
    assert_eq!(journal_rows(&schema), 2);
    let (code, out, err) = audit(&schema);
    assert_eq!(
        (code, out.trim()),
        (Some(0), "all 2 transitions match"),
        "{err}"
    );
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_dry_run_says_what_a_prune_would_remove_and_removes_nothing() {
    let schema = fresh_schema();
    let lanes = PgLanes::connect(&url(), &schema).unwrap();
    for n in 1..=3 {
        let lease = lanes.claim("docs", &format!("nightly-{n}")).unwrap();
        lanes.release(&lease, Outcome::Succeeded).unwrap();
    }
    std::thread::sleep(Duration::from_millis(20));
    let cut = now();
    std::thread::sleep(Duration::from_millis(20));
    let lease = lanes.claim("docs", "nightly-4").unwrap();
    lanes.release(&lease, Outcome::Succeeded).unwrap();

    let url = url();
    let prune = |extra: &[&str]| {
        let mut args = vec!["prune", &url, &schema, "--before", &cut];
        args.extend_from_slice(extra);
        lanes_pg(&args)
    };
    let (code, out, err) = prune(&["--dry-run"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(
        out,
        format!(
            "would remove 6 transitions before {cut}; the journal would then start after \
             transition {} (2 remain); nothing was removed (--dry-run)\n",
            seq_of(&schema, "release", "OK", "docs") + 4
        )
    );
    let (code, out, err) = prune(&["--dry-run", "--json"]);
    assert_eq!(code, Some(0), "{err}");
    let said: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (
            &said["dry_run"],
            &said["would_remove"],
            &said["would_remain"],
            &said["before"]
        ),
        (
            &serde_json::json!(true),
            &serde_json::json!(6),
            &serde_json::json!(2),
            &serde_json::json!(cut)
        ),
        "{out}"
    );
    assert_eq!(journal_rows(&schema), 8, "a dry run removes nothing");
    let (code, out, err) = audit(&schema);
    assert_eq!(
        (code, out.trim()),
        (Some(0), "all 8 transitions match"),
        "{err}"
    );
    // The prune itself removes what the dry run said.
    let (code, out, err) = prune(&["--json"]);
    assert_eq!(code, Some(0), "{err}");
    let pruned: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (
            &pruned["removed"],
            &pruned["remaining"],
            &pruned["starts_after"]
        ),
        (
            &said["would_remove"],
            &said["would_remain"],
            &said["would_start_after"]
        ),
        "{out}"
    );
    assert_eq!(journal_rows(&schema), 2);
    // Nothing before the time: the dry run says so as the prune does.
    let (code, out, err) = prune(&["--dry-run"]);
    assert_eq!(
        (code, out),
        (
            Some(0),
            format!("nothing before {cut}: 2 transitions kept\n")
        ),
        "{err}"
    );
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn an_export_replaces_only_a_regular_file_and_keeps_its_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let schema = one_pair();
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("target.json");
    std::fs::write(&target, "old").unwrap();
    let link = dir.path().join("link.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    for not_a_file in [link.as_path(), dir.path()] {
        let (code, _, err) = export(&schema, not_a_file, &[]);
        assert_eq!(code, Some(1), "{err}");
        assert!(err.contains("is not a regular file"), "{err}");
    }
    assert!(link.is_symlink());
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
    // A file keeps its permissions; a new one is not made private.
    std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o640)).unwrap();
    let (code, _, err) = export(&schema, &target, &[]);
    assert_eq!(code, Some(0), "{err}");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&target), 0o640);
    assert_eq!(replayed(&target), Ok(2));
    // Under umask 022, as a shell sets it, a new record is readable by others.
    let fresh = dir.path().join("fresh.json");
    let out = std::process::Command::new("sh")
        .args(["-c", "umask 022 && exec \"$0\" \"$@\""])
        .arg(env!("CARGO_BIN_EXE_lanes-pg-tool"))
        .args(["export", &url(), &schema, "--out"])
        .arg(&fresh)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(mode(&fresh), 0o644);
}
