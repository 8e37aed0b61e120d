//! A throwaway PostgreSQL cluster for the tests and benchmarks of `project-lanes-pg`.
//!
//! Debian's `postgresql` package (installed with apt-get when running as root and missing), a
//! fresh cluster in `target/pg/` made by `initdb` (as the `postgres` user when running as root:
//! `initdb` refuses root; the cluster then lives in a folder of the checkout's own under the
//! system's temporary folder, which that user can reach), listening on a Unix socket in its
//! `socket/` folder with `trust` authentication, and on 127.0.0.1 at a free port with TLS only
//! (`ssl=on`, certificates in its `tls/` folder made by [`pg_tls`](crate::pg_tls); `hostssl`
//! lines only, so a plain connection over TCP is refused;
//! [`pg_tls::CLIENT_ROLE`](crate::pg_tls::CLIENT_ROLE) logs in by client certificate, every
//! other role by `trust`). [`Cluster`] stops it when dropped, so it is
//! stopped however the tests end. The database tests are `#[ignore]`d (plain `cargo test` passes
//! without a database and says so); with the cluster they run with `--include-ignored`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use crate::util::{Result, output, run, step};

/// The environment variable that hands the connection string to the tests.
pub const URL_VAR: &str = "LANES_PG_URL";

/// The environment variable that hands the tests the cluster over TCP with TLS, as a key-value
/// string without TLS options (`host=localhost port=… user=postgres dbname=postgres`).
pub const TLS_URL_VAR: &str = "LANES_PG_TLS_URL";

/// The environment variable naming the folder of the cluster's certificates
/// ([`pg_tls`](crate::pg_tls)).
pub const TLS_DIR_VAR: &str = "LANES_PG_TLS_DIR";

/// Who may connect: anyone over the socket; over TCP only with TLS, the client certificate's
/// role by its certificate.
fn pg_hba() -> String {
    format!(
        "local all all trust\n\
         hostssl all {role} 127.0.0.1/32 cert\n\
         hostssl all all 127.0.0.1/32 trust\n",
        role = crate::pg_tls::CLIENT_ROLE
    )
}

/// A running cluster; stopped (`pg_ctl stop -m fast`) when dropped.
pub struct Cluster {
    bin: PathBuf,
    data: PathBuf,
    socket: PathBuf,
    /// The TCP port (TLS only), also in the socket's name.
    port: u16,
    tls: PathBuf,
    as_postgres: bool,
}

impl Cluster {
    /// Installs PostgreSQL if needed and starts a fresh cluster (see [`cluster_folder`]).
    pub fn start(root: &Path) -> Result<Cluster> {
        let bin = server_bin()?;
        let as_postgres = is_root();
        let base = cluster_folder(root, as_postgres);
        let data = base.join("data");
        let socket = base.join("socket");
        let tls = base.join("tls");
        // A cluster left running by an interrupted run: stop it before wiping its folder.
        if data.join("postmaster.pid").exists() {
            let _ = pg_command(&bin, "pg_ctl", as_postgres)
                .args(["stop", "-m", "immediate", "-D"])
                .arg(&data)
                .output();
        }
        if base.exists() {
            std::fs::remove_dir_all(&base)
                .map_err(|e| format!("cannot remove {}: {e}", base.display()))?;
        }
        for folder in [&socket, &tls] {
            std::fs::create_dir_all(folder)
                .map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
        }
        crate::pg_tls::write(&tls)?;
        if as_postgres {
            run(Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(&base))?;
        }
        let started = Instant::now();
        step(&format!(
            "starting a throwaway PostgreSQL in {} (Unix socket, and TLS on 127.0.0.1)",
            base.display()
        ));
        let initdb = pg_command(&bin, "initdb", as_postgres)
            .args(["--auth=trust", "--username=postgres", "--encoding=UTF8"])
            .args(["--locale=C", "--no-instructions", "-D"])
            .arg(&data)
            .output()
            .map_err(|e| format!("could not start initdb: {e}"))?;
        if !initdb.status.success() {
            return Err(format!(
                "initdb failed ({}):\n{}",
                initdb.status,
                String::from_utf8_lossy(&initdb.stderr)
            )
            .into());
        }
        let hba = data.join("pg_hba.conf");
        std::fs::write(&hba, pg_hba())
            .map_err(|e| format!("cannot write {}: {e}", hba.display()))?;
        let port = free_port()?;
        let options = format!(
            "-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories='{}' \
             -c ssl=on -c ssl_cert_file='{tls}/server.pem' -c ssl_key_file='{tls}/server.key' \
             -c ssl_ca_file='{tls}/ca.pem' -c max_connections=200 -c shared_buffers=64MB \
             -c fsync=on -c synchronous_commit=on",
            socket.display(),
            tls = tls.display()
        );
        let cluster = Cluster {
            bin,
            data,
            socket,
            port,
            tls,
            as_postgres,
        };
        let log = base.join("server.log");
        let start = pg_command(&cluster.bin, "pg_ctl", as_postgres)
            .args(["start", "-w", "-t", "60", "-D"])
            .arg(&cluster.data)
            .arg("-l")
            .arg(&log)
            .args(["-o", &options])
            .output()
            .map_err(|e| format!("could not start pg_ctl: {e}"))?;
        if !start.status.success() {
            let log = std::fs::read_to_string(&log).unwrap_or_default();
            return Err(format!(
                "PostgreSQL did not start ({}):\n{}{log}",
                start.status,
                String::from_utf8_lossy(&start.stderr)
            )
            .into());
        }
        eprintln!(
            "    initdb and start took {:.2} s",
            started.elapsed().as_secs_f64()
        );
        Ok(cluster)
    }

