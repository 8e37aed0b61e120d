//! TLS as libpq's options ask for it: [`SslMode`], [`RootCerts`] and client certificates, made
//! into a rustls connector for `tokio-postgres`.
//!
//! | `sslmode`     | encrypted                    | the server's certificate checked         |
//! |---------------|------------------------------|------------------------------------------|
//! | `disable`     | never                        | —                                        |
//! | `prefer`      | if the server offers it      | only if root certificates are given      |
//! | `require`     | always                       | only if root certificates are given      |
//! | `verify-ca`   | always                       | signed by a trusted authority, unexpired |
//! | `verify-full` | always                       | that, and issued for the host's name     |
//!
//! As in libpq, `prefer` and `require` check the chain (as `verify-ca` does) when `sslrootcert`
//! names a file or `~/.postgresql/root.crt` exists, and a connection to Unix sockets only is never
//! encrypted, whatever the mode (one mode serves every host of a list, so a list that mixes
//! sockets and network hosts asks TLS of the sockets too, which `require` then refuses).

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{verify_server_cert_signed_by_trust_anchor, verify_server_name};
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::server::ParsedCertificate;
use rustls::{CertificateError, DigitallySignedStruct, OtherError, RootCertStore, SignatureScheme};
use tokio_postgres::config::Host;
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::PgError;
use crate::conninfo::TlsParams;

/// Whether and how a connection is encrypted, as libpq's `sslmode`; see the table in the
/// guide's PostgreSQL chapter.
///
/// The default is [`Prefer`](SslMode::Prefer), libpq's own, so a connection string means what
/// it means to `psql`: encrypted when the server offers it, but nothing checked, which stops a
/// listener and not an impostor. Across a network, use [`VerifyFull`](SslMode::VerifyFull).
///
/// ```
/// use project_lanes_pg::SslMode;
///
/// assert_eq!("verify-full".parse::<SslMode>()?, SslMode::VerifyFull);
/// assert_eq!(SslMode::default(), SslMode::Prefer);
/// assert!("verify_full".parse::<SslMode>().is_err());
/// # Ok::<(), project_lanes_pg::PgError>(())
/// ```
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SslMode {
    /// Never encrypted (a server that accepts only TLS refuses the connection).
    Disable,
    /// Encrypted if the server offers TLS, plain otherwise.
    #[default]
    Prefer,
    /// Always encrypted; the server's certificate is checked only if root certificates are given.
    Require,
    /// Always encrypted, and the server's certificate must be signed by a trusted authority and
    /// within its dates.
    VerifyCa,
    /// As [`VerifyCa`](SslMode::VerifyCa), and the certificate must name the host connected to.
    VerifyFull,
}

impl SslMode {
    /// libpq's name for the mode: `disable`, `prefer`, `require`, `verify-ca`, `verify-full`.
    pub fn as_str(self) -> &'static str {
        match self {
            SslMode::Disable => "disable",
            SslMode::Prefer => "prefer",
            SslMode::Require => "require",
            SslMode::VerifyCa => "verify-ca",
            SslMode::VerifyFull => "verify-full",
        }
    }

    fn verifies(self) -> bool {
        matches!(self, SslMode::VerifyCa | SslMode::VerifyFull)
    }
}

impl fmt::Display for SslMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for SslMode {
    type Err = PgError;

    /// libpq's names; `CONFIG` for any other, and for `allow` (plain first, TLS only if the
    /// server insists), which this crate does not offer.
    fn from_str(name: &str) -> Result<SslMode, PgError> {
        Ok(match name {
            "disable" => SslMode::Disable,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            "allow" => {
                return Err(PgError::Config(
                    "sslmode=allow (plain first, TLS only if the server insists) is not \
                     supported: use prefer, or disable"
                        .into(),
                ));
            }
            other => {
                return Err(PgError::Config(format!(
                    "unknown sslmode {other:?}: use disable, prefer, require, verify-ca or \
                     verify-full"
                )));
            }
        })
    }
}

/// The certificate authorities a server's certificate must be signed by: libpq's `sslrootcert`.
/// Non-exhaustive: other sources (certificates held in memory) may come.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RootCerts {
    /// The certificates in a PEM file (`sslrootcert=/path/ca.pem`), such as the bundle a
    /// managed database's provider publishes.
    File(PathBuf),
    /// The system's trusted roots (`sslrootcert=system`), for a server whose certificate comes
    /// from a public authority. As in libpq, only with [`SslMode::VerifyFull`], which is then
    /// the default: any weaker mode would take any site's certificate.
    System,
}

