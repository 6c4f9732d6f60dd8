//! Sizes as people write them (`500M`, `2GiB`) and read them (`1.5 MiB`):
//! the cache's size limit, in the environment, config.yaml and `orla cache
//! prune --max-size`. A leaf, so that both `config` and `fetch` use it.

/// A size [`parse_size`] cannot read.
#[derive(Debug, thiserror::Error)]
#[error("'{text}' is not a size such as 500M, 2G or 1.5GiB")]
pub struct SizeError {
    pub text: String,
}

/// Parses a size: a number of bytes, or a number with a unit, K, M, G or T
/// (and KiB, MiB, GiB, TiB: powers of 1024) or KB, MB, GB, TB (powers of
/// 1000), in any case: `500M`, `2GiB`, `1.5G`, `750MB`.
pub fn parse_size(text: &str) -> Result<u64, SizeError> {
    let bad = || SizeError {
        text: text.to_string(),
    };
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let number: f64 = number.parse().map_err(|_| bad())?;
    let unit = unit.trim().to_ascii_lowercase();
    let scale: f64 = match unit.as_str() {
        "" | "b" => 1.0,
        "k" | "kib" => 1024.0,
        "m" | "mib" => 1024f64.powi(2),
        "g" | "gib" => 1024f64.powi(3),
        "t" | "tib" => 1024f64.powi(4),
        "kb" => 1e3,
        "mb" => 1e6,
        "gb" => 1e9,
        "tb" => 1e12,
        _ => return Err(bad()),
    };
    let bytes = number * scale;
    if !bytes.is_finite() || bytes >= u64::MAX as f64 {
        return Err(bad());
    }
    Ok(bytes.round() as u64)
}

/// A size as a person reads it: `512 B`, `1.5 MiB`.
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_units_and_refuse_the_rest() {
        assert_eq!(parse_size("1000").unwrap(), 1000);
        assert_eq!(parse_size("2K").unwrap(), 2048);
        assert_eq!(parse_size("500M").unwrap(), 500 << 20);
        assert_eq!(parse_size("1.5GiB").unwrap(), 3 << 29);
        assert_eq!(parse_size("2 gb").unwrap(), 2_000_000_000);
        assert_eq!(parse_size("0").unwrap(), 0);
        for bad in ["", "lots", "-1", "1.2.3", "5 parsecs", "1e999"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        assert_eq!(human_size(512), "512 B");
        assert_eq!(human_size(3 << 19), "1.5 MiB");
    }
}
