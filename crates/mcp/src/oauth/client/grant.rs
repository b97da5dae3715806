//! The OAuth exchanges of a login, each one HTTP request: dynamic client registration
//! (RFC 7591), the authorization URL with PKCE (RFC 7636) and the resource indicator
//! (RFC 8707), and the token endpoint's grants — authorization code, refresh token,
//! client credentials — with the client authentication the server takes.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Deserialize;
use serde_json::{Value, json};
use url::Url;

use crate::oauth::fetch::{self, FetchError};

/// How a client proves itself at the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ClientAuth {
    /// HTTP Basic with id and secret.
    Basic,
    /// Id and secret in the form.
    Post,
    /// Only the id, in the form (a public client).
    None,
}

impl ClientAuth {
    pub(crate) fn name(self) -> &'static str {
        match self {
            ClientAuth::Basic => "client_secret_basic",
            ClientAuth::Post => "client_secret_post",
            ClientAuth::None => "none",
        }
    }

    pub(crate) fn from_name(name: &str) -> Option<Self> {
        match name {
            "client_secret_basic" => Some(ClientAuth::Basic),
            "client_secret_post" => Some(ClientAuth::Post),
            "none" => Some(ClientAuth::None),
            _ => None,
        }
    }

    /// The method to use with a secret (or without one) at a server that supports
    /// `supported` (`None`: the metadata says nothing, which means Basic).
    pub(crate) fn choose(has_secret: bool, supported: Option<&[String]>) -> Self {
        let supports =
            |method: ClientAuth| supported.is_none_or(|list| list.iter().any(|name| name == method.name()));
        match has_secret {
            false => ClientAuth::None,
            true if supports(ClientAuth::Basic) => ClientAuth::Basic,
            true if supports(ClientAuth::Post) => ClientAuth::Post,
            true => ClientAuth::Basic,
        }
    }
}

/// A client as the token endpoint sees it.
#[derive(Debug, Clone)]
pub(crate) struct Client {
    pub(crate) id: String,
    pub(crate) secret: Option<String>,
    pub(crate) auth: ClientAuth,
}

/// A successful token response (RFC 6749 §5.1).
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Tokens {
    pub(crate) access_token: String,
    #[serde(default)]
    pub(crate) refresh_token: Option<String>,
    #[serde(default)]
    pub(crate) expires_in: Option<u64>,
}

/// Why the token endpoint gave no token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum TokenFailure {
    /// The server answered with an OAuth error (`invalid_grant`, …).
    Refused { code: String, description: String },
    /// The request failed, or the answer made no sense.
    Failed(String),
}

impl std::fmt::Display for TokenFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TokenFailure::Refused { code, description } if description.is_empty() => {
                write!(f, "the token endpoint refused: {code}")
            }
            TokenFailure::Refused { code, description } => {
                write!(f, "the token endpoint refused: {code} ({description})")
            }
            TokenFailure::Failed(why) => f.write_str(why),
        }
    }
}

/// A PKCE verifier and its S256 challenge, and a `state` for the request.
pub(crate) struct Pkce {
    pub(crate) verifier: String,
    pub(crate) challenge: String,
    pub(crate) state: String,
}

impl Pkce {
    pub(crate) fn new() -> Self {
        let verifier = random_text();
        let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, verifier.as_bytes());
        Self {
            challenge: URL_SAFE_NO_PAD.encode(digest.as_ref()),
            verifier,
            state: random_text(),
        }
    }
}

/// 32 random bytes as base64url: 43 characters, within PKCE's 43–128.
fn random_text() -> String {
    let mut bytes = [0u8; 32];
    // The system's generator failing is a broken machine; a zero verifier would still
    // be refused by no server, so say so rather than go on.
    if aws_lc_rs::rand::fill(&mut bytes).is_err() {
        panic!("the system random number generator failed");
    }
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The authorization request URL (RFC 6749 §4.1.1, with PKCE and `resource`).
pub(crate) fn authorization_url(
    endpoint: &Url,
    client_id: &str,
    redirect_uri: &Url,
    scopes: &[String],
    resource: Option<&str>,
    pkce: &Pkce,
) -> Url {
    let mut url = endpoint.clone();
    {
        let mut query = url.query_pairs_mut();
        query
            .append_pair("response_type", "code")
            .append_pair("client_id", client_id)
            .append_pair("redirect_uri", redirect_uri.as_str())
            .append_pair("code_challenge", &pkce.challenge)
            .append_pair("code_challenge_method", "S256")
            .append_pair("state", &pkce.state);
        if !scopes.is_empty() {
            query.append_pair("scope", &scopes.join(" "));
        }
        if let Some(resource) = resource {
            query.append_pair("resource", resource);
        }
    }
    url
}

/// Who an authorization response must come from: the authorization server the request
/// went to, by the issuer its metadata names, and whether that metadata promised to say
/// so in every response (RFC 9207).
pub(crate) struct ExpectedIssuer<'a> {
    pub(crate) issuer: &'a str,
    pub(crate) iss_promised: bool,
}

