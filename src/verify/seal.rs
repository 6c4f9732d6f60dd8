//! State files orla believes only if it wrote them itself: the records of
//! the download cache's entries. Their first line is a header and
//! a keyed BLAKE3, under the user's receipt key, of what the file is for,
//! the path it belongs to and the rest of the file. A file copied from
//! elsewhere, moved to another place or written by anyone who cannot read
//! the key does not open.

use std::path::Path;

/// One kind of sealed file.
pub struct Seal {
    /// The first line's start, which names the format and its version.
    pub header: &'static str,
    /// What the MAC is for, so that one kind of file never opens as another.
    pub purpose: &'static [u8],
}

impl Seal {
    fn mac(&self, key: &[u8; 32], place: &Path, body: &[u8]) -> String {
        let mut hasher = blake3::Hasher::new_keyed(key);
        hasher.update(self.purpose);
        let place = place.as_os_str().as_encoded_bytes();
        hasher.update(&(place.len() as u64).to_le_bytes());
        hasher.update(place);
        hasher.update(body);
        hasher.finalize().to_hex().to_string()
    }

    /// The first line of the file holding `body`, for `place`.
    pub fn head(&self, key: &[u8; 32], place: &Path, body: &[u8]) -> String {
        format!("{}{}\n", self.header, self.mac(key, place, body))
    }

    /// The body of the file `bytes`, if its first line seals it for `place`
    /// under `key`.
    pub fn open<'a>(&self, key: &[u8; 32], place: &Path, bytes: &'a [u8]) -> Option<&'a [u8]> {
        let newline = bytes.iter().position(|&b| b == b'\n')?;
        let (head, body) = (&bytes[..=newline], &bytes[newline + 1..]);
        let expected = self.head(key, place, body);
        // Compared in constant time: the MAC is what keeps forgeries out.
        let same = head.len() == expected.len()
            && head
                .iter()
                .zip(expected.as_bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0;
        same.then_some(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: Seal = Seal {
        header: "one 1 ",
        purpose: b"one\0",
    };
    const TWO: Seal = Seal {
        header: "one 1 ",
        purpose: b"two\0",
    };

    #[test]
    fn a_sealed_file_opens_only_with_its_key_place_and_purpose() {
        let key = [7u8; 32];
        let place = Path::new("/state");
        let body = b"{\"a\": 1}";
        let file = [ONE.head(&key, place, body).as_bytes(), body].concat();
        assert_eq!(ONE.open(&key, place, &file), Some(&body[..]));
        assert_eq!(ONE.open(&[8u8; 32], place, &file), None, "another key");
        assert_eq!(ONE.open(&key, Path::new("/other"), &file), None);
        assert_eq!(TWO.open(&key, place, &file), None, "another purpose");
        let mut edited = file.clone();
        *edited.last_mut().unwrap() = b']';
        assert_eq!(ONE.open(&key, place, &edited), None, "an edited body");
        assert_eq!(ONE.open(&key, place, body), None, "no head");
    }
}
