use agent_tools::tool;

struct Cache;

/// Fills the cache.
#[tool]
async fn fill(cache: &mut Cache, key: String) -> String {
    let _ = cache;
    key
}

fn main() {}
