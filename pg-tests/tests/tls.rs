//! TLS, as libpq's `sslmode` asks for it: against the test cluster, which takes TCP connections
//! only with TLS (its certificates in `LANES_PG_TLS_DIR`, made fresh by `cargo xtask pg-test`),
//! and against fake servers that answer badly (no TLS, an expired certificate, a handshake
//! cut off or never answered).

mod common;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use project_lanes::Outcome;
use project_lanes_pg::{PgConfig, PgError, PgLanes, RootCerts, SslMode};
use rcgen::{
    BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, KeyUsagePurpose,
    date_time_ymd,
};

use common::fresh_schema;

/// The role the cluster lets in by client certificate: the common name of its `client.pem`
/// (`xtask/src/pg_tls.rs`).
const CLIENT_ROLE: &str = "lanes_tls_client";

/// The cluster over TCP (`host=localhost port=… user=postgres dbname=postgres`, no TLS
/// options), from `LANES_PG_TLS_URL`.
fn tls_url() -> String {
    std::env::var("LANES_PG_TLS_URL").unwrap_or_else(|_| {
        panic!(
            "LANES_PG_TLS_URL is not set: the TLS tests need the cluster of `cargo xtask \
             pg-test`, which listens with TLS on 127.0.0.1 and sets it"
        )
    })
}

/// A file of the cluster's certificates (`ca.pem`, `other-ca.pem`, `client.pem`, …).
fn tls_file(name: &str) -> String {
    let dir = std::env::var("LANES_PG_TLS_DIR")
        .unwrap_or_else(|_| panic!("LANES_PG_TLS_DIR is not set: run `cargo xtask pg-test`"));
    PathBuf::from(dir).join(name).display().to_string()
}

/// The cluster's TCP port.
fn tls_port() -> u16 {
    let url = tls_url();
    let port = url
        .split_whitespace()
        .find_map(|pair| pair.strip_prefix("port="))
        .expect("LANES_PG_TLS_URL names a port");
    port.parse().expect("a port number")
}

/// The cluster over TCP with more options (a later option wins).
fn tls_url_with(options: &str) -> String {
    format!("{} {options}", tls_url())
}

/// Connects, claims and releases one lane: the handle works end to end.
fn claim_and_release(config: &PgConfig) {
    let lanes = PgLanes::connect_with(config).unwrap_or_else(|e| panic!("connect: {e}"));
    let lease = lanes.claim("docs", "tls-1").unwrap();
    lanes.release(&lease, Outcome::Succeeded).unwrap();
}

/// Why connecting with `config` fails, shown as a user sees it (and printed, to be read).
fn refusal(config: &PgConfig) -> PgError {
    let Err(error) = PgLanes::connect_with(config) else {
        panic!("the connection should have been refused");
    };
    eprintln!("{error}");
    error
}

fn config(url: &str) -> PgConfig {
    PgConfig::new(url, &fresh_schema()).timeout(Duration::from_secs(10))
}

/// A fake server on 127.0.0.1 for one connection: it reads the client's SSLRequest, then
/// `answer` has the socket. Returns its port.
fn fake_server(answer: impl FnOnce(TcpStream) + Send + 'static) -> u16 {
    const SSL_REQUEST: [u8; 8] = [0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f];
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let (mut socket, _) = listener.accept().unwrap();
        let mut request = [0; 8];
        socket.read_exact(&mut request).unwrap();
        assert_eq!(request, SSL_REQUEST, "the client's first message");
        answer(socket);
    });
    port
}

fn fake_url(port: u16, options: &str) -> String {
    format!("host=localhost port={port} user=postgres dbname=postgres {options}")
}

/// The tests, in a module so that `cargo xtask pg-test tls` picks them out by name.
mod tls {
    use super::*;

