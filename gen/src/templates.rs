//! The tera templates in `templates/`, compiled into the binary.

use std::sync::OnceLock;
use tera::{Context, Tera};

const TEMPLATES: &[(&str, &str)] = &[
    ("header.v", include_str!("../../templates/header.v.tera")),
    ("footer.v", include_str!("../../templates/footer.v.tera")),
    ("sram_1r1w.v", include_str!("../../templates/sram_1r1w.v.tera")),
    ("sram_blackbox.v", include_str!("../../templates/sram_blackbox.v.tera")),
    ("filelist.f", include_str!("../../templates/filelist.f.tera")),
    ("core", include_str!("../../templates/core.tera")),
];

fn tera() -> &'static Tera {
    static TERA: OnceLock<Tera> = OnceLock::new();
    TERA.get_or_init(|| {
        let mut t = Tera::default();
        t.add_raw_templates(TEMPLATES.iter().copied()).expect("the shipped templates parse");
        t
    })
}

/// Renders a shipped template. The templates and their contexts are fixed by the generator,
/// so a failure here is a generator bug, caught by the tests.
pub fn render(name: &str, ctx: &Context) -> String {
    tera().render(name, ctx).unwrap_or_else(|e| panic!("template {name}: {e:?}"))
}
