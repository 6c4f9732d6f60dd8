//! BLAKE3 verification, streamed.
//!
//! Archive bytes are hashed as they flow from the network or the cache into
//! the gzip decoder, so an archive is read exactly once. The verdict is known
//! only at the end, which is why unpacking writes into a private staging
//! directory and nothing is renamed into place before `Verifier::finish`
//! says the digest and size match.

pub mod seal;

use std::fmt;
use std::io::{self, Read};
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A BLAKE3 digest, written as 64 lowercase hex characters.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Digest([u8; 32]);

impl Digest {
    pub fn of(bytes: &[u8]) -> Digest {
        Digest(*blake3::hash(bytes).as_bytes())
    }

    pub fn from_hasher(hasher: &blake3::Hasher) -> Digest {
        Digest(*hasher.finalize().as_bytes())
    }

    pub fn from_hash(hash: &blake3::Hash) -> Digest {
        Digest(*hash.as_bytes())
    }

    pub fn to_hex(&self) -> String {
        String::from(self.hex().as_str())
    }

    /// The 64 hex characters, without an allocation. By table: a receipt
    /// writes one digest per file, and a `format!` per byte was a few
    /// percent of a reinstall of 2,000 files.
    fn hex(&self) -> Hex {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut out = [0u8; 64];
        for (pair, b) in out.chunks_exact_mut(2).zip(self.0) {
            pair[0] = HEX[usize::from(b >> 4)];
            pair[1] = HEX[usize::from(b & 15)];
        }
        Hex(out)
    }
}

impl fmt::Display for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex())
    }
}

impl fmt::Debug for Digest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Digest({})", self.to_hex())
    }
}

/// Text that is not a digest as orla writes them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "'{}' is not a BLAKE3 digest (64 lowercase hex characters)",
    text.escape_debug()
)]
pub struct DigestParseError {
    pub text: String,
}

impl FromStr for Digest {
    type Err = DigestParseError;
    fn from_str(s: &str) -> Result<Digest, DigestParseError> {
        // Lowercase only, as written: a digest has one spelling. By table:
        // a record and a receipt hold one digest per file.
        const NIBBLE: [u8; 256] = {
            let mut table = [0xff; 256];
            let mut i = 0;
            while i < 16 {
                table[b"0123456789abcdef"[i] as usize] = i as u8;
                i += 1;
            }
            table
        };
        let hex = s.as_bytes();
        if hex.len() != 64 {
            return Err(DigestParseError {
                text: s.to_string(),
            });
        }
        let mut out = [0u8; 32];
        let mut bad = 0;
        for (byte, pair) in out.iter_mut().zip(hex.chunks_exact(2)) {
            let (high, low) = (NIBBLE[usize::from(pair[0])], NIBBLE[usize::from(pair[1])]);
            bad |= high | low;
            *byte = high << 4 | (low & 15);
        }
        if bad > 15 {
            return Err(DigestParseError {
                text: s.to_string(),
            });
        }
        Ok(Digest(out))
    }
}

impl Serialize for Digest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.hex().as_str())
    }
}

impl<'de> Deserialize<'de> for Digest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Digest, D::Error> {
        // Parsed from the deserializer's own text: no allocation per file
        // of a record.
        struct Text;
        impl serde::de::Visitor<'_> for Text {
            type Value = Digest;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a BLAKE3 digest, 64 lowercase hex characters")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Digest, E> {
                s.parse().map_err(E::custom)
            }
        }
        d.deserialize_str(Text)
    }
}

/// A digest's hex characters.
struct Hex([u8; 64]);

impl Hex {
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).expect("hex digits are ASCII")
    }
}

/// What the bytes must be.
#[derive(Debug, Clone, Copy)]
pub struct Expected {
    pub blake3: Digest,
    pub size: Option<u64>,
    /// The record's optional SHA-256, checked in the same pass when given.
    pub sha256: Option<[u8; 32]>,
}

/// Parses 64 hex characters (either case) as a SHA-256.
pub fn parse_sha256(hex: &str) -> Option<[u8; 32]> {
    if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, chunk) in hex.as_bytes().chunks(2).enumerate() {
        out[i] = u8::from_str_radix(std::str::from_utf8(chunk).ok()?, 16).ok()?;
    }
    Some(out)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Bytes that are not the ones their record names: the wrong size, BLAKE3
