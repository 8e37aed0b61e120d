//! A sealed journal's export carries the chain: the record proves itself in any reader, a row
//! changed by SQL after its seal breaks a new export's chain at that row's step, rows not yet
//! sealed are the record's last steps, unchained, and a signed export carries a checkpoint of
//! its root that names its signer.

mod common;

use project_lanes::Outcome;
use project_lanes::record::checkpoint::SigningKey;
use project_lanes::record::json::ReadError;
use project_lanes::record::stream::{Chain, Chained, Reader, Verdict};
use project_lanes_pg::journal::{self, Cut};
use project_lanes_pg::{PgConfig, PgLanes};

use common::{fresh_schema, url};

/// A fresh schema whose journal holds `pairs` claims and releases, the first `sealed` of them
/// sealed.
fn journal_of(pairs: usize, sealed: usize) -> (String, PgConfig) {
    let schema = fresh_schema();
    let config = PgConfig::new(&url(), &schema);
    let lanes = PgLanes::connect(&url(), &schema).unwrap();
    for i in 0..pairs {
        if i == sealed {
            journal::seal(&config).unwrap();
        }
        let lease = lanes
            .claim(&format!("p{}", i % 3), &format!("r{i}"))
            .unwrap();
        let outcome = if i % 2 == 0 {
            Outcome::Failed
        } else {
            Outcome::Succeeded
        };
        lanes.release(&lease, outcome).unwrap();
    }
    if sealed >= pairs {
        journal::seal(&config).unwrap();
    }
    (schema, config)
}

fn exported(config: &PgConfig, key: Option<&SigningKey>) -> Vec<u8> {
    let cut = Cut::new("chained", "farm");
    let mut bytes = Vec::new();
    match key {
        Some(key) => journal::export_signed(config, &cut, key, &mut bytes).unwrap(),
        None => journal::export(config, &cut, &mut bytes).unwrap(),
    };
    bytes
}

fn read(bytes: &[u8]) -> Result<Verdict, ReadError> {
    let mut reader = Reader::new();
    reader.feed(bytes, &mut |_| {})?;
    reader.finish(&mut |_| {})
}

fn chained(verdict: &Verdict) -> &Chained {
    match &verdict.chain {
        Chain::Chained(chained) => chained,
        Chain::Unchained => panic!("the export is unchained"),
    }
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn a_sealed_journals_export_is_chained_to_the_sealed_root_and_signed() {
    let (_, config) = journal_of(30, 30);
    let head = journal::seal(&config).unwrap().head;
    let verdict = read(&exported(&config, None)).unwrap();
    assert_eq!(chained(&verdict).end, head);
    assert_eq!(chained(&verdict).steps, 60);
    let key = SigningKey::from_seed("ops.example", [5; 32]).unwrap();
    let verdict = read(&exported(&config, Some(&key))).unwrap();
    let checkpoint = chained(&verdict).checkpoint.clone().unwrap();
    assert_eq!(checkpoint.signer, Some(key.verifier().fingerprint()));
    assert_eq!(
        checkpoint.journal,
        journal::checkpoint(&config).unwrap().journal
    );
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn rows_not_yet_sealed_are_the_records_last_steps_unchained() {
    let (_, config) = journal_of(10, 6);
    let verdict = read(&exported(&config, None)).unwrap();
    let chain = chained(&verdict);
    assert_eq!((chain.steps, chain.unchained), (12, 8));
}

#[ignore = "needs PostgreSQL: cargo xtask test, or set LANES_PG_URL"]
#[test]
fn an_outcome_changed_by_sql_after_its_seal_breaks_a_new_exports_chain_at_its_step() {
    let (schema, config) = journal_of(12, 12);
    let mut client = postgres::Client::connect(&url(), postgres::NoTls).unwrap();
    let seq: i64 = client
        .query_one(
            &format!(
                "SELECT seq FROM {schema}.lanes_journal WHERE op = 'release' AND outcome = 'failed' \
                 ORDER BY seq OFFSET 2 LIMIT 1"
            ),
            &[],
        )
        .unwrap()
        .get(0);
    client
        .execute(
            &format!("UPDATE {schema}.lanes_journal SET outcome = 'succeeded' WHERE seq = $1"),
            &[&seq],
        )
        .unwrap();
    let bytes = exported(&config, None);
    let text = String::from_utf8(bytes.clone()).unwrap();
    // The edited row is the fifth failed release's step: the third failed one is now
    // succeeded, so it is the record's fifth release with an even run number.
    let line = text
        .lines()
        .position(|l| l.contains(r#""op":"release""#) && l.contains(r#""lease":"L5""#))
        .unwrap() as u64
        + 1;
    match read(&bytes) {
        Err(ReadError::Line {
            line: found, error, ..
        }) => {
            assert_eq!(found, line, "{error}");
            assert!(error.to_string().contains("the chain breaks"), "{error}");
        }
        other => panic!("an edited row went unnoticed: {other:?}"),
    }
}
