//! A user's Liberty file made ready for Yosys: `.lib` is used in place, `.lib.gz` is
//! decompressed into a temporary file that lives as long as this value.

use sha2::{Digest, Sha256};
use std::io::Read;
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
        let raw = std::fs::read(path).map_err(|e| format!("cannot read Liberty file {name}: {e}"))?;
        if !gz {
            let path = std::path::absolute(path).map_err(|e| format!("{name}: {e}"))?;
            return Ok(Liberty { path, digest: digest(&raw), _unpacked: None });
        }
        let mut text = Vec::new();
        flate2::read::GzDecoder::new(&raw[..])
            .read_to_end(&mut text)
            .map_err(|e| format!("cannot decompress Liberty file {name}: {e}"))?;
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
