//! Bounds on a tool.yaml, checked before it is parsed.
//!
//! tool.yaml comes from whoever packed the archive, and what it holds is
//! copied into the runtime manifest that every `orla list` reads. Without
//! bounds a 50 MiB description made a 100 MB manifest, and a few kilobytes
//! of nested `[[[[...` took seconds to parse: libyaml's scanner does work
//! proportional to the flow nesting depth for every token, so its cost grows
//! with the square of the depth (0.9 s at 25,000 levels, 16 s at 100,000).
//!
//! So before serde_yaml sees the text, its size is checked, and libyaml's own
//! scanner is run over it token by token, stopping at the first token that
//! nests deeper than `MAX_NESTING`: the depth counted is exactly the one the
//! parser would see (a separate hand-written scan could be fooled by quoting
//! rules), and the scanner never gets deep enough to be slow.

use std::mem::MaybeUninit;

/// The largest tool.yaml orla reads, in bytes.
pub const MAX_TOOL_YAML_BYTES: usize = 1 << 20;
/// How deeply collections (block or flow) may nest in tool.yaml.
pub const MAX_NESTING: usize = 64;
/// The longest string (any value or key, anywhere in tool.yaml), in bytes.
pub const MAX_STRING_BYTES: usize = 4096;

/// A bound a tool.yaml breaks.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    #[error("the file is larger than {} KiB", max_bytes / 1024)]
    TooLarge { max_bytes: usize },
    #[error("collections nest more than {max_depth} levels deep")]
    TooDeep { max_depth: usize },
}

/// The first limit `text` breaks, if any.
pub fn check(text: &str) -> Result<(), LimitError> {
    if text.len() > MAX_TOOL_YAML_BYTES {
        return Err(too_large());
    }
    if nesting_exceeds(text, MAX_NESTING) {
        return Err(LimitError::TooDeep {
            max_depth: MAX_NESTING,
        });
    }
    Ok(())
}

pub fn too_large() -> LimitError {
    LimitError::TooLarge {
        max_bytes: MAX_TOOL_YAML_BYTES,
    }
}

/// True when some token of `text` lies more than `limit` collections deep.
/// Text libyaml cannot scan is left to the parser, which reports it.
fn nesting_exceeds(text: &str, limit: usize) -> bool {
    let mut parser = MaybeUninit::<unsafe_libyaml::yaml_parser_t>::uninit();
    // SAFETY: the parser is initialised before use and deleted exactly once;
    // `text` outlives it; every token scanned is deleted before the next.
    unsafe {
        if unsafe_libyaml::yaml_parser_initialize(parser.as_mut_ptr()).fail {
            return false;
        }
        let parser = parser.as_mut_ptr();
        unsafe_libyaml::yaml_parser_set_input_string(parser, text.as_ptr(), text.len() as _);
        let mut depth = 0usize;
        let exceeded = loop {
            let mut token = MaybeUninit::<unsafe_libyaml::yaml_token_t>::uninit();
            if unsafe_libyaml::yaml_parser_scan(parser, token.as_mut_ptr()).fail {
                break false;
            }
            let token = token.assume_init_mut();
            let kind = token.type_;
            unsafe_libyaml::yaml_token_delete(token);
            match kind {
                unsafe_libyaml::YAML_FLOW_SEQUENCE_START_TOKEN
                | unsafe_libyaml::YAML_FLOW_MAPPING_START_TOKEN
                | unsafe_libyaml::YAML_BLOCK_SEQUENCE_START_TOKEN
                | unsafe_libyaml::YAML_BLOCK_MAPPING_START_TOKEN => {
                    depth += 1;
                    if depth > limit {
                        break true;
                    }
                }
                unsafe_libyaml::YAML_FLOW_SEQUENCE_END_TOKEN
                | unsafe_libyaml::YAML_FLOW_MAPPING_END_TOKEN
                | unsafe_libyaml::YAML_BLOCK_END_TOKEN => depth = depth.saturating_sub(1),
                unsafe_libyaml::YAML_STREAM_END_TOKEN | unsafe_libyaml::YAML_NO_TOKEN => {
                    break false
                }
                _ => {}
            }
        };
        unsafe_libyaml::yaml_parser_delete(parser);
        exceeded
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_is_counted_as_the_parser_sees_it() {
        let flow = |n: usize| format!("k: {}{}\n", "[".repeat(n), "]".repeat(n));
        assert!(!nesting_exceeds(&flow(63), 64)); // plus the top mapping
        assert!(nesting_exceeds(&flow(64), 64));
        assert!(nesting_exceeds(&flow(500_000), 64));
        let maps = |n: usize| format!("k: {}x{}\n", "{a: ".repeat(n), "}".repeat(n));
        assert!(nesting_exceeds(&maps(100), 64));
        // Brackets in quoted strings and comments are text.
        let quoted = format!(
            "k: \"{}\" # {}\nj: '{}'\n",
            "[".repeat(100),
            "{".repeat(100),
            "[".repeat(100)
        );
        assert!(!nesting_exceeds(&quoted, 64));
        // A plain scalar may hold a quote; what follows is still nesting.
        let sneaky = format!("k: [a\", {}x{}]\n", "[".repeat(100), "]".repeat(100));
        assert!(nesting_exceeds(&sneaky, 64));
        let block: String = (0..70).map(|i| format!("{}k:\n", "  ".repeat(i))).collect();
        assert!(nesting_exceeds(&block, 64));
    }

    #[test]
    fn size_is_checked_first() {
        let big = format!("description: {}\n", "x".repeat(MAX_TOOL_YAML_BYTES));
        assert_eq!(check(&big), Err(too_large()));
        assert_eq!(check("name: x\n"), Ok(()));
        assert!(nesting_exceeds("k: [unclosed", 64).eq(&false));
    }
}
