"""Every reader is capped at the descriptor (SPEC §20.5, §30.3).

One capped read (``_fs.read_capped``, ``read_limited`` for a bare descriptor, and the two
entry points built on them, ``read_whole`` and ``read_file_capped``) sizes each call by the
``fstat`` of the open descriptor and stops one byte past its cap, so a sparse or growing file
never allocates more. Each reader of a manifest, lock, index or trust store is checked here with
sparse files of 8 GiB (no disk used), FIFOs and growing streams, through every entry point
(library, ``SkillSession``-free helpers, the CLI, packages), with its peak memory measured.
"""

from __future__ import annotations

import io
import json
import os
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agent_skills import SkillError, SkillRoot, TrustStore, create_agent_skills
from agent_skills import packages as pkg
from agent_skills._fs import read_capped, read_file_capped, read_limited, read_whole
from agent_skills._scan import ManifestLookup
from agent_skills.cli import cli
from agent_skills.validate import validate_skill
from conftest import ends_within, make_skill, needs_fifo

HUGE = 8 * 1024**3  # 8 GiB, sparse
MEMORY = 32 * 1024 * 1024  # what any of these reads may allocate at its peak


def _sparse(path: Path, size: int = HUGE) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "ab") as fh:
        fh.truncate(size)
    return path


def _peak(fn: Callable[[], Any]) -> tuple[Any, int]:
    """``fn()``'s result (or the SkillError it raised) and the peak of Python allocations."""
    tracemalloc.start()
    try:
        try:
            result: Any = fn()
        except SkillError as err:
            result = err
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _bounded(fn: Callable[[], Any], seconds: float = 10.0) -> Any:
    """Run ``fn`` on a thread; fail instead of hanging the suite (a FIFO read would block)."""
    return ends_within(fn, seconds)


# -- the helper ------------------------------------------------------------------------------


class _Growing(io.RawIOBase):
    """A stream that holds ``size`` bytes by its declared size but yields ``actual``; records
    what each read asked for."""

    def __init__(self, actual: int) -> None:
        self.left = actual
        self.asked: list[int] = []

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        self.asked.append(len(buffer))
        n = min(len(buffer), self.left, 4096)
        buffer[:n] = b"x" * n
        self.left -= n
        return n


@pytest.mark.parametrize(
    ("declared", "actual", "cap", "expected"),
    [
        (10, 10, 100, 10),
        (0, 0, 0, 0),
        (10, 50, 100, 50),  # grew: read on, up to the cap
        (10, 10**9, 100, None),  # grew past the cap: stops one byte past it
        (200, 200, 100, None),  # declared past the cap: nothing read
        (100, 100, 100, 100),
        (100, 101, 100, None),
    ],
)
def test_read_capped_never_asks_past_the_cap(
    declared: int, actual: int, cap: int, expected: int | None
) -> None:
    stream = _Growing(actual)
    data = read_capped(stream, declared, cap)  # type: ignore[arg-type]
    assert (None if data is None else len(data)) == expected
    assert all(n <= cap + 1 for n in stream.asked)  # no call asks for more than the cap
    assert actual - stream.left <= cap + 1  # and no more than one byte past it is read
    if declared > cap:
        assert stream.asked == []


def test_read_limited_and_read_whole_take_the_size_from_the_descriptor(tmp_path: Path) -> None:
    path = _sparse(tmp_path / "big.bin")
    fd = os.open(path, os.O_RDONLY)
    try:
        result, peak = _peak(lambda: read_limited(fd, 1024))
    finally:
        os.close(fd)
    assert result is None and peak < MEMORY
    with open(path, "rb") as fh:
        err, peak = _peak(lambda: read_whole(fh, 1024, path))
    assert (err.code.value, err.fields) == (
        "too_large",
        {"path": str(path), "size": HUGE, "max_bytes": 1024},
    )
    assert peak < MEMORY
    small = tmp_path / "small.bin"
    small.write_bytes(b"abc")
    with open(small, "rb") as fh:
        assert read_whole(fh, 3, small) == b"abc"
    assert read_whole(io.BytesIO(b"in memory"), 9, "mem") == b"in memory"
    with pytest.raises(SkillError) as info:
        read_whole(io.BytesIO(b"in memory"), 8, "mem")
    assert (info.value.code.value, info.value.fields) == (
        "too_large",
        {"path": "mem", "size": 9, "max_bytes": 8},
    )


