//! Errors of minter operations: a refusal, which says what was refused and why, or a
//! failure to read the minter's store or state. Perl Noid 0.424's message texts, which
//! scripts parse, are all produced here, by `Display`.

use std::fmt;

use noid_template::generator::{GenError, ListParseError};
use noid_template::growth::AtLastError;
use noid_template::template::TemplateError;

use noid_core::keys::name::{ATLAST, LUI as LUI_KEY};
use noid_core::LookupError;

/// Why an operation failed.
#[derive(Debug)]
pub enum MinterError {
    /// The operation was refused; nothing it did is to be kept.
    Refused(Refusal),
    /// Reading the store failed.
    Lookup(LookupError),
    /// A stored counter list (`:/saclist`, `:/siclist`) cannot be read.
    BadCounterList {
        /// The admin key's name (`saclist` or `siclist`).
        key: &'static str,
        /// What is wrong with it.
        error: ListParseError,
    },
    /// The stored LUI key (`:/luikey`) is not 32 hex digits.
    BadLuiKey(String),
    /// The stored `:/atlast` setting cannot be read.
    BadAtLast(AtLastError),
    /// After a failed mint, minting again from the stored state gave another
    /// identifier than the first time (never expected: minting is deterministic); the
    /// whole mint is given up rather than show identifiers that differ from the store.
    ReplayDiffered {
        /// The identifier minted again.
        minted: String,
        /// The identifier minted the first time.
        expected: String,
        /// Its place in the mint (0 for the first).
        at: u64,
    },
}

/// What was refused, with what it concerned. `Display` gives Perl's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// `dbcreate` without knowing who is creating the minter.
    NoContact,
    /// `dbcreate` with a Term other than `long`, `medium`, `-` or `short`.
    BadTerm(String),
    /// `dbcreate` with a template that cannot be parsed.
    BadTemplate(TemplateError),
    /// `dbcreate … long` without NAAN, NAA and SubNAA.
    LongTermWithoutNaa,
    /// `dbcreate … long` with a NAAN lacking five digits, or an empty NAA or SubNAA.
    LongTermBadNaa,
    /// `dbcreate` with a NAAN and a template whose mask mints characters not legal in
    /// ARKs (`c`).
    NotLegalInArks(String),
    /// `dbcreate … long` with `--atlast wrapN`.
    WrapOnLongTerm,
    /// Minting on a bind-only minter.
    NoTemplate,
    /// The generator produced no identifier (for example, the namespace is used up).
    Generator(GenError),
    /// The namespace is used up and `atlast addN` cannot grow the template.
    CannotGrow {
        /// Where the generator stopped (`:/oatop`).
        stopped_at: i64,
        /// The template.
        template: String,
        /// Why it cannot grow.
        reason: String,
    },
    /// The queue's count (`:/queued`) would go negative taking `id` off the queue.
    QueuedCountNegative {
        /// The count before.
        count: i64,
        /// The identifier taken off the queue.
        id: String,
    },
    /// `hold` without `set` or `release`.
    HoldWithoutDirective,
    /// `hold` with a word other than `set` or `release`.
    BadHoldDirective(String),
    /// `hold` without identifiers.
    HoldWithoutIds,
    /// `hold` on identifiers that do not validate (their `iderr:` lines).
    HoldNotValidated(Vec<String>),
    /// A hold would make `:/held` exceed the namespace's size.
    HoldCountExceeded {
        /// The count it would reach.
        count: i64,
        /// The identifier being held.
        id: String,
    },
    /// A release would make `:/held` negative.
    HoldCountNegative {
        /// The count it would reach.
        count: i64,
        /// The identifier being released.
        id: String,
    },
    /// `queue` on a bind-only minter.
    QueueOnBindOnly,
    /// `queue` without knowing who is acting.
    ContactUndefined,
    /// `queue` without a time.
    QueueWithoutWhen,
    /// `queue` without identifiers.
    QueueWithoutIds,
    /// `queue` with a time that is not `now`, `first`, `lvf`, `delete` or `N[ds]`.
    BadQueueTime(String),
    /// `queue` on identifiers that do not validate (their `iderr:` lines).
    QueueNotValidated(Vec<String>),
    /// `bind` without an identifier.
    BindWithoutId,
    /// `bind` with an unknown How.
    BadHow(String),
    /// `bind` without an element.
    BindWithoutElement {
        /// The How word.
        how: String,
    },
    /// `bind` without a value, for a How that needs one.
    BindWithoutValue {
        /// The How word.
        how: String,
        /// The element.
        elem: String,
    },
    /// `bind mint`/`bind peppermint` with an identifier other than `new`.
    MintBindWithoutNew {
        /// The How word.
        how: String,
        /// The identifier given.
        id: String,
    },
    /// An identifier starting `:` that is not `:idmap/PATTERN`.
    ColonId(String),
    /// An `:idmap` rule whose pattern does not compile.
    BadIdmapPattern {
        /// The identifier given (`:idmap/PATTERN`).
        id: String,
        /// Why the pattern is bad.
        reason: String,
    },
    /// An identifier that does not validate against the minter's template (its
    /// `iderr:` line).
    InvalidId(String),
    /// An identifier that no key can hold (`noid_core::spelling`).
    Unspellable {
        /// The identifier as given.
        id: String,
        /// Why.
        why: noid_core::spelling::Unspellable,
    },
    /// An identifier of a minter's shape whose check character does not match: mistyped.
    CheckCharacter {
        /// The identifier, in the binder's spelling.
        id: String,
        /// The minter's `NAAN/template`.
        template: String,
    },
    /// An identifier outside the shoulders a populator's writes are limited to.
    OutsideShoulders {
        /// The identifier, in the binder's spelling.
        id: String,
        /// The shoulders (`ark:/NAAN/PREFIX`).
        shoulders: Vec<String>,
    },
    /// A target (`_t`) that is neither an absolute URL nor a stored code.
    BadTarget {
        /// The identifier.
        id: String,
        /// The offending line of the target.
        target: String,
        /// What a target must be.
        why: &'static str,
    },
    /// An element name starting `:/`, which the minter reserves.
    ReservedElement {
        /// The identifier.
        id: String,
    },
    /// Binding an identifier that a long-term minter has neither issued nor held.
    UnissuedOnLongTerm {
        /// The identifier.
        id: String,
    },
    /// A How that changes an existing element, on one that is not bound.
    NotBound {
        /// The How word.
        how: String,
        /// The identifier.
        id: String,
        /// The element.
        elem: String,
    },
    /// A How that creates an element, on one that is bound already.
    AlreadyBound {
        /// The How word.
        how: String,
        /// The identifier.
        id: String,
        /// The element.
        elem: String,
    },
    /// A change quoting a pepper other than the identifier's.
    WrongPepper {
        /// The base identifier.
        id: String,
    },
    /// A change to a peppered identifier that does not quote its pepper.
    PepperRequired {
        /// The identifier as given.
        id: String,
    },
    /// `note` with an empty key.
    NoteWithoutKey,
}