impl RootCerts {
    fn from_param(value: &str) -> RootCerts {
        match value {
            "system" => RootCerts::System,
            path => RootCerts::File(PathBuf::from(path)),
        }
    }
}

/// What a [`PgConfig`](crate::PgConfig)'s setters say, above its connection string.
#[derive(Debug, Default, Clone)]
pub(crate) struct Overrides {
    pub(crate) mode: Option<SslMode>,
    pub(crate) root: Option<RootCerts>,
    pub(crate) client: Option<(PathBuf, PathBuf)>,
}

/// The TLS options of one connection, the setters over the connection string; no file read yet.
#[derive(Debug)]
pub(crate) struct Settings {
    pub(crate) mode: SslMode,
    root: Option<RootCerts>,
    cert: Option<PathBuf>,
    key: Option<PathBuf>,
    /// Where libpq's default files are: `~/.postgresql`.
    defaults: Option<PathBuf>,
}

impl Settings {
    /// `CONFIG` for an unknown mode, or the system's roots with a mode weaker than
    /// `verify-full`.
    pub(crate) fn new(params: &TlsParams, overrides: &Overrides) -> Result<Settings, PgError> {
        let root = match &overrides.root {
            Some(root) => Some(root.clone()),
            None => params
                .sslrootcert
                .as_deref()
                .filter(|v| !v.is_empty())
                .map(RootCerts::from_param),
        };
        let mode = match (overrides.mode, params.sslmode.as_deref()) {
            (Some(mode), _) => mode,
            (None, Some(name)) if !name.is_empty() => name.parse()?,
            _ if root == Some(RootCerts::System) => SslMode::VerifyFull,
            _ => SslMode::default(),
        };
        if root == Some(RootCerts::System) && mode != SslMode::VerifyFull {
            return Err(PgError::Config(format!(
                "sslmode={mode} cannot be used with sslrootcert=system (the system's roots \
                 would take any site's certificate): use sslmode=verify-full"
            )));
        }
        let path = |v: &Option<String>| v.as_deref().filter(|v| !v.is_empty()).map(PathBuf::from);
        let (cert, key) = match &overrides.client {
            Some((cert, key)) => (Some(cert.clone()), Some(key.clone())),
            None => (path(&params.sslcert), path(&params.sslkey)),
        };
        let defaults = std::env::var_os("HOME")
            .filter(|h| !h.is_empty())
            .map(|home| Path::new(&home).join(".postgresql"));
        Ok(Settings {
            mode,
            root,
            cert,
            key,
            defaults,
        })
    }

    /// The driver's mode and the connector for `hosts`: no TLS when every host is a Unix
    /// socket (nothing is read then). Reads the certificate files: `CONFIG` naming the file
    /// that is missing or holds no usable PEM, and for `verify-*` without root certificates.
    pub(crate) fn connector(
        &self,
        hosts: &[Host],
        has_addresses: bool,
    ) -> Result<(tokio_postgres::config::SslMode, MakeRustlsConnect), PgError> {
        use tokio_postgres::config::SslMode as Driver;
        // ring, not aws-lc (rustls's default, which needs a C and assembler toolchain to
        // build); rustls deprecates it only for lacking post-quantum key exchange.
        #[allow(deprecated)]
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let all_sockets =
            !has_addresses && !hosts.is_empty() && hosts.iter().all(|h| !matches!(h, Host::Tcp(_)));
        if self.mode == SslMode::Disable || all_sockets {
            let unused = client_config(&provider, Check::Nothing, None)?;
            return Ok((Driver::Disable, MakeRustlsConnect::new(unused)));
        }
        let check = match self.roots()? {
            Some((roots, source)) => Check::Chain {
                roots: Arc::new(roots),
                name: self.mode == SslMode::VerifyFull,
                source,
            },
            None if self.mode.verifies() => {
                return Err(PgError::Config(format!(
                    "sslmode={} needs the certificate authorities to trust: set sslrootcert to \
                     a PEM file (a managed database's provider publishes one), or \
                     sslrootcert=system for the system's roots (there is no \
                     ~/.postgresql/root.crt)",
                    self.mode
                )));
            }
            None => Check::Nothing,
        };
        let config = client_config(&provider, check, self.client_cert(&provider)?)?;
        let driver = match self.mode {
            SslMode::Prefer => Driver::Prefer,
            _ => Driver::Require,
        };
        Ok((driver, MakeRustlsConnect::new(config)))
    }

