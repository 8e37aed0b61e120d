//! `seal`, `checkpoint` and `keygen`: the journal's hash chain for an operator, and the files
//! an audit proves it against (a checkpoint, a public key).

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use clap::Args;
use project_lanes::record::checkpoint::{Checkpoint, Note, SigningKey, VerifierKey};
use project_lanes_pg::PgConfig;
use project_lanes_pg::journal::{self as pg_journal};
use serde_json::json;

use crate::{Done, Failure, Place, say, say_json};

pub const SEAL_HELP: &str =
    "Gives every transition committed when it is called its link of the journal's hash chain \
(SHA-256 over each transition's fields and the link before it), so that an edit, a removal or a \
reordering of any of them is named by lanes-pg audit. Transitions wait only while it waits for \
those in flight (the longest of them); the rows are then linked while they go on. Needs UPDATE \
on the journal (the schema's owner). Run it every few seconds, or before each checkpoint (which \
seals too): a row is unsealed until the next seal after it.

examples:
  lanes-pg seal lanes
  lanes-pg seal postgresql://ops@db/app lanes --json";

pub const CHECKPOINT_HELP: &str =
    "Seals the journal, then prints a checkpoint: the journal's identity, its number of links, \
the chain's root and the server's time, as a signed note (C2SP). Keep it where the database \
cannot reach: lanes-pg audit --checkpoint FILE later proves that the journal still extends it \
(no row before it changed, removed or moved, and none removed from its end). With --key it is \
signed with that Ed25519 key (lanes-pg keygen makes one; the database never sees it). With \
--out it is written to FILE, which it must not replace (a kept checkpoint is evidence).

examples:
  lanes-pg checkpoint lanes --key ops.key --out kept/2026-12-06.txt
  lanes-pg checkpoint postgresql://ops@db/app lanes > kept/unsigned.txt";

pub const KEYGEN_HELP: &str =
    "Makes an Ed25519 key for signing checkpoints from 32 random bytes of the operating \
system: FILE holds the signing key (mode 0600: keep it away from the database and its \
superuser), FILE.pub the public key that auditors use (--public-key). Neither file may exist \
already. The keys are Go's sumdb/note keys: other signed-note tools read them.

examples:
  lanes-pg keygen --name ops.example --out ops.key";

#[derive(Args)]
#[command(override_usage = "lanes-pg seal [URL] SCHEMA [--json] [--timeout SECONDS]")]
pub struct SealArgs {
    #[command(flatten)]
    pub place: Place,
    /// Print what was sealed as JSON
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
#[command(
    override_usage = "lanes-pg checkpoint [URL] SCHEMA [--key FILE] [--out FILE] \
                      [--timeout SECONDS]"
)]
pub struct CheckpointArgs {
    #[command(flatten)]
    pub place: Place,
    /// Sign it with this key (lanes-pg keygen's FILE)
    #[arg(long, value_name = "FILE")]
    key: Option<PathBuf>,
    /// Write it to FILE, a new file (default: stdout)
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
}

#[derive(Args)]
#[command(override_usage = "lanes-pg keygen --name NAME --out FILE")]
pub struct KeygenArgs {
    /// The key's name, as signatures show it (ops.example)
    #[arg(long, value_name = "NAME", required = true)]
    name: Option<String>,
    /// The signing key's file; the public key goes to FILE.pub
    #[arg(long, value_name = "FILE", required = true)]
    out: Option<PathBuf>,
}

pub fn seal(out: &mut impl Write, config: &PgConfig, args: &SealArgs) -> Done {
    let sealed = pg_journal::seal(config).map_err(|e| Failure::Error(e.to_string()))?;
    let head = sealed.head;
    if args.json {
        say_json(
            out,
            &json!({
                "sealed": sealed.sealed,
                "links": head.links,
                "root": head.hash.to_hex(),
                "last_seq": sealed.last_seq,
            }),
        )
    } else {
        say!(
            out,
            "sealed {} transitions: the chain has {} links, its root {}",
            sealed.sealed,
            head.links,
            head.hash
        )
    }
}

pub fn checkpoint(out: &mut impl Write, config: &PgConfig, args: &CheckpointArgs) -> Done {
    // The key first: a mistake in it costs no seal.
    let key = args.key.as_deref().map(read_signing_key).transpose()?;
    if let Some(path) = args.out.as_ref().filter(|path| path.exists()) {
        return Err(Failure::Error(format!(
            "{} exists already: a checkpoint never replaces a file (a kept one is evidence); \
             name a new one",
            path.display()
        )));
    }
    let checkpoint = pg_journal::checkpoint(config).map_err(|e| Failure::Error(e.to_string()))?;
    let text = match &key {
        Some(key) => checkpoint.sign(key),
        None => checkpoint.body(),
    };
    match &args.out {
        None => out.write_all(text.as_bytes()).map_err(crate::write_error),
        Some(path) => {
            write_new(path, text.as_bytes(), 0o644)?;
            say!(
                out,
                "wrote {}: {} links, root {}{}",
                path.display(),
                checkpoint.links,
                checkpoint.root,
                match &key {
                    Some(key) => format!(", signed by {}", key.verifier().fingerprint()),
                    None => ", unsigned".into(),
                }
            )
        }
    }
}

