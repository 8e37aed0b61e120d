//! A schema that holds someone else's objects under the names this crate uses is refused before
//! anything is created: connecting leaves it exactly as it was found.

mod common;

use project_lanes_pg::{PgDispatcher, PgLanes};

use common::{fresh_schema, url};

fn client() -> postgres::Client {
    postgres::Client::connect(&url(), postgres::NoTls).unwrap()
}

/// Every relation and function in `schema`, one line each, sorted.
fn objects(client: &mut postgres::Client, schema: &str) -> Vec<String> {
    client
        .query(
            "SELECT c.relkind::text || ' ' || c.relname::text
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1
             UNION ALL
             SELECT 'f ' || p.proname::text
             FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1
             ORDER BY 1",
            &[&schema],
        )
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect()
}

/// Makes `schema` with `setup` in it, then checks that lanes and a dispatcher both refuse it
/// with a `CONFIG` error naming `name`, and that the schema holds what it held before.
fn refused(setup: &str, name: &str) {
    let schema = fresh_schema();
    let mut client = client();
    client
        .batch_execute(&format!(
            "CREATE SCHEMA {schema}; SET search_path TO {schema}; {setup}"
        ))
        .unwrap();
    let before = objects(&mut client, &schema);
    assert!(!before.is_empty());
    let lanes = PgLanes::connect(&url(), &schema).expect_err("refused");
    let dispatcher = PgDispatcher::connect(&url(), &schema, &["q"]).expect_err("refused");
    for error in [lanes, dispatcher] {
        assert_eq!(error.code(), "CONFIG", "{error}");
        let message = error.to_string();
        assert!(message.contains(name), "{message} should name {name}");
        assert!(message.contains(&schema), "{message} should name {schema}");
    }
    assert_eq!(
        objects(&mut client, &schema),
        before,
        "the schema was changed"
    );
}

#[test]
#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
fn a_foreign_lanes_table_is_refused_and_left_alone() {
    refused("CREATE TABLE lanes (id serial, note text);", "table lanes");
}

#[test]
#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
fn a_foreign_journal_is_refused_and_left_alone() {
    refused(
        "CREATE TABLE lanes_journal (seq bigint, what text);",
        "table lanes_journal",
    );
}

#[test]
#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
fn a_foreign_version_table_is_refused_and_left_alone() {
    refused(
        "CREATE TABLE lanes_schema_version (id serial, name text);",
        "lanes_schema_version",
    );
}

#[test]
#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
fn a_foreign_function_is_refused_and_left_alone() {
    refused(
        "CREATE FUNCTION lanes_claim() RETURNS int LANGUAGE sql AS 'SELECT 1';",
        "function lanes_claim",
    );
}

#[test]
#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
fn a_schema_with_other_tables_is_used_and_keeps_them() {
    let schema = fresh_schema();
    let mut client = client();
    client
        .batch_execute(&format!(
            "CREATE SCHEMA {schema}; CREATE TABLE {schema}.invoices (id serial, note text);"
        ))
        .unwrap();
    let lanes = PgLanes::connect(&url(), &schema).expect("a schema shared with other tables");
    let lease = lanes.claim("p", "r").unwrap();
    lanes
        .release(&lease, project_lanes::Outcome::Succeeded)
        .unwrap();
    assert!(objects(&mut client, &schema).contains(&"r invoices".to_owned()));
}
