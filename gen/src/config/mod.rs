//! Configuration: TOML text → typed [`Config`] (serde) → validated [`Checked`] config.

mod validate;

pub use crate::schema::*;

use crate::layout::bdi::Layout;
use crate::layout::geometry::Geometry;
use crate::layout::orf::OrfLayout;
use crate::layout::rfc::RfcLayout;
use sha2::{Digest, Sha256};

/// Preset configurations, shipped as `configs/<name>.toml`. Each file holds only what differs
/// from the defaults in [`crate::schema`].
pub const PRESETS: &[(&str, &str)] = &[
    ("baseline", include_str!("../../../configs/baseline.toml")),
    ("isca15-bdi", include_str!("../../../configs/isca15-bdi.toml")),
    ("isca11-rfc", include_str!("../../../configs/isca11-rfc.toml")),
    ("micro11-orf-lrf", include_str!("../../../configs/micro11-orf-lrf.toml")),
    ("tfet-hybrid", include_str!("../../../configs/tfet-hybrid.toml")),
    ("small", include_str!("../../../configs/small.toml")),
    ("war-warpboard", include_str!("../../../configs/war-warpboard.toml")),
    ("full", include_str!("../../../configs/full.toml")),
];

/// A configuration that passed validation, with what validation derived from it.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked {
    pub config: Config,
    pub geometry: Geometry,
    /// The compressed layout, when `compression.enabled`.
    pub compression: Option<Layout>,
    /// The register file cache's shape, when `rfc.enabled`.
    pub rfc: Option<RfcLayout>,
    /// The operand register file and last result file's shape, when `orf.enabled`.
    pub orf: Option<OrfLayout>,
    /// Fields that have no effect in this config (set in a section that is switched off).
    pub warnings: Vec<String>,
}

impl Checked {
    /// Short content hash of the full configuration (defaults included) but its name: the
    /// hardware it describes, not its label, so a renamed copy keeps the hash.
    pub fn hash(&self) -> String {
        let unnamed = Config { name: String::new(), ..self.config.clone() };
        let digest = Sha256::digest(toml::to_string(&unnamed).expect("a config always serializes").as_bytes());
        digest[..8].iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The full configuration as TOML, defaults included.
    pub fn to_toml(&self) -> String {
        toml::to_string(&self.config).expect("a config always serializes")
    }

    /// The full configuration as a TOML table with every section, the `[timing]` options too
    /// (which [`Checked::to_toml`] leaves out while they are all off): every key a user may set.
    pub fn to_table(&self) -> toml::Table {
        let mut table = toml::Table::try_from(&self.config).expect("a config always serializes");
        let timing = toml::Value::try_from(&self.config.timing).expect("a config section serializes");
        table.entry("timing").or_insert(timing);
        table
    }

    /// The compressed layout of the `[compression]` section whether or not the MRF is compressed
    /// (the BDI codec is built from it): fails when a mode cannot save a bank in this geometry.
    pub fn codec_layout(&self) -> Result<Layout, ConfigError> {
        match &self.compression {
            Some(l) => Ok(l.clone()),
            None => Layout::new(&self.geometry, &self.config.compression, &self.config.timing),
        }
    }

    /// Verilog module-name prefix: the design name with `-` replaced by `_`.
    pub fn prefix(&self) -> String {
        self.config.name.replace('-', "_")
    }
}

/// Parses and validates TOML text.
pub fn parse(text: &str) -> Result<Checked, ConfigError> {
    let de = toml::Deserializer::parse(text).map_err(|e| syntax_error(text, &e))?;
    let config: Config = serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        field_error(path, e.into_inner().message())
    })?;
    validate::validate(config)
}

/// A value serde could not take for the field at `path`, in the user's terms: what the field
/// accepts rather than the parser's type names.
fn field_error(path: String, message: &str) -> ConfigError {
    let out_of_range = |path: String, value: String, allowed: String| ConfigError::Rule {
        path,
        value,
        rule: "out of range".into(),
        allowed,
    };
    // An integer that does not fit the field's type.
    if let (true, Some(value)) = (message.contains("expected u32"), integer_in(message)) {
        let allowed = validate::allowed_integers(&path);
        return out_of_range(path, value, allowed);
    }
    if let (true, Some(value)) = (message.contains("as i128"), integer_in(message)) {
        let allowed = validate::allowed_floats(&path);
        return out_of_range(path, value, allowed);
    }
    if message.contains("floating-point number overflowed") {
        let allowed = validate::allowed_floats(&path);
        return out_of_range(path, "a number past the largest 64-bit float".into(), allowed);
    }
    // A section given as a plain value: "invalid type: integer `3`, expected struct Mrf".
    if let Some(found) = message.strip_prefix("invalid type: ").and_then(|m| m.split_once(", expected struct ")) {
        let message = format!("expected the section `[{path}]` (a table), found {}", found.0);
        return ConfigError::Field { path, message };
    }
    let message =
        message.replace("expected u32", "expected a non-negative integer").replace("expected f64", "expected a number");
    // serde's "invalid type: X, expected Y" and "unknown variant `v`, expected ...", reworded.
    let message = if let Some((found, expected)) =
        message.strip_prefix("invalid type: ").and_then(|m| m.split_once(", expected "))
    {
        format!("expected {expected}, found {found}")
    } else if let Some((name, allowed)) =
        message.strip_prefix("unknown variant ").and_then(|m| m.split_once(", expected "))
    {
        format!("unknown value {name} (allowed: {})", allowed.trim_start_matches("one of "))
    } else {
        message
    };
    ConfigError::Field { path, message }
}

/// Validates an already-built configuration.
pub fn check(config: Config) -> Result<Checked, ConfigError> {
    validate::validate(config)
}

/// Loads a preset by name.
pub fn preset(name: &str) -> Result<Checked, ConfigError> {
    let (_, text) = PRESETS
        .iter()
        .find(|(n, _)| *n == name)
        .ok_or_else(|| ConfigError::UnknownPreset { name: name.into(), allowed: preset_names().join(", ") })?;
    parse(text)
}

pub fn preset_names() -> Vec<&'static str> {
    PRESETS.iter().map(|(n, _)| *n).collect()
}

/// The default configuration, fully written out.
pub fn default_toml() -> String {
    // The pipeline-stage options are left out of a config while off; the default shows them.
    let timing = toml::to_string(&Timing::default()).expect("the default config serializes");
    format!("{}\n[timing]\n{timing}", toml::to_string(&Config::default()).expect("the default config serializes"))
}

/// The integer serde quotes in "invalid value: integer `N`, ...".
fn integer_in(message: &str) -> Option<String> {
    let rest = &message[message.find("integer `")? + "integer `".len()..];
    Some(rest[..rest.find('`')?].to_string())
}

fn syntax_error(text: &str, e: &toml::de::Error) -> ConfigError {
    let span = e.span().unwrap_or(0..0);
    let offset = span.start.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map(|i| i + 1).unwrap_or(0) + 1;
    let mut message = e.message().trim().to_string();
    if message == "duplicate key" {
        let key = text.get(span).unwrap_or("").trim();
        message = format!("duplicate key `{}`", key.escape_default());
    }
    ConfigError::Syntax { line, column, message }
}
