//! One SVG per varied parameter: a panel per metric, the parameter's values along x, and one
//! line per combination of the other parameters' values.

use super::params::{Param, show};
use super::record::write_atomic;
use super::results::{Row, Status, columns};
use plotters::prelude::*;
use std::path::{Path, PathBuf};

const PANEL: (u32, u32) = (520, 340);
const COLUMNS: usize = 2;
/// Figures left out of the plots: they only restate `sram_um2`.
const NOT_PLOTTED: &[&str] = &["sram_macros", "sram_bits"];

/// Writes `<path>.svg` for each parameter with several values; returns the files written.
pub fn write(out: &Path, params: &[Param], rows: &[Row]) -> anyhow::Result<Vec<PathBuf>> {
    let metrics: Vec<(String, String)> =
        columns(rows, true).into_iter().filter(|(k, _)| !NOT_PLOTTED.contains(&k.as_str())).collect();
    if metrics.is_empty() {
        return Ok(vec![]);
    }
    let mut written = Vec::new();
    for (i, param) in params.iter().enumerate().filter(|(_, p)| p.values.len() > 1) {
        let svg = render(params, i, rows, &metrics)
            .map_err(|e| anyhow::anyhow!("cannot draw the {} plot: {e}", param.path))?;
        let path = out.join(format!("{}.svg", param.path));
        write_atomic(&path, svg.as_bytes())?;
        written.push(path);
    }
    Ok(written)
}

/// A line: the other parameters' values, and (x index, metric values) per measured point.
type Series = (String, Vec<(usize, Vec<(String, f64)>)>);

fn series(params: &[Param], x: usize, rows: &[Row]) -> Vec<Series> {
    let mut lines: Vec<Series> = Vec::new();
    for row in rows.iter().filter(|r| r.status == Status::Ok) {
        let label: Vec<String> = params
            .iter()
            .zip(&row.values)
            .enumerate()
            .filter(|(j, _)| *j != x)
            .map(|(_, (p, v))| format!("{}={}", p.path, show(v)))
            .collect();
        let label = label.join(", ");
        let at = params[x].values.iter().position(|v| *v == row.values[x]).expect("a value of the parameter");
        let point = (at, row.figures().into_iter().filter(|f| f.headline).map(|f| (f.key, f.value)).collect());
        match lines.iter_mut().find(|(l, _)| *l == label) {
            Some((_, points)) => points.push(point),
            None => lines.push((label, vec![point])),
        }
    }
    lines
}

fn render(
    params: &[Param],
    x: usize,
    rows: &[Row],
    metrics: &[(String, String)],
) -> Result<String, Box<dyn std::error::Error>> {
    let param = &params[x];
    let labels: Vec<String> = param.values.iter().map(show).collect();
    let lines = series(params, x, rows);
    let panel_rows = metrics.len().div_ceil(COLUMNS);
    let size = (PANEL.0 * COLUMNS as u32, PANEL.1 * panel_rows as u32 + 40);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE)?;
        let what = match (
            rows.iter().any(|r| r.record.as_ref().is_some_and(|r| !r.modules.is_empty())),
            rows.iter().any(|r| r.record.as_ref().is_some_and(|r| !r.sim.is_empty())),
        ) {
            (true, true) => "area and kernels",
            (false, true) => "kernels",
            _ => "area",
        };
        let root = root.titled(&format!("{what} vs {}", param.path), ("sans-serif", 22))?;
        for (panel, (key, label)) in root.split_evenly((panel_rows, COLUMNS)).iter().zip(metrics) {
            let value = |m: &[(String, f64)]| m.iter().find(|(k, _)| k == key).map(|(_, v)| *v);
            let top = lines.iter().flat_map(|(_, p)| p.iter().filter_map(|(_, m)| value(m))).fold(0.0, f64::max);
            let mut chart = ChartBuilder::on(panel)
                .caption(label.as_str(), ("sans-serif", 16))
                .margin(12)
                .x_label_area_size(36)
                .y_label_area_size(70)
                .build_cartesian_2d((0..labels.len() - 1).into_segmented(), 0.0..(top * 1.1).max(1.0))?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .max_light_lines(1)
                .y_label_formatter(&|v| compact(*v))
                .x_desc(param.path.as_str())
                .x_label_formatter(&|v| match v {
                    SegmentValue::CenterOf(i) => labels.get(*i).cloned().unwrap_or_default(),
                    _ => String::new(),
                })
                .draw()?;
            for (n, (name, points)) in lines.iter().enumerate() {
                let color = Palette99::pick(n).to_rgba();
                let mut xy: Vec<(SegmentValue<usize>, f64)> =
                    points.iter().filter_map(|(i, m)| Some((SegmentValue::CenterOf(*i), value(m)?))).collect();
                xy.sort_by_key(|(i, _)| match i {
                    SegmentValue::CenterOf(i) | SegmentValue::Exact(i) => *i,
                    SegmentValue::Last => usize::MAX,
                });
                chart
                    .draw_series(LineSeries::new(xy.clone(), color.stroke_width(2)))?
                    .label(name.as_str())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2)));
                chart.draw_series(xy.iter().map(|p| Circle::new(p.clone(), 3, color.filled())))?;
            }
            if lines.len() > 1 {
                chart
                    .configure_series_labels()
                    .position(SeriesLabelPosition::UpperLeft)
                    .background_style(WHITE.mix(0.85))
                    .border_style(BLACK)
                    .draw()?;
            }
        }
        root.present()?;
    }
    Ok(svg)
}

/// Axis numbers without noise: 850, 12k, 1.5M.
fn compact(v: f64) -> String {
    match v.abs() {
        a if a >= 1e6 => format!("{}M", round(v / 1e6)),
        a if a >= 1e3 => format!("{}k", round(v / 1e3)),
        _ => round(v),
    }
}

fn round(v: f64) -> String {
    let s = format!("{v:.1}");
    s.strip_suffix(".0").map(String::from).unwrap_or(s)
}