    /// `command` with the cluster's addresses in [`URL_VAR`], [`TLS_URL_VAR`] and
    /// [`TLS_DIR_VAR`].
    pub fn configure<'c>(&self, command: &'c mut Command) -> &'c mut Command {
        command
            .env(URL_VAR, self.url())
            .env(TLS_URL_VAR, self.tls_url())
            .env(TLS_DIR_VAR, &self.tls)
    }

    /// The connection string: the socket folder, user `postgres`, database `postgres`.
    pub fn url(&self) -> String {
        format!(
            "host={} port={} user=postgres dbname=postgres",
            self.socket.display(),
            self.port
        )
    }

    /// The connection string over TCP, where only TLS is accepted (no TLS options in it).
    pub fn tls_url(&self) -> String {
        format!(
            "host=localhost port={} user=postgres dbname=postgres",
            self.port
        )
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        step("stopping the throwaway PostgreSQL");
        let stopped = pg_command(&self.bin, "pg_ctl", self.as_postgres)
            .args(["stop", "-m", "fast", "-w", "-D"])
            .arg(&self.data)
            .output();
        if !stopped.is_ok_and(|o| o.status.success()) {
            eprintln!(
                "xtask: warning: could not stop PostgreSQL in {}",
                self.data.display()
            );
        }
    }
}

/// Where the cluster lives: `root/target/pg/`, or, when it runs as the `postgres` user (xtask
/// runs as root), a folder of this checkout's own under the system's temporary folder. The
/// `postgres` user must be able to reach the folder, and a checkout may sit below a folder only
/// root may enter (`mktemp -d` makes such folders: initdb then fails with "Permission denied").
fn cluster_folder(root: &Path, as_postgres: bool) -> PathBuf {
    if !as_postgres {
        return root.join("target/pg");
    }
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    std::hash::Hash::hash(&root, &mut hasher);
    std::env::temp_dir().join(format!(
        "project-lanes-pg-{:016x}",
        std::hash::Hasher::finish(&hasher)
    ))
}

/// Runs `cargo args…` in `root` with a fresh cluster, its URL in [`URL_VAR`]; the cluster is
/// stopped afterwards whatever the result.
pub fn with_cluster(root: &Path, args: &[&str]) -> Result<()> {
    let cluster = Cluster::start(root)?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    run(cluster.configure(Command::new(cargo).args(args).current_dir(root)))
}

/// Runs the test binaries `tests` (each with `--include-ignored`, in `dir`) with a fresh
/// cluster, every one even after a failure; the cluster is stopped afterwards.
pub fn binaries_with_cluster(root: &Path, dir: &Path, tests: &[PathBuf]) -> Result<()> {
    let cluster = Cluster::start(root)?;
    let mut failed = Vec::new();
    for test in tests {
        let mut command = Command::new(test);
        command.arg("--include-ignored").current_dir(dir);
        if let Err(e) = run(cluster.configure(&mut command)) {
            failed.push(e.to_string());
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        Err(failed.join("\n").into())
    }
}

/// A TCP port on 127.0.0.1 that nothing listens on now.
fn free_port() -> Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")
        .map_err(|e| format!("cannot find a free port on 127.0.0.1: {e}"))?;
    Ok(listener.local_addr()?.port())
}

/// Runs `cargo args…` in `root` with no [`URL_VAR`], as on a machine without PostgreSQL: the
/// database tests must then be reported ignored, not fail.
pub fn without_database(root: &Path, args: &[&str]) -> Result<()> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    run(Command::new(cargo)
        .args(args)
        .current_dir(root)
        .env_remove(URL_VAR)
        .env_remove(TLS_URL_VAR)
        .env_remove(TLS_DIR_VAR))
}

fn is_root() -> bool {
    output(Command::new("id").arg("-u")).is_some_and(|id| id.trim() == "0")
}

/// A command for one of the server's programs, as the `postgres` user when running as root.
fn pg_command(bin: &Path, program: &str, as_postgres: bool) -> Command {
    let path = bin.join(program);
    if as_postgres {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(path);
        command
    } else {
        Command::new(path)
    }
}

/// The newest `/usr/lib/postgresql/<version>/bin` holding `initdb` and `pg_ctl`, installing
/// Debian's `postgresql` package first when running as root and none is found.
fn server_bin() -> Result<PathBuf> {
    if let Some(bin) = find_server_bin() {
        return Ok(bin);
    }
    if !crate::tools::can_apt() {
        return Err(
            "the PostgreSQL tests need the PostgreSQL server (initdb, pg_ctl).\n\
                    On Debian or Ubuntu: sudo apt-get install -y postgresql\n\
                    Elsewhere, install PostgreSQL 13 or newer and set PG_BIN to the folder \
                    holding initdb and pg_ctl."
                .into(),
        );
    }
    step("installing PostgreSQL (apt-get install postgresql)");
    crate::tools::apt_install(&["postgresql"], None)?;
    find_server_bin().ok_or_else(|| "apt-get finished but initdb and pg_ctl are missing".into())
}

fn find_server_bin() -> Option<PathBuf> {
    if let Some(bin) = std::env::var_os("PG_BIN").map(PathBuf::from) {
        return Some(bin);
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            (bin.join("initdb").is_file() && bin.join("pg_ctl").is_file()).then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}
