//! Roles of the test cluster, for the tests of privileges: made fresh for one test (role names
//! are cluster-wide), dropped when it ends, however it ends.

use super::{fresh_schema, url};

/// Grants on one database from two sessions at once fail ("tuple concurrently updated"): the
/// tests change roles one at a time, whichever process they run in.
const ONE_AT_A_TIME: &str = "SELECT pg_advisory_xact_lock(hashtext('project-lanes-pg test roles'))";

/// A login role with no privileges beyond those given at creation.
pub struct Role {
    pub name: String,
}

impl Role {
    /// A new role `<kind>_<unique>`; `grants` (SQL with `{role}` for its name and `{db}` for the
    /// database's) run right after, as the test's own role, which must be allowed to create
    /// roles (the throwaway cluster of `cargo xtask test` is).
    pub fn create(kind: &str, grants: &str) -> Role {
        let name = format!("{kind}_{}", fresh_schema());
        let mut admin = admin();
        let db: String = admin
            .query_one("SELECT current_database()", &[])
            .unwrap()
            .get(0);
        admin
            .batch_execute(&format!(
                "BEGIN; {ONE_AT_A_TIME}; CREATE ROLE {name} LOGIN; {}; COMMIT;",
                grants.replace("{role}", &name).replace("{db}", &db)
            ))
            .unwrap_or_else(|e| {
                panic!(
                    "the privilege tests create roles, which LANES_PG_URL's role may not: {e} \
                     (the throwaway cluster of `cargo xtask test` may)"
                )
            });
        Role { name }
    }

    /// The test database's connection string, as this role (the cluster must let it in
    /// without a password, as the throwaway cluster's `trust` does).
    pub fn url(&self) -> String {
        url_as(&self.name)
    }

    /// Runs `sql` as this role.
    pub fn run(&self, sql: &str) {
        postgres::Client::connect(&self.url(), postgres::NoTls)
            .and_then(|mut c| c.batch_execute(sql))
            .unwrap_or_else(|e| panic!("as {}: {e}", self.name));
    }
}

impl Drop for Role {
    fn drop(&mut self) {
        let name = &self.name;
        let dropped = admin().batch_execute(&format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '{name}';
             BEGIN; {ONE_AT_A_TIME}; DROP OWNED BY {name} CASCADE; DROP ROLE {name}; COMMIT;"
        ));
        if let Err(e) = dropped {
            eprintln!("could not drop role {name}: {e}");
        }
    }
}

/// The README's grants for an application role (*Privileges*).
pub fn grants(schema: &str, role: &str) -> String {
    format!(
        "GRANT USAGE ON SCHEMA {schema} TO {role};
         GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA {schema} TO {role};
         GRANT USAGE ON ALL SEQUENCES IN SCHEMA {schema} TO {role};"
    )
}

/// Runs `sql` as the test's own role.
pub fn as_admin(sql: &str) {
    admin()
        .batch_execute(sql)
        .expect("run SQL as the test's role");
}

/// `url()` with `user` as the role.
pub fn url_as(user: &str) -> String {
    super::url_with("user", user)
}

fn admin() -> postgres::Client {
    postgres::Client::connect(&url(), postgres::NoTls).expect("connect to the test database")
}
