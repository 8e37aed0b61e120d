//! The chaos run itself: workers on shared projects while processes are killed, sessions cut
//! off and one worker paused past its recovery, which a second, less privileged role runs and
//! resolves; then the whole journal as one record, checked three ways, and the work intervals
//! checked for overlaps.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use project_lanes_pg::{PgConfig, PgDispatcher, PgLanes};

use crate::{QUEUES, Rng};

const SCHEMA: &str = "chaos";
const WORKER_ROLE: &str = "chaos_worker";
const OPS_ROLE: &str = "chaos_ops";

/// What the run was asked to do.
pub struct Options {
    url: String,
    bin: PathBuf,
    out: PathBuf,
    secs: f64,
    seed: u64,
    workers: usize,
    pace: u64,
}

impl Options {
    pub fn parse(args: &[&str]) -> Result<Options, String> {
        let mut options = Options {
            url: String::new(),
            bin: PathBuf::new(),
            out: PathBuf::new(),
            secs: 90.0,
            seed: 1,
            workers: 6,
            pace: 0,
        };
        let mut args = args.iter();
        while let Some(&flag) = args.next() {
            let value = args.next().ok_or_else(|| format!("{flag} needs a value"))?;
            let number = |what: &str| format!("{flag} needs {what}, not `{value}`");
            match flag {
                "--url" => options.url = (*value).to_owned(),
                "--bin" => options.bin = PathBuf::from(value),
                "--out" => options.out = PathBuf::from(value),
                "--secs" => {
                    options.secs = value
                        .parse()
                        .ok()
                        .filter(|s: &f64| *s >= 2.0)
                        .ok_or_else(|| number("a number of seconds, at least 2"))?
                }
                "--seed" => options.seed = value.parse().map_err(|_| number("a number"))?,
                "--pace" => {
                    options.pace = value
                        .parse()
                        .map_err(|_| number("a number of milliseconds"))?
                }
                "--workers" => {
                    options.workers = value
                        .parse()
                        .ok()
                        .filter(|w| *w >= 2)
                        .ok_or_else(|| number("a number, at least 2"))?
                }
                other => return Err(format!("unknown option {other}")),
            }
        }
        if options.url.is_empty()
            || options.bin.as_os_str().is_empty()
            || options.out.as_os_str().is_empty()
        {
            return Err("run needs --url, --bin and --out".into());
        }
        Ok(options)
    }
}

/// What happened, counted.
#[derive(Default)]
struct Counts {
    kills: u32,
    cut_offs: u32,
    pauses: u32,
    recoveries: u32,
    marked: usize,
    orphans_resolved: usize,
    reservations_resolved: usize,
}

/// A worker process, and its log lines (read by a thread of their own).
struct Worker {
    id: u64,
    child: Child,
    reader: Option<JoinHandle<()>>,
}