/// The code from the redirect `callback`, checked to come from `issuer` (RFC 9207's
/// `iss`, against mix-up attacks: a response another authorization server produced must
/// not be redeemed at this one's token endpoint) and against the request's `state`.
pub(crate) fn code_from(callback: &Url, state: &str, issuer: &ExpectedIssuer<'_>) -> Result<String, String> {
    let param = |name: &str| {
        callback
            .query_pairs()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.into_owned())
    };
    check_iss(param("iss").as_deref(), issuer)?;
    if let Some(error) = param("error") {
        let description = param("error_description").unwrap_or_default();
        return Err(format!("the authorization server refused: {error} {description}")
            .trim_end()
            .to_owned());
    }
    if param("state").as_deref() != Some(state) {
        return Err("the redirect's state does not match the request's: refusing it".to_owned());
    }
    param("code").ok_or_else(|| "the redirect carries no authorization code".to_owned())
}

/// RFC 9207 §2.4: an `iss` that is there must be the issuer, compared as strings with no
/// normalization (a trailing `/`, case or a default port make another issuer); one that
/// is missing is refused when the server promised it.
fn check_iss(iss: Option<&str>, expected: &ExpectedIssuer<'_>) -> Result<(), String> {
    match iss {
        Some(iss) if iss == expected.issuer => Ok(()),
        Some(iss) => Err(format!(
            "the authorization response comes from the issuer `{iss}`, not `{}`: refusing it (a mix-up attack, RFC 9207)",
            expected.issuer
        )),
        None if expected.iss_promised => Err(format!(
            "the authorization response carries no `iss`, which `{}` promises in every response: refusing it (RFC 9207)",
            expected.issuer
        )),
        None => Ok(()),
    }
}

/// The `application_type` of a client redirected to `redirect_uri` (OpenID Connect
/// Dynamic Registration, which MCP's registration follows): `native` for a loopback
/// address or an application's own scheme, where an application on the user's device
/// takes the code; `web` for a web server's address.
fn application_type(redirect_uri: &Url) -> &'static str {
    let loopback = match redirect_uri.host() {
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(address)) => address.is_loopback(),
        Some(url::Host::Ipv6(address)) => address.is_loopback(),
        None => false,
    };
    match redirect_uri.scheme() {
        "http" | "https" if !loopback => "web",
        _ => "native",
    }
}

/// Registers a client (RFC 7591); its id, secret and token endpoint auth method.
pub(crate) async fn register(
    http: &reqwest::Client,
    endpoint: &Url,
    name: &str,
    redirect_uri: &Url,
    scopes: &[String],
    auth: ClientAuth,
) -> Result<Client, FetchError> {
    let mut body = json!({
        "client_name": name,
        "redirect_uris": [redirect_uri.as_str()],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": auth.name(),
        "application_type": application_type(redirect_uri),
    });
    if !scopes.is_empty() {
        body["scope"] = scopes.join(" ").into();
    }
    #[derive(Deserialize)]
    struct Registered {
        client_id: String,
        #[serde(default)]
        client_secret: Option<String>,
        #[serde(default)]
        token_endpoint_auth_method: Option<String>,
    }
    let request = http.post(endpoint.clone()).json(&body);
    let registered: Registered = fetch::json(request, endpoint).await?;
    let auth = registered
        .token_endpoint_auth_method
        .as_deref()
        .and_then(ClientAuth::from_name)
        .unwrap_or(match registered.client_secret {
            Some(_) => ClientAuth::Basic,
            None => ClientAuth::None,
        });
    Ok(Client {
        id: registered.client_id,
        secret: registered.client_secret,
        auth,
    })
}

