//! The Prometheus text exposition format (0.0.4), written once for every server that
//! serves `GET /metrics` (`noidr`, `noid serve`): a family's `# HELP`/`# TYPE` lines,
//! label values escaped, a histogram's cumulative buckets, and durations as exact
//! decimal seconds (no float rounding, so a test can compare the text).

use std::fmt::Write as _;

/// The `# HELP` and `# TYPE` lines that open a metric family (`kind`: `counter`,
/// `gauge`, `histogram`).
pub fn family(s: &mut String, name: &str, kind: &str, help: &str) {
    let _ = write!(s, "# HELP {name} {help}\n# TYPE {name} {kind}\n");
}

/// A label value as the text format writes it: `\`, `"` and newline escaped.
pub fn label_value(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// Nanoseconds as seconds, exactly: `1500` is `0.0000015`.
pub fn seconds(ns: u64) -> String {
    let (whole, frac) = (ns / 1_000_000_000, ns % 1_000_000_000);
    if frac == 0 {
        return whole.to_string();
    }
    let frac = format!("{frac:09}");
    format!("{whole}.{}", frac.trim_end_matches('0'))
}

/// Which bucket a duration of `ns` nanoseconds falls in: the first bound (in
/// nanoseconds) it does not exceed, or `bounds.len()` (`+Inf`).
#[inline]
pub fn bucket(bounds: &[(u64, &str)], ns: u64) -> usize {
    bounds
        .iter()
        .position(|&(bound, _)| ns <= bound)
        .unwrap_or(bounds.len())
}

/// A histogram's samples (not its `# HELP`/`# TYPE`): `NAME_bucket{LABELS,le="…"}`
/// cumulative over `counts` (one per bound of `bounds`, `le` as written there, then
/// `+Inf`), `NAME_sum` (`sum_ns` in seconds) and `NAME_count`. `labels` is empty or
/// `name="value",…` already escaped.
pub fn histogram(
    s: &mut String,
    name: &str,
    labels: &str,
    bounds: &[(u64, &str)],
    counts: &[u64],
    sum_ns: u64,
) {
    let sep = if labels.is_empty() { "" } else { "," };
    let mut cumulative = 0;
    for (i, (_, le)) in bounds.iter().enumerate() {
        cumulative += counts[i];
        let _ = writeln!(s, "{name}_bucket{{{labels}{sep}le=\"{le}\"}} {cumulative}");
    }
    let count = cumulative + counts[bounds.len()];
    let _ = writeln!(s, "{name}_bucket{{{labels}{sep}le=\"+Inf\"}} {count}");
    let braced = if labels.is_empty() {
        String::new()
    } else {
        format!("{{{labels}}}")
    };
    let _ = writeln!(s, "{name}_sum{braced} {}", seconds(sum_ns));
    let _ = writeln!(s, "{name}_count{braced} {count}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_exact() {
        assert_eq!(seconds(0), "0");
        assert_eq!(seconds(1_500), "0.0000015");
        assert_eq!(seconds(2_000_000_000), "2");
        assert_eq!(seconds(12_345_000_000), "12.345");
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(label_value("a\\b\"c\nd"), "a\\\\b\\\"c\\nd");
    }

    #[test]
    fn a_histogram_is_cumulative_and_ends_with_every_observation() {
        const B: [(u64, &str); 2] = [(1_000, "0.000001"), (1_000_000, "0.001")];
        assert_eq!(
            [0, 1_000, 1_001, 1_000_000, 1_000_001].map(|ns| bucket(&B, ns)),
            [0, 0, 1, 1, 2]
        );
        let mut s = String::new();
        histogram(&mut s, "x_seconds", "", &B, &[2, 0, 1], 3_000_500_000);
        assert_eq!(
            s,
            "x_seconds_bucket{le=\"0.000001\"} 2\n\
             x_seconds_bucket{le=\"0.001\"} 2\n\
             x_seconds_bucket{le=\"+Inf\"} 3\n\
             x_seconds_sum 3.0005\n\
             x_seconds_count 3\n"
        );
        let mut s = String::new();
        histogram(&mut s, "y", "work=\"mint\"", &B, &[0, 1, 0], 5_000);
        assert_eq!(
            s,
            "y_bucket{work=\"mint\",le=\"0.000001\"} 0\n\
             y_bucket{work=\"mint\",le=\"0.001\"} 1\n\
             y_bucket{work=\"mint\",le=\"+Inf\"} 1\n\
             y_sum{work=\"mint\"} 0.000005\n\
             y_count{work=\"mint\"} 1\n"
        );
    }
}