pub fn run(options: Options) -> Result<(), String> {
    let started = Instant::now();
    std::fs::create_dir_all(&options.out)
        .map_err(|e| format!("cannot make {}: {e}", options.out.display()))?;
    let mut admin = postgres::Client::connect(&options.url, postgres::NoTls)
        .map_err(|e| format!("cannot connect to the cluster: {e}"))?;
    set_up(&mut admin, &options.url)?;
    let ops_url = format!("{} user={OPS_ROLE}", options.url);
    println!(
        "chaos: {} workers for {} s on {} projects and {} queues (seed {})",
        options.workers,
        options.secs,
        crate::PROJECTS.len(),
        QUEUES.len(),
        options.seed
    );
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let deadline = started + Duration::from_secs_f64(options.secs);
    let mut next_id = 0;
    let spawn = |next_id: &mut u64| -> Result<Worker, String> {
        *next_id += 1;
        let left = deadline
            .saturating_duration_since(Instant::now())
            .as_secs_f64();
        start_worker(&options, *next_id, left, &log)
    };
    let mut workers = Vec::new();
    for _ in 0..options.workers {
        workers.push(spawn(&mut next_id)?);
    }
    let mut rng = Rng(options.seed.wrapping_mul(0x2545_f491_4f6c_dd1d) | 1);
    let mut counts = Counts::default();
    let mut paused: Option<(usize, Instant)> = None;
    while Instant::now() + Duration::from_millis(500) < deadline {
        std::thread::sleep(Duration::from_millis(300 + rng.below(900) as u64));
        if let Some((i, until)) = paused
            && Instant::now() >= until
        {
            signal(&workers[i].child, libc::SIGCONT);
            paused = None;
        }
        let i = rng.below(workers.len());
        if paused.is_some_and(|(p, _)| p == i) {
            continue;
        }
        match rng.below(10) {
            0 | 1 => {
                // A worker killed mid-run: its sessions end, what it held waits for recovery.
                signal(&workers[i].child, libc::SIGKILL);
                finish(&mut workers[i]);
                workers[i] = spawn(&mut next_id)?;
                counts.kills += 1;
            }
            2 | 3 => {
                cut_off(&mut admin, workers[i].id)?;
                counts.cut_offs += 1;
            }
            4 if paused.is_none() => {
                // Paused, its sessions cut off, recovered and resolved by the second role
                // while it sleeps; it wakes up later to find its lanes gone (fenced).
                signal(&workers[i].child, libc::SIGSTOP);
                cut_off(&mut admin, workers[i].id)?;
                std::thread::sleep(Duration::from_millis(200));
                recover(&ops_url, &mut counts)?;
                paused = Some((i, Instant::now() + Duration::from_millis(1_500)));
                counts.pauses += 1;
            }
            _ => recover(&ops_url, &mut counts)?,
        }
    }
    if let Some((i, _)) = paused {
        signal(&workers[i].child, libc::SIGCONT);
    }
    for worker in &mut workers {
        let waited = Instant::now();
        while worker.child.try_wait().ok().flatten().is_none() {
            if waited.elapsed() > Duration::from_secs(20) {
                signal(&worker.child, libc::SIGKILL);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        finish(worker);
    }
    recover(&ops_url, &mut counts)?;
    let ran = started.elapsed().as_secs_f64();
    println!(
        "chaos: ran {ran:.1} s: {} kills, {} sessions cut off, {} paused past recovery; \
         {OPS_ROLE} ran recovery {} times (marking {}; workers reconnecting ran it too) and \
         resolved {} orphaned lanes and {} unresolved reservations",
        counts.kills,
        counts.cut_offs,
        counts.pauses,
        counts.recoveries,
        counts.marked,
        counts.orphans_resolved,
        counts.reservations_resolved
    );
    let log = std::mem::take(&mut *log.lock().unwrap_or_else(|p| p.into_inner()));
    check(&options, &ops_url, &mut admin, &log)
}

/// A fresh schema owned by the cluster's role, and the two roles: the workers', and the
/// operator's, which has only the application grants.
fn set_up(admin: &mut postgres::Client, url: &str) -> Result<(), String> {
    let sql = |admin: &mut postgres::Client, sql: &str| {
        admin
            .batch_execute(sql)
            .map_err(|e| format!("cannot set the run up: {e}"))
    };
    sql(admin, &format!("DROP SCHEMA IF EXISTS {SCHEMA} CASCADE"))?;
    for role in [WORKER_ROLE, OPS_ROLE] {
        sql(
            admin,
            &format!(
                "DO $$ BEGIN
                   IF EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{role}') THEN
                     EXECUTE 'DROP OWNED BY {role} CASCADE'; DROP ROLE {role};
                   END IF;
                 END $$;
                 CREATE ROLE {role} LOGIN"
            ),
        )?;
    }
    // The owner creates the schema at the crate's version.
    PgDispatcher::connect(url, SCHEMA, &QUEUES)
        .map_err(|e| format!("cannot create the schema: {e}"))?;
    for role in [WORKER_ROLE, OPS_ROLE] {
        sql(
            admin,
            &format!(
                "GRANT USAGE ON SCHEMA {SCHEMA} TO {role};
                 GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA {SCHEMA} TO {role};
                 GRANT USAGE ON ALL SEQUENCES IN SCHEMA {SCHEMA} TO {role}"
            ),
        )?;
    }
    Ok(())
}

fn start_worker(
    options: &Options,
    id: u64,
    seconds: f64,
    log: &Arc<Mutex<Vec<String>>>,
) -> Result<Worker, String> {
    let url = format!(
        "{} user={WORKER_ROLE} application_name=worker-{id}",
        options.url
    );
    let exe = std::env::current_exe().map_err(|e| format!("cannot find myself: {e}"))?;
    let mut child = Command::new(exe)
        .args([
            "worker",
            &url,
            SCHEMA,
            &id.to_string(),
            &format!("{seconds:.3}"),
            &options.seed.to_string(),
            &options.pace.to_string(),
        ])
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start a worker: {e}"))?;
    let stdout = child.stdout.take().ok_or("a worker without its output")?;
    let log = Arc::clone(log);
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            log.lock().unwrap_or_else(|p| p.into_inner()).push(line);
        }
    });
    Ok(Worker {
        id,
        child,
        reader: Some(reader),
    })
}

