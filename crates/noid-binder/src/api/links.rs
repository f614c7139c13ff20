//! `[links]`: the link checker's schedule inside `noid serve` and the owners' digests
//! (docs/LINKS.md). Checked once, at startup, so that a typo stops the server with a
//! message that names the field rather than a schedule that silently never runs.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use ipnet::IpNet;
use serde::{Deserialize, Deserializer};

use super::config::Populator;

/// `[links]`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinksConfig {
    /// Every target is checked at most once per interval, the checks spread evenly
    /// over it (default 30 days).
    #[serde(default = "default_interval", deserialize_with = "duration")]
    pub interval: Duration,
    /// Requests at once, all hosts together (default 16).
    #[serde(default = "default_concurrency")]
    pub concurrency: usize,
    /// Requests at once to one host (default 2).
    #[serde(default = "default_per_host")]
    pub per_host: usize,
    /// K: failures in a row before a target is `broken` (default 3).
    #[serde(default = "default_failures")]
    pub failures: u32,
    /// D: the K failures must be spread over at least this long (default 72 hours).
    #[serde(default = "default_span", deserialize_with = "duration")]
    pub span: Duration,
    /// The URL the checker's User-Agent names, where a site owner learns who checks
    /// and how to ask for less (required).
    pub contact: Option<String>,
    /// Networks (CIDR) the checker may connect to although they are loopback, private
    /// or otherwise special-purpose (an intranet's targets).
    #[serde(default)]
    pub allow_net: Vec<String>,
    /// The console's address (`https://noid.example.org/console/`): digests link to the
    /// populator's "Link health" page under it.
    pub console_url: Option<String>,
    /// The Memento TimeGate asked for the archived copy of a target that turns broken
    /// where the minter's archived-copy policy covers it (`noid links policy`; default
    /// the Internet Archive's).
    pub timegate: Option<String>,
    /// The owners' digests; none without it.
    pub digest: Option<Digest>,
}

/// `[links.digest]`: what newly broke, drifted or was blocked, told to each populator.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Digest {
    /// How often each populator's digest is made (default one day).
    #[serde(default = "default_every", deserialize_with = "duration")]
    pub every: Duration,
    /// An SMTP relay, `HOST:PORT`, submitted to without TLS or login (a relay on the
    /// host or the site's network).
    pub smtp: Option<String>,
    /// The `sendmail` program to pipe messages to (`/usr/sbin/sendmail`).
    pub sendmail: Option<PathBuf>,
    /// The digests' sender address.
    pub from: Option<String>,
    /// Where a populator's digest is mailed when it names no `digest_to`.
    pub to: Option<String>,
    /// Where a populator's digest is POSTed as JSON when it names no `digest_webhook`.
    pub webhook: Option<String>,
}

/// How mail leaves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mailer {
    /// SMTP to a relay at `HOST:PORT`.
    Smtp(String),
    /// Piped to a `sendmail` program.
    Sendmail(PathBuf),
}

impl Digest {
    /// How mail leaves, if it does.
    pub fn mailer(&self) -> Option<Mailer> {
        match (&self.smtp, &self.sendmail) {
            (Some(relay), _) => Some(Mailer::Smtp(relay.clone())),
            (None, Some(path)) => Some(Mailer::Sendmail(path.clone())),
            (None, None) => None,
        }
    }

    /// Where populator `p`'s digest is mailed, if anywhere.
    pub fn to_of<'a>(&'a self, p: &'a Populator) -> Option<&'a str> {
        p.digest_to.as_deref().or(self.to.as_deref())
    }

    /// Where populator `p`'s digest is POSTed, if anywhere.
    pub fn webhook_of<'a>(&'a self, p: &'a Populator) -> Option<&'a str> {
        p.digest_webhook.as_deref().or(self.webhook.as_deref())
    }
}

impl LinksConfig {
    /// `allow_net`, parsed (checked at startup, so never fails after it).
    pub fn allowed_nets(&self) -> Vec<IpNet> {
        self.allow_net.iter().filter_map(|n| cidr(n).ok()).collect()
    }

    /// Check the section against the populators: an error names the field and says
    /// what to write.
    pub fn check(&self, populators: &BTreeMap<String, Populator>) -> Result<(), String> {
        if self.interval.is_zero() {
            return Err("links: interval must be at least 1s (such as \"30d\")".into());
        }
        if self.concurrency == 0 || self.per_host == 0 {
            return Err("links: concurrency and per_host must be at least 1".into());
        }
        if self.per_host > self.concurrency {
            return Err(format!(
                "links: per_host ({}) is more than concurrency ({}): lower per_host",
                self.per_host, self.concurrency
            ));
        }
        if self.failures == 0 {
            return Err("links: failures must be at least 1".into());
        }
        match &self.contact {
            Some(c) => web_url("links: contact", c)?,
            None => {
                return Err(
                    "links: give contact, the URL the checker's User-Agent names \
                     (where a site's operator learns who checks and how to ask for less)"
                        .into(),
                )
            }
        }
        for n in &self.allow_net {
            cidr(n)?;
        }
        if let Some(c) = &self.console_url {
            web_url("links: console_url", c)?;
        }
        if let Some(d) = &self.digest {
            d.check(self, populators)?;
        }
        Ok(())
    }
}