@needs_fifo
def test_read_file_capped_refuses_what_is_not_a_regular_file(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for path, code in ((fifo, "not_a_file"), (tmp_path, "not_a_file"), (tmp_path / "no", None)):
        with pytest.raises(SkillError) as info:
            _bounded(lambda p=path: read_file_capped(str(p), 10, what="manifest"))  # type: ignore[misc]
        assert info.value.code.value == (code or "not_found")
        assert info.value.fields == {"path": str(path)}


# -- a sparse 8 GiB manifest, through every reader of a manifest ------------------------------


def _big_skill(root: Path, name: str = "big") -> Path:
    skill = make_skill(root, name)
    _sparse(skill / "SKILL.md")
    return skill


def test_validate_skill_stops_at_the_cap(tmp_path: Path) -> None:
    skill = _big_skill(tmp_path)
    problems, peak = _peak(lambda: validate_skill(skill))
    assert [(p.severity.value, p.code.value, p.message) for p in problems] == [
        (
            "error",
            "manifest_too_large",
            "manifest is larger than 1048576 bytes; discovery skips it",
        )
    ]
    assert peak < MEMORY


def test_the_cli_validate_stops_at_the_cap(tmp_path: Path) -> None:
    skill = _big_skill(tmp_path)
    result = CliRunner().invoke(cli, ["validate", str(skill), "--json"], catch_exceptions=False)
    assert result.exit_code == 1
    [report] = json.loads(result.output)
    assert [p["code"] for p in report["problems"]] == ["manifest_too_large"]


def test_pack_and_add_stop_at_the_cap(tmp_path: Path) -> None:
    skill = _big_skill(tmp_path / "src")
    err, peak = _peak(lambda: pkg.pack_skill(skill, tmp_path / "big.skill"))
    assert isinstance(err, SkillError) and err.code == "invalid_skill"
    assert [p["code"] for p in err.fields["problems"]] == ["manifest_too_large"]
    assert peak < MEMORY
    assert not (tmp_path / "big.skill").exists()
    err, peak = _peak(
        lambda: pkg.install_skills(pkg.parse_source(str(skill)), tmp_path / "installed")
    )
    # The source's one skill is refused with its own reason; nothing is installed.
    manifest = str(skill / "SKILL.md")
    assert (err.code.value, err.fields) == (
        "too_large",
        {"path": manifest, "size": HUGE, "max_bytes": 1048576, "names": [], "source": str(skill)},
    )
    assert err.message == f"no valid skill in {skill}: {manifest} is larger than 1048576 bytes"
    assert peak < MEMORY
    assert not (tmp_path / "installed" / "big").exists()


def test_trust_approval_stops_at_the_cap(tmp_path: Path) -> None:
    skill = _big_skill(tmp_path / "ws")
    store = TrustStore(tmp_path / "trust.json")
    err, peak = _peak(lambda: store.approve(skill))
    assert (err.code.value, err.fields) == (
        "too_large",
        {"rel": "SKILL.md", "max_bytes": 67_108_864},
    )
    assert peak < MEMORY
    # A sparse resource of a gated skill: the same cap, never read whole.
    other = make_skill(tmp_path / "ws", "other")
    _sparse(other / "references" / "huge.bin")
    err, peak = _peak(lambda: store.approve(other))
    assert (err.code.value, err.fields) == (
        "too_large",
        {"rel": "references/huge.bin", "max_bytes": 67_108_864},
    )
    assert peak < MEMORY
    skills = create_agent_skills([SkillRoot(tmp_path / "ws", "workspace")], trust=store)
    assert skills.list_skills() == []


# -- the files the library keeps: lock, trust store, index -------------------------------------


def test_a_sparse_lock_store_or_index_is_refused_at_its_cap(tmp_path: Path) -> None:
    lock = _sparse(tmp_path / "skills.lock.json")
    err, peak = _peak(lambda: pkg.read_lock(lock))
    assert (err.code.value, err.fields) == (
        "too_large",
        {"path": str(lock), "max_bytes": 64 * 1024 * 1024},
    )
    assert peak < MEMORY
    store = _sparse(tmp_path / "trust.json")
    err, peak = _peak(lambda: TrustStore(store).approved())
    assert (err.code.value, err.fields) == (
        "too_large",
        {"path": str(store), "max_bytes": 64 * 1024 * 1024},
    )
    assert peak < MEMORY
    make_skill(tmp_path / "skills", "s")
    # An index file that is not ours, sparse: only its first line's worth is read.
    index = _sparse(tmp_path / "index", 1 << 30)
    skills, peak = _peak(lambda: create_agent_skills([tmp_path / "skills"], index=index))
    assert [s.name for s in skills.list_skills()] == ["s"]
    assert peak < MEMORY


def test_the_cli_verify_and_trust_refuse_a_sparse_file(tmp_path: Path) -> None:
    lock = _sparse(tmp_path / "skills.lock.json")
    result = CliRunner().invoke(
        cli,
        ["verify", "--lock", str(lock), "--json", "--preset", "none", "--root", str(tmp_path)],
        catch_exceptions=False,
    )
    assert result.exit_code != 0
    assert "too_large" in result.output


@needs_fifo
def test_validate_and_pack_never_block_on_a_fifo_manifest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_skills import validate as validate_mod

    skill = make_skill(tmp_path / "src", "fifo")
    (skill / "SKILL.md").unlink()
    os.mkfifo(skill / "SKILL.md")
    problems = _bounded(lambda: validate_skill(skill))
    assert [p.code.value for p in problems] == ["manifest_missing"]  # not a regular file
    with pytest.raises(SkillError) as info:
        _bounded(lambda: pkg.pack_skill(skill, tmp_path / "fifo.skill"))
    assert info.value.code == "invalid_skill"
    assert [p["code"] for p in info.value.fields["problems"]] == ["manifest_missing"]
    # Swapped in after the lookup: the read opens without blocking and refuses it.
    found = ManifestLookup("SKILL.md", str(skill / "SKILL.md"))
    monkeypatch.setattr(validate_mod._scan, "find_manifest", lambda d, **_: found)
    problems = _bounded(lambda: validate_skill(skill))
    assert [(p.code.value, p.message) for p in problems] == [
        (
            "manifest_unreadable",
            f"cannot read {skill / 'SKILL.md'}: manifest {skill / 'SKILL.md'} is not a "
            "regular file",
        )
    ]
