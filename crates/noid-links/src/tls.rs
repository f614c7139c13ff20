//! The checker's TLS: certificates verified against the system's CA store (read by
//! rustls-native-certs) and, when configured, a private CA's PEM file; and each
//! server's certificate expiry noted as it is verified, so that an `ok` target can be
//! told its certificate is about to expire.

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};

use crate::config::ConfigError;

/// When each server's certificate expires (seconds since the epoch), by server name.
pub type Expiries = Arc<Mutex<HashMap<String, u64>>>;

/// A client configuration trusting the system's CAs and `ca_file`'s, noting expiries
/// in the map it returns.
pub fn client_config(ca_file: Option<&Path>) -> Result<(ClientConfig, Expiries), ConfigError> {
    let mut roots = RootCertStore::empty();
    let native = rustls_native_certs::load_native_certs();
    roots.add_parsable_certificates(native.certs);
    if let Some(path) = ca_file {
        let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_file_iter(path)
            .map_err(|e| ConfigError(format!("cannot read the CA file {}: {e}", path.display())))?
            .collect::<Result<_, _>>()
            .map_err(|e| ConfigError(format!("{}: not PEM certificates: {e}", path.display())))?;
        if certs.is_empty() {
            return Err(ConfigError(format!(
                "{}: no certificate in it (PEM, -----BEGIN CERTIFICATE-----)",
                path.display()
            )));
        }
        for cert in certs {
            roots.add(cert).map_err(|e| {
                ConfigError(format!(
                    "{}: a certificate rustls refuses: {e}",
                    path.display()
                ))
            })?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let inner = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
        .build()
        .map_err(|e| {
            ConfigError(format!(
                "no CA certificate to verify servers with ({e}); install the system's CA \
                 certificates (ca-certificates) or name a CA file"
            ))
        })?;
    let expiries = Expiries::default();
    let verifier = Arc::new(Noting {
        inner,
        expiries: expiries.clone(),
    });
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| ConfigError(format!("TLS: {e}")))?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    Ok((config, expiries))
}

/// The standard verifier, noting the expiry of each certificate it accepts.
#[derive(Debug)]
struct Noting {
    inner: Arc<WebPkiServerVerifier>,
    expiries: Expiries,
}

impl ServerCertVerifier for Noting {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let verified = self.inner.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        )?;
        if let Some(expires) = not_after(end_entity.as_ref()) {
            let name = server_name.to_str().to_ascii_lowercase();
            self.expiries
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(name, expires);
        }
        Ok(verified)
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

/// One DER element: its tag, its contents, and what follows it.
fn element(der: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, rest) = der.split_first()?;
    let (&first, rest) = rest.split_first()?;
    let (len, rest) = if first < 0x80 {
        (usize::from(first), rest)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 || rest.len() < n {
            return None;
        }
        let len = rest[..n]
            .iter()
            .fold(0usize, |a, &b| a << 8 | usize::from(b));
        (len, &rest[n..])
    };
    (rest.len() >= len).then(|| (tag, &rest[..len], &rest[len..]))
}

/// The `notAfter` of an X.509 certificate (RFC 5280 §4.1: Certificate → tbsCertificate
/// → [0] version, serialNumber, signature, issuer, validity → notBefore, notAfter), in
/// seconds since the epoch. A certificate rustls has just verified is well formed;
/// anything else gives `None`.
pub fn not_after(der: &[u8]) -> Option<u64> {
    let (_, cert, _) = element(der)?;
    let (_, tbs, _) = element(cert)?;
    let mut rest = tbs;
    let (tag, _, after) = element(rest)?;
    if tag == 0xa0 {
        rest = after;
    }
    for _ in 0..3 {
        rest = element(rest)?.2; // serialNumber, signature, issuer
    }
    let (_, validity, _) = element(rest)?;
    let (_, after) = element(validity).map(|(_, _, r)| ((), r))?;
    let (tag, time, _) = element(after)?;
    let text = std::str::from_utf8(time).ok()?;
    // UTCTime YYMMDDHHMMSSZ (years 1950–2049), GeneralizedTime YYYYMMDDHHMMSSZ.
    let full = match tag {
        0x17 if text.len() == 13 => {
            let yy: u32 = text[..2].parse().ok()?;
            format!("{}{text}", if yy >= 50 { "19" } else { "20" })
        }
        0x18 if text.len() == 15 => text.to_string(),
        _ => return None,
    };
    let iso = format!(
        "{}-{}-{}T{}:{}:{}Z",
        &full[..4],
        &full[4..6],
        &full[6..8],
        &full[8..10],
        &full[10..12],
        &full[12..14]
    );
    humantime::parse_rfc3339(&iso)
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()
        .map(|d| d.as_secs())
}
