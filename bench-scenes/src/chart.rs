//! Hand-written SVG charts for `impetus-bench`: ms/step against threads per engine
//! ([`scaling_chart`]), one bar per engine ([`bar_chart`]) and bars per engine grouped by
//! thread count ([`grouped_bar_chart`], the report's). No plotting crate: axes, ticks,
//! polylines, bars, markers and a legend are all there is.

use std::fmt::Write;

/// One engine's points: (threads, ms/step).
#[derive(Clone, Debug)]
pub struct Series {
    /// Legend label, e.g. `impetus 0.1.0`.
    pub name: String,
    /// (x, y) points, in the order they are joined.
    pub points: Vec<(f64, f64)>,
}

const COLORS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
];
const W: f64 = 720.0;
const H: f64 = 420.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 200.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 55.0;

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A round tick step (1, 2 or 5 times a power of ten) giving about five ticks up to `max`.
fn tick_step(max: f64) -> f64 {
    let raw = (max / 5.0).max(1e-9);
    let pow = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * pow)
        .find(|&s| s >= raw)
        .unwrap_or(10.0 * pow)
}

/// The frame shared by both charts (plot area from `LEFT` to `W - right`): title, y axis from 0 with ticks and grid lines, axis
/// labels. Returns the SVG so far and the y scale (value -> pixel).
fn frame(title: &str, x_label: &str, y_label: &str, y_max: f64, right: f64) -> (String, f64, f64) {
    // Headroom above the tallest value for its label.
    let step = tick_step(y_max * 1.08);
    let top = (y_max * 1.08 / step).ceil().max(1.0) * step;
    let (x1, y0, y1) = (W - right, H - BOTTOM, TOP);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="15">{}</text>"#,
        (LEFT + x1) / 2.0,
        escape(title)
    );
    let mut v = 0.0;
    while v <= top + step * 1e-6 {
        let y = y0 - (y0 - y1) * v / top;
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{y:.1}" x2="{x1}" y2="{y:.1}" stroke="#ddd"/><text x="{}" y="{:.1}" text-anchor="end">{}</text>"##,
            LEFT - 6.0,
            y + 4.0,
            format_tick(v, step)
        );
        v += step;
    }
    let _ = writeln!(
        s,
        r#"<path d="M{LEFT},{y1} V{y0} H{x1}" fill="none" stroke="black"/>"#
    );
    let _ = writeln!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
        (LEFT + x1) / 2.0,
        H - 12.0,
        escape(x_label)
    );
    let _ = writeln!(
        s,
        r#"<text transform="translate(18,{}) rotate(-90)" text-anchor="middle">{}</text>"#,
        (y0 + y1) / 2.0,
        escape(y_label)
    );
    (s, top, y0 - y1)
}

fn format_tick(v: f64, step: f64) -> String {
    if step >= 1.0 {
        format!("{v:.0}")
    } else {
        let digits = (-step.log10().floor()) as usize;
        format!("{v:.digits$}")
    }
}

fn legend(s: &mut String, entries: &[(String, &str, bool)]) {
    let x = W - RIGHT + 16.0;
    for (i, (name, color, dashed)) in entries.iter().enumerate() {
        let y = TOP + 10.0 + 20.0 * i as f64;
        let dash = if *dashed {
            r#" stroke-dasharray="5,4""#
        } else {
            ""
        };
        let _ = writeln!(
            s,
            r#"<line x1="{x}" y1="{y}" x2="{}" y2="{y}" stroke="{color}" stroke-width="2"{dash}/><text x="{}" y="{}">{}</text>"#,
            x + 24.0,
            x + 30.0,
            y + 4.0,
            escape(name)
        );
    }
}