    /// The roots to check the server's certificate against, and where they came from: the
    /// given ones, or `~/.postgresql/root.crt` if it exists.
    fn roots(&self) -> Result<Option<(RootCertStore, String)>, PgError> {
        let file = match &self.root {
            Some(RootCerts::System) => return system_roots().map(Some),
            Some(RootCerts::File(path)) => path.clone(),
            None => match self.default_file("root.crt").filter(|p| p.exists()) {
                Some(path) => path,
                None => return Ok(None),
            },
        };
        let source = format!("sslrootcert {}", file.display());
        let mut roots = RootCertStore::empty();
        for (n, cert) in certificates("sslrootcert", &file)?.into_iter().enumerate() {
            roots.add(cert).map_err(|e| {
                PgError::Config(format!(
                    "{source}: certificate {} cannot be a root: {e}",
                    n + 1
                ))
            })?;
        }
        Ok(Some((roots, source)))
    }

    /// `~/.postgresql/NAME`, where libpq looks by default.
    fn default_file(&self, name: &str) -> Option<PathBuf> {
        Some(self.defaults.as_ref()?.join(name))
    }

    /// The client's certificate chain and key: the given files, or
    /// `~/.postgresql/postgresql.crt` and `.key` if the certificate exists.
    fn client_cert(
        &self,
        provider: &CryptoProvider,
    ) -> Result<Option<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)>, PgError> {
        let cert = match &self.cert {
            Some(cert) => cert.clone(),
            None => match self.default_file("postgresql.crt").filter(|p| p.exists()) {
                Some(cert) => cert,
                None => return Ok(None),
            },
        };
        let key = match self
            .key
            .clone()
            .or_else(|| self.default_file("postgresql.key"))
        {
            Some(key) => key,
            None => {
                return Err(PgError::Config(format!(
                    "sslcert {} has no key: set sslkey",
                    cert.display()
                )));
            }
        };
        let chain = certificates("sslcert", &cert)?;
        let bytes = read("sslkey", &key)?;
        let key_file = key;
        let key = PrivateKeyDer::from_pem_slice(&bytes).map_err(|e| {
            let why = match e {
                rustls::pki_types::pem::Error::NoItemsFound => String::new(),
                e => format!(": {e}"),
            };
            PgError::Config(format!(
                "sslkey {} holds no usable private key (an unencrypted PEM key: PKCS#8, PKCS#1 \
                 or SEC1){why}",
                key_file.display()
            ))
        })?;
        rustls::sign::CertifiedKey::from_der(chain.clone(), key.clone_key(), provider).map_err(
            |e| match e {
                rustls::Error::InconsistentKeys(_) => PgError::Config(format!(
                    "sslkey {} is not the key of sslcert {}",
                    key_file.display(),
                    cert.display()
                )),
                e => PgError::Config(format!("sslkey {} cannot be used: {e}", key_file.display())),
            },
        )?;
        Ok(Some((chain, key)))
    }
}

fn read(option: &str, path: &Path) -> Result<Vec<u8>, PgError> {
    std::fs::read(path)
        .map_err(|e| PgError::Config(format!("cannot read {option} {}: {e}", path.display())))
}

/// Every certificate in a PEM file: `CONFIG` if it cannot be read, is not PEM, or holds none.
fn certificates(option: &str, path: &Path) -> Result<Vec<CertificateDer<'static>>, PgError> {
    let bytes = read(option, path)?;
    let certs = CertificateDer::pem_slice_iter(&bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| {
            PgError::Config(format!(
                "{option} {} is not a PEM file of certificates: {e}",
                path.display()
            ))
        })?;
    if certs.is_empty() {
        return Err(PgError::Config(format!(
            "{option} {} holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
            path.display()
        )));
    }
    Ok(certs)
}

/// The system's trusted roots: `CONFIG` if none can be loaded.
fn system_roots() -> Result<(RootCertStore, String), PgError> {
    let found = rustls_native_certs::load_native_certs();
    let mut roots = RootCertStore::empty();
    roots.add_parsable_certificates(found.certs);
    if roots.is_empty() {
        let why = found
            .errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ");
        return Err(PgError::Config(format!(
            "sslrootcert=system: no root certificate found on this system{}{why}",
            if why.is_empty() { "" } else { ": " }
        )));
    }
    Ok((roots, "the system's roots".to_owned()))
}

