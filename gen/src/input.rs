//! Reading the files users hand rfgen. Each kind has a size cap, so that a wrong path (a device,
//! a log, a disk image) fails at once with a clear message instead of filling memory; the caps
//! are listed in docs/config.md and docs/kernel-ir.md.

use std::io::Read;
use std::path::{Path, PathBuf};

/// A kind of file rfgen reads, with its cap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// A TOML configuration.
    Config,
    /// A kernel file (`.kir`).
    Kernel,
    /// A Liberty file for `rfgen synth --liberty`, after gzip decompression.
    Liberty,
    /// One file of a user's RTL folder (`rfgen cosim --rtl`), or its filelist.
    Rtl,
    /// The `manifest.json` of an output folder rfgen is asked to replace.
    Manifest,
}

impl Input {
    /// The most bytes rfgen reads of one such file.
    pub const fn cap(self) -> u64 {
        match self {
            Input::Config => 1 << 20,
            // 4,194,304 initialized words written out in `.data` lines fit.
            Input::Kernel => 64 << 20,
            Input::Liberty => 512 << 20,
            Input::Rtl => 64 << 20,
            Input::Manifest => 16 << 20,
        }
    }

    pub const fn what(self) -> &'static str {
        match self {
            Input::Config => "config",
            Input::Kernel => "kernel file",
            Input::Liberty => "Liberty file",
            Input::Rtl => "RTL file",
            Input::Manifest => "manifest",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum InputError {
    #[error("cannot read {what} {}: {source}", path.display())]
    Unreadable { what: &'static str, path: PathBuf, source: std::io::Error },
    #[error("{}: larger than {} MiB, the most rfgen reads of a {what}", path.display(), cap >> 20)]
    TooLarge { what: &'static str, path: PathBuf, cap: u64 },
    #[error("{}: the {what} is not UTF-8 text", path.display())]
    NotText { what: &'static str, path: PathBuf },
}

/// The bytes of `path`, refused past `kind`'s cap.
pub fn read_bytes(path: &Path, kind: Input) -> Result<Vec<u8>, InputError> {
    let file = std::fs::File::open(path).map_err(|e| unreadable(path, kind, e))?;
    read_capped(file, path, kind)
}

/// The text of `path`, refused past `kind`'s cap or when it is not UTF-8.
pub fn read_text(path: &Path, kind: Input) -> Result<String, InputError> {
    let bytes = read_bytes(path, kind)?;
    String::from_utf8(bytes).map_err(|_| InputError::NotText { what: kind.what(), path: path.to_path_buf() })
}

/// Everything `reader` gives (the content of `path`), refused past `kind`'s cap: it reads one
/// byte past the cap at most.
pub fn read_capped(reader: impl Read, path: &Path, kind: Input) -> Result<Vec<u8>, InputError> {
    let mut bytes = Vec::new();
    reader.take(kind.cap() + 1).read_to_end(&mut bytes).map_err(|e| unreadable(path, kind, e))?;
    if bytes.len() as u64 > kind.cap() {
        return Err(InputError::TooLarge { what: kind.what(), path: path.to_path_buf(), cap: kind.cap() });
    }
    Ok(bytes)
}

/// The path a user gave is at fault (not a folder, no permission, read-only, missing), rather
/// than the machine (disk full, I/O error): bad input.
pub fn path_at_fault(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        e.kind(),
        NotFound
            | PermissionDenied
            | AlreadyExists
            | NotADirectory
            | IsADirectory
            | ReadOnlyFilesystem
            | InvalidFilename
    )
}

fn unreadable(path: &Path, kind: Input, source: std::io::Error) -> InputError {
    InputError::Unreadable { what: kind.what(), path: path.to_path_buf(), source }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_device_is_refused_at_the_cap() {
        let e = read_text(Path::new("/dev/zero"), Input::Config).unwrap_err();
        assert_eq!(e.to_string(), "/dev/zero: larger than 1 MiB, the most rfgen reads of a config");
    }

    #[test]
    fn a_file_at_the_cap_is_read_and_one_byte_more_is_not() {
        let cap = Input::Config.cap() as usize;
        let at = read_capped(&vec![b'#'; cap][..], Path::new("c.toml"), Input::Config).unwrap();
        assert_eq!(at.len(), cap);
        let past = read_capped(&vec![b'#'; cap + 1][..], Path::new("c.toml"), Input::Config);
        assert!(matches!(past, Err(InputError::TooLarge { .. })));
    }

    #[test]
    fn missing_and_binary_files_are_named() {
        let e = read_text(Path::new("no/such.kir"), Input::Kernel).unwrap_err();
        assert!(e.to_string().starts_with("cannot read kernel file no/such.kir: "), "{e}");
        let dir = std::env::temp_dir().join(format!("rfgen-input-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bin = dir.join("k.kir");
        std::fs::write(&bin, [0xff, 0xfe, 0x00]).unwrap();
        let e = read_text(&bin, Input::Kernel).unwrap_err();
        assert_eq!(e.to_string(), format!("{}: the kernel file is not UTF-8 text", bin.display()));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
