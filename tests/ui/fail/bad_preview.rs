use agent_tools::{tool, toolset};

/// Not a function: a string.
#[tool(preview = "preview_shout")]
async fn shout(text: String) -> String {
    text.to_uppercase()
}

struct Toolset;

#[toolset]
impl Toolset {
    /// Whisper: in a toolset, the preview is named as a method, not a path.
    #[tool(preview = Self::preview_whisper)]
    async fn whisper(&self, text: String) -> String {
        text.to_lowercase()
    }

    fn preview_whisper(&self, _args: &WhisperArgs) -> Option<String> {
        None
    }
}

fn main() {}