/// A token request with `params`, the client authenticating as it does.
pub(crate) async fn token(
    http: &reqwest::Client,
    endpoint: &Url,
    client: &Client,
    params: &[(&str, &str)],
) -> Result<Tokens, TokenFailure> {
    let mut form: Vec<(&str, &str)> = params.to_vec();
    let mut request = http.post(endpoint.clone());
    match (client.auth, client.secret.as_deref()) {
        (ClientAuth::Basic, Some(secret)) => request = fetch::basic_auth(request, &client.id, secret),
        (ClientAuth::Post, Some(secret)) => {
            form.push(("client_id", &client.id));
            form.push(("client_secret", secret));
        }
        _ => form.push(("client_id", &client.id)),
    }
    let response = request
        .form(&form)
        .send()
        .await
        .map_err(|error| TokenFailure::Failed(format!("{endpoint}: {error}")))?;
    let status = response.status();
    let body = fetch::bounded_body(response, endpoint)
        .await
        .map_err(|FetchError(error)| TokenFailure::Failed(error))?;
    if status.is_success() {
        return serde_json::from_slice(&body).map_err(|error| {
            TokenFailure::Failed(format!(
                "{endpoint} sent a token response that does not parse: {error}"
            ))
        });
    }
    let error: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    match error.get("error").and_then(Value::as_str) {
        Some(code) => Err(TokenFailure::Refused {
            code: code.to_owned(),
            description: error
                .get("error_description")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
        }),
        None => Err(TokenFailure::Failed(format!("{endpoint} answered {status}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkce_challenges_are_the_s256_of_their_verifiers() {
        let pkce = Pkce::new();
        assert_eq!(pkce.verifier.len(), 43);
        let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, pkce.verifier.as_bytes());
        assert_eq!(pkce.challenge, URL_SAFE_NO_PAD.encode(digest.as_ref()));
        assert_ne!(pkce.verifier, Pkce::new().verifier);
    }

    #[test]
    fn the_client_authentication_follows_what_the_server_supports() {
        let list = |names: &[&str]| names.iter().map(|name| (*name).to_owned()).collect::<Vec<_>>();
        assert_eq!(ClientAuth::choose(true, None), ClientAuth::Basic);
        assert_eq!(
            ClientAuth::choose(true, Some(&list(&["client_secret_post"]))),
            ClientAuth::Post
        );
        assert_eq!(
            ClientAuth::choose(false, Some(&list(&["client_secret_basic"]))),
            ClientAuth::None
        );
    }

    fn callback(query: &str) -> Url {
        Url::parse(&format!("http://127.0.0.1:1/callback?{query}")).unwrap()
    }

    const SILENT: ExpectedIssuer<'static> = ExpectedIssuer {
        issuer: "https://as.example.com",
        iss_promised: false,
    };

    #[test]
    fn the_redirect_gives_its_code_only_with_our_state() {
        assert_eq!(
            code_from(&callback("code=abc&state=s1"), "s1", &SILENT),
            Ok("abc".to_owned())
        );
        assert!(code_from(&callback("code=abc&state=other"), "s1", &SILENT).is_err());
        assert!(code_from(&callback("code=abc"), "s1", &SILENT).is_err());
        let refused = code_from(&callback("error=access_denied&state=s1"), "s1", &SILENT).unwrap_err();
        assert!(refused.contains("access_denied"), "{refused}");
    }

    #[test]
    fn the_redirect_must_come_from_the_issuer_asked_exactly() {
        let promised = ExpectedIssuer {
            iss_promised: true,
            ..SILENT
        };
        let with_iss = |iss: &str| callback(&format!("code=abc&state=s1&iss={iss}"));
        for expected in [&SILENT, &promised] {
            assert_eq!(
                code_from(&with_iss("https%3A%2F%2Fas.example.com"), "s1", expected),
                Ok("abc".to_owned())
            );
            for other in [
                "https%3A%2F%2Fevil.example.com",
                "https%3A%2F%2Fas.example.com%2F",
                "HTTPS%3A%2F%2Fas.example.com",
            ] {
                let refused = code_from(&with_iss(other), "s1", expected).unwrap_err();
                assert!(refused.contains("RFC 9207"), "{refused}");
            }
        }
        assert!(
            code_from(&callback("code=abc&state=s1"), "s1", &promised).is_err(),
            "promised, missing"
        );
        let mixed_up = callback("error=access_denied&state=s1&iss=https%3A%2F%2Fevil.example.com");
        assert!(
            code_from(&mixed_up, "s1", &SILENT).unwrap_err().contains("evil"),
            "errors too"
        );
    }

    #[test]
    fn loopback_and_own_schemes_register_as_native_web_servers_as_web() {
        let kind = |uri: &str| application_type(&Url::parse(uri).unwrap());
        assert_eq!(kind("http://127.0.0.1:8976/callback"), "native");
        assert_eq!(kind("http://localhost:3000/callback"), "native");
        assert_eq!(kind("http://[::1]:3000/callback"), "native");
        assert_eq!(kind("com.example.app:/callback"), "native");
        assert_eq!(kind("https://app.example.com/callback"), "web");
    }
}
