//! The gzip stream of a package archive: deflate, except where deflate does
//! not pay.
//!
//! Random-looking bytes (compressed assets, model weights, other archives)
//! barely shrink under deflate, yet inflating the Huffman-coded result costs
//! an installer about as much CPU as everything else it does to those bytes.
//! A stored block, by contrast, inflates at the speed of a copy. gzip and
//! zlib choose stored blocks only when coding would make a block larger;
//! miniz_oxide, flate2's encoder, keeps the coded block when it is smaller by
//! a few bytes, which the tar headers between random files always make it.
//!
//! So the tar stream is cut into segments of `SEGMENT` bytes. Each is
//! deflated with a sync flush, which ends it on a byte boundary with the
//! compressor's history intact; when that saves less than 1/32 of the
//! segment, the segment is written as stored blocks instead. A decoder's
//! history after the stored blocks is the same bytes, so later back
//! references into the segment stay valid. The break-even: at 100 Mbit/s a
//! thirty-second of a segment takes about as long to download as the
//! segment takes to inflate from coded blocks.
//!
//! A tar stream of one segment that deflate does shrink is deflated in one
//! call, byte for byte as flate2's `GzEncoder` writes it, so small packages
//! keep the digests earlier versions of orla gave them. The decision depends
//! only on the bytes, so the output is as deterministic as the encoder.

use std::io::{self, Write};

use flate2::{Compress, Compression, Crc, FlushCompress, Status};

/// Bytes of tar stream judged at a time.
const SEGMENT: usize = 64 * 1024;
/// A stored block holds at most this many bytes.
const STORED_MAX: usize = 65_535;
/// The gzip header `GzBuilder::new().mtime(0).operating_system(255)` writes
/// at the default level: no name, no time, no extra flags, OS "unknown".
const HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255];

/// A gzip writer that stores the segments deflate does not shrink enough.
pub struct GzWriter<W: Write> {
    out: W,
    compress: Compress,
    crc: Crc,
    /// The segment being filled.
    pending: Vec<u8>,
    /// The compressor's output for one segment.
    coded: Vec<u8>,
    header_written: bool,
}

impl<W: Write> GzWriter<W> {
    pub fn new(out: W) -> GzWriter<W> {
        GzWriter {
            out,
            compress: Compress::new(Compression::default(), false),
            crc: Crc::new(),
            pending: Vec::with_capacity(SEGMENT),
            coded: Vec::with_capacity(SEGMENT + SEGMENT / 8),
            header_written: false,
        }
    }

    /// Writes the last segment and the gzip trailer; returns the writer.
    pub fn finish(mut self) -> io::Result<W> {
        let last = std::mem::take(&mut self.pending);
        self.segment(&last, true)?;
        self.out.write_all(&self.crc.sum().to_le_bytes())?;
        self.out.write_all(&self.crc.amount().to_le_bytes())?;
        self.out.flush()?;
        Ok(self.out)
    }

    /// Deflates `data` (ending the stream when `last`), then writes either
    /// that or `data` as stored blocks.
    fn segment(&mut self, data: &[u8], last: bool) -> io::Result<()> {
        if !self.header_written {
            self.out.write_all(&HEADER)?;
            self.header_written = true;
        }
        self.crc.update(data);
        let flush = if last {
            FlushCompress::Finish
        } else {
            FlushCompress::Sync
        };
        self.coded.clear();
        let start = self.compress.total_in();
        loop {
            let consumed = (self.compress.total_in() - start) as usize;
            if self.coded.capacity() - self.coded.len() < 1024 {
                self.coded.reserve(SEGMENT / 4);
            }
            let status = self
                .compress
                .compress_vec(&data[consumed..], &mut self.coded, flush)
                .map_err(io::Error::other)?;
            let consumed = (self.compress.total_in() - start) as usize;
            // Done once all input is in and the flush left room to spare
            // (a full buffer may hold back more output).
            let drained = self.coded.len() < self.coded.capacity();
            match status {
                Status::StreamEnd => break,
                Status::Ok | Status::BufError if consumed == data.len() && drained && !last => {
                    break
                }
                Status::Ok | Status::BufError => {}
            }
        }
        if data.is_empty() || self.coded.len() + data.len() / 32 < data.len() {
            self.out.write_all(&self.coded)
        } else {
            write_stored(&mut self.out, data, last)
        }
    }
}

