"""Any memory service (HTTP or MCP over stdio) described by a small TOML file, run as a system."""