    #[ignore = "needs PostgreSQL: cargo xtask pg-test tls"]
    #[test]
    fn verify_full_connects_to_the_server_its_certificate_names() {
        let ca = tls_file("ca.pem");
        claim_and_release(&config(&tls_url_with(&format!(
            "sslmode=verify-full sslrootcert={ca}"
        ))));
        let url = format!(
            "postgresql://postgres@localhost:{}/postgres?sslmode=verify-full&sslrootcert={ca}",
            tls_port()
        );
        claim_and_release(&config(&url));
        claim_and_release(
            &config(&format!(
                "postgresql://postgres@localhost:{}/postgres",
                tls_port()
            ))
            .ssl_mode(SslMode::VerifyFull)
            .ssl_root_cert(RootCerts::File(ca.into())),
        );
    }

    #[ignore = "needs PostgreSQL: cargo xtask pg-test tls"]
    #[test]
    fn prefer_and_require_encrypt_without_checking_unless_given_roots() {
        // The cluster takes TCP connections only with TLS: these connect, so they are encrypted.
        claim_and_release(&config(&tls_url()));
        claim_and_release(&config(&tls_url_with("sslmode=require")));
        // With root certificates, require checks the chain as verify-ca does (libpq's rule).
        let other = tls_file("other-ca.pem");
        let error = refusal(&config(&tls_url_with(&format!(
            "sslmode=require sslrootcert={other}"
        ))));
        assert!(
            error.to_string().contains("not signed by an authority"),
            "{error}"
        );
    }

    #[ignore = "needs PostgreSQL: cargo xtask pg-test tls"]
    #[test]
    fn verify_full_refuses_a_certificate_for_another_name_and_verify_ca_does_not_ask() {
        let ca = tls_file("ca.pem");
        // The certificate names localhost, not the address.
        let by_address = format!(
            "host=127.0.0.1 port={} user=postgres dbname=postgres sslrootcert={ca}",
            tls_port()
        );
        let error = refusal(&config(&format!("{by_address} sslmode=verify-full")));
        assert_eq!(error.code(), "DATABASE");
        assert!(
            error.to_string().contains(
                "certificate not valid for name \"127.0.0.1\"; certificate is only valid for \
                 DnsName(\"localhost\")"
            ),
            "{error}"
        );
        claim_and_release(&config(&format!("{by_address} sslmode=verify-ca")));
    }

    #[ignore = "needs PostgreSQL: cargo xtask pg-test tls"]
    #[test]
    fn a_certificate_from_an_untrusted_authority_is_refused() {
        let other = tls_file("other-ca.pem");
        for mode in ["verify-ca", "verify-full"] {
            let error = refusal(&config(&tls_url_with(&format!(
                "sslmode={mode} sslrootcert={other}"
            ))));
            assert!(
                error.to_string().ends_with(&format!(
                    "error performing TLS handshake: invalid peer certificate: the server's \
                     certificate is not signed by an authority in sslrootcert {other}"
                )),
                "{error}"
            );
        }
    }

    #[ignore = "needs PostgreSQL: cargo xtask pg-test tls"]
    #[test]
    fn disable_is_refused_by_a_server_that_takes_only_tls() {
        let error = refusal(&config(&tls_url_with("sslmode=disable")));
        let text = error.to_string();
        assert!(
            text.starts_with("DATABASE: 28000: no pg_hba.conf entry for host \"127.0.0.1\"")
                && text.contains("no encryption"),
            "{text}"
        );
    }

