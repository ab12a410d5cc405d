//! A user's Liberty file made ready for Yosys: `.lib` is used in place, `.lib.gz` is
//! decompressed into a temporary file that lives as long as this value.

use rfgen_gen::input::{Input, InputError, read_bytes, read_capped};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

#[derive(Debug)]
pub struct Liberty {
    path: PathBuf,
    digest: String,
    _unpacked: Option<tempfile::NamedTempFile>,
}

impl Liberty {
    /// Errors are about the user's file (missing, unreadable, wrong extension, bad gzip).
    pub fn open(path: &Path) -> Result<Liberty, String> {
        let name = path.to_string_lossy();
        let gz = name.ends_with(".lib.gz");
        if !gz && !name.ends_with(".lib") {
            return Err(format!("{name}: a Liberty file must end in .lib or .lib.gz"));
        }
        let raw = read_bytes(path, Input::Liberty).map_err(|e| e.to_string())?;
        if !gz {
            let path = std::path::absolute(path).map_err(|e| format!("{name}: {e}"))?;
            return Ok(Liberty { path, digest: digest(&raw), _unpacked: None });
        }
        // Capped after decompression too: a small archive may unpack to anything.
        let text = read_capped(flate2::read::GzDecoder::new(&raw[..]), path, Input::Liberty).map_err(|e| match e {
            InputError::Unreadable { source, .. } => format!("cannot decompress Liberty file {name}: {source}"),
            e => e.to_string(),
        })?;
        let mut file = tempfile::Builder::new()
            .prefix("rfgen-liberty-")
            .suffix(".lib")
            .tempfile()
            .map_err(|e| format!("cannot unpack {name}: {e}"))?;
        std::io::Write::write_all(&mut file, &text).map_err(|e| format!("cannot unpack {name}: {e}"))?;
        Ok(Liberty { path: file.path().to_path_buf(), digest: digest(&text), _unpacked: Some(file) })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Content hash, so that results remember which library they came from.
    pub fn digest(&self) -> &str {
        &self.digest
    }
}

fn digest(bytes: &[u8]) -> String {
    Sha256::digest(bytes)[..8].iter().map(|b| format!("{b:02x}")).collect()
}
