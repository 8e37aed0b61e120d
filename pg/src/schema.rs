//! The schema, as versioned migrations owned by this crate.
//!
//! Every table and function lives in one PostgreSQL schema of the caller's choosing (`lanes`
//! by default), so several independent sets of lanes can share a database. [`migrate`] applies
//! the migrations this crate knows and that the schema lacks, in one transaction, under an
//! advisory lock (many processes may start at once); `lanes_schema_version` lists the applied
//! ones. A schema newer than this crate is refused rather than used.
//!
//! The migrations are the files `pg/migrations/NNNN_name.sql`, compiled in, applied in order; the
//! schema version is their number. A schema made by a build before the first release is
//! recognised by its version table and upgraded in place ([`pre_release`]).

use postgres::types::ToSql;
use postgres::{Client, Row};

use crate::PgError;

/// One migration: the file `pg/migrations/NNNN_name.sql` whose number is its version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Migration {
    /// Its version: its place in [`MIGRATIONS`], counting from 1, and its file's number.
    pub version: i32,
    /// What it does, as recorded in `lanes_schema_version`.
    pub description: &'static str,
    /// Its SQL, run in the schema (`search_path` set to it).
    pub sql: &'static str,
}

/// The migrations, in order. Never edit one that was released; add the next file and its entry.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        description: "lanes, queues, reservations and their journal",
        sql: include_str!("../migrations/0001_schema.sql"),
    },
    Migration {
        version: 2,
        description: "notifications for the tasks that wait for a lane or a job",
        sql: include_str!("../migrations/0002_wake.sql"),
    },
    Migration {
        version: 3,
        description: "the journal's hash chain, given to committed rows by sealing",
        sql: include_str!("../migrations/0003_chain.sql"),
    },
];

/// The newest schema version this crate knows: the number of migrations.
pub const SCHEMA_VERSION: i32 = MIGRATIONS.len() as i32;

/// The schema of the builds before the first release, which numbered its own migrations 1 to 7.
/// Its last version has this release's tables; [`migrate`] upgrades it in place (its functions
/// replaced, its version table rewritten, its rows kept). Older pre-release versions are refused,
/// saying how to upgrade them.
pub mod pre_release {
    /// The description of its version 1, which tells its version table from this release's.
    pub const FIRST: &str = "lanes, queues, reservations";
    /// Its last version, the one [`migrate`](super::migrate) upgrades.
    pub const LAST: i32 = 7;
    /// Its functions that this release does not define: dropped before the baseline is run
    /// again over its tables.
    pub(crate) const DROP: &str =
        "DROP FUNCTION IF EXISTS lanes_dispatch(text, integer, timestamptz);
         DROP FUNCTION IF EXISTS lanes_recover();";
}

/// What a schema's version table says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Found {
    /// No version table: no lanes here yet.
    Missing,
    /// This release's numbering, at this version.
    At(i32),
    /// A [pre-release](pre_release) schema, at its version.
    PreRelease(i32),
}

impl Found {
    /// `CONFIG` if no handle of this crate may use (or upgrade) the schema, saying why.
    pub(crate) fn usable(self, schema: &str) -> Result<(), PgError> {
        match self {
            Found::At(v) if v > SCHEMA_VERSION => Err(PgError::Config(format!(
                "schema {schema} is at version {v}, newer than this crate's {SCHEMA_VERSION}; \
                 upgrade project-lanes-pg"
            ))),
            Found::PreRelease(v) if v != pre_release::LAST => Err(PgError::Config(format!(
                "schema {schema} was made by a pre-release build of project-lanes-pg and is at \
                 its version {v}; this release upgrades only its last version ({}): connect a \
                 handle of the last pre-release build once, as the schema's owner, then this one \
                 (CHANGELOG.md, 0.1.0, names that build)",
                pre_release::LAST
            ))),
            _ => Ok(()),
        }
    }
}

/// Schema names: lower-case ASCII letters, digits and `_`, starting with a letter or `_`, at most
/// 63 bytes (PostgreSQL's identifier limit), so they need no quoting; and a name PostgreSQL
/// accepts for a schema of one's own: not starting with `pg_`, not `information_schema`, not one
/// of its [reserved words](RESERVED_WORDS).
///
/// ```
/// use project_lanes_pg::schema::valid_schema_name;
/// assert!(valid_schema_name("lanes") && valid_schema_name("between"));
/// assert!(!valid_schema_name("Lanes") && !valid_schema_name("pg_lanes"));
/// assert!(!valid_schema_name("select") && !valid_schema_name("user"));
/// ```
pub fn valid_schema_name(name: &str) -> bool {
    schema_name_problem(name).is_none()
}