/// or SHA-256. (`error::verify::VerifyError` is `orla verify`'s verdict on
/// installed packages, something else.)
#[derive(Debug, thiserror::Error)]
pub enum IntegrityError {
    #[error("{what}: digest mismatch: expected blake3 {expected}, got {actual}")]
    DigestMismatch {
        what: String,
        expected: Digest,
        actual: Digest,
    },
    #[error("{what}: size mismatch: expected {expected} bytes, got {actual}")]
    SizeMismatch {
        what: String,
        expected: u64,
        actual: u64,
    },
    #[error("{what}: sha256 mismatch: expected {expected}, got {actual}")]
    Sha256Mismatch {
        what: String,
        expected: String,
        actual: String,
    },
}

/// A reader that hashes and counts what passes through it and refuses to
/// read past the expected size, so a hostile server cannot stream forever.
pub struct Verifier<R> {
    inner: R,
    hasher: blake3::Hasher,
    /// Only when the record gives a SHA-256 as well.
    sha256: Option<sha2::Sha256>,
    read: u64,
    limit: Option<u64>,
}

impl<R: Read> Verifier<R> {
    pub fn new(inner: R, expected_size: Option<u64>) -> Verifier<R> {
        Verifier {
            inner,
            hasher: blake3::Hasher::new(),
            sha256: None,
            read: 0,
            limit: expected_size,
        }
    }

    /// Also computes the SHA-256 of the bytes, for records that give one.
    pub fn with_sha256(mut self, wanted: bool) -> Verifier<R> {
        use sha2::Digest as _;
        self.sha256 = wanted.then(sha2::Sha256::new);
        self
    }

    pub fn bytes_read(&self) -> u64 {
        self.read
    }

    /// Reads whatever the consumer left unread (gzip trailers, padding), so
    /// the digest covers every byte, then compares with `expected`.
    pub fn finish(
        mut self,
        expected: &Expected,
        what: &str,
    ) -> io::Result<Result<(), IntegrityError>> {
        io::copy(&mut self, &mut io::sink())?;
        Ok(self.check(expected, what))
    }

    fn check(&self, expected: &Expected, what: &str) -> Result<(), IntegrityError> {
        if let Some(size) = expected.size {
            if size != self.read {
                return Err(IntegrityError::SizeMismatch {
                    what: what.to_string(),
                    expected: size,
                    actual: self.read,
                });
            }
        }
        let actual = Digest(*self.hasher.finalize().as_bytes());
        if actual != expected.blake3 {
            return Err(IntegrityError::DigestMismatch {
                what: what.to_string(),
                expected: expected.blake3,
                actual,
            });
        }
        if let (Some(want), Some(hasher)) = (expected.sha256, &self.sha256) {
            use sha2::Digest as _;
            let got: [u8; 32] = hasher.clone().finalize().into();
            if got != want {
                return Err(IntegrityError::Sha256Mismatch {
                    what: what.to_string(),
                    expected: hex(&want),
                    actual: hex(&got),
                });
            }
        }
        Ok(())
    }
}

/// The error a `Verifier` returns when the source is longer than declared;
/// callers turn it into a `SizeMismatch`.
#[derive(Debug)]
pub struct TooLong;

impl fmt::Display for TooLong {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the archive is longer than its index record says")
    }
}

impl std::error::Error for TooLong {}

impl<R: Read> Read for Verifier<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want = match self.limit {
            // Ask for one byte more than allowed, so an overlong source is seen.
            Some(limit) => {
                let room = limit.saturating_add(1).saturating_sub(self.read);
                buf.len().min(usize::try_from(room).unwrap_or(usize::MAX))
            }
            None => buf.len(),
        };
        if want == 0 {
            return Err(io::Error::new(io::ErrorKind::InvalidData, TooLong));
        }
        let n = self.inner.read(&mut buf[..want])?;
        self.read += n as u64;
        if let Some(limit) = self.limit {
            if self.read > limit {
                return Err(io::Error::new(io::ErrorKind::InvalidData, TooLong));
            }
        }
        self.hasher.update(&buf[..n]);
        if let Some(sha) = &mut self.sha256 {
            sha2::Digest::update(sha, &buf[..n]);
        }
        Ok(n)
    }
}

