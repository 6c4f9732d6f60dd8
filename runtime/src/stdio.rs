//! MCP on stdin and stdout: one JSON-RPC message per line.
//!
//! rmcp's own stdio transport drops a line that is not JSON without a word.
//! This one answers it as JSON-RPC 2.0 says (a `-32700` parse error with a
//! null id) and logs it, so a client that sends garbage learns why nothing
//! happens. JSON that is not a valid message gets `-32600` (with the id
//! when it has one); a notification the server does not know is ignored,
//! as rmcp does. A line longer than [`MAX_LINE`] is dropped whole, its
//! bytes never kept, and answered like any other invalid message.
//! Replies go through the one writer every message goes through, so a
//! reply is never interleaved with another message.

use std::sync::Arc;

use rmcp::model::{ClientJsonRpcMessage, ErrorData, RequestId};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::{StdioReader, StdioWriter, Transport};
use rmcp::RoleServer;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use crate::log::Logger;

/// The longest line kept (16 MiB, as rmcp's own transport).
pub const MAX_LINE: usize = 16 * 1024 * 1024;

pub struct Stdio {
    read: BufReader<StdioReader>,
    /// The line being read; kept across a cancelled `receive`.
    line: Vec<u8>,
    /// Dropping the rest of an oversized line, up to its newline.
    discarding: bool,
    write: Arc<Mutex<StdioWriter>>,
    logger: Logger,
}

impl Stdio {
    /// Must be called inside the tokio runtime (the pipes join its reactor).
    pub fn new(logger: Logger) -> Stdio {
        let (read, write) = rmcp::transport::stdio_pipes();
        Stdio {
            read: BufReader::new(read),
            line: Vec::new(),
            discarding: false,
            write: Arc::new(Mutex::new(write)),
            logger,
        }
    }

    /// The next line. Cancellation-safe: a partial line stays in
    /// `self.line` for the next call.
    async fn next_line(&mut self) -> Line {
        loop {
            let room = (MAX_LINE + 1).saturating_sub(self.line.len()) as u64;
            let mut limited = (&mut self.read).take(room);
            match limited.read_until(b'\n', &mut self.line).await {
                Ok(0) => return Line::End,
                Ok(_) => {}
                Err(e) => return Line::Failed(e),
            }
            let whole = self.line.last() == Some(&b'\n');
            if self.discarding {
                self.line.clear();
                self.discarding = !whole;
                continue;
            }
            if whole {
                self.line.pop();
                if self.line.last() == Some(&b'\r') {
                    self.line.pop();
                }
                return Line::Whole(std::mem::take(&mut self.line));
            }
            if self.line.len() > MAX_LINE {
                self.line.clear();
                self.discarding = true;
                return Line::TooLong;
            }
        }
    }
}

async fn write(
    writer: Arc<Mutex<StdioWriter>>,
    message: &impl serde::Serialize,
) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec(message)?;
    bytes.push(b'\n');
    let mut out = writer.lock().await;
    out.write_all(&bytes).await?;
    out.flush().await
}

enum Line {
    Whole(Vec<u8>),
    TooLong,
    End,
    Failed(std::io::Error),
}

/// What to do with one line of input.
enum Parsed {
    Message(Box<ClientJsonRpcMessage>),
    Ignore,
    Answer(ErrorData, Option<RequestId>),
}

fn parse(line: &[u8]) -> Parsed {
    let line = line.strip_prefix(b"\xef\xbb\xbf").unwrap_or(line);
    let value: Value = match serde_json::from_slice(line) {
        Ok(value) => value,
        Err(e) => {
            return Parsed::Answer(ErrorData::parse_error(format!("not JSON: {e}"), None), None)
        }
    };
    let id = value
        .get("id")
        .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
    let notification = value.get("id").is_none() && value.get("method").is_some();
    match serde_json::from_value::<ClientJsonRpcMessage>(value) {
        Ok(message) => Parsed::Message(Box::new(message)),
        // A notification nobody asked about (another protocol's, a newer
        // MCP's): no answer is due, as rmcp's transport does.
        Err(_) if notification => Parsed::Ignore,
        Err(e) => Parsed::Answer(
            ErrorData::invalid_request(format!("not a JSON-RPC message MCP knows: {e}"), None),
            id,
        ),
    }
}

impl Transport<RoleServer> for Stdio {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl std::future::Future<Output = Result<(), Self::Error>> + Send + 'static {
        let writer = self.write.clone();
        async move { write(writer, &item).await }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            let (parsed, bytes) = match self.next_line().await {
                Line::Whole(line) if line.iter().all(u8::is_ascii_whitespace) => continue,
                Line::Whole(line) => (parse(&line), line.len()),
                Line::TooLong => (
                    Parsed::Answer(
                        ErrorData::invalid_request(
                            format!("a message is at most {MAX_LINE} bytes"),
                            None,
                        ),
                        None,
                    ),
                    MAX_LINE + 1,
                ),
                Line::End => return None,
                Line::Failed(e) => {
                    self.logger
                        .error("cannot read stdin", json!({"error": e.to_string()}));
                    return None;
                }
            };
            match parsed {
                Parsed::Message(message) => return Some(*message),
                Parsed::Ignore => {}
                Parsed::Answer(error, id) => {
                    self.logger.warn(
                        "invalid input on stdin; answered with an error",
                        json!({"code": error.code.0, "error": error.message, "bytes": bytes}),
                    );
                    // Built by hand: rmcp leaves out an id it has not got,
                    // and JSON-RPC 2.0 wants `"id": null` then.
                    let reply = json!({"jsonrpc": "2.0", "id": id, "error": error});
                    if write(self.write.clone(), &reply).await.is_err() {
                        return None;
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.write.lock().await.flush().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(line: &str) -> Option<i32> {
        match parse(line.as_bytes()) {
            Parsed::Answer(e, _) => Some(e.code.0),
            _ => None,
        }
    }

    #[test]
    fn garbage_is_a_parse_error_and_a_wrong_shape_an_invalid_request() {
        assert_eq!(code("hello"), Some(-32700));
        assert_eq!(code("{\"jsonrpc\": \"2.0\", "), Some(-32700));
        assert_eq!(code("[1, 2]"), Some(-32600));
        assert_eq!(
            code("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":3}"),
            Some(-32600)
        );
        assert!(matches!(
            parse(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":5}"),
            Parsed::Ignore
        ));
        assert!(matches!(
            parse(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}"),
            Parsed::Message(_)
        ));
    }
}
