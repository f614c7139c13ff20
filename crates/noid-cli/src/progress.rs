//! Progress of long work (import, export, check, bulk `noid -`) on standard error: drawn only
//! where someone watches it, so that scripts, pipes and log files get nothing extra.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::invocation::Invocation;

/// Whether progress may be drawn: standard error is a terminal, `--quiet` was not
/// given, and (for work whose output goes to standard output) that output is not on
/// the terminal too, where the bar would be drawn across it.
fn shown(session: &Invocation, writes_stdout: bool) -> bool {
    session.progress
        && std::io::stderr().is_terminal()
        && !(writes_stdout && std::io::stdout().is_terminal())
}

/// A bar over `total` bytes of input (`verb` says what is done with them), or a
/// spinner when the size is unknown.
pub fn bytes(session: &Invocation, verb: &str, total: Option<u64>) -> ProgressBar {
    if !shown(session, false) {
        return ProgressBar::hidden();
    }
    let (bar, template) = match total {
        Some(n) => (
            ProgressBar::new(n),
            format!("{verb} {{bar:40}} {{bytes}}/{{total_bytes}} {{msg}} ({{eta}})"),
        ),
        None => (
            ProgressBar::new_spinner(),
            format!("{verb} {{spinner}} {{msg}} ({{elapsed}})"),
        ),
    };
    start(bar, &template)
}

/// A counter of `unit`s (keys, commands) for work that writes to standard output.
pub fn count(session: &Invocation, verb: &str, unit: &str) -> ProgressBar {
    if !shown(session, true) {
        return ProgressBar::hidden();
    }
    let template = format!("{verb} {{spinner}} {{human_pos}} {unit} ({{elapsed}})");
    start(ProgressBar::new_spinner(), &template)
}

/// A counter of `unit`s for work that prints nothing until it is done (`check` reads
/// every record, then reports): drawn whatever standard output is, since the caller
/// clears it (`finish_and_clear`) before printing.
pub fn tally(session: &Invocation, verb: &str, unit: &str) -> ProgressBar {
    if !shown(session, false) {
        return ProgressBar::hidden();
    }
    let template = format!("{verb} {{spinner}} {{human_pos}} {unit}{{msg}} ({{elapsed}})");
    start(ProgressBar::new_spinner(), &template)
}

fn start(bar: ProgressBar, template: &str) -> ProgressBar {
    let style =
        ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar.set_draw_target(ProgressDrawTarget::stderr());
    // Drawn at once, then redrawn on a timer, whatever the work's own pace.
    bar.tick();
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}
