//! Bounded reads: regular files only (after following links), never more than a limit.
//!
//! A FIFO blocks its reader until a writer comes (forever, in CI), and `/dev/zero` or `/dev/urandom`
//! never end: a path that is not a regular file is refused before it is opened, and what is read stops
//! one byte past the limit.

use std::fmt;
use std::io::Read;
use std::path::Path;

/// The default size limit of one file (and of stdin): 64 MiB, far above any manifest or dump a
/// repository keeps. `--max-file-size` and `max-file-size` in `.edgecheck.toml` change it.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 64 << 20;

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadError {
    /// Not a regular file (after following links): what it is.
    NotRegular(&'static str),
    /// Larger than the limit (its size, when known).
    TooLarge { size: Option<u64>, limit: u64 },
    /// The read failed.
    Io(std::io::Error),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotRegular(what) => write!(f, "not a regular file ({what})"),
            ReadError::TooLarge { size: Some(s), limit } => {
                write!(f, "{} is over the size limit of {} (--max-file-size)", bytes(*s), bytes(*limit))
            }
            ReadError::TooLarge { size: None, limit } => {
                write!(f, "over the size limit of {} (--max-file-size)", bytes(*limit))
            }
            ReadError::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ReadError {}

impl From<std::io::Error> for ReadError {
    fn from(e: std::io::Error) -> Self {
        ReadError::Io(e)
    }
}

/// Checks that `path` is a regular file (links followed) of at most `limit` bytes, without opening it
/// (for files another library reads, such as a kubeconfig's certificate or token file).
pub fn check_regular_file(path: &Path, limit: u64) -> Result<u64, ReadError> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(what(&meta.file_type())));
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge { size: Some(meta.len()), limit });
    }
    Ok(meta.len())
}

/// Reads a regular file (links followed) of at most `limit` bytes.
pub fn read_regular_file(path: &Path, limit: u64) -> Result<Vec<u8>, ReadError> {
    let len = check_regular_file(path, limit)?;
    let file = std::fs::File::open(path)?;
    // The path may have been replaced between the look and the open: judge the file opened too.
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(what(&meta.file_type())));
    }
    let cap = usize::try_from(len.min(limit)).unwrap_or(0);
    read_bounded_into(file, limit, Vec::with_capacity(cap))
}

/// Reads a regular file as UTF-8 text (lossy), bounded as [`read_regular_file`].
pub fn read_regular_text(path: &Path, limit: u64) -> Result<String, ReadError> {
    read_regular_file(path, limit).map(|b| String::from_utf8_lossy(&b).into_owned())
}

/// Reads a stream (stdin) to its end, or fails once it passes `limit` bytes.
pub fn read_bounded(reader: impl Read, limit: u64) -> Result<Vec<u8>, ReadError> {
    read_bounded_into(reader, limit, Vec::new())
}

fn read_bounded_into(reader: impl Read, limit: u64, mut buf: Vec<u8>) -> Result<Vec<u8>, ReadError> {
    reader.take(limit.saturating_add(1)).read_to_end(&mut buf)?;
    if u64::try_from(buf.len()).unwrap_or(u64::MAX) > limit {
        return Err(ReadError::TooLarge { size: None, limit });
    }
    Ok(buf)
}

#[cfg(unix)]
fn what(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt as _;
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a file"
    }
}

#[cfg(not(unix))]
fn what(t: &std::fs::FileType) -> &'static str {
    if t.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

/// `64 MiB`, `1.5 KiB`, `12 bytes`.
pub fn bytes(n: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (size, unit) in UNITS {
        if n >= size {
            return if n.is_multiple_of(size) {
                format!("{} {unit}", n / size)
            } else {
                // Display only: a rounded figure.
                format!("{:.1} {unit}", n as f64 / size as f64)
            };
        }
    }
    format!("{n} bytes")
}

/// Parses a size: `64MiB`, `512KiB`, `1GiB`, `10MB` (decimal), or a number of bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" => 1_000,
        "m" | "mb" => 1_000_000,
        "g" | "gb" => 1_000_000_000,
        "ki" | "kib" => 1 << 10,
        "mi" | "mib" => 1 << 20,
        "gi" | "gib" => 1 << 30,
        _ => return Err(format!("`{s}`: expected a size such as 64MiB, 512KiB or a number of bytes")),
    };
    let n: u64 =
        num.parse().map_err(|_| format!("`{s}`: expected a size such as 64MiB, 512KiB or a number of bytes"))?;
    let v = n.checked_mul(mult).ok_or_else(|| format!("`{s}`: too large"))?;
    if v == 0 {
        return Err(format!("`{s}`: the limit must be at least one byte"));
    }
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_print() {
        assert_eq!(parse_size("64MiB"), Ok(64 << 20));
        assert_eq!(parse_size("10 MB"), Ok(10_000_000));
        assert_eq!(parse_size("4096"), Ok(4096));
        assert!(parse_size("0").is_err());
        assert!(parse_size("-1").is_err());
        assert!(parse_size("1.5GiB").is_err());
        assert!(parse_size("99999999999999GiB").is_err());
        assert_eq!(bytes(64 << 20), "64 MiB");
        assert_eq!(bytes(1536), "1.5 KiB");
        assert_eq!(bytes(12), "12 bytes");
    }

    #[test]
    fn devices_and_directories_are_refused_and_streams_are_capped() {
        let e = read_regular_file(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert_eq!(e.to_string(), "not a regular file (a character device)");
        let e = read_regular_file(Path::new("/"), 1 << 20).unwrap_err();
        assert!(matches!(e, ReadError::NotRegular("a directory")), "{e}");
        let zeros = std::fs::File::open("/dev/zero").unwrap();
        let e = read_bounded(zeros, 1000).unwrap_err();
        assert_eq!(e.to_string(), "over the size limit of 1000 bytes (--max-file-size)");
        assert_eq!(read_bounded(&b"abc"[..], 3).unwrap(), b"abc");
    }

    #[test]
    fn regular_files_within_the_limit_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.yaml");
        std::fs::write(&p, "kind: Service\n").unwrap();
        assert_eq!(read_regular_file(&p, 100).unwrap(), b"kind: Service\n");
        let e = read_regular_file(&p, 5).unwrap_err();
        assert_eq!(e.to_string(), "14 bytes is over the size limit of 5 bytes (--max-file-size)");
    }
}