impl Digest {
    fn check(
        &self,
        links: &LinksConfig,
        populators: &BTreeMap<String, Populator>,
    ) -> Result<(), String> {
        if self.every.is_zero() {
            return Err("links.digest: every must be at least 1s (such as \"1d\")".into());
        }
        if self.smtp.is_some() && self.sendmail.is_some() {
            return Err("links.digest: give smtp or sendmail, not both".into());
        }
        if let Some(relay) = &self.smtp {
            let port = relay
                .rsplit_once(':')
                .and_then(|(h, p)| (!h.is_empty()).then(|| p.parse::<u16>().ok()).flatten());
            if port.is_none() {
                return Err(format!(
                    "links.digest: smtp {relay:?} is not HOST:PORT (such as \"localhost:25\")"
                ));
            }
        }
        if links.console_url.is_none() {
            return Err("links.digest: digests link to the console: give links.console_url".into());
        }
        let mails = self.to.is_some() || populators.values().any(|p| p.digest_to.is_some());
        if mails && (self.mailer().is_none() || self.from.is_none()) {
            return Err(
                "links.digest: a digest address is given: give from, and smtp or sendmail".into(),
            );
        }
        if let Some(w) = &self.webhook {
            web_url("links.digest: webhook", w)?;
        }
        for (name, p) in populators {
            if let Some(w) = &p.digest_webhook {
                web_url(&format!("populator {name}: digest_webhook"), w)?;
            }
        }
        Ok(())
    }
}

/// `text` as a network (`10.0.0.0/8`) or one address.
fn cidr(text: &str) -> Result<IpNet, String> {
    text.parse::<IpNet>()
        .or_else(|_| text.parse::<std::net::IpAddr>().map(IpNet::from))
        .map_err(|_| {
            format!("links: allow_net {text:?} is not a network (such as \"10.1.0.0/16\")")
        })
}

/// Refuse `url` unless it is an `http://` or `https://` address.
fn web_url(field: &str, url: &str) -> Result<(), String> {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    match rest {
        Some(r) if !r.is_empty() && !r.contains(char::is_whitespace) => Ok(()),
        _ => Err(format!("{field} {url:?} is not an http:// or https:// URL")),
    }
}

/// A duration written as `"30d"`, `"72h"`, `"90s"` or `"0s"`.
fn duration<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    let text = String::deserialize(d)?;
    humantime::parse_duration(&text).map_err(|e| {
        serde::de::Error::custom(format!(
            "{text:?} is not a duration ({e}): write such as \"30d\", \"72h\", \"90s\""
        ))
    })
}

fn default_interval() -> Duration {
    Duration::from_secs(30 * 86_400)
}

fn default_concurrency() -> usize {
    16
}

fn default_per_host() -> usize {
    2
}

fn default_failures() -> u32 {
    3
}

fn default_span() -> Duration {
    Duration::from_secs(72 * 3600)
}

fn default_every() -> Duration {
    Duration::from_secs(86_400)
}

#[cfg(test)]
mod tests {
    use crate::api::parse;

    #[test]
    fn links_defaults_and_clear_errors() {
        let (c, _) = parse("[links]\ncontact = \"https://n.org/c\"\n").unwrap();
        let l = c.links.unwrap();
        assert_eq!(
            (
                l.interval.as_secs(),
                l.concurrency,
                l.per_host,
                l.failures,
                l.span.as_secs()
            ),
            (2_592_000, 16, 2, 3, 259_200)
        );
        assert!(parse("").unwrap().0.links.is_none());
        let (c, _) = parse(
            "[links]\ncontact = \"https://n.org/c\"\ninterval = \"90s\"\nspan = \"0s\"\nfailures = 1\nallow_net = [\"127.0.0.0/8\"]\n",
        )
        .unwrap();
        let l = c.links.unwrap();
        assert_eq!((l.interval.as_secs(), l.span.as_secs()), (90, 0));
        assert_eq!(l.allowed_nets(), vec!["127.0.0.0/8".parse().unwrap()]);
        for (text, error) in [
            (
                "[links]\ncontact = \"https://n.org/c\"\ninterval = \"0s\"\n",
                "links: interval must be at least 1s (such as \"30d\")",
            ),
            (
                "[links]\ncontact = \"https://n.org/c\"\nper_host = 4\nconcurrency = 2\n",
                "links: per_host (4) is more than concurrency (2): lower per_host",
            ),
            (
                "[links]\ncontact = \"https://n.org/c\"\nallow_net = [\"10.0.0.0/33\"]\n",
                "links: allow_net \"10.0.0.0/33\" is not a network (such as \"10.1.0.0/16\")",
            ),
            (
                "[links]\n",
                "links: give contact, the URL the checker's User-Agent names (where a site's \
                 operator learns who checks and how to ask for less)",
            ),
            (
                "[links]\ncontact = \"mailto:x@y\"\n",
                "links: contact \"mailto:x@y\" is not an http:// or https:// URL",
            ),
            (
                "[links]\ncontact = \"https://n.org/c\"\n[links.digest]\nto = \"a@b.org\"\n",
                "links.digest: digests link to the console: give links.console_url",
            ),
            (
                "[links]\ncontact = \"https://n.org/c\"\nconsole_url = \"https://n.org/console/\"\n[links.digest]\nto = \"a@b.org\"\n",
                "links.digest: a digest address is given: give from, and smtp or sendmail",
            ),
            (
                "[links]\ncontact = \"https://n.org/c\"\nconsole_url = \"https://n.org/console/\"\n[links.digest]\nsmtp = \"relay\"\n",
                "links.digest: smtp \"relay\" is not HOST:PORT (such as \"localhost:25\")",
            ),
        ] {
            assert_eq!(parse(text).unwrap_err(), error, "{text}");
        }
        let bad =
            parse("[links]\ncontact = \"https://n.org/c\"\ninterval = \"soon\"\n").unwrap_err();
        assert!(
            bad.contains("\"soon\" is not a duration") && bad.contains("\"30d\""),
            "{bad}"
        );
    }
}
