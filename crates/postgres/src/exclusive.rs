//! [`Exclusive`]: connections lent to one user at a time, for transactions.

use std::ops::{Deref, DerefMut};
use std::sync::{Mutex, PoisonError};

use tokio::sync::{Semaphore, SemaphorePermit};

use crate::{Connection, Error, Pool};

/// At most `size` connections of [`Pool::connect`]'s, each lent to one user at a time.
///
/// A [`Pool`] connection is shared by every task that uses it at once (its statements
/// are pipelined together), so a transaction on one would take in the statements of
/// others; a transaction needs a connection nobody else writes to until it ends. Opening
/// one per transaction would cost a connection (a server process, a TLS handshake) per
/// change, so they are kept and lent out, and a change that finds all of them lent waits
/// for one.
pub(crate) struct Exclusive {
    idle: Mutex<Vec<Connection>>,
    permits: Semaphore,
}

/// A connection lent by [`Exclusive::lend`]; given back when dropped, unless it is closed
/// or [`discard`](Lent::discard)ed.
pub(crate) struct Lent<'a> {
    connection: Option<Connection>,
    idle: &'a Mutex<Vec<Connection>>,
    _permit: SemaphorePermit<'a>,
}

impl Exclusive {
    /// Room for `size` connections (at least one), none open yet.
    pub(crate) fn new(size: usize) -> Self {
        Self {
            idle: Mutex::new(Vec::new()),
            permits: Semaphore::new(size.max(1)),
        }
    }

    /// An open connection of no one else's, from `pool` when none is idle: waits while
    /// `size` are lent.
    pub(crate) async fn lend<'a>(&'a self, pool: &Pool) -> Result<Lent<'a>, Error> {
        // The semaphore is never closed, so acquiring fails never; `forget` is not used.
        let permit = self
            .permits
            .acquire()
            .await
            .unwrap_or_else(|_| unreachable!("the semaphore is never closed"));
        let idle = self.take_open();
        let connection = match idle {
            Some(connection) => connection,
            None => pool.connect().await?,
        };
        Ok(Lent {
            connection: Some(connection),
            idle: &self.idle,
            _permit: permit,
        })
    }

    /// An idle connection that is still open; closed ones (the server went away) are
    /// dropped on the way.
    fn take_open(&self) -> Option<Connection> {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        std::iter::from_fn(|| idle.pop()).find(|connection| !connection.client().is_closed())
    }
}

impl Lent<'_> {
    /// Closes the connection instead of giving it back: for one a statement found broken
    /// before the client noticed.
    pub(crate) fn discard(mut self) {
        self.connection = None;
    }
}

impl Deref for Lent<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        self.connection
            .as_ref()
            .unwrap_or_else(|| unreachable!("only `discard` and `drop` take the connection"))
    }
}

impl DerefMut for Lent<'_> {
    fn deref_mut(&mut self) -> &mut Connection {
        self.connection
            .as_mut()
            .unwrap_or_else(|| unreachable!("only `discard` and `drop` take the connection"))
    }
}

impl Drop for Lent<'_> {
    fn drop(&mut self) {
        // A transaction dropped unfinished has queued its ROLLBACK on the connection,
        // ahead of whatever the next user sends, so the connection can be lent again.
        if let Some(connection) = self.connection.take().filter(|c| !c.client().is_closed()) {
            self.idle
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(connection);
        }
    }
}