/// The words PostgreSQL reserves in a position where a schema name goes: its reserved keywords
/// and those that may name only types and functions (`pg_get_keywords()`, categories `R` and
/// `T`, PostgreSQL 13 to 17). A test checks the list against the running server.
#[rustfmt::skip]
pub const RESERVED_WORDS: &[&str] = &[
    "all", "analyse", "analyze", "and", "any", "array", "as", "asc", "asymmetric", "authorization",
    "binary", "both", "case", "cast", "check", "collate", "collation", "column", "concurrently",
    "constraint", "create", "cross", "current_catalog", "current_date", "current_role",
    "current_schema", "current_time", "current_timestamp", "current_user", "default", "deferrable",
    "desc", "distinct", "do", "else", "end", "except", "false", "fetch", "for", "foreign",
    "freeze", "from", "full", "grant", "group", "having", "ilike", "in", "initially", "inner",
    "intersect", "into", "is", "isnull", "join", "lateral", "leading", "left", "like", "limit",
    "localtime", "localtimestamp", "natural", "not", "notnull", "null", "offset", "on", "only",
    "or", "order", "outer", "overlaps", "placing", "primary", "references", "returning", "right",
    "select", "session_user", "similar", "some", "symmetric", "system_user", "table",
    "tablesample", "then", "to", "trailing", "true", "union", "unique", "user", "using",
    "variadic", "verbose", "when", "where", "window", "with",
];

/// Why PostgreSQL would not take `name` as this crate's schema, if it would not.
fn schema_name_problem(name: &str) -> Option<String> {
    let bytes = name.as_bytes();
    let spelled = !bytes.is_empty()
        && bytes.len() <= 63
        && (bytes[0].is_ascii_lowercase() || bytes[0] == b'_')
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'_');
    if !spelled {
        Some(format!(
            "schema names are [a-z_][a-z0-9_]{{0,62}}; found {name:?}"
        ))
    } else if name.starts_with("pg_") || name == "information_schema" {
        Some(format!(
            "schema {name:?}: names starting with pg_, and information_schema, are PostgreSQL's \
             own"
        ))
    } else if RESERVED_WORDS.contains(&name) {
        Some(format!(
            "schema {name:?}: a reserved word in PostgreSQL, which would need quoting; choose \
             another name"
        ))
    } else {
        None
    }
}

/// Creates `schema` if needed and applies the missing migrations. Returns the schema's version.
///
/// A schema already at this crate's version is only read (no lock, no DDL), so a role that may
/// use the schema but not create in it (the guide's PostgreSQL chapter, *Privileges*) connects.
/// Creating or upgrading takes a role that may create in the database and the schema, such as
/// its owner; a role that may not gets `42501` with a message that says so.
pub fn migrate(client: &mut Client, schema: &str) -> Result<i32, PgError> {
    check_name(schema)?;
    // The blocking client answers each call before its future is polled again.
    futures_executor::block_on(migrate_with(client, schema))
}

/// `CONFIG` unless `schema` is a [valid schema name](valid_schema_name), saying why.
pub(crate) fn check_name(schema: &str) -> Result<(), PgError> {
    match schema_name_problem(schema) {
        None => Ok(()),
        Some(problem) => Err(PgError::Config(problem)),
    }
}

