//! The one duration syntax of every flag and setting (`--timeout 5s`, `500ms`, `1m30s`), parsed once
//! and bounded. Shared by the CLI and the fuzz targets.

use std::time::Duration;

/// The one duration syntax of every flag: a bare number of seconds (`30`, `2.5`), or numbers with units
/// `h`, `m`, `s`, `ms` in sequence (`5s`, `500ms`, `1m30s`, as Go's and kubectl's). Positive and at most
/// `max`; no exponent, sign, `inf` or `NaN`. Computed in whole nanoseconds: no float can overflow.
pub fn parse(s: &str, max: Duration) -> Result<Duration, String> {
    let bad = || format!("`{s}`: expected a duration such as 5s, 500ms, 1m30s or a number of seconds");
    let t = s.trim();
    if t.is_empty() {
        return Err(bad());
    }
    let mut rest = t;
    let mut total: u128 = 0;
    while !rest.is_empty() {
        let int_len = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
        let (int, after) = rest.split_at(int_len);
        let (frac, after) = match after.strip_prefix('.') {
            Some(f) => f.split_at(f.find(|c: char| !c.is_ascii_digit()).unwrap_or(f.len())),
            None => ("", after),
        };
        if int.is_empty() && frac.is_empty() {
            return Err(bad());
        }
        let unit_len = after.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(after.len());
        let (unit, after) = after.split_at(unit_len);
        let nanos_per: u128 = match unit {
            "" if rest.len() == t.len() && after.is_empty() => 1_000_000_000,
            "h" => 3_600_000_000_000,
            "m" => 60_000_000_000,
            "s" => 1_000_000_000,
            "ms" => 1_000_000,
            _ => return Err(bad()),
        };
        // More digits than any bound needs: too large (or too precise) either way.
        if int.len() > 12 || frac.len() > 9 {
            return Err(format!("`{s}`: too large or too precise (at most {})", show(max)));
        }
        let int: u128 = if int.is_empty() { 0 } else { int.parse().map_err(|_| bad())? };
        let frac_nanos: u128 = if frac.is_empty() { 0 } else { format!("{frac:0<9}").parse().map_err(|_| bad())? };
        total += int * nanos_per + frac_nanos * nanos_per / 1_000_000_000;
        rest = after;
    }
    if total == 0 {
        return Err(format!("`{s}`: must be more than zero"));
    }
    if total > max.as_nanos() {
        return Err(format!("`{s}` is too long (at most {})", show(max)));
    }
    // At most `max` (hours): fits in u64 nanoseconds.
    Ok(Duration::from_nanos(u64::try_from(total).unwrap_or(u64::MAX)))
}

fn show(d: Duration) -> String {
    match d.as_secs() {
        s if s.is_multiple_of(3600) => format!("{}h", s / 3600),
        s => format!("{s}s"),
    }
}
