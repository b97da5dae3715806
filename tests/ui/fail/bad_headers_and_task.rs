use agent_tools::tool;

/// Queries a region.
#[tool(read_only, headers(region = "Re gion", tenant = 3), task = "sometimes")]
async fn query(region: String, tenant: String) -> String {
    format!("{region} {tenant}")
}

fn main() {}
