//! Response bodies read as a stream up to a cap (`web_fetch`, `web_search`, the media
//! senders).
//!
//! The cap counts bytes after decompression (the client inflates gzip, brotli and deflate
//! as the body streams in), so neither an endless body nor a compression bomb — a small
//! download that inflates to gigabytes — can hold more than the cap in memory: reading
//! stops at the cap and the rest of the body is never pulled.

/// A body read up to a cap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct CappedBody {
    /// The bytes read, at most the cap.
    pub(crate) bytes: Vec<u8>,
    /// The body went on past the cap.
    pub(crate) truncated: bool,
}

/// Reads `response`'s (decompressed) body, keeping at most `cap` bytes.
pub(crate) async fn read_capped(
    mut response: reqwest::Response,
    cap: usize,
) -> Result<CappedBody, reqwest::Error> {
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        let room = cap - bytes.len();
        if chunk.len() > room {
            bytes.extend_from_slice(&chunk[..room]);
            return Ok(CappedBody {
                bytes,
                truncated: true,
            });
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(CappedBody {
        bytes,
        truncated: false,
    })
}