/// `message` without Perl's leading `error: ` (most refusals have it; a few, such as a
/// template's or `validate`'s lines, do not).
fn without_error_prefix(message: String) -> String {
    match message.strip_prefix("error: ") {
        Some(reason) => reason.to_string(),
        None => message,
    }
}

impl MinterError {
    /// The message without Perl's leading `error: `, for callers that write their own
    /// prefix (the egg language's `error: ` element).
    pub fn reason(&self) -> String {
        without_error_prefix(self.to_string())
    }
}

impl Refusal {
    /// The message without Perl's leading `error: ` (see [`MinterError::reason`]).
    pub fn reason(&self) -> String {
        without_error_prefix(self.to_string())
    }
}

impl fmt::Display for MinterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MinterError::Refused(r) => r.fmt(f),
            MinterError::Lookup(e) => write!(f, "error: {e}"),
            MinterError::BadCounterList { key, error } => write!(f, "error: bad :/{key}: {error}"),
            MinterError::BadLuiKey(key) => write!(f, "error: bad :/{LUI_KEY} \"{key}\""),
            MinterError::BadAtLast(e) => write!(f, "error: bad :/{ATLAST}: {e}"),
            MinterError::ReplayDiffered {
                minted,
                expected,
                at,
            } => write!(f, "error: replay minted {minted}, not {expected} (#{at})"),
        }
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use Refusal::*;
        match self {
            // The contact is empty when refused; Perl printed it all the same.
            NoContact => f.write_str("error: contact () must be non-empty."),
            BadTerm(term) => write!(
                f,
                "error: term ({term}) must be either \"long\", \"medium\", \"-\", or \"short\"."
            ),
            BadTemplate(e) => e.fmt(f),
            LongTermWithoutNaa => f.write_str(
                "error: longterm identifiers require an NAA Number, NAA, and SubNAA.",
            ),
            LongTermBadNaa => f.write_str(
                "error: term of \"long\" requires a 5-digit NAAN (00000 if none), and non-empty string values for NAA and SubNAA.",
            ),
            NotLegalInArks(template) => write!(
                f,
                "error: template {template}: mask character 'c' mints characters that are not legal in ARKs\n(\" < > ` {{ }} | ^ [ ] # ?); use 'w' for a minter with a NAAN."
            ),
            WrapOnLongTerm => f.write_str(
                "error: long-term identifiers are never re-issued, so a long-term minter cannot wrap.",
            ),
            NoTemplate => f.write_str(
                "error: this minter does not generate identifiers (it was created without a template).",
            ),
            Generator(e) => write!(f, "error: {e}"),
            CannotGrow {
                stopped_at,
                template,
                reason,
            } => write!(
                f,
                "error: identifiers exhausted (stopped at {stopped_at}); template {template} cannot grow: {reason}"
            ),
            QueuedCountNegative { count, id } => {
                write!(f, "error: queued count ({count}) going negative on id {id}")
            }
            HoldWithoutDirective => f.write_str("error: hold \"set\" or \"release\"?"),
            BadHoldDirective(word) => write!(f, "error: unrecognized hold directive ({word})"),
            HoldWithoutIds => f.write_str("error: no Id(s) specified"),
            HoldNotValidated(lines) => write!(
                f,
                "error: hold operation not started -- one or more ids did not validate:\n{}",
                lines.join("\n")
            ),
            HoldCountExceeded { count, id } => write!(
                f,
                "error: hold count ({count}) exceeding total possible on id {id}"
            ),
            HoldCountNegative { count, id } => {
                write!(f, "error: hold count ({count}) going negative on id {id}")
            }
            QueueOnBindOnly => {
                f.write_str("error: queuing makes no sense in a bind-only minter.")
            }
            ContactUndefined => f.write_str("error: contact undefined"),
            QueueWithoutWhen => f.write_str("error: queue when? (eg, first, lvf, 30d, now)"),
            QueueWithoutIds => f.write_str("error: must specify at least one id to queue."),
            BadQueueTime(when) => write!(f, "error: unrecognized queue time: {when}"),
            QueueNotValidated(lines) => write!(
                f,
                "error: queue operation not started -- one or more ids did not validate:\n{}",
                lines.join("\n")
            ),
            BindWithoutId => f.write_str("error: bind needs an identifier specified."),
            BadHow(how) => write!(f, "error: bind how?  What does {how} mean?"),
            BindWithoutElement { how } => {
                write!(f, "error: \"bind {how}\" requires an element name.")
            }
            BindWithoutValue { how, elem } => {
                write!(f, "error: \"bind {how} {elem}\" requires a value to bind.")
            }
            MintBindWithoutNew { how, id } => write!(
                f,
                "error: bind {how} requires an Id of \"new\" (got \"{id}\")."
            ),
            ColonId(id) => write!(
                f,
                "error: {id}: id cannot begin with \":\" unless of the form \":idmap/Idpattern\"."
            ),
            BadIdmapPattern { id, reason } => {
                write!(f, "error: {id}: bad :idmap pattern: {reason}")
            }
            InvalidId(line) => f.write_str(line),
            Unspellable { id, why } => write!(f, "error: {id:?}: {why}"),
            BadTarget { id, target, why } => {
                write!(f, "error: {id}: {target:?} cannot be a target: {why}")
            }
            CheckCharacter { id, template } => write!(
                f,
                "error: {id}: its check character does not match (minter {template}): a character is mistyped"
            ),
            OutsideShoulders { id, shoulders } => write!(
                f,
                "error: {id}: this populator writes only identifiers under {}",
                shoulders.join(", ")
            ),
            ReservedElement { id } => {
                write!(f, "error: {id}: element names beginning \":/\" are reserved.")
            }
            UnissuedOnLongTerm { id } => write!(
                f,
                "error: {id}: \"long\" term disallows binding an unissued identifier unless a hold is first placed on it."
            ),
            NotBound { how, id, elem } => write!(
                f,
                "error: for \"bind {how}\", \"{id} {elem}\" must already be bound."
            ),
            AlreadyBound { how, id, elem } => write!(
                f,
                "error: for \"bind {how}\", \"{id} {elem}\"  cannot already be bound."
            ),
            WrongPepper { id } => write!(f, "error: {id}: wrong pepper."),
            PepperRequired { id } => write!(
                f,
                "error: {id}: identifier is peppered; changes require the peppered form {id}!PEPPER."
            ),
            NoteWithoutKey => f.write_str("You must supply a key and a value."),
        }
    }
}

impl std::error::Error for MinterError {}

impl std::error::Error for Refusal {}

impl From<Refusal> for MinterError {
    fn from(r: Refusal) -> MinterError {
        MinterError::Refused(r)
    }
}

impl From<LookupError> for MinterError {
    fn from(e: LookupError) -> MinterError {
        MinterError::Lookup(e)
    }
}
