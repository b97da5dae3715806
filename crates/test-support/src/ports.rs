//! A free port on loopback, for a server a test starts.

/// A port nothing listens on at the moment (the OS's choice for a listener that is
/// closed at once).
pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}
