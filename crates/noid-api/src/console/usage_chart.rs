//! The Usage chart: a report's requests per day drawn as inline SVG on the server, so
//! that it needs no script. One bar a day, people's at the bottom and robots' stacked
//! above them (another colour, hatched: told apart without colour too), with a
//! legend, the days at the ends and middle of the x axis and the counts on the y
//! axis. It scales with its `viewBox` to the width it is given (a 360 px phone
//! included); its colours are the stylesheet's (`.usage-chart`). It is an image with
//! a title and a description that sum it up (`role="img"`); the numbers themselves
//! are in the table beside it ([`super::usage`]).

use noid_binder::api::stats::{DayTallies, Report};

use super::html::escape;

/// The drawing's size in `viewBox` units.
const WIDTH: f64 = 640.0;
const HEIGHT: f64 = 260.0;
/// The plot's box inside it: room for the y axis's labels left, the legend above
/// and the days below.
const LEFT: f64 = 80.0;
const RIGHT: f64 = 630.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 215.0;

/// People's and robots' requests on one day (every kind: redirects, pages, misses…).
pub fn per_day(d: &DayTallies) -> (u64, u64) {
    (
        d.tallies.person.values().sum(),
        d.tallies.robot.values().sum(),
    )
}

/// The y axis's top: the smallest of 1, 2, 4 or 5 times a power of ten that is at
/// least `max` (at least 1) and whose half is a whole number (1 aside), so that the
/// middle grid line's count is exact.
fn axis_top(max: u64) -> u64 {
    let mut unit = 1u64;
    loop {
        for m in [1, 2, 4, 5] {
            let top = unit.saturating_mul(m);
            if top >= max.max(1) && (top == 1 || top % 2 == 0) {
                return top;
            }
        }
        unit = unit.saturating_mul(10);
    }
}

/// What the chart shows, in words: its title.
pub fn title(report: &Report) -> String {
    let subject = if report.subject.is_empty() {
        "all identifiers".to_string()
    } else {
        report.subject.clone()
    };
    format!(
        "Requests per day for {subject}, {} to {} (UTC)",
        report.from, report.to
    )
}

/// The sum of the chart, in words: its description.
pub fn description(report: &Report) -> String {
    let (people, robots) = report
        .days
        .iter()
        .map(per_day)
        .fold((0, 0), |(p, r), (dp, dr)| (p + dp, r + dr));
    let busiest = report
        .days
        .iter()
        .map(|d| (per_day(d), &d.day))
        .filter(|((p, r), _)| p + r > 0)
        .max_by(|((p1, r1), d1), ((p2, r2), d2)| (p1 + r1).cmp(&(p2 + r2)).then(d2.cmp(d1)));
    let mut s = format!(
        "{} days: {people} requests by people and {robots} by robots",
        report.days.len()
    );
    match busiest {
        Some(((p, r), day)) => s.push_str(&format!(
            "; the most on {day}: {} ({p} by people, {r} by robots).",
            p + r
        )),
        None => s.push_str("; none counted."),
    }
    s
}

