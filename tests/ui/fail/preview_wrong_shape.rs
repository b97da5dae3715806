use agent_tools::tool;

/// Shout the text; its preview takes the wrong argument.
#[tool(preview = preview_shout)]
async fn shout(text: String) -> String {
    text.to_uppercase()
}

fn preview_shout(text: &str) -> Option<String> {
    Some(text.to_uppercase())
}

fn main() {}
