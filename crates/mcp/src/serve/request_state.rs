//! The `requestState` of an input-required result (MCP 2026-07-28, SEP-2322), sealed.
//!
//! A call that needs input ends with its questions and a `requestState` the client must
//! echo when it calls again with the answers. The state carries what the next run needs:
//! the answers of earlier rounds and the values the tool kept
//! ([`ToolContext::remember`](agent_tools_core::ToolContext::remember)). The client holds
//! it, so it is sealed: XChaCha20-Poly1305 with a key the server's replicas share
//! ([`McpHandler::request_state_key`](super::McpHandler::request_state_key)), which keeps it
//! secret (an answer may be a secret) and makes any change to it fail the open.
//!
//! What a sealed state is bound to, as the AEAD's associated data: the tool's name, its
//! arguments (canonical JSON, so key order does not matter) and the principal of the
//! request (the OAuth subject, or none). A state opens only for the same call by the same
//! caller. It expires ([`STATE_LIFETIME`]), and each opens once per process: a state used
//! once is refused the second time (its nonce is remembered until it expires).
//!
//! What this does not stop: a state replayed to another replica within its lifetime (the
//! used-nonce set is per process; the binding still holds it to the same call and
//! caller), and a client that answers its own questions falsely (it is the client's user
//! who answers; the server cannot tell).

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// How long a sealed state opens after it was sealed.
pub(crate) const STATE_LIFETIME: Duration = Duration::from_secs(15 * 60);

/// Marks the format, so a later one can be told apart.
const PREFIX: &str = "ats1.";

/// Mixed into the associated data, so the key seals nothing else by accident.
const DOMAIN: &[u8] = b"agent-tools/mcp/request-state/v1\0";

const NONCE_LEN: usize = 24;

/// What a run of the call leaves for the next one.
#[derive(Debug, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct RoundState {
    /// Answers of earlier rounds, by question name.
    pub(crate) answers: BTreeMap<String, Value>,
    /// Values the tool kept, by step name.
    pub(crate) kept: BTreeMap<String, Value>,
    /// Unix time in milliseconds after which the state does not open.
    expires_ms: u64,
}

impl RoundState {
    /// The state of a run that used `answers` and kept `kept`.
    pub(crate) fn new(answers: BTreeMap<String, Value>, kept: BTreeMap<String, Value>) -> Self {
        Self {
            answers,
            kept,
            expires_ms: 0,
        }
    }
}

/// Why a `requestState` was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum StateError {
    #[error("the requestState was not made by this server, or was changed, or belongs to another call")]
    Tampered,
    #[error("the requestState has expired; call the tool again without it")]
    Expired,
    #[error("the requestState was used already; call the tool again without it")]
    Replayed,
}

/// Seals and opens states with one key.
pub(crate) struct StateSeal {
    cipher: XChaCha20Poly1305,
    /// Nonces of states opened, with their expiry (Unix ms).
    used: Mutex<HashMap<[u8; NONCE_LEN], u64>>,
}

impl StateSeal {
    /// A seal with `key`.
    pub(crate) fn new(key: &[u8; 32]) -> Self {
        Self {
            cipher: XChaCha20Poly1305::new(&(*key).into()),
            used: Mutex::new(HashMap::new()),
        }
    }

    /// A seal with a random key: states open only in this process.
    pub(crate) fn random() -> Self {
        let mut key = [0u8; 32];
        fill_random(&mut key);
        Self::new(&key)
    }

    /// Seals `state` for the call `binding` describes.
    pub(crate) fn seal(&self, state: RoundState, binding: &Binding) -> String {
        let expires_ms = now_ms().saturating_add(STATE_LIFETIME.as_millis() as u64);
        self.seal_until(state, binding, expires_ms)
    }

    /// Seals `state` to open until `expires_ms` (Unix ms).
    fn seal_until(&self, mut state: RoundState, binding: &Binding, expires_ms: u64) -> String {
        state.expires_ms = expires_ms;
        let mut nonce = [0u8; NONCE_LEN];
        fill_random(&mut nonce);
        // A state is plain data; encoding it cannot fail.
        let plaintext = serde_json::to_vec(&state).unwrap_or_default();
        let aad = binding.associated_data();
        let sealed = self
            .cipher
            .encrypt(
                &XNonce::from(nonce),
                Payload {
                    msg: &plaintext,
                    aad: &aad,
                },
            )
            .unwrap_or_default();
        let mut bytes = nonce.to_vec();
        bytes.extend_from_slice(&sealed);
        format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes))
    }

    /// Opens `text` for the call `binding` describes, once.
    pub(crate) fn open(&self, text: &str, binding: &Binding) -> Result<RoundState, StateError> {
        let bytes = text
            .strip_prefix(PREFIX)
            .and_then(|encoded| URL_SAFE_NO_PAD.decode(encoded).ok())
            .filter(|bytes| bytes.len() > NONCE_LEN)
            .ok_or(StateError::Tampered)?;
        let (nonce, sealed) = bytes.split_at(NONCE_LEN);
        let nonce: [u8; NONCE_LEN] = nonce.try_into().map_err(|_| StateError::Tampered)?;
        let aad = binding.associated_data();
        let plaintext = self
            .cipher
            .decrypt(
                &XNonce::from(nonce),
                Payload {
                    msg: sealed,
                    aad: &aad,
                },
            )
            .map_err(|_| StateError::Tampered)?;
        let state: RoundState = serde_json::from_slice(&plaintext).map_err(|_| StateError::Tampered)?;
        let now = now_ms();
        if state.expires_ms <= now {
            return Err(StateError::Expired);
        }
        let mut used = self.used.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        used.retain(|_, expires| *expires > now);
        if used.insert(nonce, state.expires_ms).is_some() {
            return Err(StateError::Replayed);
        }
        Ok(state)
    }
}

/// The call a state belongs to: a digest of the tool's name, its arguments and the
/// caller's principal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Binding([u8; 32]);

impl Binding {
    /// The binding of a call of `tool` with `arguments` by `principal` (its subject).
    pub(crate) fn new(tool: &str, arguments: &Value, principal: Option<&str>) -> Self {
        let mut hash = Sha256::new();
        for part in [tool, &canonical_json(arguments), principal.unwrap_or("")] {
            hash.update((part.len() as u64).to_be_bytes());
            hash.update(part.as_bytes());
        }
        hash.update([u8::from(principal.is_some())]);
        Self(hash.finalize().into())
    }

    fn associated_data(&self) -> Vec<u8> {
        [DOMAIN, &self.0].concat()
    }
}

/// `value` as JSON with every object's keys sorted.
fn canonical_json(value: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let sorted: BTreeMap<&String, Value> = map.iter().map(|(k, v)| (k, sorted(v))).collect();
                Value::Object(sorted.into_iter().map(|(k, v)| (k.clone(), v)).collect())
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(value).to_string()
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_millis() as u64)
}

/// Random bytes from the operating system. Without them no state can be sealed safely,
/// and a server that cannot read its system's randomness cannot do TLS either.
fn fill_random(bytes: &mut [u8]) {
    if let Err(error) = getrandom::fill(bytes) {
        panic!("the system's random number generator failed: {error}");
    }
}

#[cfg(test)]
mod tests;
