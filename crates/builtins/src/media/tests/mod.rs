//! Tests of `send_media` and its senders against real HTTP servers on 127.0.0.1 (axum,
//! one per test, on a port the kernel picks) that parse the multipart bodies they get.

mod channels;
mod telegram;
mod validation;
mod webhook;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use crate::Workspace;
use axum::Router;
use axum::extract::{Multipart, State};
use axum::http::Uri;
use axum::response::Response;

use super::{MediaConfig, MediaSender, SendMediaArgs, WebhookSender, send_media};

/// A small but real PNG signature and a PDF header: enough for content detection.
const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDRpixels";
const PDF: &[u8] = b"%PDF-1.7\n1 0 obj\n<<>>\nendobj\n";

/// One multipart field of a request.
#[derive(Debug, Clone)]
struct Field {
    name: String,
    file_name: Option<String>,
    content_type: Option<String>,
    bytes: Vec<u8>,
}

/// One request a server got: its path and its multipart fields.
#[derive(Debug, Clone)]
struct Upload {
    path: String,
    fields: Vec<Field>,
}

impl Upload {
    /// The text of field `name`.
    fn text(&self, name: &str) -> Option<String> {
        let field = self.fields.iter().find(|field| field.name == name)?;
        Some(String::from_utf8(field.bytes.clone()).unwrap())
    }

    /// The single file field: its field name, file name, content type and bytes.
    fn file(&self) -> (&str, &str, &str, &[u8]) {
        let files: Vec<&Field> = self
            .fields
            .iter()
            .filter(|field| field.file_name.is_some())
            .collect();
        assert_eq!(files.len(), 1, "{self:?}");
        let file = files[0];
        let name = file.file_name.as_deref().unwrap();
        let content_type = file.content_type.as_deref().unwrap();
        (&file.name, name, content_type, &file.bytes)
    }
}

/// How a test server answers an upload.
type Answer = fn(&Upload) -> Response;

/// What a test server got, in order.
type Uploads = Arc<Mutex<Vec<Upload>>>;

#[derive(Clone)]
struct Recorder {
    uploads: Uploads,
    answer: Answer,
}

async fn record(State(recorder): State<Recorder>, uri: Uri, mut multipart: Multipart) -> Response {
    let mut fields = Vec::new();
    while let Some(field) = multipart.next_field().await.unwrap() {
        fields.push(Field {
            name: field.name().unwrap_or_default().to_owned(),
            file_name: field.file_name().map(str::to_owned),
            content_type: field.content_type().map(str::to_owned),
            bytes: field.bytes().await.unwrap().to_vec(),
        });
    }
    let upload = Upload {
        path: uri.path().to_owned(),
        fields,
    };
    let response = (recorder.answer)(&upload);
    recorder.uploads.lock().unwrap().push(upload);
    response
}

/// A server on a fresh loopback port that records every multipart request, on any path,
/// and answers it with `answer`.
async fn server(answer: Answer) -> (SocketAddr, Uploads) {
    let uploads = Uploads::default();
    let recorder = Recorder {
        uploads: Arc::clone(&uploads),
        answer,
    };
    let app = Router::new().fallback(record).with_state(recorder);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (addr, uploads)
}

/// A loopback address nothing listens on.
async fn closed_port() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap()
}

/// A workspace in a fresh directory holding `files`.
fn workspace(files: &[(&str, &[u8])]) -> (tempfile::TempDir, Workspace) {
    let temp = tempfile::tempdir().unwrap();
    for (name, bytes) in files {
        let path = temp.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    let ws = Workspace::open(temp.path()).unwrap();
    (temp, ws)
}

fn args(paths: &[&str]) -> SendMediaArgs {
    SendMediaArgs {
        paths: paths.iter().map(|&path| path.to_owned()).collect(),
        caption: None,
        channel: None,
    }
}

/// `send_media` with the default config, as its text or its error message.
async fn send(ws: &Workspace, sender: &dyn MediaSender, args: SendMediaArgs) -> Result<String, String> {
    send_with(ws, sender, &MediaConfig::default(), args).await
}

async fn send_with(
    ws: &Workspace,
    sender: &dyn MediaSender,
    config: &MediaConfig,
    args: SendMediaArgs,
) -> Result<String, String> {
    send_media(ws, sender, config, args)
        .await
        .map_err(|error| error.to_string())
}

/// A webhook sender for the test server at `addr`.
fn webhook(addr: SocketAddr) -> WebhookSender {
    WebhookSender::new(format!("http://{addr}/hooks/secret-path")).unwrap()
}

#[test]
fn the_tool_can_run_on_any_thread() {
    fn send<T: Send>(_: &T) {}
    fn shared<T: Send + Sync + Clone>() {}
    shared::<WebhookSender>();
    shared::<super::TelegramSender>();
    let (_temp, ws) = workspace(&[]);
    let sender = WebhookSender::new("http://127.0.0.1:9/").unwrap();
    send(&send_media(
        &ws,
        &sender,
        &MediaConfig::default(),
        args(&["a.png"]),
    ));
}

#[test]
fn config_defaults_and_wildcards() {
    let config = MediaConfig::default();
    assert_eq!(config.max_file_bytes, 20 * 1024 * 1024);
    assert!(config.allows("image/png") && config.allows("TEXT/PLAIN") && config.allows("video/mp4"));
    assert!(!config.allows("application/zip") && !config.allows("application/octet-stream"));
    let images = MediaConfig::default().allowed_types(["image/*"]);
    assert!(images.allows("image/heic"));
    assert!(!images.allows("imagex/png") && !images.allows("application/pdf"));
}
