//! The test cluster's certificates, made fresh by rcgen for each run: a CA, the server's
//! certificate (for `localhost`) signed by it, a client certificate for [`CLIENT_ROLE`], and a
//! second CA that signed nothing here. The CA's key is kept, so tests can sign more (an expired
//! certificate, one for another name).
//!
//! Files, all PEM: `ca.pem`, `ca.key`, `server.pem`, `server.key`, `client.pem`, `client.key`,
//! `other-ca.pem`.

use std::path::Path;

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};

use crate::util::Result;

/// The role that logs in by certificate (`hostssl … cert` in `pg_hba.conf`): the client
/// certificate's common name.
pub const CLIENT_ROLE: &str = "lanes_tls_client";

/// Writes the files into `dir`, which exists; keys are readable by their owner only.
pub fn write(dir: &Path) -> Result<()> {
    let (ca_pem, ca) = authority("project-lanes test CA")?;
    let (other_pem, _) = authority("project-lanes unrelated CA")?;
    let server = signed(
        &ca,
        "localhost",
        &["localhost"],
        ExtendedKeyUsagePurpose::ServerAuth,
    )?;
    let client = signed(&ca, CLIENT_ROLE, &[], ExtendedKeyUsagePurpose::ClientAuth)?;
    let files = [
        ("ca.pem", ca_pem),
        ("ca.key", ca.key().serialize_pem()),
        ("other-ca.pem", other_pem),
        ("server.pem", server.0),
        ("server.key", server.1),
        ("client.pem", client.0),
        ("client.key", client.1),
    ];
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        if name.ends_with(".key") {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))
                .map_err(|e| format!("cannot restrict {}: {e}", path.display()))?;
        }
    }
    Ok(())
}

/// A self-signed CA: its certificate (PEM) and what signs with it.
fn authority(name: &str) -> Result<(String, Issuer<'static, KeyPair>)> {
    let key = KeyPair::generate()?;
    let mut params = CertificateParams::new(Vec::<String>::new())?;
    params.distinguished_name.push(DnType::CommonName, name);
    params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    params.key_usages = vec![
        KeyUsagePurpose::KeyCertSign,
        KeyUsagePurpose::CrlSign,
        KeyUsagePurpose::DigitalSignature,
    ];
    let cert = params.self_signed(&key)?;
    Ok((cert.pem(), Issuer::new(params, key)))
}

/// A certificate for `names` with common name `cn`, signed by `ca`: (certificate, key) in PEM.
fn signed(
    ca: &Issuer<'static, KeyPair>,
    cn: &str,
    names: &[&str],
    usage: ExtendedKeyUsagePurpose,
) -> Result<(String, String)> {
    let key = KeyPair::generate()?;
    let mut params =
        CertificateParams::new(names.iter().map(|n| n.to_string()).collect::<Vec<_>>())?;
    params.distinguished_name.push(DnType::CommonName, cn);
    params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    params.extended_key_usages = vec![usage];
    let cert = params.signed_by(&key, ca)?;
    Ok((cert.pem(), key.serialize_pem()))
}