fn client_config(
    provider: &Arc<CryptoProvider>,
    check: Check,
    client: Option<(Vec<CertificateDer<'static>>, PrivateKeyDer<'static>)>,
) -> Result<rustls::ClientConfig, PgError> {
    let verifier = Verifier {
        check,
        algorithms: provider.signature_verification_algorithms,
    };
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| PgError::Config(format!("TLS: {e}")))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier));
    let mut config = match client {
        None => builder.with_no_client_auth(),
        Some((chain, key)) => builder.with_client_auth_cert(chain, key).map_err(|e| {
            PgError::Config(format!(
                "sslcert and sslkey cannot be used together: {e} (is the key the certificate's?)"
            ))
        })?,
    };
    // As libpq 17 does: PostgreSQL 17's direct TLS (`sslnegotiation=direct`) requires it, and
    // a server that knows no ALPN ignores it.
    config.alpn_protocols = vec![b"postgresql".to_vec()];
    Ok(config)
}

/// What is checked of the server's certificate.
#[derive(Debug)]
enum Check {
    /// Nothing: the connection is encrypted, but the server may be anyone.
    Nothing,
    /// Signed by one of `roots` and within its dates (`source` says where the roots came
    /// from), and, if `name`, issued for the host connected to.
    Chain {
        roots: Arc<RootCertStore>,
        name: bool,
        source: String,
    },
}

/// The server's certificate checked as the mode asks: libpq's `verify-ca` is rustls's usual
/// check without the name, which rustls's own verifier cannot leave out.
#[derive(Debug)]
struct Verifier {
    check: Check,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Check::Chain {
            roots,
            name,
            source,
        } = &self.check
        else {
            return Ok(ServerCertVerified::assertion());
        };
        let cert = ParsedCertificate::try_from(end_entity)?;
        verify_server_cert_signed_by_trust_anchor(
            &cert,
            roots,
            intermediates,
            now,
            self.algorithms.all,
        )
        .map_err(|e| match e {
            rustls::Error::InvalidCertificate(CertificateError::UnknownIssuer) => {
                rustls::Error::InvalidCertificate(CertificateError::Other(OtherError(Arc::new(
                    Untrusted(source.clone()),
                ))))
            }
            e => e,
        })?;
        if *name {
            verify_server_name(&cert, server_name)?;
        }
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

/// A certificate signed by no authority the roots hold (rustls says `UnknownIssuer`).
#[derive(Debug)]
struct Untrusted(String);

impl fmt::Display for Untrusted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the server's certificate is not signed by an authority in {}",
            self.0
        )
    }
}

