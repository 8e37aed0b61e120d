//! The pre-release schema upgraded in place by this release: its seven migrations (kept as they
//! were in `tests/pre-release/`) make a schema with rows and a journal; the first handle of this
//! release upgrades it to exactly the catalog a fresh schema gets, keeping its rows, and its
//! journal goes on replaying across the upgrade. An older pre-release schema is refused.

mod common;

use project_lanes::Outcome;
use project_lanes_pg::schema::MIGRATIONS;
use project_lanes_pg::{PgDispatcher, PgLanes};

use common::{fresh_schema, lanes_pg, pre_release, url};

fn client() -> postgres::Client {
    postgres::Client::connect(&url(), postgres::NoTls).unwrap()
}

/// Everything the schema defines, one line per object, with the schema's name written `S`:
/// relations, columns (in order, with types, nullability and defaults), constraints, indexes,
/// sequences and functions (their whole definitions).
fn catalog(client: &mut postgres::Client, schema: &str) -> Vec<String> {
    let queries = [
        "SELECT 'relation ' || c.relname || ' ' || c.relkind::text
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = $1 ORDER BY 1",
        "SELECT 'column ' || c.relname || '.' || a.attname || ' '
                || format_type(a.atttypid, a.atttypmod)
                || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
                || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '')
         FROM pg_attribute a
         JOIN pg_class c ON c.oid = a.attrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
         LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
         WHERE n.nspname = $1 AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
         ORDER BY c.relname, a.attnum",
        "SELECT 'constraint ' || conrelid::regclass::text || ' ' || conname || ' '
                || pg_get_constraintdef(oid)
         FROM pg_constraint
         WHERE connamespace = (SELECT oid FROM pg_namespace WHERE nspname = $1) ORDER BY 1",
        "SELECT 'index ' || indexdef FROM pg_indexes WHERE schemaname = $1 ORDER BY 1",
        "SELECT 'sequence ' || sequencename || ' ' || data_type::text || ' ' || start_value
                || ' ' || min_value || ' ' || max_value || ' ' || increment_by || ' '
                || cycle || ' ' || cache_size
         FROM pg_sequences WHERE schemaname = $1 ORDER BY 1",
        "SELECT 'function ' || pg_get_functiondef(p.oid)
         FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
         WHERE n.nspname = $1
         ORDER BY p.proname, pg_get_function_identity_arguments(p.oid)",
    ];
    let mut lines = Vec::new();
    for query in queries {
        for row in client.query(query, &[&schema]).unwrap() {
            let line: String = row.get(0);
            lines.push(line.replace(schema, "S"));
        }
    }
    lines
}

