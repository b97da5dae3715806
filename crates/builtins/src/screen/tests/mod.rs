//! Tests of `screenshot` against real pixels: an Xvfb server per test with a known
//! pattern of windows on it, and headless Chromium rendering pages served on 127.0.0.1.
//!
//! Xvfb and Chromium are required: a test that needs one and cannot find it fails and
//! says what to install (CI installs both), it never passes without having looked.

mod local_only;
mod screen;
mod url;
mod xvfb;

use std::path::Path;

use crate::Workspace;
use agent_tools_core::{ToolOutput, output::Content};
use base64::Engine as _;

use super::codec;
use super::raster::Rgb;

/// A fresh workspace in a temporary directory.
fn workspace() -> (tempfile::TempDir, Workspace) {
    let dir = tempfile::tempdir().unwrap();
    let ws = Workspace::open(dir.path()).unwrap();
    (dir, ws)
}

/// The image a saved screenshot file holds.
fn saved(root: &Path, path: &str) -> Rgb {
    let bytes = std::fs::read(root.join(path)).unwrap_or_else(|error| panic!("{path}: {error}"));
    codec::decode(&bytes, path).unwrap()
}

/// The path the output's text says the screenshot was saved to.
fn saved_path(output: &ToolOutput) -> String {
    let text = output.text_content();
    let after = text
        .split_once("saved to `")
        .unwrap_or_else(|| panic!("no path in {text:?}"))
        .1;
    after.split_once('`').unwrap().0.to_owned()
}

/// The image part of the output, decoded.
fn returned_image(output: &ToolOutput) -> Rgb {
    let data = output
        .content
        .iter()
        .find_map(|part| match part {
            Content::Image { mime_type, data, .. } if mime_type == "image/png" => Some(data),
            _ => None,
        })
        .expect("a PNG image part");
    let bytes = base64::engine::general_purpose::STANDARD.decode(data).unwrap();
    codec::decode(&bytes, "the returned image").unwrap()
}

/// Whether two colors differ by at most `tolerance` in every channel.
fn close(actual: [u8; 3], expected: [u8; 3], tolerance: u8) -> bool {
    actual
        .iter()
        .zip(expected)
        .all(|(a, e)| a.abs_diff(e) <= tolerance)
}
