//! The server name a TLS client asks for (SNI), read from the first bytes of a tunnel.
//!
//! A proxy that allows `CONNECT allowed.example:443` sees nothing of what goes through the
//! tunnel but its first bytes. A TLS client's first message, the ClientHello, names the
//! server it wants in the clear (the `server_name` extension, RFC 6066), so a tunnel whose
//! ClientHello names another host can be refused. Only the first TLS record is read: a
//! ClientHello split over several records is refused as unreadable rather than waved
//! through (no common client splits it).
//!
//! What this cannot see: everything after the ClientHello is encrypted, so a client that
//! names the allowed host and then asks that server, inside TLS, for another site it also
//! serves (domain fronting, where a CDN still honours it) is not stopped; nor is a
//! ClientHello with Encrypted Client Hello, whose outer name is all there is to check.

/// The largest TLS record: 2^14 bytes of plaintext plus what a record may add.
const MAX_RECORD: usize = (1 << 14) + 2048;

/// What the first bytes of a tunnel are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Hello {
    /// Not enough bytes yet to tell.
    Incomplete,
    /// Not TLS (the first byte is not a TLS handshake record).
    NotTls,
    /// A ClientHello, and the host name it asks for, if any.
    Tls(Option<String>),
    /// A TLS handshake record that is not a ClientHello this code can read.
    Malformed(&'static str),
}

/// Reads the ClientHello at the start of `bytes`.
pub(crate) fn server_name(bytes: &[u8]) -> Hello {
    const HANDSHAKE: u8 = 22;
    match bytes.first() {
        None => return Hello::Incomplete,
        Some(&HANDSHAKE) => {}
        Some(_) => return Hello::NotTls,
    }
    let Some(header) = bytes.get(..5) else {
        return Hello::Incomplete;
    };
    if header[1] != 3 {
        return Hello::Malformed("not a TLS record version");
    }
    let length = usize::from(u16::from_be_bytes([header[3], header[4]]));
    if length > MAX_RECORD {
        return Hello::Malformed("the record is longer than TLS allows");
    }
    match bytes.get(5..5 + length) {
        None => Hello::Incomplete,
        Some(record) => match client_hello(record) {
            Ok(name) => Hello::Tls(name),
            Err(reason) => Hello::Malformed(reason),
        },
    }
}

/// The host name of the ClientHello in `record`, the first handshake record.
fn client_hello(record: &[u8]) -> Result<Option<String>, &'static str> {
    const CLIENT_HELLO: u8 = 1;
    let mut record = Reader(record);
    if record.u8()? != CLIENT_HELLO {
        return Err("the first handshake message is not a ClientHello");
    }
    let length = record.u24()?;
    let mut hello = Reader(
        record
            .take(length)
            .map_err(|_| "the ClientHello spans several records")?,
    );
    hello.take(2 + 32)?; // version, random
    let session = usize::from(hello.u8()?);
    hello.take(session)?;
    let suites = hello.u16()?;
    hello.take(suites)?;
    let compression = usize::from(hello.u8()?);
    hello.take(compression)?;
    if hello.0.is_empty() {
        return Ok(None);
    }
    let extensions = hello.u16()?;
    let mut extensions = Reader(hello.take(extensions)?);
    while !extensions.0.is_empty() {
        const SERVER_NAME: usize = 0;
        let kind = extensions.u16()?;
        let length = extensions.u16()?;
        let data = extensions.take(length)?;
        if kind == SERVER_NAME {
            return host_name(data).map(Some);
        }
    }
    Ok(None)
}

/// The `host_name` entry of a `server_name` extension.
fn host_name(extension: &[u8]) -> Result<String, &'static str> {
    const HOST_NAME: u8 = 0;
    let mut list = Reader(extension);
    let length = list.u16()?;
    let mut list = Reader(list.take(length)?);
    while !list.0.is_empty() {
        let kind = list.u8()?;
        let length = list.u16()?;
        let name = list.take(length)?;
        if kind == HOST_NAME {
            return std::str::from_utf8(name)
                .ok()
                .filter(|name| name.is_ascii() && !name.is_empty())
                .map(str::to_owned)
                .ok_or("the server name is not an ASCII host name");
        }
    }
    Err("the server_name extension names no host")
}

