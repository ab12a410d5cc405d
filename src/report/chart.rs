//! The report's two kinds of SVG chart: lines over a parameter, and bars per item with a
//! reference value drawn across them.

use plotters::prelude::*;

const SIZE: (u32, u32) = (720, 420);

type Error = Box<dyn std::error::Error>;

/// Lines of `(x, y)` points, each named; `x` are small integers (entries, sizes).
pub fn lines(title: &str, x_desc: &str, y_desc: &str, series: &[(String, Vec<(u32, f64)>)]) -> Result<String, Error> {
    let (lo, hi) = series
        .iter()
        .flat_map(|(_, p)| p.iter().map(|&(x, _)| x))
        .fold((u32::MAX, 0), |(l, h), x| (l.min(x), h.max(x)));
    let top = series.iter().flat_map(|(_, p)| p.iter().map(|&(_, y)| y)).fold(0.0, f64::max);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(14)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(lo..hi, 0.0..(top * 1.15).max(0.1))?;
        chart.configure_mesh().disable_x_mesh().x_desc(x_desc).y_desc(y_desc).draw()?;
        for (n, (name, points)) in series.iter().enumerate() {
            let color = Palette99::pick(n).to_rgba();
            chart
                .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?
                .label(name.as_str())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2)));
            chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
        }
        chart.configure_series_labels().background_style(WHITE.mix(0.85)).border_style(BLACK).draw()?;
        root.present()?;
    }
    Ok(svg)
}

/// Bars, one per `(label, value)` (values may be negative), and optionally a dashed line at
/// `reference` (the paper's figure).
pub fn bars(
    title: &str,
    y_desc: &str,
    bars: &[(String, f64)],
    reference: Option<(&str, f64)>,
) -> Result<String, Error> {
    let values = bars.iter().map(|(_, v)| *v).chain(reference.map(|(_, v)| v));
    let (lo, hi) = values.fold((0.0f64, 0.0f64), |(l, h), v| (l.min(v), h.max(v)));
    let pad = (hi - lo).max(1.0) * 0.12;
    let labels: Vec<String> = bars.iter().map(|(l, _)| l.clone()).collect();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(14)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d((0..bars.len().max(2) - 1).into_segmented(), (lo - pad)..(hi + pad))?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .y_desc(y_desc)
            .x_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) => labels.get(*i).cloned().unwrap_or_default(),
                _ => String::new(),
            })
            .draw()?;
        let color = Palette99::pick(0).to_rgba();
        chart.draw_series(bars.iter().enumerate().map(|(i, (_, v))| {
            let mut bar =
                Rectangle::new([(SegmentValue::Exact(i), 0.0), (SegmentValue::Exact(i + 1), *v)], color.filled());
            bar.set_margin(0, 0, 12, 12);
            bar
        }))?;
        if let Some((name, v)) = reference {
            let red = RED.stroke_width(2);
            chart
                .draw_series(LineSeries::new([(SegmentValue::Exact(0), v), (SegmentValue::Last, v)], red))?
                .label(name)
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], red));
            chart.configure_series_labels().background_style(WHITE.mix(0.85)).border_style(BLACK).draw()?;
        }
        root.present()?;
    }
    Ok(svg)
}
