//! How the manifest, and the listings copied from it, are laid out: the
//! outer levels of the document indented as a pretty printer indents them,
//! each item of its arrays on one line of its own, without spaces.
//!
//! ```text
//! {
//!   "manifest_version": 2,
//!   "root": {
//!     "kind": "global",
//!     ...
//!   },
//!   "tools": [
//!     {"name":"fs-read","root":"global","version":"1.2.1",...},
//!     {"name":"web-fetch",...}
//!   ],
//!   ...
//! }
//! ```
//!
//! One line per tool: `grep` finds a tool's whole entry, and a diff of two
//! manifests shows which tools changed. No string can hold a line break
//! (JSON escapes it), so an item is always one line.

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter};
use std::io::{self, Write};

/// `value` laid out with every container opened at depth `flat_from` or
/// deeper on one line (the document itself is at depth 1: 3 for the
/// manifest's entries, 2 for the rows of a listing), and a final line
/// break.
pub fn to_string<T: Serialize + ?Sized>(value: &T, flat_from: usize) -> String {
    let mut out = Vec::with_capacity(4096);
    let mut ser = serde_json::Serializer::with_formatter(&mut out, Layout::new(flat_from));
    value.serialize(&mut ser).expect("JSON serialises");
    out.push(b'\n');
    String::from_utf8(out).expect("serde_json writes UTF-8")
}

/// Indents as [`PrettyFormatter`] above `flat_from`, writes as
/// [`CompactFormatter`] from there.
struct Layout {
    pretty: PrettyFormatter<'static>,
    /// Containers open, the one being written included.
    depth: usize,
    flat_from: usize,
}

impl Layout {
    fn new(flat_from: usize) -> Layout {
        Layout {
            pretty: PrettyFormatter::new(),
            depth: 0,
            flat_from,
        }
    }

    fn flat(&self) -> bool {
        self.depth >= self.flat_from
    }
}

impl Formatter for Layout {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.depth += 1;
        match self.flat() {
            true => CompactFormatter.begin_array(w),
            false => self.pretty.begin_array(w),
        }
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        let result = match self.flat() {
            true => CompactFormatter.end_array(w),
            false => self.pretty.end_array(w),
        };
        self.depth -= 1;
        result
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        match self.flat() {
            true => CompactFormatter.begin_array_value(w, first),
            false => self.pretty.begin_array_value(w, first),
        }
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        match self.flat() {
            true => CompactFormatter.end_array_value(w),
            false => self.pretty.end_array_value(w),
        }
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.depth += 1;
        match self.flat() {
            true => CompactFormatter.begin_object(w),
            false => self.pretty.begin_object(w),
        }
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        let result = match self.flat() {
            true => CompactFormatter.end_object(w),
            false => self.pretty.end_object(w),
        };
        self.depth -= 1;
        result
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        match self.flat() {
            true => CompactFormatter.begin_object_key(w, first),
            false => self.pretty.begin_object_key(w, first),
        }
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        match self.flat() {
            true => CompactFormatter.begin_object_value(w),
            false => self.pretty.begin_object_value(w),
        }
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        match self.flat() {
            true => CompactFormatter.end_object_value(w),
            false => self.pretty.end_object_value(w),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn item<T: Serialize + ?Sized>(value: &T) -> String {
        serde_json::to_string(value).unwrap()
    }

    #[test]
    fn outer_levels_are_indented_and_each_item_is_one_line() {
        let value = json!({
            "version": 2,
            "head": {"kind": "global", "empty": {}},
            "none": [],
            "tools": [
                {"name": "a", "args": ["-x", "y"], "env": {}, "schema": {"type": "object"}},
                {"name": "b\nc", "nested": [[1], {"k": [true, null]}]}
            ]
        });
        let text = to_string(&value, 3);
        assert_eq!(
            text,
            r#"{
  "version": 2,
  "head": {
    "kind": "global",
    "empty": {}
  },
  "none": [],
  "tools": [
    {"name":"a","args":["-x","y"],"env":{},"schema":{"type":"object"}},
    {"name":"b\nc","nested":[[1],{"k":[true,null]}]}
  ]
}
"#
        );
        let tools = value["tools"].as_array().unwrap();
        for (line, tool) in text.lines().skip(8).zip(tools) {
            assert_eq!(line.trim_start().trim_end_matches(','), item(tool));
        }
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&text).unwrap(),
            value
        );
        // Rows of a listing: the array is the document.
        assert_eq!(
            to_string(&tools[..1], 2),
            format!("[\n  {}\n]\n", item(&tools[0]))
        );
        assert_eq!(to_string(&[(); 0], 2), "[]\n");
        // Pretty printing throughout, when nothing is deep enough.
        assert_eq!(
            to_string(&value, 9),
            serde_json::to_string_pretty(&value).unwrap() + "\n"
        );
    }
}