    #[ignore = "needs PostgreSQL: cargo xtask pg-test tls"]
    #[test]
    fn a_client_certificate_logs_in_and_its_role_needs_one() {
        common::roles::as_admin(&format!(
            "BEGIN;
             SELECT pg_advisory_xact_lock(hashtext('project-lanes-pg test roles'));
             DO $$ BEGIN CREATE ROLE {CLIENT_ROLE} LOGIN;
             EXCEPTION WHEN duplicate_object THEN NULL; END $$;
             GRANT CREATE ON DATABASE postgres TO {CLIENT_ROLE};
             COMMIT;"
        ));
        let ca = tls_file("ca.pem");
        let as_client = tls_url_with(&format!(
            "user={CLIENT_ROLE} sslmode=verify-full sslrootcert={ca}"
        ));
        claim_and_release(
            &config(&as_client).ssl_client_cert(tls_file("client.pem"), tls_file("client.key")),
        );
        claim_and_release(&config(&format!(
            "{as_client} sslcert={} sslkey={}",
            tls_file("client.pem"),
            tls_file("client.key")
        )));
        let error = refusal(&config(&as_client));
        assert!(
            error.to_string().starts_with("DATABASE: 28000: "),
            "{error}"
        );
    }

    #[ignore = "needs PostgreSQL: cargo xtask pg-test tls"]
    #[test]
    fn lanes_pg_reads_a_schema_through_a_verify_full_url() {
        let schema = fresh_schema();
        let lanes = PgLanes::connect(&common::url(), &schema).unwrap();
        let lease = lanes.claim("docs", "tls-7").unwrap();
        let url = format!(
            "postgresql://postgres@localhost:{}/postgres?sslmode=verify-full&sslrootcert={}",
            tls_port(),
            tls_file("ca.pem")
        );
        let (code, out, err) = common::lanes_pg(&["status", &url, &schema]);
        assert_eq!(code, Some(0), "{err}");
        assert!(out.contains("docs") && out.contains("tls-7"), "{out}");
        let (code, _, err) = common::lanes_pg(&["audit", &url, &schema]);
        assert_eq!(code, Some(0), "{err}");
        let untrusted = url.replace("ca.pem", "other-ca.pem");
        let (code, out, err) = common::lanes_pg(&["status", &untrusted, &schema]);
        eprint!("{err}");
        assert_eq!((code, out.as_str()), (Some(1), ""), "{err}");
        assert!(
            err.starts_with("lanes-pg: ")
                && err.contains("not signed by an authority")
                && err.lines().count() == 1,
            "{err}"
        );
        lanes.release(&lease, Outcome::Succeeded).unwrap();
    }

    #[ignore = "needs PostgreSQL: cargo xtask pg-test tls"]
    #[test]
    fn bad_tls_options_are_config_errors_before_connecting() {
        let folder = tempfile::tempdir().unwrap();
        let text = folder.path().join("notes.txt");
        std::fs::write(&text, "not a certificate\n").unwrap();
        let text = text.display().to_string();
        for (options, says) in [
            (
                "sslmode=verify".to_owned(),
                "CONFIG: unknown sslmode \"verify\": use disable, prefer, require, verify-ca or \
                 verify-full"
                    .to_owned(),
            ),
            (
                "sslmode=verify-full sslrootcert=/nonexistent/ca.pem".to_owned(),
                "CONFIG: cannot read sslrootcert /nonexistent/ca.pem: No such file or directory \
                 (os error 2)"
                    .to_owned(),
            ),
            (
                format!("sslmode=verify-full sslrootcert={text}"),
                format!(
                    "CONFIG: sslrootcert {text} holds no PEM certificate (-----BEGIN CERTIFICATE-----)"
                ),
            ),
            (
                format!("sslcert={text} sslkey={}", tls_file("client.key")),
                format!(
                    "CONFIG: sslcert {text} holds no PEM certificate (-----BEGIN CERTIFICATE-----)"
                ),
            ),
            (
                format!("sslcert={} sslkey={text}", tls_file("client.pem")),
                format!("CONFIG: sslkey {text} holds no usable private key"),
            ),
            (
                format!(
                    "sslcert={} sslkey={}",
                    tls_file("client.pem"),
                    tls_file("server.key")
                ),
                format!(
                    "CONFIG: sslkey {} is not the key of sslcert {}",
                    tls_file("server.key"),
                    tls_file("client.pem")
                ),
            ),
        ] {
            let error = refusal(&config(&tls_url_with(&options)));
            assert!(error.to_string().starts_with(&says), "{options}: {error}");
            let (code, _, err) = common::lanes_pg(&["status", &tls_url_with(&options), "lanes"]);
            assert_eq!(code, Some(1), "{err}");
            assert!(err.starts_with(&format!("lanes-pg: {says}")), "{err}");
        }
    }

