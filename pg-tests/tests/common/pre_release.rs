//! The pre-release schema, as its seven migrations (kept as they were in
//! `tests/pre-release/`) made it: what the tests of the upgrade start from.

use project_lanes_pg::schema::pre_release::{FIRST, LAST};

/// The pre-release migrations: the description its version table recorded, and the SQL.
pub const MIGRATIONS: [(&str, &str); 7] = [
    (
        "lanes, queues, reservations",
        include_str!("../pre-release/0001_lanes_queues_reservations.sql"),
    ),
    (
        "dispatch never waits for a lane",
        include_str!("../pre-release/0002_dispatch_never_waits_for_a_lane.sql"),
    ),
    (
        "an orphan flag belongs to the holder it was set for",
        include_str!("../pre-release/0003_orphan_flag_belongs_to_its_holder.sql"),
    ),
    (
        "holders are alive while they hold their session lock",
        include_str!("../pre-release/0004_holders_alive_while_they_hold_their_session_lock.sql"),
    ),
    (
        "a journal of every transition",
        include_str!("../pre-release/0005_a_journal_of_every_transition.sql"),
    ),
    (
        "the journal without an index on time",
        include_str!("../pre-release/0006_journal_without_an_index_on_time.sql"),
    ),
    (
        "a claim or a release waits for a dispatch in progress",
        include_str!("../pre-release/0007_lane_operations_wait_for_a_dispatch.sql"),
    ),
];

/// SQL that makes `schema` as the pre-release `migrate` left it at its version `upto`, and
/// leaves the search path as it was.
pub fn schema(schema: &str, upto: usize) -> String {
    assert_eq!(MIGRATIONS[0].0, FIRST);
    assert_eq!(MIGRATIONS.len(), LAST as usize);
    let mut sql = format!(
        "CREATE SCHEMA {schema}; SET search_path TO {schema};
         CREATE TABLE lanes_schema_version (version integer PRIMARY KEY,
             description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());\n"
    );
    for (i, (description, migration)) in MIGRATIONS.iter().take(upto).enumerate() {
        sql.push_str(migration);
        sql.push_str(&format!(
            "\nINSERT INTO lanes_schema_version (version, description) VALUES ({}, '{}');\n",
            i + 1,
            description
        ));
    }
    sql.push_str("RESET search_path;");
    sql
}