impl std::error::Error for Untrusted {}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> TlsParams {
        let mut p = TlsParams::default();
        for &(k, v) in pairs {
            let slot = match k {
                "sslmode" => &mut p.sslmode,
                "sslrootcert" => &mut p.sslrootcert,
                "sslcert" => &mut p.sslcert,
                _ => &mut p.sslkey,
            };
            *slot = Some(v.to_owned());
        }
        p
    }

    /// Settings without libpq's default files.
    fn settings(pairs: &[(&str, &str)]) -> Result<Settings, PgError> {
        let mut s = Settings::new(&params(pairs), &Overrides::default())?;
        s.defaults = None;
        Ok(s)
    }

    fn tcp() -> Vec<Host> {
        vec![Host::Tcp("db.example".into())]
    }

    fn config_error<T>(result: Result<T, PgError>) -> String {
        match result {
            Err(e @ PgError::Config(_)) => e.to_string(),
            Err(e) => panic!("not a CONFIG error: {e}"),
            Ok(_) => panic!("no error"),
        }
    }

    #[test]
    fn every_libpq_mode_reads_back_as_its_name() {
        for mode in [
            SslMode::Disable,
            SslMode::Prefer,
            SslMode::Require,
            SslMode::VerifyCa,
            SslMode::VerifyFull,
        ] {
            assert_eq!(mode.as_str().parse::<SslMode>().unwrap(), mode);
        }
    }

    #[test]
    fn unknown_modes_and_allow_are_config_errors_that_say_what_to_use() {
        assert_eq!(
            config_error("verify_full".parse::<SslMode>()),
            "CONFIG: unknown sslmode \"verify_full\": use disable, prefer, require, verify-ca \
             or verify-full"
        );
        assert!(config_error("allow".parse::<SslMode>()).contains("use prefer, or disable"));
        assert!(config_error(settings(&[("sslmode", "on")])).contains("unknown sslmode \"on\""));
    }

    #[test]
    fn the_default_is_prefer_and_setters_win_over_the_string() {
        assert_eq!(settings(&[]).unwrap().mode, SslMode::Prefer);
        let overrides = Overrides {
            mode: Some(SslMode::VerifyCa),
            root: Some(RootCerts::File("ca.pem".into())),
            client: None,
        };
        let s = Settings::new(
            &params(&[("sslmode", "disable"), ("sslrootcert", "other.pem")]),
            &overrides,
        )
        .unwrap();
        assert_eq!(s.mode, SslMode::VerifyCa);
        assert_eq!(s.root, Some(RootCerts::File("ca.pem".into())));
    }

    #[test]
    fn system_roots_mean_verify_full_and_refuse_weaker_modes() {
        let s = settings(&[("sslrootcert", "system")]).unwrap();
        assert_eq!(
            (s.mode, s.root),
            (SslMode::VerifyFull, Some(RootCerts::System))
        );
        let weak = config_error(settings(&[
            ("sslrootcert", "system"),
            ("sslmode", "verify-ca"),
        ]));
        assert!(
            weak.contains("sslmode=verify-ca cannot be used with sslrootcert=system"),
            "{weak}"
        );
    }

    #[test]
    fn sockets_and_disable_read_no_file() {
        let missing = [
            ("sslmode", "verify-full"),
            ("sslrootcert", "/nonexistent/ca.pem"),
        ];
        let sockets = vec![Host::Unix("/run/postgresql".into())];
        let (mode, _) = settings(&missing)
            .unwrap()
            .connector(&sockets, false)
            .unwrap();
        assert_eq!(mode, tokio_postgres::config::SslMode::Disable);
        let disabled = settings(&[
            ("sslmode", "disable"),
            ("sslrootcert", "/nonexistent/ca.pem"),
        ]);
        let (mode, _) = disabled.unwrap().connector(&tcp(), false).unwrap();
        assert_eq!(mode, tokio_postgres::config::SslMode::Disable);
        // A socket beside a network host, or a host given by its address, is encrypted.
        let mixed = [sockets[0].clone(), tcp()[0].clone()];
        let error = config_error(settings(&missing).unwrap().connector(&mixed, false));
        assert!(error.contains("/nonexistent/ca.pem"), "{error}");
        assert!(
            settings(&missing)
                .unwrap()
                .connector(&sockets, true)
                .is_err()
        );
    }

    #[test]
    fn bad_certificate_files_are_config_errors_naming_the_file() {
        let dir = std::env::temp_dir().join(format!("lanes-tls-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let text = dir.join("not-pem.txt");
        std::fs::write(&text, "hello, not a certificate\n").unwrap();
        let broken = dir.join("broken.pem");
        std::fs::write(&broken, "-----BEGIN CERTIFICATE-----\nAAAA\n").unwrap();
        let cases = [
            (
                "/nonexistent/ca.pem".to_owned(),
                "cannot read sslrootcert /nonexistent/ca.pem: No such file or directory",
            ),
            (
                text.display().to_string(),
                "not-pem.txt holds no PEM certificate (-----BEGIN CERTIFICATE-----)",
            ),
            (
                broken.display().to_string(),
                "broken.pem is not a PEM file of certificates",
            ),
        ];
        for (file, says) in cases {
            let s = settings(&[("sslmode", "verify-full"), ("sslrootcert", &file)]).unwrap();
            let error = config_error(s.connector(&tcp(), false));
            assert!(error.contains(says), "{error}");
        }
        let s = settings(&[
            ("sslmode", "require"),
            ("sslcert", &text.display().to_string()),
            ("sslkey", "/nonexistent/key.pem"),
        ])
        .unwrap();
        let error = config_error(s.connector(&tcp(), false));
        assert!(
            error.contains("sslcert") && error.contains("not-pem.txt"),
            "{error}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn verify_modes_without_roots_say_how_to_give_them() {
        let s = settings(&[("sslmode", "verify-ca")]).unwrap();
        let error = config_error(s.connector(&tcp(), false));
        assert!(
            error.contains("sslmode=verify-ca needs the certificate authorities to trust")
                && error.contains("sslrootcert=system"),
            "{error}"
        );
    }
}