/// ms/step against threads, one polyline with markers per series, a log₂ thread axis
/// with a tick at every thread count present, and each series' ideal scaling (its
/// fewest-thread time divided by the thread ratio) as a dashed line.
pub fn scaling_chart(title: &str, series: &[Series]) -> String {
    let all = || series.iter().flat_map(|s| s.points.iter().copied());
    let y_max = all().map(|p| p.1).fold(0.0, f64::max);
    let (mut s, top, height) = frame(title, "worker threads", "ms per step", y_max, RIGHT);
    let mut xs: Vec<f64> = all().map(|p| p.0.max(1.0)).collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let (lo, hi) = (
        xs.first().copied().unwrap_or(1.0).log2(),
        xs.last().copied().unwrap_or(1.0).log2(),
    );
    let width = W - RIGHT - LEFT;
    let px = |x: f64| {
        if hi > lo {
            LEFT + 30.0 + (width - 60.0) * (x.max(1.0).log2() - lo) / (hi - lo)
        } else {
            LEFT + width / 2.0
        }
    };
    let py = |y: f64| H - BOTTOM - height * y / top;
    for &x in &xs {
        let _ = writeln!(
            s,
            r#"<line x1="{0:.1}" y1="{1}" x2="{0:.1}" y2="{2}" stroke="black"/><text x="{0:.1}" y="{3}" text-anchor="middle">{4}</text>"#,
            px(x),
            H - BOTTOM,
            H - BOTTOM + 5.0,
            H - BOTTOM + 19.0,
            x
        );
    }
    let mut entries = Vec::new();
    for (i, ser) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let line: Vec<String> = ser
            .points
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        if let Some(&(x0, y0)) = ser.points.iter().min_by(|a, b| a.0.total_cmp(&b.0)) {
            if ser.points.len() > 1 {
                let ideal: Vec<String> = ser
                    .points
                    .iter()
                    .map(|&(x, _)| format!("{:.1},{:.1}", px(x), py(y0 * x0.max(1.0) / x.max(1.0))))
                    .collect();
                let _ = writeln!(
                    s,
                    r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="1" stroke-dasharray="5,4" opacity="0.6"/>"#,
                    ideal.join(" ")
                );
            }
        }
        let _ = writeln!(
            s,
            r#"<polyline points="{}" fill="none" stroke="{color}" stroke-width="2"/>"#,
            line.join(" ")
        );
        for &(x, y) in &ser.points {
            let _ = writeln!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="4" fill="{color}"><title>{}: {x} threads, {y:.3} ms</title></circle>"#,
                px(x),
                py(y),
                escape(&ser.name)
            );
        }
        entries.push((ser.name.clone(), color, false));
    }
    if series.iter().any(|s| s.points.len() > 1) {
        entries.push(("ideal scaling".to_string(), "#888", true));
    }
    legend(&mut s, &entries);
    s.push_str("</svg>\n");
    s
}

/// One bar per (label, ms/step), valued on top and labelled below, for a single thread
/// count.
pub fn bar_chart(title: &str, bars: &[(String, f64)]) -> String {
    let y_max = bars.iter().map(|b| b.1).fold(0.0, f64::max);
    let (mut s, top, height) = frame(title, "", "ms per step (median)", y_max, 30.0);
    let slot = (W - 30.0 - LEFT) / bars.len().max(1) as f64;
    for (i, (label, v)) in bars.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let h = height * v / top;
        let x = LEFT + slot * i as f64 + slot * 0.2;
        let y = H - BOTTOM - h;
        let _ = writeln!(
            s,
            r#"<rect x="{x:.1}" y="{y:.1}" width="{:.1}" height="{h:.1}" fill="{color}"/><text x="{:.1}" y="{:.1}" text-anchor="middle">{v:.3}</text><text x="{:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            slot * 0.6,
            x + slot * 0.3,
            y - 5.0,
            x + slot * 0.3,
            H - BOTTOM + 19.0,
            escape(label)
        );
    }
    s.push_str("</svg>\n");
    s
}

/// One engine's bars in a [`grouped_bar_chart`]: its legend label and one value per group
/// (`None` where it did not run: no bar, a dash under the group).
#[derive(Clone, Debug)]
pub struct BarSeries {
    /// Legend label, e.g. `impetus 0.1.0`.
    pub name: String,
    /// One value per group, in the groups' order.
    pub values: Vec<Option<f64>>,
}

