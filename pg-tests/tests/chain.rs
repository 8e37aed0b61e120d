//! The journal's hash chain on PostgreSQL: a seal while transitions run gives the chain the
//! core computes over the same entries; every edit made by SQL behind the library's back (an
//! outcome, a time, an actor, a row removed, two rows swapped, a seal removed) is named by the
//! audit; a journal never sealed audits as unchained; a prune keeps the chain verifiable from
//! its cut, and a checkpoint proves the tail and the rewritten journal.

mod common;

use project_lanes::Outcome;
use project_lanes::record::chain::ChainHead;
use project_lanes_pg::journal::{self, Audit, Chain, Proof};
use project_lanes_pg::{PgConfig, PgLanes};

use common::roles::as_admin;
use common::{fresh_schema, url};

/// A fresh schema whose journal holds `pairs` claims and releases of `p0`…`p4`, unsealed.
fn pairs(pairs: usize) -> (String, PgConfig) {
    let schema = fresh_schema();
    let config = PgConfig::new(&url(), &schema);
    let lanes = PgLanes::connect(&url(), &schema).unwrap();
    for i in 0..pairs {
        let lease = lanes
            .claim(&format!("p{}", i % 5), &format!("r{i}"))
            .unwrap();
        let outcome = if i % 3 == 0 {
            Outcome::Failed
        } else {
            Outcome::Succeeded
        };
        lanes.release(&lease, outcome).unwrap();
    }
    (schema, config)
}

/// The in-process chain over the journal's entries, from `start`.
fn recomputed(config: &PgConfig, start: ChainHead) -> ChainHead {
    let stored = journal::read(config).unwrap();
    stored.entries.iter().fold(start, |head, row| {
        head.next(&project_lanes::journal::link(&row.entry))
    })
}

fn chain(audit: &Audit) -> &Chain {
    audit.chain.as_ref().expect("a schema with the chain")
}

/// The row at `n`th place (from 1) in the journal's order.
fn nth_seq(schema: &str, n: i64) -> i64 {
    let mut client = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
    client
        .query_one(
            &format!("SELECT seq FROM {schema}.lanes_journal ORDER BY seq OFFSET $1 LIMIT 1"),
            &[&(n - 1)],
        )
        .unwrap()
        .get(0)
}

