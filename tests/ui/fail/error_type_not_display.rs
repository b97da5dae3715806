use agent_tools::tool;

struct Oops;

/// Fails.
#[tool]
async fn fail(text: String) -> Result<String, Oops> {
    if text.is_empty() {
        return Err(Oops);
    }
    Ok(text)
}

fn main() {}