pub fn keygen(out: &mut impl Write, args: &KeygenArgs) -> Done {
    let (Some(name), Some(path)) = (&args.name, &args.out) else {
        return Err(Failure::Usage("--name and --out are required".into()));
    };
    let public = public_path(path);
    for file in [path, &public] {
        if file.exists() {
            return Err(Failure::Error(format!(
                "{} exists already: keygen never replaces a key; name a new file",
                file.display()
            )));
        }
    }
    let mut seed = [0u8; 32];
    getrandom::fill(&mut seed).map_err(|e| {
        Failure::Error(format!(
            "cannot read random bytes from the operating system: {e}"
        ))
    })?;
    let key = SigningKey::from_seed(name, seed).map_err(|e| Failure::Usage(e.to_string()))?;
    let verifier = key.verifier();
    write_new(path, format!("{}\n", key.to_text()).as_bytes(), 0o600)?;
    if let Err(e) = write_new(
        &public,
        format!("{}\n", verifier.to_text()).as_bytes(),
        0o644,
    ) {
        // All or nothing: a signing key without its public key is of no use to anyone.
        let _ = std::fs::remove_file(path);
        return Err(e);
    }
    say!(
        out,
        "wrote {} (the signing key, mode 0600) and {} (the public key {})",
        path.display(),
        public.display(),
        verifier.fingerprint()
    )
}

/// `FILE.pub`.
fn public_path(path: &Path) -> PathBuf {
    let mut public = path.as_os_str().to_owned();
    public.push(".pub");
    PathBuf::from(public)
}

/// Writes `bytes` to `path`, a new file with `mode`; an existing one is refused, never replaced.
fn write_new(path: &Path, bytes: &[u8], mode: u32) -> Done {
    let cannot =
        |e: std::io::Error| Failure::Error(format!("cannot write {}: {e}", path.display()));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .open(path)
        .map_err(cannot)?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(cannot)
}

/// A file's bytes, at most `limit` of them (a key or a checkpoint is a few hundred).
fn read_small(path: &Path, what: &str) -> Result<Vec<u8>, Failure> {
    use std::io::Read;
    const LIMIT: u64 = 64 * 1024;
    let file = std::fs::File::open(path)
        .map_err(|e| Failure::Error(format!("cannot read the {what} {}: {e}", path.display())))?;
    let mut bytes = Vec::new();
    file.take(LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Failure::Error(format!("cannot read the {what} {}: {e}", path.display())))?;
    if bytes.len() as u64 > LIMIT {
        return Err(Failure::Error(format!(
            "{} is over {LIMIT} bytes: not a {what}",
            path.display()
        )));
    }
    Ok(bytes)
}

/// A key file's one line of text.
fn key_text(path: &Path, what: &str) -> Result<String, Failure> {
    let bytes = read_small(path, what)?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Failure::Error(format!("{}: the {what} is not UTF-8 text", path.display())))?;
    Ok(text.trim_end_matches(['\n', '\r']).to_owned())
}

/// The signing key in `path` (lanes-pg keygen's FILE).
pub fn read_signing_key(path: &Path) -> Result<SigningKey, Failure> {
    SigningKey::parse(&key_text(path, "signing key")?)
        .map_err(|e| Failure::Error(format!("{}: {e}", path.display())))
}

/// The public key in `path` (lanes-pg keygen's `FILE.pub`).
pub fn read_verifier_key(path: &Path) -> Result<VerifierKey, Failure> {
    VerifierKey::parse(&key_text(path, "public key")?)
        .map_err(|e| Failure::Error(format!("{}: {e}", path.display())))
}

/// The checkpoint in `path`, its signature checked with `key` if one is given.
pub fn read_checkpoint(path: &Path, key: Option<&VerifierKey>) -> Result<Note, Failure> {
    let bytes = read_small(path, "checkpoint")?;
    let note = Checkpoint::parse_bytes(&bytes)
        .map_err(|e| Failure::Error(format!("{}: {e}", path.display())))?;
    if let Some(key) = key {
        note.verify(key)
            .map_err(|e| Failure::Error(format!("{}: {e}", path.display())))?;
    }
    Ok(note)
}