/// The first line where two catalogs differ, for a readable failure.
fn first_difference(a: &[String], b: &[String]) -> Option<String> {
    let at = a.iter().zip(b).position(|(x, y)| x != y);
    match at {
        Some(i) => Some(format!("line {i}:\n  {}\nagainst\n  {}", a[i], b[i])),
        None if a.len() != b.len() => Some(format!(
            "{} lines against {}: {:?}",
            a.len(),
            b.len(),
            a.get(b.len()).or(b.get(a.len()))
        )),
        None => None,
    }
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn the_pre_release_schema_is_upgraded_to_the_baseline_keeping_its_rows_and_journal() {
    let mut sql = client();
    let old = fresh_schema();
    sql.batch_execute(&pre_release::schema(&old, pre_release::MIGRATIONS.len()))
        .unwrap();
    // Rows written by the pre-release functions: a lane held directly, a claim and release, a
    // reservation dispatched and finished, one queued, one cancelled. Their holder is this
    // test's session, alive throughout.
    let started = "(SELECT backend_start FROM pg_stat_activity WHERE pid = pg_backend_pid())";
    sql.batch_execute(&format!(
        "SET search_path TO {old};
         INSERT INTO queues VALUES ('general');
         SELECT lanes_claim('docs', 'old-run', pg_backend_pid(), {started}, NULL);
         SELECT lanes_release('site', t.o_token, 'short', t.o_generation, 'succeeded')
         FROM lanes_claim('site', 'short', pg_backend_pid(), {started}, NULL) t;
         SELECT lanes_enqueue('general', 'build', 'b-1');
         SELECT lanes_dispatch('general', pg_backend_pid(), {started}, NULL);
         SELECT lanes_finish(1, 'succeeded');
         SELECT lanes_enqueue('general', 'build', 'b-2');
         SELECT lanes_enqueue('general', 'web', 'w-1');
         SELECT lanes_cancel(3);
         RESET search_path;"
    ))
    .unwrap();
    let identity: String = sql
        .query_one(&format!("SELECT id FROM {old}.lanes_identity"), &[])
        .unwrap()
        .get(0);
    let journal = |sql: &mut postgres::Client, schema: &str| -> Vec<String> {
        sql.query(
            // The columns of the pre-release journal; those added since (the chain's) are
            // checked apart.
            &format!(
                "SELECT row(seq, at, actor, op, via, code, project, run, generation, outcome, \
                 stop_requested, queue, reservation, saved, state)::text \
                 FROM {schema}.lanes_journal ORDER BY seq"
            ),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
    };
    let journaled = journal(&mut sql, &old);
    assert_eq!(journaled.len(), 9, "{journaled:#?}");

    let fresh = fresh_schema();
    drop(PgLanes::connect(&url(), &fresh).unwrap());
    let baseline = catalog(&mut sql, &fresh);
    let before = catalog(&mut sql, &old);
    assert!(
        first_difference(&before, &baseline).is_some(),
        "the pre-release catalog should differ from the baseline's"
    );

    // Handles of this release connecting at once: one upgrades, the others wait for it.
    let handles: Vec<PgLanes> = std::thread::scope(|s| {
        let connecting: Vec<_> = (0..4)
            .map(|_| s.spawn(|| PgLanes::connect(&url(), &old)))
            .collect();
        connecting
            .into_iter()
            .map(|c| c.join().unwrap().unwrap())
            .collect()
    });

    let after = catalog(&mut sql, &old);
    if let Some(difference) = first_difference(&after, &baseline) {
        panic!("the upgraded catalog differs from a fresh baseline's at {difference}");
    }
    let versions: Vec<(i32, String)> = sql
        .query(
            &format!("SELECT version, description FROM {old}.lanes_schema_version"),
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let every: Vec<(i32, String)> = MIGRATIONS
        .iter()
        .map(|m| (m.version, m.description.to_owned()))
        .collect();
    assert_eq!(versions, every);
    let kept: String = sql
        .query_one(&format!("SELECT id FROM {old}.lanes_identity"), &[])
        .unwrap()
        .get(0);
    assert_eq!(kept, identity, "the schema's identity is kept");
    assert_eq!(
        journal(&mut sql, &old),
        journaled,
        "the journal's rows are kept"
    );
    let sealed: i64 = sql
        .query_one(
            &format!("SELECT count(*) FROM {old}.lanes_journal WHERE link IS NOT NULL"),
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(sealed, 0, "the rows kept are not sealed until a seal");

    // The rows work on: the held lane, the persisting reservation, the queue.
    let lanes = &handles[0];
    assert_eq!(lanes.view("docs").unwrap().run.as_deref(), Some("old-run"));
    let site = lanes.claim("site", "after").unwrap();
    assert_eq!(site.generation(), 2);
    lanes.request_stop(&site).unwrap();
    assert!(
        lanes
            .release(&site, Outcome::Succeeded)
            .unwrap()
            .stop_requested
    );
    let mut d = PgDispatcher::connect(&url(), &old, &["general"]).unwrap();
    let reservations = d.reservations().unwrap();
    let persisting = reservations[0].id;
    d.persisted(persisting, true).unwrap();
    let next = d.dispatch("general").unwrap().unwrap();
    assert_eq!((next.project.as_str(), next.run.as_str()), ("build", "b-2"));
    d.finish(next.reservation, Outcome::Failed).unwrap();
    d.persisted(next.reservation, true).unwrap();

    // The whole journal, from before the upgrade and after, replays on the core.
    let (code, out, err) = lanes_pg(&["audit", &url(), &old]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert_eq!(journal(&mut sql, &old).len(), journaled.len() + 7);
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn an_older_pre_release_schema_is_refused_saying_how_to_upgrade_it() {
    let mut sql = client();
    let old = fresh_schema();
    sql.batch_execute(&pre_release::schema(&old, 6)).unwrap();
    let refused = PgLanes::connect(&url(), &old).unwrap_err();
    assert_eq!(refused.code(), "CONFIG");
    let said = refused.to_string();
    assert!(
        said.contains("pre-release build") && said.contains("its version 6"),
        "{said}"
    );
    let (code, _, err) = lanes_pg(&["audit", &url(), &old]);
    assert_eq!(code, Some(1));
    assert!(err.contains("its version 6"), "{err}");
    // Nothing was changed.
    let versions: i64 = sql
        .query_one(
            &format!("SELECT count(*) FROM {old}.lanes_schema_version"),
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(versions, 6);
}
