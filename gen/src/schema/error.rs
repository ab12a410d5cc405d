//! The error every bad configuration gets: one line naming the field, the rule and what is allowed.

/// Why a configuration was refused. Each variant renders as one line naming the field.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConfigError {
    /// The text is not valid TOML.
    #[error("line {line}, column {column}: invalid TOML: {message}")]
    Syntax { line: usize, column: usize, message: String },
    /// A key is unknown or a value has the wrong type.
    #[error("`{path}`: {message}")]
    Field { path: String, message: String },
    /// A value breaks a rule of the schema.
    #[error("`{path}` = {value}: {rule} (allowed: {allowed})")]
    Rule { path: String, value: String, rule: String, allowed: String },
    /// No preset of that name.
    #[error("unknown preset `{name}` (allowed: {allowed})")]
    UnknownPreset { name: String, allowed: String },
}