/// Big-endian fields read off the front of a slice.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, count: usize) -> Result<&'a [u8], &'static str> {
        if count > self.0.len() {
            return Err("a field runs past the end of the ClientHello");
        }
        let (taken, rest) = self.0.split_at(count);
        self.0 = rest;
        Ok(taken)
    }

    fn u8(&mut self) -> Result<u8, &'static str> {
        Ok(self.take(1)?[0])
    }

    fn u16(&mut self) -> Result<usize, &'static str> {
        let bytes = self.take(2)?;
        Ok(usize::from(u16::from_be_bytes([bytes[0], bytes[1]])))
    }

    fn u24(&mut self) -> Result<usize, &'static str> {
        let bytes = self.take(3)?;
        Ok(usize::from(bytes[0]) << 16 | usize::from(bytes[1]) << 8 | usize::from(bytes[2]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal ClientHello record, with a `server_name` extension when `name` is given.
    fn hello(name: Option<&str>) -> Vec<u8> {
        let mut extensions = Vec::new();
        if let Some(name) = name {
            let entry = [&[0u8][..], &(name.len() as u16).to_be_bytes(), name.as_bytes()].concat();
            let list = [&(entry.len() as u16).to_be_bytes()[..], &entry].concat();
            extensions.extend_from_slice(&[0, 0]);
            extensions.extend_from_slice(&(list.len() as u16).to_be_bytes());
            extensions.extend_from_slice(&list);
        }
        // Another extension before nothing: supported_versions, to be skipped.
        let mut body = vec![3, 3];
        body.extend_from_slice(&[7; 32]);
        body.push(0); // no session id
        body.extend_from_slice(&[0, 2, 0x13, 0x01]); // one cipher suite
        body.extend_from_slice(&[1, 0]); // null compression
        let other = [0u8, 43, 0, 3, 2, 3, 4];
        let all = [&other[..], &extensions].concat();
        body.extend_from_slice(&(all.len() as u16).to_be_bytes());
        body.extend_from_slice(&all);
        let mut message = vec![1];
        message.extend_from_slice(&(body.len() as u32).to_be_bytes()[1..]);
        message.extend_from_slice(&body);
        let mut record = vec![22, 3, 1];
        record.extend_from_slice(&(message.len() as u16).to_be_bytes());
        record.extend_from_slice(&message);
        record
    }

    #[test]
    fn the_server_name_is_read_and_its_absence_noticed() {
        assert_eq!(
            server_name(&hello(Some("crates.io"))),
            Hello::Tls(Some("crates.io".into()))
        );
        assert_eq!(server_name(&hello(None)), Hello::Tls(None));
    }

    #[test]
    fn a_hello_arriving_in_pieces_is_incomplete_until_its_record_is_whole() {
        let whole = hello(Some("crates.io"));
        for cut in [0, 1, 4, 5, whole.len() - 1] {
            assert_eq!(server_name(&whole[..cut]), Hello::Incomplete, "{cut}");
        }
    }

    #[test]
    fn other_protocols_and_broken_hellos_are_told_apart() {
        assert_eq!(server_name(b"GET / HTTP/1.1\r\n"), Hello::NotTls);
        assert_eq!(server_name(b"SSH-2.0-OpenSSH_9.6\r\n"), Hello::NotTls);
        let mut truncated = hello(Some("crates.io"));
        // The handshake says it is longer than the record: split over records.
        truncated[8] = 0xff;
        assert!(matches!(server_name(&truncated), Hello::Malformed(_)));
        assert!(matches!(server_name(&[22, 9, 9, 0, 0]), Hello::Malformed(_)));
    }
}
