use agent_tools::tool;

#[tool(name = "bad name", timout = "5s")]
async fn undocumented<T>(_value: &mut T) {}

fn main() {}
