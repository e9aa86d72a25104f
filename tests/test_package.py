"""SPEC §0-§1: the package's public surface and the lightness of its import."""

from __future__ import annotations

import subprocess
import sys

import agent_skills


def test_every_public_name_resolves_and_dir_lists_exactly_the_public_api() -> None:
    for name in agent_skills.__all__:
        assert getattr(agent_skills, name) is not None, name
    assert dir(agent_skills) == sorted(agent_skills.__all__)


def test_every_public_object_has_a_docstring() -> None:
    undocumented = [
        name
        for name in agent_skills.__all__
        if callable(getattr(agent_skills, name)) and not getattr(agent_skills, name).__doc__
    ]
    assert undocumented == []


def test_import_loads_neither_cli_mcp_nor_pydantic() -> None:
    code = (
        "import sys, agent_skills; "
        "print(sorted(m for m in ('click', 'rich', 'mcp', 'pydantic') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_pydantic_model_loads_on_first_use() -> None:
    code = (
        "import sys, agent_skills; "
        "agent_skills.parse_skill('---\\nname: a\\ndescription: b\\n---\\n'); "
        "print('pydantic' in sys.modules, agent_skills.SkillFrontmatter.__name__, "
        "'pydantic' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # SPEC §26: validation on the hot path does not import pydantic; the model does.
    assert out.stdout.split() == ["False", "SkillFrontmatter", "True"]


def test_the_license_file_is_the_mit_license_the_metadata_names() -> None:
    import tomllib

    from conftest import REPO

    meta = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert meta["project"]["license"] == "MIT"
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert text.splitlines()[:3] == [
        "MIT License",
        "",
        "Copyright (c) 2026 the agent-skills authors",
    ]
    assert "Permission is hereby granted, free of charge" in text
    assert text.rstrip().endswith("DEALINGS IN THE\nSOFTWARE.")
