"""The version of the package, read by its face, the on-disk index and the MCP server."""

__version__ = "0.2.0"
