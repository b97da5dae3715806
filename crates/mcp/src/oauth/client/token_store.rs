//! Where a mount keeps its login to one server between runs: [`TokenStore`], with an
//! in-memory and a file implementation.

use std::fmt;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use super::protected_resource::ResourceMetadata;
use crate::oauth::discovery::same_issuer;

/// A login to one MCP server: the client this program is at the authorization server,
/// and the tokens it holds. Secrets are redacted from its `Debug` output.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct StoredLogin {
    /// The authorization server (its issuer identifier).
    pub issuer: String,
    /// The resource the tokens are for (RFC 8707).
    #[serde(default)]
    pub resource: Option<String>,
    /// The client id at the authorization server.
    pub client_id: String,
    /// The client secret, for a confidential client.
    #[serde(default)]
    pub client_secret: Option<String>,
    /// The redirect URI the client was registered with.
    #[serde(default)]
    pub redirect_uri: Option<String>,
    /// How the client authenticates at the token endpoint: `client_secret_basic`,
    /// `client_secret_post` or `none`.
    pub token_endpoint_auth_method: String,
    /// The access token.
    pub access_token: String,
    /// The refresh token, if one was issued.
    #[serde(default)]
    pub refresh_token: Option<String>,
    /// When the access token expires (seconds since the Unix epoch), if known.
    #[serde(default)]
    pub expires_at: Option<u64>,
    /// The scopes asked for.
    #[serde(default)]
    pub scopes: Vec<String>,
}

impl StoredLogin {
    /// Whether this login is for `resource` as its metadata describes it now: the same
    /// resource, at the authorization server it names first.
    pub(crate) fn is_for(&self, resource: &ResourceMetadata) -> bool {
        let same_server = resource
            .authorization_servers
            .first()
            .is_some_and(|issuer| same_issuer(issuer, &self.issuer));
        same_server && self.resource.as_deref() == Some(resource.resource.as_str())
    }
}

impl fmt::Debug for StoredLogin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StoredLogin")
            .field("issuer", &self.issuer)
            .field("resource", &self.resource)
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "<redacted>"),
            )
            .field("token_endpoint_auth_method", &self.token_endpoint_auth_method)
            .field("access_token", &"<redacted>")
            .field(
                "refresh_token",
                &self.refresh_token.as_ref().map(|_| "<redacted>"),
            )
            .field("expires_at", &self.expires_at)
            .field("scopes", &self.scopes)
            .finish()
    }
}

/// Keeps the login to one server. Called when a login or a refresh succeeds (`save`),
/// when a mount starts (`load`), and when the server refuses the refresh token (`clear`).
pub trait TokenStore: Send + Sync + 'static {
    /// The login kept, if any.
    fn load(&self) -> io::Result<Option<StoredLogin>>;
    /// Keeps `login`, replacing any other.
    fn save(&self, login: &StoredLogin) -> io::Result<()>;
    /// Forgets the login.
    fn clear(&self) -> io::Result<()>;
}

/// Keeps the login in memory, for this process only (the default).
#[derive(Debug, Default)]
pub struct MemoryTokenStore {
    login: Mutex<Option<StoredLogin>>,
}

impl TokenStore for MemoryTokenStore {
    fn load(&self) -> io::Result<Option<StoredLogin>> {
        Ok(self.login.lock().unwrap_or_else(PoisonError::into_inner).clone())
    }

    fn save(&self, login: &StoredLogin) -> io::Result<()> {
        *self.login.lock().unwrap_or_else(PoisonError::into_inner) = Some(login.clone());
        Ok(())
    }

    fn clear(&self) -> io::Result<()> {
        *self.login.lock().unwrap_or_else(PoisonError::into_inner) = None;
        Ok(())
    }
}

/// Keeps the login in a JSON file only its owner may read or write (mode 0600), replaced
/// atomically, so a crash mid-write leaves the old login. The command line keeps one per
/// mounted server.
#[derive(Debug, Clone)]
pub struct FileTokenStore {
    path: PathBuf,
}

impl FileTokenStore {
    /// A store at `path` (its directory is created, mode 0700, when first saved).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    /// Where the login is kept.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl TokenStore for FileTokenStore {
    fn load(&self) -> io::Result<Option<StoredLogin>> {
        let text = match std::fs::read(&self.path) {
            Ok(text) => text,
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(error),
        };
        serde_json::from_slice(&text)
            .map(Some)
            .map_err(|error| io::Error::new(io::ErrorKind::InvalidData, error))
    }

    fn save(&self, login: &StoredLogin) -> io::Result<()> {
        use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
        let directory = self.path.parent().unwrap_or(Path::new("."));
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(directory)?;
        let text = serde_json::to_vec_pretty(login).map_err(io::Error::other)?;
        // Unique within the process too: two clients may share a file.
        static SAVES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let temporary = directory.join(format!(
            ".{}.{}.{}.tmp",
            self.path
                .file_name()
                .and_then(|name| name.to_str())
                .unwrap_or("login"),
            std::process::id(),
            SAVES.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(&temporary)?;
        file.write_all(&text)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&temporary, &self.path)?;
        // The rename itself survives a crash only once the directory is on disk.
        std::fs::File::open(directory)?.sync_all()
    }

    fn clear(&self) -> io::Result<()> {
        match std::fs::remove_file(&self.path) {
            Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use super::*;

    fn login() -> StoredLogin {
        StoredLogin {
            issuer: "https://auth.example.com".into(),
            resource: Some("https://mcp.example.com/mcp".into()),
            client_id: "client".into(),
            client_secret: Some("client-secret".into()),
            redirect_uri: None,
            token_endpoint_auth_method: "client_secret_basic".into(),
            access_token: "access-secret".into(),
            refresh_token: Some("refresh-secret".into()),
            expires_at: Some(1),
            scopes: vec!["mcp:read".into()],
        }
    }

    #[test]
    fn a_file_store_keeps_the_login_private_and_whole() {
        let dir = tempfile::tempdir().unwrap();
        let store = FileTokenStore::new(dir.path().join("logins/server.json"));
        assert_eq!(store.load().unwrap(), None);
        store.save(&login()).unwrap();
        assert_eq!(store.load().unwrap(), Some(login()));
        let mode = std::fs::metadata(store.path()).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let dir_mode = std::fs::metadata(dir.path().join("logins"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(dir_mode, 0o700);
        store.clear().unwrap();
        assert_eq!(store.load().unwrap(), None);
        store.clear().unwrap();
    }

    #[test]
    fn secrets_stay_out_of_debug_output() {
        let shown = format!("{:?}", login());
        for secret in ["client-secret", "access-secret", "refresh-secret"] {
            assert!(!shown.contains(secret), "{shown}");
        }
    }
}