/// Audits, and checks that the chain breaks at `seq` with a message holding `words`.
fn broken_at(config: &PgConfig, seq: i64, words: &str) {
    let audit = journal::audit(config, None).unwrap();
    let broken = chain(&audit).broken.clone().expect("the chain breaks");
    assert_eq!(broken.seq, seq, "{broken}");
    assert!(broken.message.contains(words), "{broken}");
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_seal_while_four_threads_run_transitions_gives_the_chain_the_core_computes() {
    let (schema, config) = pairs(0);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let mut seals = Vec::new();
    std::thread::scope(|s| {
        for t in 0..4 {
            let (schema, stop) = (&schema, &stop);
            s.spawn(move || {
                let lanes = PgLanes::connect(&url(), schema).unwrap();
                let mut i = 0;
                while !stop.load(std::sync::atomic::Ordering::Relaxed) || i < 20 {
                    let lease = lanes.claim(&format!("t{t}"), &format!("r{i}")).unwrap();
                    lanes.release(&lease, Outcome::Succeeded).unwrap();
                    i += 1;
                }
            });
        }
        for _ in 0..10 {
            seals.push(journal::seal(&config).unwrap());
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
    });
    // Each seal extends the one before.
    for pair in seals.windows(2) {
        assert!(pair[1].head.links >= pair[0].head.links, "{seals:?}");
        assert_eq!(
            pair[1].head.links - pair[0].head.links,
            pair[1].sealed,
            "{seals:?}"
        );
    }
    let last = journal::seal(&config).unwrap();
    let rows = common::journal_rows(&schema);
    assert_eq!(last.head.links, rows as u64);
    assert_eq!(last.head, recomputed(&config, ChainHead::GENESIS));
    assert_eq!(journal::seal(&config).unwrap().sealed, 0, "nothing left");
    let audit = journal::audit(&config, None).unwrap();
    assert_eq!(audit.mismatch, None);
    let chain = chain(&audit);
    assert_eq!(
        (chain.verified, chain.unsealed, &chain.broken),
        (rows as u64, 0, &None)
    );
    assert_eq!(chain.head, last.head);
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_journal_never_sealed_audits_as_unchained_and_rows_after_a_seal_as_its_tail() {
    let (schema, config) = pairs(5);
    let audit = journal::audit(&config, None).unwrap();
    assert!(chain(&audit).is_unchained());
    assert_eq!(chain(&audit).unsealed, 10);
    journal::seal(&config).unwrap();
    let lanes = PgLanes::connect(&url(), &schema).unwrap();
    let lease = lanes.claim("late", "r").unwrap();
    lanes.release(&lease, Outcome::Succeeded).unwrap();
    let audit = journal::audit(&config, None).unwrap();
    let chain = chain(&audit);
    assert!(!chain.is_unchained());
    assert_eq!((chain.verified, chain.unsealed), (10, 2));
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn an_outcome_a_time_or_an_actor_changed_by_sql_is_named() {
    for (n, edit) in [
        (
            7,
            "outcome = 'succeeded' WHERE op = 'release' AND outcome = 'failed' AND",
        ),
        (4, "at = at + interval '1 second' WHERE"),
        (9, "actor = 'someone-else' WHERE"),
    ] {
        let (schema, config) = pairs(10);
        journal::seal(&config).unwrap();
        // The nth row, or the first release that failed from it on.
        let from = nth_seq(&schema, n);
        let seq: i64 = {
            let mut client = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
            client
                .query_one(
                    &format!(
                        "UPDATE {schema}.lanes_journal SET {edit} seq = (SELECT min(seq) FROM \
                         {schema}.lanes_journal WHERE seq >= {from} {}) RETURNING seq",
                        if edit.starts_with("outcome") {
                            "AND op = 'release' AND outcome = 'failed'"
                        } else {
                            ""
                        }
                    ),
                    &[],
                )
                .unwrap()
                .get(0)
        };
        let audit = journal::audit(&config, None).unwrap();
        assert_eq!(
            audit.mismatch, None,
            "{edit}: any outcome, time or actor replays"
        );
        broken_at(&config, seq, "its fields differ from what was sealed");
    }
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_row_removed_two_rows_swapped_or_a_seal_removed_is_named() {
    // A row removed in the middle: the next one's link number skips.
    let (schema, config) = pairs(10);
    journal::seal(&config).unwrap();
    let (gone, next) = (nth_seq(&schema, 8), nth_seq(&schema, 9));
    as_admin(&format!(
        "DELETE FROM {schema}.lanes_journal WHERE seq = {gone}"
    ));
    broken_at(&config, next, "skip from 7 to 9");

    // Two rows' contents swapped, their links kept in place.
    let (schema, config) = pairs(10);
    journal::seal(&config).unwrap();
    let (a, b) = (nth_seq(&schema, 5), nth_seq(&schema, 7));
    as_admin(&format!(
        "UPDATE {schema}.lanes_journal j SET (at, actor, op, code, project, run, generation, \
         outcome, stop_requested) = (o.at, o.actor, o.op, o.code, o.project, o.run, \
         o.generation, o.outcome, o.stop_requested) \
         FROM {schema}.lanes_journal o WHERE (j.seq, o.seq) IN (({a}, {b}), ({b}, {a}))"
    ));
    broken_at(&config, a, "its fields differ");

    // Two rows swapped whole, links and all: the link numbers go back.
    let (schema, config) = pairs(10);
    journal::seal(&config).unwrap();
    let (a, b) = (nth_seq(&schema, 5), nth_seq(&schema, 7));
    as_admin(&format!(
        "UPDATE {schema}.lanes_journal j SET (at, actor, op, code, project, run, generation, \
         outcome, stop_requested, link, hash) = (o.at, o.actor, o.op, o.code, o.project, o.run, \
         o.generation, o.outcome, o.stop_requested, o.link, o.hash) \
         FROM {schema}.lanes_journal o WHERE (j.seq, o.seq) IN (({a}, {b}), ({b}, {a}))"
    ));
    broken_at(&config, a, "skip from 4 to 7");

    // A row's seal removed, later ones kept.
    let (schema, config) = pairs(10);
    journal::seal(&config).unwrap();
    let a = nth_seq(&schema, 3);
    as_admin(&format!(
        "UPDATE {schema}.lanes_journal SET link = NULL, hash = NULL WHERE seq = {a}"
    ));
    broken_at(&config, a, "it is not sealed, but a later row is");
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_checkpoint_proves_the_tail_and_the_chain_and_a_rewrite_fails_it() {
    let (schema, config) = pairs(20);
    let head = journal::seal(&config).unwrap().head;
    let proof = |config: &PgConfig, against: ChainHead| {
        let audit = journal::audit_against(config, None, Some(against)).unwrap();
        chain(&audit).checkpoint.clone().unwrap()
    };
    assert_eq!(
        proof(&config, head),
        Proof::Extends {
            seq: nth_seq(&schema, 40)
        }
    );
    // The journal grows: it still extends the checkpoint.
    let lanes = PgLanes::connect(&url(), &schema).unwrap();
    let lease = lanes.claim("late", "r").unwrap();
    lanes.release(&lease, Outcome::Succeeded).unwrap();
    journal::seal(&config).unwrap();
    assert!(proof(&config, head).holds());

    // The last 10 rows removed: the chain itself is intact, the checkpoint is not reached.
    as_admin(&format!(
        "DELETE FROM {schema}.lanes_journal WHERE seq IN (SELECT seq FROM \
         {schema}.lanes_journal ORDER BY seq DESC LIMIT 10)"
    ));
    let audit = journal::audit_against(&config, None, Some(head)).unwrap();
    assert_eq!(chain(&audit).broken, None);
    let shorter = chain(&audit).checkpoint.clone().unwrap();
    assert_eq!(
        shorter,
        Proof::Shorter {
            ends: 32,
            links: 40
        }
    );
    assert!(
        shorter.to_string().starts_with(
            "the journal is shorter than the checkpoint: it ends at link 32, the checkpoint at 40"
        ),
        "{shorter}"
    );

    // Rewritten whole with a recomputed chain: consistent, but not the checkpoint's.
    let (schema, config) = pairs(20);
    let head = journal::seal(&config).unwrap().head;
    let first_failed = nth_seq(&schema, 2);
    as_admin(&format!(
        "UPDATE {schema}.lanes_journal SET outcome = 'succeeded' WHERE seq = {first_failed}; \
         UPDATE {schema}.lanes_journal SET link = NULL, hash = NULL"
    ));
    let resealed = journal::seal(&config).unwrap();
    assert_eq!(resealed.head.links, head.links);
    assert_ne!(resealed.head.hash, head.hash);
    let audit = journal::audit_against(&config, None, Some(head)).unwrap();
    assert_eq!(chain(&audit).broken, None, "the rewrite is consistent");
    let differs = chain(&audit).checkpoint.clone().unwrap();
    assert_eq!(
        differs,
        Proof::Differs {
            seq: nth_seq(&schema, 40),
            links: 40
        }
    );
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_prune_keeps_the_chain_verifiable_from_its_cut() {
    let (schema, config) = pairs(10);
    let before_prune = journal::seal(&config).unwrap().head;
    // Rows after the seal, unsealed: the prune seals them before it cuts.
    let lanes = PgLanes::connect(&url(), &schema).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(5));
    let cut = project_lanes::record::Timestamp::from_millis(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis() as u64,
    )
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(5));
    for i in 0..3 {
        let lease = lanes.claim("after", &format!("r{i}")).unwrap();
        lanes.release(&lease, Outcome::Succeeded).unwrap();
    }
    let pruned = journal::prune(&config, cut).unwrap();
    assert_eq!((pruned.removed, pruned.remaining), (20, 6));
    let audit = journal::audit_against(&config, None, Some(before_prune)).unwrap();
    let chain = chain(&audit);
    assert_eq!(
        chain.start, before_prune,
        "the start carries the last pruned link"
    );
    assert_eq!(
        (chain.verified, chain.unsealed, &chain.broken),
        (6, 0, &None)
    );
    assert_eq!(chain.head.links, 26);
    assert_eq!(chain.head, recomputed(&config, before_prune));
    // A checkpoint at the cut is proven by the start; one before it cannot be checked.
    assert!(chain.checkpoint.as_ref().unwrap().holds());
    let earlier = ChainHead {
        links: 3,
        ..before_prune
    };
    let audit = journal::audit_against(&config, None, Some(earlier)).unwrap();
    assert_eq!(
        audit.chain.unwrap().checkpoint,
        Some(Proof::BeforeStart {
            start: 20,
            links: 3
        })
    );
}

/// `lanes-pg args…` with the URL after the command: exit code, stdout, stderr.
fn tool(command: &str, schema: &str, more: &[&str]) -> (Option<i32>, String, String) {
    let url = url();
    let mut args = vec![command, &url, schema];
    args.extend_from_slice(more);
    common::lanes_pg(&args)
}

/// Checks that a failure is one line on stderr holding `words`, exit status 1.
fn fails_with(said: (Option<i32>, String, String), words: &str) {
    let (code, out, err) = said;
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(
        err.starts_with("lanes-pg: ") && err.lines().count() == 1,
        "{err}"
    );
    assert!(err.contains(words), "{err} should say {words}");
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn lanes_pg_seals_checkpoints_signed_and_audits_against_the_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str| dir.path().join(name).to_str().unwrap().to_owned();
    let (key, other) = (file("ops.key"), file("other.key"));
    for (path, name) in [(&key, "ops.example"), (&other, "someone.else")] {
        let (code, out, err) = common::lanes_pg(&["keygen", "--name", name, "--out", path]);
        assert_eq!(code, Some(0), "{err}");
        assert!(
            out.contains("the public key ops.example+") || name != "ops.example",
            "{out}"
        );
    }
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&key).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    // keygen never replaces a key.
    let before = std::fs::read(&key).unwrap();
    fails_with(
        common::lanes_pg(&["keygen", "--name", "x", "--out", &key]),
        "exists already",
    );
    assert_eq!(std::fs::read(&key).unwrap(), before);

    let (schema, _) = pairs(20);
    // Never sealed: the audit passes the replay and says the journal is unchained.
    let (code, out, _) = tool("audit", &schema, &[]);
    assert_eq!(code, Some(0));
    assert_eq!(
        out.lines().nth(1).unwrap_or_default(),
        "the chain: unchained, no row is sealed (40 rows): nothing proves the journal unedited; \
         run lanes-pg seal, and keep lanes-pg checkpoint's output elsewhere"
    );
    let (code, out, err) = tool("seal", &schema, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.starts_with("sealed 40 transitions: the chain has 40 links, its root "),
        "{out}"
    );

    let kept = file("kept.txt");
    let (code, out, err) = tool("checkpoint", &schema, &["--key", &key, "--out", &kept]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains(", signed by ops.example+"), "{out}");
    let (code, printed, _) = tool("checkpoint", &schema, &[]);
    assert_eq!(code, Some(0));
    assert!(
        printed.starts_with("project-lanes/") && printed.lines().count() == 4,
        "{printed}"
    );
    fails_with(
        tool("checkpoint", &schema, &["--out", &kept]),
        "exists already",
    );

    let public = format!("{key}.pub");
    let (code, out, err) = tool(
        "audit",
        &schema,
        &["--checkpoint", &kept, "--public-key", &public],
    );
    assert_eq!(code, Some(0), "{out}{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "all 40 transitions match");
    assert!(
        lines[1].starts_with("the chain: 40 links verified, up to link 40"),
        "{out}"
    );
    assert!(
        lines[2].starts_with("checkpoint: the journal extends it (link 40, ")
            && lines[2].contains(", signed by ops.example+"),
        "{out}"
    );

    // A signature by another key, and a checkpoint signed by nobody, when one is required.
    fails_with(
        tool(
            "audit",
            &schema,
            &[
                "--checkpoint",
                &kept,
                "--public-key",
                &format!("{other}.pub"),
            ],
        ),
        "the checkpoint is not signed by someone.else+",
    );
    let unsigned = file("unsigned.txt");
    std::fs::write(&unsigned, &printed).unwrap();
    fails_with(
        tool(
            "audit",
            &schema,
            &["--checkpoint", &unsigned, "--public-key", &public],
        ),
        "the checkpoint is unsigned, and a signature by ops.example+",
    );
    // A checkpoint of another journal.
    let (other_schema, _) = pairs(1);
    fails_with(
        tool("audit", &other_schema, &["--checkpoint", &kept]),
        "the checkpoint is for another journal",
    );

    // The last 10 rows removed: shorter than the checkpoint.
    as_admin(&format!(
        "DELETE FROM {schema}.lanes_journal WHERE seq IN (SELECT seq FROM \
         {schema}.lanes_journal ORDER BY seq DESC LIMIT 10)"
    ));
    fails_with(
        tool(
            "audit",
            &schema,
            &["--checkpoint", &kept, "--public-key", &public],
        ),
        "the journal is shorter than the checkpoint: it ends at link 30, the checkpoint at 40",
    );
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_journal_rewritten_with_a_recomputed_chain_fails_its_signed_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let key = dir.path().join("ops.key").to_str().unwrap().to_owned();
    let kept = dir.path().join("kept.txt").to_str().unwrap().to_owned();
    assert_eq!(
        common::lanes_pg(&["keygen", "--name", "ops", "--out", &key]).0,
        Some(0)
    );
    let (schema, _) = pairs(10);
    assert_eq!(
        tool("checkpoint", &schema, &["--key", &key, "--out", &kept]).0,
        Some(0)
    );
    let failed = nth_seq(&schema, 2);
    as_admin(&format!(
        "UPDATE {schema}.lanes_journal SET outcome = 'succeeded' WHERE seq = {failed}; \
         UPDATE {schema}.lanes_journal SET link = NULL, hash = NULL"
    ));
    assert_eq!(tool("seal", &schema, &[]).0, Some(0));
    // The rewrite is consistent: the audit alone passes.
    assert_eq!(tool("audit", &schema, &[]).0, Some(0));
    let last = nth_seq(&schema, 20);
    fails_with(
        tool(
            "audit",
            &schema,
            &["--checkpoint", &kept, "--public-key", &format!("{key}.pub")],
        ),
        &format!(
            "journal row {last} (link 20) does not have the checkpoint's root: the journal was \
             rewritten"
        ),
    );
}

#[test]
fn bad_checkpoint_and_key_files_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let file = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let good = "project-lanes/j\n3\nAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=\ntime 2026-05-01T03:12:45.123Z\n";
    let truncated = file("truncated.txt", &good.as_bytes()[..40]);
    let latin1 = file("latin1.txt", b"project-lanes/j\xe9\n3\n");
    let short_key = file("short.pub", b"ops+01234567+AQEB\n");
    let valid = file("valid.txt", good.as_bytes());
    // The files are read before the database is asked: no database needed.
    let url = "host=/nonexistent dbname=none";
    for (args, says) in [
        (
            vec!["--checkpoint", &truncated],
            "the checkpoint is truncated",
        ),
        (
            vec!["--checkpoint", &latin1],
            "the checkpoint is not UTF-8 text",
        ),
        (
            vec!["--checkpoint", &valid, "--public-key", &short_key],
            "short.pub: the key holds 3 bytes, not the 33 of an Ed25519 key",
        ),
        (
            vec!["--checkpoint", &valid, "--public-key", &valid],
            "valid.txt: ",
        ),
    ] {
        let mut all = vec!["audit", url, "lanes"];
        all.extend(args);
        fails_with(common::lanes_pg(&all), says);
    }
    let key = file("key", b"PRIVATE+KEY+ops+00000000+AQEB\n");
    fails_with(
        common::lanes_pg(&["checkpoint", url, "lanes", "--key", &key]),
        "key: ",
    );
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn an_export_of_a_sealed_journal_carries_its_chain_and_an_edit_after_the_seal_breaks_it() {
    use project_lanes::record::stream::Chain as Carried;
    let dir = tempfile::tempdir().unwrap();
    let (schema, config) = pairs(10);
    let export = |name: &str| {
        let path = dir.path().join(name);
        let file = std::fs::File::create(&path).unwrap();
        journal::export(&config, &journal::Cut::new("chained", "test"), file).unwrap();
        lane_records::replay_file_proving(&path, u64::MAX)
    };
    // Never sealed: the record is unchained, as before.
    let (report, _, carried) = export("unsealed.jsonl");
    assert!(matches!(report, lane_records::ReplayReport::Matched(20)));
    assert_eq!(carried, Carried::Unchained);
    // Sealed, then two more rows: the record's chain ends where the seal did.
    let head = journal::seal(&config).unwrap().head;
    let lanes = PgLanes::connect(&url(), &schema).unwrap();
    let lease = lanes.claim("late", "r").unwrap();
    lanes.release(&lease, Outcome::Succeeded).unwrap();
    let (report, _, carried) = export("sealed.jsonl");
    assert!(matches!(report, lane_records::ReplayReport::Matched(22)));
    let Carried::Chained(chained) = carried else {
        panic!("unchained: {carried:?}");
    };
    assert_eq!((chained.start, chained.end), (ChainHead::GENESIS, head));
    assert_eq!((chained.steps, chained.unchained), (20, 2));
    // An outcome changed by SQL after the seal: any outcome replays, the chain does not.
    let failed = nth_seq(&schema, 2);
    as_admin(&format!(
        "UPDATE {schema}.lanes_journal SET outcome = 'succeeded' WHERE seq = {failed}"
    ));
    let (report, _, _) = export("edited.jsonl");
    assert!(
        !matches!(report, lane_records::ReplayReport::Matched(_)),
        "{report:?}"
    );
}