/// What migrating needs from a connection: the client's calls, so that [`migrate`] serves a
/// caller's own blocking client and the handles' sessions alike.
pub(crate) trait Sql {
    async fn query_one(
        &mut self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Row, PgError>;
    async fn execute(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<u64, PgError>;
    async fn batch_execute(&mut self, sql: &str) -> Result<(), PgError>;
}

impl Sql for Client {
    async fn query_one(
        &mut self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Row, PgError> {
        Ok(Client::query_one(self, sql, params)?)
    }
    async fn execute(&mut self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<u64, PgError> {
        Ok(Client::execute(self, sql, params)?)
    }
    async fn batch_execute(&mut self, sql: &str) -> Result<(), PgError> {
        Ok(Client::batch_execute(self, sql)?)
    }
}

/// [`read_version`] on a blocking client.
pub(crate) fn read_version_now(client: &mut Client, schema: &str) -> Result<Found, PgError> {
    futures_executor::block_on(read_version(client, schema))
}

/// [`migrate`], on a schema name already checked.
pub(crate) async fn migrate_with(client: &mut impl Sql, schema: &str) -> Result<i32, PgError> {
    let found = read_version(client, schema).await?;
    if found == Found::At(SCHEMA_VERSION) {
        return Ok(SCHEMA_VERSION);
    }
    found.usable(schema)?;
    apply(client, schema).await.map_err(|e| match e {
        PgError::Database(code, message) if code == "42501" => PgError::Database(
            code,
            format!(
                "{message} (schema {schema} is {}; creating or upgrading it takes a role \
                 that may create in the database and the schema, such as its owner: connect \
                 once as that role)",
                match found {
                    Found::Missing => "missing".to_owned(),
                    Found::At(v) => format!("at version {v}, this crate needs {SCHEMA_VERSION}"),
                    Found::PreRelease(v) => format!(
                        "at version {v} of the pre-release schema, which this crate upgrades"
                    ),
                }
            ),
        ),
        e => e,
    })?;
    Ok(SCHEMA_VERSION)
}

/// What the schema's version table says, read without a lock.
pub(crate) async fn read_version(client: &mut impl Sql, schema: &str) -> Result<Found, PgError> {
    let table = format!("{schema}.lanes_schema_version");
    // Read from pg_class, under the statement's snapshot: after waiting for the migration lock,
    // a name lookup (to_regclass) could still answer from a cache that predates the migration
    // another session just committed.
    let exists: bool = client
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM pg_class c
                            JOIN pg_namespace n ON n.oid = c.relnamespace
                            WHERE n.nspname = $1 AND c.relname = 'lanes_schema_version')",
            &[&schema],
        )
        .await?
        .try_get(0)?;
    if !exists {
        return Ok(Found::Missing);
    }
    check_version_table(client, schema).await?;
    version_in(client, &table).await
}

/// `CONFIG` unless the schema's `lanes_schema_version` has the columns this crate gives it.
async fn check_version_table(client: &mut impl Sql, schema: &str) -> Result<(), PgError> {
    let columns: String = client
        .query_one(
            "SELECT coalesce(string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod),
                                        ', ' ORDER BY a.attnum), '')
             FROM pg_attribute a
             JOIN pg_class c ON c.oid = a.attrelid
             JOIN pg_namespace n ON n.oid = c.relnamespace
             WHERE n.nspname = $1 AND c.relname = 'lanes_schema_version'
               AND a.attnum > 0 AND NOT a.attisdropped",
            &[&schema],
        )
        .await?
        .try_get(0)?;
    if columns.starts_with("version integer, description text") {
        Ok(())
    } else {
        Err(PgError::Config(format!(
            "schema {schema} already holds a relation lanes_schema_version that              project-lanes-pg did not make (its columns: {columns}); use another schema, or              move that one away"
        )))
    }
}

/// The relations and functions that the migrations after `current` create, by name: what must
/// not exist yet in a schema they are about to be applied to.
pub(crate) fn created_after(current: i32) -> (Vec<&'static str>, Vec<&'static str>) {
    let mut relations = Vec::new();
    let mut functions = Vec::new();
    for m in MIGRATIONS.iter().filter(|m| m.version > current) {
        for line in m.sql.lines() {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                [
                    "CREATE",
                    "TABLE" | "SEQUENCE" | "INDEX",
                    "IF",
                    "NOT",
                    "EXISTS",
                    name,
                    ..,
                ] => {
                    relations.push(identifier(name));
                }
                ["CREATE", "OR", "REPLACE", "FUNCTION", name, ..] => {
                    functions.push(identifier(name));
                }
                _ => {}
            }
        }
    }
    (relations, functions)
}

/// The identifier at the start of `word` (`lanes_claim(p_project` → `lanes_claim`).
fn identifier(word: &str) -> &str {
    word.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()
        .unwrap_or(word)
}

/// `CONFIG` if `schema` already holds a relation or function that a migration after `current`
/// is about to create: someone else's, which the migration would build on or replace. Checked
/// inside the migration's transaction, before anything is created, so a refused schema is left
/// as it was found.
async fn check_nothing_foreign(
    client: &mut impl Sql,
    schema: &str,
    current: i32,
) -> Result<(), PgError> {
    let (relations, functions) = created_after(current);
    let found: String = client
        .query_one(
            "SELECT coalesce(string_agg(kind || ' ' || name, ', ' ORDER BY kind, name), '')
             FROM (SELECT CASE c.relkind WHEN 'S' THEN 'sequence' WHEN 'i' THEN 'index'
                                         WHEN 'v' THEN 'view' ELSE 'table' END AS kind,
                          c.relname::text AS name
                   FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                   WHERE n.nspname = $1 AND c.relname = ANY($2)
                   UNION
                   SELECT 'function', p.proname::text
                   FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                   WHERE n.nspname = $1 AND p.proname = ANY($3)) AS foreign_objects",
            &[&schema, &relations, &functions],
        )
        .await?
        .try_get(0)?;
    if found.is_empty() {
        Ok(())
    } else {
        Err(PgError::Config(format!(
            "schema {schema} already holds objects that project-lanes-pg did not make but would              create ({found}); nothing was changed: use another schema, or move them away"
        )))
    }
}

