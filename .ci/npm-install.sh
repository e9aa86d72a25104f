#!/usr/bin/env sh
# Installs the pinned MCP Inspector used by tests/test_mcp.py as an independent client.
# Idempotent: does nothing when the pinned version is already in .ci/node_modules.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
version=2.12.0
pkg="$here/node_modules/@modelcontextprotocol/inspector/package.json"
if [ -f "$pkg" ] && grep -q "\"version\": \"$version\"" "$pkg"; then
  exit 0
fi
npm install --prefix "$here" --no-save --no-audit --no-fund "@modelcontextprotocol/inspector@$version"