impl<W: Write> Write for GzWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // A full segment is judged only once more data arrives: the last
        // segment must end the stream, and which one is last is known only
        // at `finish`.
        if self.pending.len() == SEGMENT {
            let full = std::mem::replace(&mut self.pending, Vec::with_capacity(SEGMENT));
            self.segment(&full, false)?;
            self.pending = full;
            self.pending.clear();
        }
        let n = buf.len().min(SEGMENT - self.pending.len());
        self.pending.extend_from_slice(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// `data` as stored blocks (RFC 1951 3.2.4): each a header byte (the final
/// bit on the stream's last block, type 00), then LEN and its complement.
/// The compressor left the stream on a byte boundary, so no padding is due.
fn write_stored(out: &mut impl Write, data: &[u8], last: bool) -> io::Result<()> {
    let mut blocks = data.chunks(STORED_MAX).peekable();
    while let Some(block) = blocks.next() {
        let len = block.len() as u16;
        let fin = last && blocks.peek().is_none();
        out.write_all(&[u8::from(fin)])?;
        out.write_all(&len.to_le_bytes())?;
        out.write_all(&(!len).to_le_bytes())?;
        out.write_all(block)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    fn gzip(data: &[u8], piece: usize) -> Vec<u8> {
        let mut w = GzWriter::new(Vec::new());
        for chunk in data.chunks(piece.max(1)) {
            w.write_all(chunk).unwrap();
        }
        w.finish().unwrap()
    }

    fn gunzip(gz: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(gz)
            .read_to_end(&mut out)
            .unwrap();
        out
    }

    /// Reproducible noise, as incompressible as random bytes: BLAKE3's
    /// output stream for the seed.
    fn noise(len: usize, seed: u64) -> Vec<u8> {
        let mut out = vec![0; len];
        blake3::Hasher::new()
            .update(&seed.to_le_bytes())
            .finalize_xof()
            .fill(&mut out);
        out
    }

    fn text(len: usize) -> Vec<u8> {
        let line = b"fn main() { println!(\"hello from a tool\"); } // comment\n";
        line.iter().copied().cycle().take(len).collect()
    }

    /// Whether the deflate stream in `gz` is stored blocks only, ending
    /// right before the gzip trailer.
    fn all_stored(gz: &[u8]) -> bool {
        let mut at = HEADER.len();
        loop {
            let head = gz[at];
            if head & 0b110 != 0 {
                return false;
            }
            let len = u16::from_le_bytes([gz[at + 1], gz[at + 2]]) as usize;
            let nlen = u16::from_le_bytes([gz[at + 3], gz[at + 4]]);
            assert_eq!(nlen, !(len as u16));
            at += 5 + len;
            if head & 1 == 1 {
                return at + 8 == gz.len();
            }
        }
    }

    #[test]
    fn every_shape_of_input_round_trips() {
        let mixed: Vec<u8> = [noise(100_000, 1), text(150_000), noise(70_000, 2)].concat();
        for data in [
            Vec::new(),
            b"x".to_vec(),
            text(SEGMENT),
            text(SEGMENT + 1),
            noise(SEGMENT, 3),
            noise(3 * SEGMENT + 17, 4),
            mixed,
        ] {
            for piece in [1, 512, 10_000, SEGMENT, usize::MAX] {
                let gz = gzip(&data, piece.min(data.len()));
                assert_eq!(gunzip(&gz), data, "{} bytes in {piece}", data.len());
                assert_eq!(
                    gz,
                    gzip(&data, 4096),
                    "the output depends on the bytes only"
                );
            }
        }
    }

    #[test]
    fn incompressible_bytes_are_stored_whole() {
        // With a tar header's worth of zeros among them, deflate saves a
        // few bytes and flate2 alone would code every block.
        let mut data = noise(5 * SEGMENT, 5);
        data[SEGMENT..SEGMENT + 512].fill(0);
        let gz = gzip(&data, 10_000);
        assert!(all_stored(&gz), "every block stored");
        assert_eq!(gunzip(&gz), data);
    }

    #[test]
    fn text_is_deflated_and_segments_keep_their_history() {
        let data = text(8 * SEGMENT);
        let gz = gzip(&data, 10_000);
        assert!(!all_stored(&gz));
        // One line repeated: later segments refer back to earlier ones.
        assert!(gz.len() < 8 * 1024, "{} bytes", gz.len());
    }

    #[test]
    fn a_stream_of_one_segment_is_what_gz_encoder_writes() {
        for data in [text(1000), text(SEGMENT), Vec::new()] {
            let mut old = flate2::GzBuilder::new()
                .mtime(0)
                .operating_system(255)
                .write(Vec::new(), Compression::default());
            old.write_all(&data).unwrap();
            assert_eq!(gzip(&data, 700), old.finish().unwrap());
        }
    }
}