/// The chart of `report` as an inline `<svg>`; `id` prefixes the ids of its title,
/// description and pattern (unique in the page).
pub fn svg(report: &Report, id: &str) -> String {
    let counts: Vec<(u64, u64)> = report.days.iter().map(per_day).collect();
    let top = axis_top(counts.iter().map(|(p, r)| p + r).max().unwrap_or(0));
    let y = |v: u64| BOTTOM - (BOTTOM - TOP) * v as f64 / top as f64;
    let slot = (RIGHT - LEFT) / counts.len().max(1) as f64;
    let bar = (slot * 0.8).max(0.5);
    let mut s = format!(
        "<svg class=\"usage-chart\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" role=\"img\" \
         aria-labelledby=\"{id}-title {id}-desc\" preserveAspectRatio=\"xMidYMid meet\">\n\
         <title id=\"{id}-title\">{}</title>\n<desc id=\"{id}-desc\">{}</desc>\n\
         <defs><pattern id=\"{id}-hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" \
         patternTransform=\"rotate(45)\"><rect class=\"robots\" width=\"6\" height=\"6\"/>\
         <line class=\"hatch\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\"/></pattern></defs>\n",
        escape(&title(report)),
        escape(&description(report))
    );
    // The y axis: its grid lines and counts at 0, half and the top.
    for v in [0, top / 2, top] {
        s.push_str(&format!(
            "<line class=\"grid\" x1=\"{LEFT}\" y1=\"{y:.1}\" x2=\"{RIGHT}\" y2=\"{y:.1}\"/>\
             <text class=\"label\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{v}</text>\n",
            LEFT - 8.0,
            y(v) + 6.0,
            y = y(v),
        ));
    }
    s.push_str("<g class=\"bars\">\n");
    for (i, (people, robots)) in counts.iter().enumerate() {
        let x = LEFT + slot * i as f64 + (slot - bar) / 2.0;
        if *people > 0 {
            s.push_str(&format!(
                "<rect class=\"people\" x=\"{x:.2}\" y=\"{:.2}\" width=\"{bar:.2}\" height=\"{:.2}\"/>\n",
                y(*people),
                BOTTOM - y(*people)
            ));
        }
        if *robots > 0 {
            s.push_str(&format!(
                "<rect fill=\"url(#{id}-hatch)\" x=\"{x:.2}\" y=\"{:.2}\" width=\"{bar:.2}\" height=\"{:.2}\"/>\n",
                y(people + robots),
                y(*people) - y(people + robots)
            ));
        }
    }
    s.push_str("</g>\n");
    s.push_str(&x_axis(report));
    s.push_str(&legend(id));
    s.push_str("</svg>\n");
    s
}

/// The x axis: its line, and the first, middle and last days.
fn x_axis(report: &Report) -> String {
    let mut s = format!(
        "<line class=\"axis\" x1=\"{LEFT}\" y1=\"{BOTTOM}\" x2=\"{RIGHT}\" y2=\"{BOTTOM}\"/>\n"
    );
    let n = report.days.len();
    let slot = (RIGHT - LEFT) / n.max(1) as f64;
    let mut marks = vec![(0, "start")];
    if n > 2 {
        marks.push((n / 2, "middle"));
    }
    if n > 1 {
        marks.push((n - 1, "end"));
    }
    for (i, anchor) in marks {
        let x = match anchor {
            "start" => LEFT,
            "end" => RIGHT,
            _ => LEFT + slot * (i as f64 + 0.5),
        };
        s.push_str(&format!(
            "<text class=\"label\" x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\">{}</text>\n",
            BOTTOM + 26.0,
            escape(&report.days[i].day)
        ));
    }
    s
}

/// The legend, above the plot: which bars are people's and which robots'.
fn legend(id: &str) -> String {
    format!(
        "<rect class=\"people\" x=\"{LEFT}\" y=\"8\" width=\"18\" height=\"18\"/>\
         <text class=\"label\" x=\"{:.1}\" y=\"23\">people</text>\
         <rect fill=\"url(#{id}-hatch)\" x=\"{:.1}\" y=\"8\" width=\"18\" height=\"18\"/>\
         <text class=\"label\" x=\"{:.1}\" y=\"23\">robots</text>\n",
        LEFT + 26.0,
        LEFT + 130.0,
        LEFT + 156.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_axis_top_is_a_round_number_at_least_the_largest_count() {
        for (max, top) in [
            (0, 1),
            (1, 1),
            (2, 2),
            (3, 4),
            (5, 10),
            (7, 10),
            (11, 20),
            (21, 40),
            (41, 50),
            (51, 100),
            (180, 200),
        ] {
            assert_eq!(axis_top(max), top, "{max}");
        }
    }
}