/// Hashes a file's bytes, for receipts and `orla verify`.
pub fn hash_reader(mut reader: impl Read) -> io::Result<(Digest, u64)> {
    let mut hasher = blake3::Hasher::new();
    let n = io::copy(&mut reader, &mut hasher)?;
    Ok((Digest(*hasher.finalize().as_bytes()), n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digest_round_trips_through_hex() {
        let d = Digest::of(b"orla");
        assert_eq!(d.to_hex().parse::<Digest>().unwrap(), d);
        assert_eq!(d.to_hex(), blake3::hash(b"orla").to_hex().as_str());
    }

    #[test]
    fn malformed_digests_are_refused() {
        for s in ["", "abc", &"A".repeat(64), &"g".repeat(64), &"a".repeat(65)] {
            assert!(s.parse::<Digest>().is_err(), "{s}");
        }
        // Any one character that is not a lowercase hex digit, anywhere.
        let hex = Digest::of(b"orla").to_hex();
        for at in 0..64 {
            for c in ['A', 'F', 'g', 'G', '/', ':', '`', ' ', '\0', '\u{e9}'] {
                let mut bad = hex.clone();
                bad.replace_range(at..at + 1, &c.to_string());
                assert!(bad.parse::<Digest>().is_err(), "{bad}");
            }
        }
        // Read by serde from the text as it is, escapes and all.
        let quoted = format!("\"{hex}\"");
        assert_eq!(
            serde_json::from_str::<Digest>(&quoted).unwrap(),
            Digest::of(b"orla")
        );
        let escaped = format!("\"\\u0030{}\"", &hex[1..]);
        assert_eq!(
            serde_json::from_str::<Digest>(&escaped).unwrap(),
            format!("0{}", &hex[1..]).parse::<Digest>().unwrap()
        );
        assert!(serde_json::from_str::<Digest>("7").is_err());
    }

    #[test]
    fn verifier_checks_digest_and_size() {
        let data = b"hello world".to_vec();
        let good = Expected {
            blake3: Digest::of(&data),
            size: Some(11),
            sha256: None,
        };
        let mut v = Verifier::new(&data[..], Some(11));
        let mut head = [0u8; 5];
        v.read_exact(&mut head).unwrap();
        assert!(v.finish(&good, "x").unwrap().is_ok());

        let wrong = Expected {
            blake3: Digest::of(b"other"),
            size: None,
            sha256: None,
        };
        let v = Verifier::new(&data[..], None);
        assert!(matches!(
            v.finish(&wrong, "x").unwrap(),
            Err(IntegrityError::DigestMismatch { .. })
        ));

        let short = Expected {
            blake3: Digest::of(&data),
            size: Some(12),
            sha256: None,
        };
        let v = Verifier::new(&data[..], Some(12));
        assert!(matches!(
            v.finish(&short, "x").unwrap(),
            Err(IntegrityError::SizeMismatch { .. })
        ));
    }

    #[test]
    fn an_optional_sha256_is_checked_in_the_same_pass() {
        use sha2::Digest as _;
        let data = b"hello world".to_vec();
        let sha: [u8; 32] = sha2::Sha256::digest(&data).into();
        let hex: String = sha.iter().map(|b| format!("{b:02X}")).collect();
        assert_eq!(parse_sha256(&hex), Some(sha));
        assert_eq!(parse_sha256("abc"), None);
        let mut expected = Expected {
            blake3: Digest::of(&data),
            size: Some(11),
            sha256: Some(sha),
        };
        let v = Verifier::new(&data[..], Some(11)).with_sha256(true);
        assert!(v.finish(&expected, "x").unwrap().is_ok());
        expected.sha256 = Some([0u8; 32]);
        let v = Verifier::new(&data[..], Some(11)).with_sha256(true);
        assert!(matches!(
            v.finish(&expected, "x").unwrap(),
            Err(IntegrityError::Sha256Mismatch { .. })
        ));
    }

    #[test]
    fn a_record_size_of_u64_max_does_not_overflow() {
        // A hostile index may declare any u64 as the size.
        let data = b"hello world".to_vec();
        let expected = Expected {
            blake3: Digest::of(&data),
            size: Some(u64::MAX),
            sha256: None,
        };
        let v = Verifier::new(&data[..], Some(u64::MAX));
        assert!(matches!(
            v.finish(&expected, "x").unwrap(),
            Err(IntegrityError::SizeMismatch { actual: 11, .. })
        ));
    }

    #[test]
    fn verifier_stops_an_overlong_stream() {
        let data = [0u8; 100];
        let mut v = Verifier::new(&data[..], Some(10));
        let err = io::copy(&mut v, &mut io::sink()).unwrap_err();
        assert!(err.get_ref().unwrap().is::<TooLong>());
        assert!(v.bytes_read() <= 11);
    }
}
