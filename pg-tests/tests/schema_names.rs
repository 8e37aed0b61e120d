//! Schema names: what PostgreSQL would refuse is refused up front (`CONFIG`), checked against the
//! running server's own list of keywords; everything else really works as a schema.

mod common;

use project_lanes_pg::PgLanes;
use project_lanes_pg::schema::valid_schema_name;

use common::url;

#[test]
fn names_postgresql_would_refuse_are_config_errors_before_connecting() {
    for (name, why) in [
        ("pg_lanes", "pg_"),
        ("pg_catalog", "pg_"),
        ("information_schema", "PostgreSQL's own"),
        ("select", "reserved word"),
        ("user", "reserved word"),
        ("order", "reserved word"),
        ("left", "reserved word"),
        ("Lanes", "[a-z_]"),
    ] {
        // No server at this address: the name is refused before any connection.
        let error = PgLanes::connect("host=/nonexistent-folder", name).unwrap_err();
        assert_eq!(error.code(), "CONFIG", "{name}: {error}");
        assert!(error.to_string().contains(why), "{name}: {error}");
    }
}

/// The running server's keywords of the given categories (`pg_get_keywords`).
fn keywords(categories: &[&str]) -> Vec<String> {
    let mut sql = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
    sql.query(
        "SELECT word FROM pg_get_keywords() WHERE catcode::text = ANY ($1) ORDER BY word",
        &[&categories],
    )
    .unwrap()
    .iter()
    .map(|row| row.get(0))
    .collect()
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn every_word_the_server_reserves_is_refused() {
    let reserved = keywords(&["R", "T"]);
    assert!(reserved.len() > 90, "{reserved:?}");
    for word in &reserved {
        assert!(!valid_schema_name(word), "{word} passes");
    }
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn every_other_keyword_works_as_a_schema() {
    let others = keywords(&["U", "C"]);
    assert!(others.len() > 300, "{others:?}");
    let mut sql = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
    let mut tx = sql.transaction().unwrap();
    for word in &others {
        assert!(valid_schema_name(word), "{word} is refused");
        // The statements the crate writes with a schema name, rolled back.
        tx.batch_execute(&format!(
            "SAVEPOINT s; CREATE SCHEMA {word}; SET LOCAL search_path TO {word};
             CREATE TABLE {word}.t (x integer); SELECT coalesce(max(x), 0) FROM {word}.t;
             ROLLBACK TO SAVEPOINT s;"
        ))
        .unwrap_or_else(|e| panic!("{word}: {e}"));
    }
    tx.rollback().unwrap();
    // And through the crate, for a few.
    // (Fixed names: what an earlier run may have left is dropped first.)
    let mut admin = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
    for word in ["between", "int", "json", "name", "xmltable"] {
        let drop = format!("DROP SCHEMA IF EXISTS {word} CASCADE");
        admin.batch_execute(&drop).unwrap();
        let lanes = PgLanes::connect(&url(), word).unwrap();
        lanes.claim("docs", "build-1").unwrap();
        std::mem::drop(lanes);
        admin.batch_execute(&drop).unwrap();
    }
}
