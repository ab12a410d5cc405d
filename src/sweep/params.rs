//! `--param PATH=LIST`: a config key and the values to try, and the cross product of several
//! of them applied to a base configuration, one checked config (or config error) per point.

use rfgen_gen::Checked;
use rfgen_gen::config::{check, parse};
use toml::{Table, Value};

#[derive(Clone, Debug, serde::Serialize)]
pub struct Param {
    /// TOML key path, e.g. `mrf.collectors`.
    pub path: String,
    pub values: Vec<Value>,
}

/// One point of the sweep: a value per parameter, and the resulting config or why it is invalid.
pub struct Point {
    pub values: Vec<Value>,
    pub config: Result<Checked, String>,
}

/// The longest base name kept in a point's name, leaving room for `-` and 8 hex digits within
/// the 32-character limit of `name`.
const BASE_NAME_MAX: usize = 23;

impl Param {
    /// Parses `PATH=V1,V2,...` against the base config (all keys written out); the message of
    /// an error names what is wrong and what is allowed.
    pub fn parse(spec: &str, base: &Table) -> Result<Param, String> {
        let Some((path, list)) = spec.split_once('=').filter(|(p, l)| !p.is_empty() && !l.is_empty()) else {
            return Err(format!("--param {spec}: expected PATH=LIST, e.g. mrf.collectors=2,4,8"));
        };
        if path == "name" {
            return Err("--param name: the design name is set per point and cannot be swept".into());
        }
        let mut table = base;
        let keys: Vec<&str> = path.split('.').collect();
        for (i, key) in keys.iter().enumerate() {
            let section = if i == 0 { "the top level".to_string() } else { format!("[{}]", keys[..i].join(".")) };
            let allowed = || table.keys().map(String::as_str).collect::<Vec<_>>().join(", ");
            match table.get(*key) {
                None => {
                    return Err(format!(
                        "--param {path}: unknown config key `{key}` in {section} (allowed: {})",
                        allowed()
                    ));
                }
                Some(Value::Table(t)) if i + 1 < keys.len() => table = t,
                Some(Value::Table(t)) => {
                    let inner = t.keys().map(String::as_str).collect::<Vec<_>>().join(", ");
                    return Err(format!("--param {path}: `{path}` is a section; name a key inside it ({inner})"));
                }
                Some(_) if i + 1 < keys.len() => {
                    return Err(format!("--param {path}: `{}` is a value, not a section", keys[..=i].join(".")));
                }
                Some(_) => {}
            }
        }
        let mut values = Vec::new();
        for item in list.split(',').map(str::trim) {
            if item.is_empty() {
                return Err(format!("--param {spec}: empty value in the list"));
            }
            let value = parse_value(item);
            if values.contains(&value) {
                return Err(format!("--param {spec}: value {item} is listed twice"));
            }
            values.push(value);
        }
        Ok(Param { path: path.to_string(), values })
    }
}

/// A TOML literal (`4`, `0.5`, `true`, `"fifo"`), or else the bare word as a string.
fn parse_value(item: &str) -> Value {
    toml::from_str::<Table>(&format!("v = {item}"))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| Value::String(item.to_string()))
}

/// Shows a value the way a user typed it (strings without quotes).
pub fn show(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Every point of the cross product, the first parameter varying slowest. Each valid point is
/// renamed `<base>-<hash>`, its config hash's first 8 digits, so that module prefixes differ
/// between points.
pub fn points(base: &Checked, params: &[Param]) -> Vec<Point> {
    let base_table = base.to_table();
    let mut combos: Vec<Vec<Value>> = vec![vec![]];
    for p in params {
        combos =
            combos.iter().flat_map(|c| p.values.iter().map(move |v| [c.clone(), vec![v.clone()]].concat())).collect();
    }
    combos
        .into_iter()
        .map(|values| {
            let mut table = base_table.clone();
            for (p, v) in params.iter().zip(&values) {
                set(&mut table, &p.path, v.clone());
            }
            let text = toml::to_string(&table).expect("a TOML table serializes");
            let config = parse(&text).map_err(|e| e.to_string()).and_then(|c| {
                let mut renamed = c.config.clone();
                let base_name: String = base.config.name.chars().take(BASE_NAME_MAX).collect();
                renamed.name = format!("{base_name}-{}", &c.hash()[..8]);
                check(renamed).map_err(|e| e.to_string())
            });
            Point { values, config }
        })
        .collect()
}

fn set(table: &mut Table, path: &str, value: Value) {
    let (sections, key) = path.rsplit_once('.').map_or((None, path), |(s, k)| (Some(s), k));
    let mut t = table;
    for s in sections.into_iter().flat_map(|s| s.split('.')) {
        t = t.get_mut(s).and_then(Value::as_table_mut).expect("the path was checked against the base config");
    }
    t.insert(key.to_string(), value);
}
