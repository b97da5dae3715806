//! The authorization server's signing keys (its JWKS), fetched when first needed, kept,
//! and fetched again when a token names a key not in the set — which is how a rotation
//! reaches a resource server — or when the set has grown old.
//!
//! Refetching on an unknown key id is rate-limited: a flood of tokens naming made-up keys
//! costs the authorization server one request per interval, not one per token. Callers
//! that need a fetch while another is in flight wait for it and share its answer; tokens
//! whose key is known do not wait for a fetch.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{Jwk, JwkSet};
use tokio::sync::{Mutex, RwLock};
use url::Url;

use crate::oauth::fetch::{self, FetchError};

/// A key set older than this is fetched again before use.
const MAX_AGE: Duration = Duration::from_secs(60 * 60);

/// The keys of one authorization server.
pub(crate) struct KeyCache {
    http: reqwest::Client,
    jwks_uri: Url,
    /// The shortest time between two fetches caused by unknown key ids.
    min_refresh: Duration,
    state: RwLock<Keys>,
    /// Held while fetching, so that one fetch serves every caller waiting for it.
    fetching: Mutex<()>,
}

#[derive(Default)]
struct Keys {
    by_id: HashMap<String, Arc<Jwk>>,
    /// The only key, when the set has one without an id.
    unnamed: Option<Arc<Jwk>>,
    fetched: Option<Instant>,
}

/// Why no key could be had for a token.
#[derive(Debug)]
pub(crate) enum KeyError {
    /// The set has no such key, even fetched again.
    Unknown,
    /// The set could not be fetched.
    Unavailable(FetchError),
}

impl KeyCache {
    pub(crate) fn new(http: reqwest::Client, jwks_uri: Url, min_refresh: Duration) -> Self {
        Self {
            http,
            jwks_uri,
            min_refresh,
            state: RwLock::new(Keys::default()),
            fetching: Mutex::new(()),
        }
    }

    /// The key a token's header names (`kid`), or the set's only key when it names none.
    pub(crate) async fn key(&self, kid: Option<&str>) -> Result<Arc<Jwk>, KeyError> {
        if let Some(key) = self.state.read().await.fresh(kid) {
            return Ok(key);
        }
        let _fetching = self.fetching.lock().await;
        // Looked at again: the fetch this caller waited for may have brought the key.
        let fetched = {
            let keys = self.state.read().await;
            if let Some(key) = keys.fresh(kid) {
                return Ok(key);
            }
            keys.fetched
        };
        let stale = fetched.is_none_or(|at| at.elapsed() >= MAX_AGE);
        let may_refetch = stale || fetched.is_none_or(|at| at.elapsed() >= self.min_refresh);
        if !may_refetch {
            return Err(KeyError::Unknown);
        }
        let set = fetch::json::<JwkSet>(self.http.get(self.jwks_uri.clone()), &self.jwks_uri)
            .await
            .map_err(KeyError::Unavailable)?;
        let keys = Keys::from_set(set);
        let key = keys.find(kid);
        *self.state.write().await = keys;
        key.ok_or(KeyError::Unknown)
    }
}

impl Keys {
    fn from_set(set: JwkSet) -> Self {
        let mut keys = Keys {
            fetched: Some(Instant::now()),
            ..Keys::default()
        };
        let only = set.keys.len() == 1;
        for key in set.keys {
            let key = Arc::new(key);
            match key.common.key_id.clone() {
                Some(id) => {
                    keys.by_id.insert(id, key);
                }
                None if only => keys.unnamed = Some(key),
                // Several keys without ids cannot be told apart: none is used.
                None => {}
            }
        }
        keys
    }

    /// The key, when the set is not too old to use.
    fn fresh(&self, kid: Option<&str>) -> Option<Arc<Jwk>> {
        let fresh = self.fetched.is_some_and(|at| at.elapsed() < MAX_AGE);
        fresh.then(|| self.find(kid)).flatten()
    }

    fn find(&self, kid: Option<&str>) -> Option<Arc<Jwk>> {
        match kid {
            Some(kid) => self.by_id.get(kid).cloned(),
            None => self.unnamed.clone().or_else(|| {
                (self.by_id.len() == 1)
                    .then(|| self.by_id.values().next().cloned())
                    .flatten()
            }),
        }
    }
}