    #[test]
    fn require_refuses_a_server_without_tls() {
        let port = fake_server(|mut socket| {
            socket.write_all(b"N").unwrap();
            let _ = socket.read_to_end(&mut Vec::new());
        });
        let error = refusal(&config(&fake_url(port, "sslmode=require")));
        assert_eq!(
            error.to_string(),
            "DATABASE: 08000: error performing TLS handshake: server does not support TLS"
        );
    }

    #[test]
    fn an_expired_certificate_is_refused() {
        let folder = tempfile::tempdir().unwrap();
        let key = KeyPair::generate().unwrap();
        let mut authority = CertificateParams::new(Vec::<String>::new()).unwrap();
        authority
            .distinguished_name
            .push(DnType::CommonName, "expiry test CA");
        authority.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        authority.key_usages = vec![KeyUsagePurpose::KeyCertSign];
        let ca_file = folder.path().join("ca.pem");
        std::fs::write(&ca_file, authority.self_signed(&key).unwrap().pem()).unwrap();
        let issuer = Issuer::new(authority, key);
        let server_key = KeyPair::generate().unwrap();
        let mut server = CertificateParams::new(vec!["localhost".to_owned()]).unwrap();
        server.not_before = date_time_ymd(2019, 1, 1);
        server.not_after = date_time_ymd(2020, 1, 1);
        let cert = server.signed_by(&server_key, &issuer).unwrap();
        #[allow(deprecated)] // ring, as the library uses
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let tls = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![cert.der().clone()],
                rustls::pki_types::PrivateKeyDer::Pkcs8(server_key.serialize_der().into()),
            )
            .unwrap();
        let port = fake_server(move |mut socket| {
            socket.write_all(b"S").unwrap();
            let mut tls = rustls::ServerConnection::new(Arc::new(tls)).unwrap();
            while tls.is_handshaking() {
                if tls.complete_io(&mut socket).is_err() {
                    break;
                }
            }
        });
        let error = refusal(&config(&fake_url(
            port,
            &format!("sslmode=verify-full sslrootcert={}", ca_file.display()),
        )));
        assert!(
            error.to_string().starts_with(
                "DATABASE: 08000: error performing TLS handshake: invalid peer certificate: \
                 certificate expired: verification time"
            ),
            "{error}"
        );
    }

    #[test]
    fn a_server_that_closes_during_the_handshake_is_an_error() {
        let port = fake_server(|mut socket| {
            socket.write_all(b"S").unwrap();
            // Half of the client's hello, then gone.
            let mut hello = [0; 16];
            let _ = socket.read(&mut hello);
        });
        let error = refusal(&config(&fake_url(port, "sslmode=require")));
        assert!(
            error
                .to_string()
                .starts_with("DATABASE: 08000: error performing TLS handshake: "),
            "{error}"
        );
    }

    #[test]
    fn a_server_silent_during_the_handshake_is_given_up_after_the_time_limit() {
        let port = fake_server(|mut socket| {
            socket.write_all(b"S").unwrap();
            // Reads the client's hello and answers nothing until the client leaves.
            let _ = socket.read_to_end(&mut Vec::new());
        });
        let config = PgConfig::new(&fake_url(port, "sslmode=require"), "lanes")
            .timeout(Duration::from_millis(200));
        let error = refusal(&config);
        assert!(
            error
                .to_string()
                .starts_with("DATABASE: 08006: no answer from the server within 1200 ms"),
            "{error}"
        );
    }
}