/// Waits for a worker that was killed or has ended, and for its log.
fn finish(worker: &mut Worker) {
    let _ = worker.child.wait();
    if let Some(reader) = worker.reader.take() {
        let _ = reader.join();
    }
}

fn signal(child: &Child, signal: libc::c_int) {
    // SAFETY: kill sends a signal to the process id of a child this run started.
    #[allow(unsafe_code)]
    unsafe {
        libc::kill(child.id() as libc::pid_t, signal)
    };
}

/// Cuts worker `id`'s sessions off, as a lost network or a killed backend would.
fn cut_off(admin: &mut postgres::Client, id: u64) -> Result<(), String> {
    admin
        .execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
            &[&format!("worker-{id}")],
        )
        .map(|_| ())
        .map_err(|e| format!("cannot cut a worker off: {e}"))
}

/// Recovery as the operator's role, and what it marked resolved: orphaned lanes freed,
/// unresolved reservations cleared.
fn recover(ops_url: &str, counts: &mut Counts) -> Result<(), String> {
    let config = PgConfig::new(ops_url, SCHEMA)
        .actor("operator")
        .timeout(Duration::from_secs(10));
    let failed = |e: project_lanes_pg::PgError| format!("recovery as {OPS_ROLE} failed: {e}");
    let lanes = PgLanes::connect_with(&config).map_err(failed)?;
    let recovery = lanes.recover().map_err(failed)?;
    counts.recoveries += 1;
    counts.marked += recovery.orphans.len() + recovery.reservations.len();
    for orphan in lanes.orphans().map_err(failed)? {
        if lanes.resolve_orphan(&orphan.project).is_ok() {
            counts.orphans_resolved += 1;
        }
    }
    let mut dispatcher = PgDispatcher::connect_with(&config, &QUEUES).map_err(failed)?;
    let unresolved: Vec<_> = dispatcher
        .reservations()
        .map_err(failed)?
        .into_iter()
        .filter(|v| v.state == project_lanes::dispatch::ReservationState::Unresolved)
        .collect();
    for view in unresolved {
        if dispatcher.resolve(view.id).is_ok() {
            counts.reservations_resolved += 1;
        }
    }
    Ok(())
}

/// The whole journal as one record, replayed and audited; a row changed by SQL named by both;
/// no two accepted runs of a project overlapping.
fn check(
    options: &Options,
    ops_url: &str,
    admin: &mut postgres::Client,
    log: &[String],
) -> Result<(), String> {
    let record = options.out.join("chaos.jsonl");
    let lanes_pg = options.bin.join("lanes-pg");
    let lane_records = options.bin.join("lane-records");
    let rows: i64 = admin
        .query_one(&format!("SELECT count(*) FROM {SCHEMA}.lanes_journal"), &[])
        .map_err(|e| e.to_string())?
        .get(0);
    let proof = Proof::new(&options.out);
    proof.checkpoint(&lanes_pg, ops_url)?;
    let timed = Instant::now();
    let export = export(&lanes_pg, ops_url, &record, Some(&proof.key))?;
    let exported = timed.elapsed().as_secs_f64();
    expect(&export, 0, "lanes-pg export")?;
    let bytes = std::fs::metadata(&record).map(|m| m.len()).unwrap_or(0);
    let timed = Instant::now();
    let replay = tool(
        &lane_records,
        &[
            "replay",
            &record.to_string_lossy(),
            "--public-key",
            &proof.public_key().to_string_lossy(),
        ],
    )?;
    let replayed = timed.elapsed().as_secs_f64();
    expect(&replay, 0, "lane-records replay")?;
    let timed = Instant::now();
    let audit = tool(&lanes_pg, &proof.audit(ops_url))?;
    let audited = timed.elapsed().as_secs_f64();
    expect(&audit, 0, "lanes-pg audit")?;
    println!(
        "chaos: {rows} journal rows; export {exported:.1} s ({bytes} bytes, {:.1} a row), \
         lane-records replay {replayed:.1} s, lanes-pg audit {audited:.1} s: {}",
        bytes as f64 / rows.max(1) as f64,
        audit.1.trim()
    );
    println!(
        "chaos: {}",
        replay.1.lines().nth(1).unwrap_or_default().trim()
    );
    tampered(options, ops_url, admin, &lanes_pg, &lane_records)?;
    outcome_changed(options, ops_url, admin, &lanes_pg, &lane_records, &proof)?;
    overlaps(log)
}

/// The run's signing key and the checkpoint it signs, in the output folder.
struct Proof {
    key: PathBuf,
    checkpoint: PathBuf,
}

impl Proof {
    fn new(out: &Path) -> Proof {
        Proof {
            key: out.join("chaos.key"),
            checkpoint: out.join("checkpoint.txt"),
        }
    }

