use agent_tools::tool;

struct Report {
    lines: usize,
}

/// Counts lines.
#[tool]
async fn count(text: String) -> Report {
    Report { lines: text.lines().count() }
}

fn main() {}