/// The version `table` records.
async fn version_in(client: &mut impl Sql, table: &str) -> Result<Found, PgError> {
    let row = client
        .query_one(
            &format!(
                "SELECT coalesce(max(version), 0),
                    coalesce(bool_or(version = 1 AND description = $1), false)
             FROM {table}"
            ),
            &[&pre_release::FIRST],
        )
        .await?;
    let version = row.try_get(0)?;
    Ok(if row.try_get(1)? {
        Found::PreRelease(version)
    } else {
        Found::At(version)
    })
}

/// The migrations the schema lacks, in one transaction under the schema's advisory lock.
async fn apply(client: &mut impl Sql, schema: &str) -> Result<(), PgError> {
    client.batch_execute("BEGIN").await?;
    match apply_in_transaction(client, schema).await {
        Ok(()) => client.batch_execute("COMMIT").await,
        Err(e) => {
            // The error is what matters; a connection too broken to roll back is closed anyway.
            let _ = client.batch_execute("ROLLBACK").await;
            Err(e)
        }
    }
}

async fn apply_in_transaction(client: &mut impl Sql, schema: &str) -> Result<(), PgError> {
    client
        .execute(
            "SELECT pg_advisory_xact_lock(hashtext('project-lanes-pg migrate ' || $1::text))",
            &[&schema],
        )
        .await?;
    match read_version(client, schema).await? {
        Found::At(current) => check_nothing_foreign(client, schema, current).await?,
        Found::Missing => check_nothing_foreign(client, schema, 0).await?,
        // Its tables are this release's baseline's, which runs again over them.
        Found::PreRelease(_) => {}
    }
    client
        .batch_execute(&format!(
            "CREATE SCHEMA IF NOT EXISTS {schema};
         SET LOCAL search_path TO {schema};
         CREATE TABLE IF NOT EXISTS lanes_schema_version (
             version integer PRIMARY KEY,
             description text NOT NULL,
             applied_at timestamptz NOT NULL DEFAULT now()
         );"
        ))
        .await?;
    let found = version_in(client, "lanes_schema_version").await?;
    found.usable(schema)?;
    let current = match found {
        Found::At(v) => v,
        Found::Missing => 0,
        Found::PreRelease(_) => {
            // Its tables are the baseline's, which is idempotent over them: with the functions
            // it does not define dropped and the version table emptied, the baseline runs again,
            // replacing every function, and starts this release's numbering.
            client.batch_execute(pre_release::DROP).await?;
            client
                .batch_execute("DELETE FROM lanes_schema_version")
                .await?;
            0
        }
    };
    for m in MIGRATIONS.iter().filter(|m| m.version > current) {
        client.batch_execute(m.sql).await?;
        client
            .execute(
                "INSERT INTO lanes_schema_version (version, description) VALUES ($1, $2)",
                &[&m.version, &m.description],
            )
            .await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The files in `pg/migrations/`, sorted by name: `(name, contents)`.
    fn files() -> Vec<(String, String)> {
        let folder = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
        let mut files: Vec<(String, String)> = std::fs::read_dir(&folder)
            .expect("pg/migrations")
            .map(|entry| {
                let path = entry.expect("a folder entry").path();
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                (
                    name,
                    std::fs::read_to_string(&path).expect("a migration file"),
                )
            })
            .collect();
        files.sort();
        files
    }

    #[test]
    fn the_names_the_migrations_create_are_read_from_their_sql() {
        let (relations, functions) = created_after(0);
        for table in [
            "lanes",
            "lanes_journal",
            "lanes_identity",
            "reservations",
            "queues",
        ] {
            assert!(relations.contains(&table), "{table} in {relations:?}");
        }
        assert!(relations.contains(&"lanes_journal_seq"), "{relations:?}");
        assert!(relations.contains(&"reservations_queued"), "{relations:?}");
        assert!(functions.contains(&"lanes_claim"), "{functions:?}");
        assert!(
            !relations.contains(&"lanes_schema_version"),
            "made before the check"
        );
        assert_eq!(created_after(SCHEMA_VERSION), (vec![], vec![]));
    }

    #[test]
    fn the_schema_version_is_the_number_of_migration_files() {
        assert_eq!(SCHEMA_VERSION as usize, files().len());
    }

    #[test]
    fn each_migration_is_the_file_of_its_number_in_order() {
        let files = files();
        assert_eq!(
            files.len(),
            MIGRATIONS.len(),
            "a file without an entry, or the reverse"
        );
        for (i, (m, (name, sql))) in MIGRATIONS.iter().zip(&files).enumerate() {
            assert_eq!(m.version as usize, i + 1, "{name}");
            let number = format!("{:04}_", i + 1);
            assert!(
                name.starts_with(&number) && name.ends_with(".sql"),
                "{name} should be {number}<name>.sql"
            );
            assert_eq!(m.sql, sql, "{name} is not the SQL of version {}", m.version);
        }
    }
}