    fn public_key(&self) -> PathBuf {
        self.key.with_extension("key.pub")
    }

    /// A new key (the last run's removed: keygen never replaces one), and a checkpoint of the
    /// whole journal (which seals it) signed with it.
    fn checkpoint(&self, lanes_pg: &Path, ops_url: &str) -> Result<(), String> {
        for old in [&self.key, &self.public_key(), &self.checkpoint] {
            let _ = std::fs::remove_file(old);
        }
        let key = self.key.to_string_lossy();
        let keygen = tool(
            lanes_pg,
            &["keygen", "--name", "lanes-chaos", "--out", &key],
        )?;
        expect(&keygen, 0, "lanes-pg keygen")?;
        let checkpoint = tool(
            lanes_pg,
            &[
                "checkpoint",
                ops_url,
                SCHEMA,
                "--key",
                &key,
                "--out",
                &self.checkpoint.to_string_lossy(),
            ],
        )?;
        expect(&checkpoint, 0, "lanes-pg checkpoint")
    }

    /// `lanes-pg audit`'s arguments, proving the journal against the checkpoint.
    fn audit(&self, ops_url: &str) -> Vec<String> {
        vec![
            "audit".into(),
            ops_url.into(),
            SCHEMA.into(),
            "--checkpoint".into(),
            self.checkpoint.to_string_lossy().into_owned(),
            "--public-key".into(),
            self.public_key().to_string_lossy().into_owned(),
        ]
    }
}

/// The whole journal exported by `lanes-pg` as the record `out`, with a checkpoint of its root
/// signed by `key` if one is given.
fn export(
    lanes_pg: &Path,
    ops_url: &str,
    out: &Path,
    key: Option<&Path>,
) -> Result<(i32, String, String), String> {
    let mut args: Vec<String> = [
        "export",
        ops_url,
        SCHEMA,
        "--id",
        "chaos",
        "--system",
        "lanes-chaos",
        "--out",
        &out.to_string_lossy(),
    ]
    .map(str::to_owned)
    .to_vec();
    if let Some(key) = key {
        args.extend(["--key".to_owned(), key.to_string_lossy().into_owned()]);
    }
    tool(lanes_pg, &args)
}

/// A failed run's release turned into a success by SQL after the journal was sealed and
/// checkpointed (any outcome replays, so only the chain can tell): audit names the row and
/// refuses the checkpoint, and a new export's replay names the step where its chain breaks;
/// then the row is put back.
fn outcome_changed(
    options: &Options,
    ops_url: &str,
    admin: &mut postgres::Client,
    lanes_pg: &Path,
    lane_records: &Path,
    proof: &Proof,
) -> Result<(), String> {
    let row = admin
        .query_one(
            &format!(
                "SELECT seq FROM {SCHEMA}.lanes_journal WHERE op = 'release' AND code = 'OK'
                 AND outcome = 'failed' AND link IS NOT NULL ORDER BY seq LIMIT 1"
            ),
            &[],
        )
        .map_err(|e| format!("no failed release to change: {e}"))?;
    let seq: i64 = row.get(0);
    let change = |admin: &mut postgres::Client, outcome: &str| {
        admin
            .execute(
                &format!("UPDATE {SCHEMA}.lanes_journal SET outcome = $1 WHERE seq = $2"),
                &[&outcome, &seq],
            )
            .map_err(|e| format!("cannot change row {seq}: {e}"))
    };
    change(admin, "succeeded")?;
    let audit = tool(lanes_pg, &proof.audit(ops_url));
    let changed = options.out.join("chaos-changed.jsonl");
    let export = export(lanes_pg, ops_url, &changed, None);
    let replay = tool(lane_records, &["replay", &changed.to_string_lossy()]);
    change(admin, "failed")?;
    let _ = std::fs::remove_file(&changed);
    let audit = audit?;
    expect(&audit, 1, "lanes-pg audit of a changed outcome")?;
    if !audit.1.contains(&seq.to_string()) && !audit.2.contains(&seq.to_string()) {
        return Err(format!(
            "audit did not name row {seq}: {} {}",
            audit.1, audit.2
        ));
    }
    expect(&export?, 0, "lanes-pg export of a changed outcome")?;
    let replay = replay?;
    expect(&replay, 1, "lane-records replay of a changed outcome")?;
    if !replay.1.contains("the chain breaks") {
        return Err(format!(
            "replay did not say where the chain breaks: {}",
            replay.1
        ));
    }
    println!(
        "chaos: row {seq} changed by SQL (a release's outcome failed to succeeded): audit says \
         {}; replay of a new export says {}",
        audit.1.trim().replace('\n', " / "),
        replay.1.lines().next().unwrap_or_default().trim()
    );
    Ok(())
}

