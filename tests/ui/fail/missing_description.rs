use agent_tools::tool;

#[tool]
async fn undocumented(value: u32) -> String {
    value.to_string()
}

fn main() {}
