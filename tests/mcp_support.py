"""Pieces shared by the MCP tests: raw requests for the Skills extension, and common skills."""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable
from pathlib import Path
from typing import Any, Literal

import mcp_types as types
from mcp import MCPError

from conftest import make_skill


class ListSkills(types.Request[types.PaginatedRequestParams, Literal["skills/list"]]):
    """A raw ``skills/list`` request (the SDK has no typed call for the extension)."""

    method: Literal["skills/list"] = "skills/list"


class GetParams(types.RequestParams):
    """Parameters of ``skills/get``; ``uri`` may be left out to test the error."""

    uri: str | None = None


class GetSkill(types.Request[GetParams, Literal["skills/get"]]):
    """A raw ``skills/get`` request."""

    method: Literal["skills/get"] = "skills/get"


def add_invocation_skills(root: Path) -> None:
    """Add ``beta`` (users only), ``gamma`` (models only) and ``Bad_Name`` (not publishable)."""
    make_skill(
        root,
        "beta",
        frontmatter={
            "name": "beta",
            "description": "Beta is for users only.",
            "disable-model-invocation": True,
        },
        body="Beta body.",
    )
    make_skill(
        root,
        "gamma",
        frontmatter={
            "name": "gamma",
            "description": "Gamma is for models only.",
            "user-invocable": False,
        },
        body="Gamma body.",
    )
    make_skill(root, "Bad_Name", body="Bad body.")


async def error_of(call: Awaitable[Any]) -> tuple[int, str]:
    """Await ``call`` and return the ``(code, message)`` of the MCP error it must raise."""
    try:
        await call
    except MCPError as err:
        return err.code, err.message
    raise AssertionError("the call succeeded")


def digest(data: bytes) -> str:
    """The manifest digest of ``data`` (MCP Skills extension: ``sha256:<hex>``)."""
    return "sha256:" + hashlib.sha256(data).hexdigest()