/// A successful claim's row turned into a refusal by SQL: audit names that row, and a new
/// export's replay names its step; then the row is put back.
fn tampered(
    options: &Options,
    ops_url: &str,
    admin: &mut postgres::Client,
    lanes_pg: &Path,
    lane_records: &Path,
) -> Result<(), String> {
    let row = admin
        .query_one(
            &format!(
                "SELECT seq FROM {SCHEMA}.lanes_journal WHERE op = 'claim' AND code = 'OK'
                 ORDER BY seq OFFSET (SELECT count(*) / 2 FROM {SCHEMA}.lanes_journal
                                      WHERE op = 'claim' AND code = 'OK') LIMIT 1"
            ),
            &[],
        )
        .map_err(|e| format!("no claim to change: {e}"))?;
    let seq: i64 = row.get(0);
    let change = |admin: &mut postgres::Client, code: &str| {
        admin
            .execute(
                &format!("UPDATE {SCHEMA}.lanes_journal SET code = $1 WHERE seq = $2"),
                &[&code, &seq],
            )
            .map_err(|e| format!("cannot change row {seq}: {e}"))
    };
    change(admin, "PROJECT_BUSY")?;
    let audit = tool(lanes_pg, &["audit", ops_url, SCHEMA]);
    let changed = options.out.join("chaos-changed.jsonl");
    let export = export(lanes_pg, ops_url, &changed, None);
    let replay = tool(lane_records, &["replay", &changed.to_string_lossy()]);
    change(admin, "OK")?;
    let _ = std::fs::remove_file(&changed);
    let audit = audit?;
    expect(&audit, 1, "lanes-pg audit of a changed row")?;
    if !audit.1.contains(&seq.to_string()) {
        return Err(format!("audit did not name row {seq}: {}", audit.1));
    }
    expect(&export?, 0, "lanes-pg export of a changed row")?;
    let replay = replay?;
    expect(&replay, 1, "lane-records replay of a changed row")?;
    println!(
        "chaos: row {seq} changed by SQL (a claim's OK to PROJECT_BUSY): audit says {}; replay \
         of a new export says {}",
        audit.1.trim(),
        replay.1.lines().next().unwrap_or_default().trim()
    );
    Ok(())
}

/// No two runs of one project whose release (or save) was accepted worked at the same time;
/// runs that lost their lane (fenced) or their connection are counted, not checked.
fn overlaps(log: &[String]) -> Result<(), String> {
    let mut by_project: BTreeMap<&str, Vec<(u128, u128, u64)>> = BTreeMap::new();
    let (mut released, mut fenced, mut lost) = (0, 0, 0);
    for line in log {
        let fields: Vec<&str> = line.split(' ').collect();
        let ["WORK", project, generation, start, end, how] = fields.as_slice() else {
            continue;
        };
        match *how {
            "released" => released += 1,
            "fenced" => {
                fenced += 1;
                continue;
            }
            _ => {
                lost += 1;
                continue;
            }
        }
        let parse = |s: &str| {
            s.parse::<u128>()
                .map_err(|_| format!("a bad log line: {line}"))
        };
        let generation = generation
            .parse::<u64>()
            .map_err(|_| format!("a bad log line: {line}"))?;
        by_project
            .entry(project)
            .or_default()
            .push((parse(start)?, parse(end)?, generation));
    }
    for (project, intervals) in &mut by_project {
        intervals.sort_unstable();
        for pair in intervals.windows(2) {
            let ((_, end, a), (start, _, b)) = (pair[0], pair[1]);
            if start < end {
                return Err(format!(
                    "two runs of {project} overlapped: generation {a} worked until {end} ns, \
                     generation {b} from {start} ns"
                ));
            }
        }
    }
    println!(
        "chaos: {released} runs released, none overlapping another of its project; {fenced} \
         fenced (their lane was taken from them), {lost} lost with their connection"
    );
    Ok(())
}

/// Runs a tool: its exit status, stdout and stderr.
fn tool<S: AsRef<std::ffi::OsStr>>(
    program: &Path,
    args: &[S],
) -> Result<(i32, String, String), String> {
    let out = Command::new(program)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    Ok((
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

fn expect(result: &(i32, String, String), status: i32, what: &str) -> Result<(), String> {
    if result.0 == status {
        return Ok(());
    }
    Err(format!(
        "{what} exited with {} (expected {status}): {}{}",
        result.0, result.1, result.2
    ))
}