/// Bars grouped along x (`groups`, e.g. thread counts), one bar per series in each group,
/// valued on top; a legend of the series on the right and a caption line under the x
/// label (e.g. the machine and the date).
pub fn grouped_bar_chart(
    title: &str,
    x_label: &str,
    y_label: &str,
    caption: &str,
    groups: &[String],
    series: &[BarSeries],
) -> String {
    let y_max = series
        .iter()
        .flat_map(|s| s.values.iter().flatten().copied())
        .fold(0.0, f64::max);
    let (framed, top, height) = frame(title, x_label, y_label, y_max, RIGHT);
    // Room for the caption under the x label.
    let mut s = framed.replacen(
        &format!(r#"height="{H}" viewBox="0 0 {W} {H}""#),
        &format!(r#"height="{}" viewBox="0 0 {W} {}""#, H + 22.0, H + 22.0),
        1,
    );
    s = s.replacen(
        &format!(r#"<rect width="{W}" height="{H}" fill="white"/>"#),
        &format!(r#"<rect width="{W}" height="{}" fill="white"/>"#, H + 22.0),
        1,
    );
    let width = W - RIGHT - LEFT;
    let slot = width / groups.len().max(1) as f64;
    let n = series.len().max(1) as f64;
    let bar = (slot * 0.8 / n).min(48.0);
    let py = |v: f64| H - BOTTOM - height * v / top;
    for (g, label) in groups.iter().enumerate() {
        let centre = LEFT + slot * (g as f64 + 0.5);
        let _ = writeln!(
            s,
            r#"<text x="{centre:.1}" y="{:.1}" text-anchor="middle" font-weight="bold">{}</text>"#,
            H - BOTTOM + 19.0,
            escape(label)
        );
        let start = centre - bar * n / 2.0;
        for (k, ser) in series.iter().enumerate() {
            let color = COLORS[k % COLORS.len()];
            let x = start + bar * k as f64;
            match ser.values.get(g).copied().flatten() {
                Some(v) => {
                    let y = py(v);
                    let _ = writeln!(
                        s,
                        r#"<rect x="{:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="{color}" rx="2"><title>{}: {v:.3} ms</title></rect><text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="10">{}</text>"#,
                        x + 1.0,
                        bar - 2.0,
                        H - BOTTOM - y,
                        escape(&ser.name),
                        x + bar / 2.0,
                        y - 4.0,
                        format_value(v)
                    );
                }
                None => {
                    let _ = writeln!(
                        s,
                        r##"<text x="{:.1}" y="{:.1}" text-anchor="middle" fill="#888">–</text>"##,
                        x + bar / 2.0,
                        H - BOTTOM - 4.0
                    );
                }
            }
        }
    }
    let x = W - RIGHT + 16.0;
    for (k, ser) in series.iter().enumerate() {
        let y = TOP + 10.0 + 20.0 * k as f64;
        let _ = writeln!(
            s,
            r#"<rect x="{x}" y="{}" width="14" height="12" rx="2" fill="{}"/><text x="{}" y="{}">{}</text>"#,
            y - 6.0,
            COLORS[k % COLORS.len()],
            x + 20.0,
            y + 4.0,
            escape(&ser.name)
        );
    }
    let _ = writeln!(
        s,
        r##"<text x="{}" y="{}" text-anchor="middle" font-size="11" fill="#555">{}</text>"##,
        W / 2.0,
        H + 12.0,
        escape(caption)
    );
    s.push_str("</svg>\n");
    s
}

/// A bar's value label: three significant figures.
fn format_value(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_round() {
        assert_eq!(tick_step(10.0), 2.0);
        assert_eq!(tick_step(3.0), 1.0);
        assert_eq!(tick_step(0.9), 0.2);
        assert_eq!(tick_step(47.0), 10.0);
    }

    #[test]
    fn charts_are_closed_svg() {
        let series = vec![
            Series {
                name: "a <1>".into(),
                points: vec![(1.0, 10.0), (2.0, 6.0), (4.0, 4.0)],
            },
            Series {
                name: "b".into(),
                points: vec![(1.0, 8.0), (2.0, 5.0), (4.0, 3.5)],
            },
        ];
        let svg = scaling_chart("t", &series);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert_eq!(svg.matches("<circle").count(), 6);
        assert!(svg.contains("a &lt;1&gt;"));
        let bars = bar_chart("t", &[("a".into(), 2.0), ("b".into(), 3.0)]);
        assert_eq!(bars.matches("<rect").count(), 3);
        let grouped = grouped_bar_chart(
            "t",
            "threads",
            "ms",
            "machine",
            &["1".into(), "2".into()],
            &[
                BarSeries {
                    name: "a".into(),
                    values: vec![Some(2.0), Some(1.0)],
                },
                BarSeries {
                    name: "b".into(),
                    values: vec![Some(3.0), None],
                },
            ],
        );
        assert!(grouped.starts_with("<svg") && grouped.trim_end().ends_with("</svg>"));
        // The background, three bars and two legend swatches.
        assert_eq!(grouped.matches("<rect").count(), 6);
        assert!(grouped.contains("machine"));
    }
}
