//! What commands print: stdout written safely (a closed pipe is no error,
//! control characters escaped), tables fitted to the terminal, and words
//! quoted for a shell.

use std::io::Write;

use crate::error::Error;

pub(crate) use crate::progress::shell_quote;

/// Writes to stdout; a closed pipe (`orla list | head`) is not an error.
/// Control characters are escaped (see `progress::printable`), line breaks
/// and tabs kept: what a registry or package wrote is shown, never obeyed.
pub(crate) fn write_stdout(bytes: &[u8]) -> Result<(), Error> {
    write_stdout_text(&String::from_utf8_lossy(bytes))
}

/// As [`write_stdout`], for text already known to be UTF-8.
pub(crate) fn write_stdout_text(text: &str) -> Result<(), Error> {
    let bytes = crate::progress::printable_lines(text);
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Error::other(format!("cannot write to stdout: {e}"), None)),
    }
}

/// Aligns rows under a header, two spaces between columns; the last column
/// is not padded, so long descriptions do not leave trailing blanks.
pub(crate) fn table<R: AsRef<[String]>>(header: &[&str], rows: &[R]) -> String {
    table_fit(header, rows, None)
}

/// As `table`, fitted to `width` columns when one is given (stdout is a
/// terminal): the last column (a description) wraps between words onto
/// lines indented to where it starts; a word longer than the room left
/// stays whole. When the other columns leave it fewer than 12 columns, each
/// description goes under its row instead, indented by 4 and wrapped to
/// the width, and the header leaves its name out.
pub(crate) fn table_fit<R: AsRef<[String]>>(
    header: &[&str],
    rows: &[R],
    width: Option<usize>,
) -> String {
    let text = table_lines(header, rows);
    let Some(width) = width else {
        return text;
    };
    let indent = last_column_start(header, rows);
    let below = width < indent + 12;
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        if !below && line.chars().count() <= width {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let head: String = line.chars().take(indent).collect();
        let tail: String = line.chars().skip(indent).collect();
        if below {
            out.push_str(head.trim_end());
            out.push('\n');
            if i > 0 {
                for part in wrap_words(&tail, width.saturating_sub(4)) {
                    out.push_str(&format!("    {part}\n"));
                }
            }
            continue;
        }
        let parts = wrap_words(&tail, width - indent);
        if parts.is_empty() {
            out.push_str(head.trim_end());
            out.push('\n');
        }
        for (n, part) in parts.iter().enumerate() {
            if n == 0 {
                out.push_str(&head);
            } else {
                out.push_str(&" ".repeat(indent));
            }
            out.push_str(part);
            out.push('\n');
        }
    }
    out
}

/// `text` broken between words into lines of at most `width` columns (a
/// word longer than that stays whole, on a line of its own). Colours take
/// no room.
pub(crate) fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let columns = dialoguer::console::measure_text_width;
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if columns(line) + 1 + columns(word) <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// Where the last column of `table` starts.
fn last_column_start<R: AsRef<[String]>>(header: &[&str], rows: &[R]) -> usize {
    let columns = header.len();
    (0..columns.saturating_sub(1))
        .map(|i| {
            let cells = rows
                .iter()
                .filter_map(|r| r.as_ref().get(i))
                .map(|c| crate::progress::printable(c).chars().count());
            cells.chain([header[i].chars().count()]).max().unwrap_or(0) + 2
        })
        .sum()
}

fn table_lines<R: AsRef<[String]>>(header: &[&str], rows: &[R]) -> String {
    // Each cell on one line: line breaks and tabs (a YAML block scalar's
    // description) read as spaces, and every other control character is
    // escaped, so a cell can neither start another row nor drive the
    // terminal.
    let rows: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            row.as_ref()
                .iter()
                .map(|cell| {
                    let flat: Vec<&str> = cell
                        .split(['\n', '\t'])
                        .map(str::trim)
                        .filter(|piece| !piece.is_empty())
                        .collect();
                    crate::progress::printable(&flat.join(" ")).into_owned()
                })
                .collect()
        })
        .collect();
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let header: Vec<String> = header.iter().map(|h| h.to_string()).collect();
    let mut out = String::new();
    for row in std::iter::once(header.as_slice()).chain(rows.iter().map(Vec::as_slice)) {
        let last = row.len().saturating_sub(1);
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (cell, w))| {
                if i == last {
                    cell.clone()
                } else {
                    format!("{cell:<w$}")
                }
            })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_multi_line_description_is_one_line_of_its_row() {
        let rows = vec![vec![
            "fs".to_string(),
            "Read and write files.\nLines\tand tabs \u{1b}[2J too.\n".to_string(),
        ]];
        let text = super::table(&["NAME", "DESCRIPTION"], &rows);
        assert_eq!(
            text.lines().nth(1).unwrap(),
            "fs    Read and write files. Lines and tabs \\u001b[2J too."
        );
        assert_eq!(text.lines().count(), 2);
    }

    #[test]
    fn tables_wrap_their_last_column_between_words() {
        let rows = vec![vec![
            "fs-read".to_string(),
            "Read a text file, optionally from a byte offset".to_string(),
        ]];
        let text = super::table_fit(&["NAME", "DESCRIPTION"], &rows, Some(30));
        assert_eq!(
            text,
            "NAME     DESCRIPTION\n\
             fs-read  Read a text file,\n         optionally from a\n         byte offset\n"
        );
        for line in text.lines() {
            assert!(line.chars().count() <= 30, "{line:?}");
        }
        // Unfitted (a pipe): whole lines.
        let whole = super::table(&["NAME", "DESCRIPTION"], &rows);
        assert_eq!(whole.lines().count(), 2);
    }

    #[test]
    fn words_wrap_between_words() {
        assert_eq!(
            super::wrap_words("one two three four", 9),
            ["one two", "three", "four"]
        );
        assert_eq!(
            super::wrap_words("a verylongword b", 4),
            ["a", "verylongword", "b"]
        );
        assert!(super::wrap_words("  ", 4).is_empty());
    }

    #[test]
    fn a_description_with_no_room_beside_its_row_goes_under_it() {
        let rows = vec![
            vec![
                "echo-capsule".to_string(),
                "1.0.0".to_string(),
                "low (undeclared)".to_string(),
                "A long-running capsule-mode tool that answers each request".to_string(),
            ],
            vec![
                "fs".to_string(),
                "1.0.0".to_string(),
                "low".to_string(),
                "Short".to_string(),
            ],
        ];
        let header = ["NAME", "VERSION", "RISK", "DESCRIPTION"];
        let text = super::table_fit(&header, &rows, Some(44));
        assert_eq!(
            text,
            "NAME          VERSION  RISK\n\
             echo-capsule  1.0.0    low (undeclared)\n\
             \x20   A long-running capsule-mode tool that\n\
             \x20   answers each request\n\
             fs            1.0.0    low\n\
             \x20   Short\n"
        );
        for line in text.lines() {
            assert!(line.chars().count() <= 44, "{line:?}");
        }
    }

    #[test]
    fn shell_quote_quotes_only_what_a_shell_would_split() {
        assert_eq!(super::shell_quote("/tmp/a-b_c.d"), "/tmp/a-b_c.d");
        assert_eq!(super::shell_quote("/tmp/a b"), "'/tmp/a b'");
        assert_eq!(super::shell_quote("it's"), "'it'\\''s'");
        assert_eq!(super::shell_quote("$HOME"), "'$HOME'");
        assert_eq!(super::shell_quote(""), "''");
    }
}
