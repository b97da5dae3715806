//! The arguments of `view_image`.

use schemars::JsonSchema;
use serde::Deserialize;

/// Arguments of `view_image`.
#[derive(Debug, Deserialize, JsonSchema)]
#[non_exhaustive]
pub struct ViewImageArgs {
    /// Path of the image, relative to the workspace root.
    pub path: String,
}
