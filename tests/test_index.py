"""SPEC §26: the on-disk index of parsed manifests.

Discovery with an index must give exactly what discovery without one gives, whatever happened to
the tree in between; a warm index reads no manifest; racy entries are read again; a damaged or
foreign index file is ignored with a diagnostic and rewritten atomically.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import time
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import agent_skills
import agent_skills._index as index_mod
import agent_skills._scan as scan_mod
from agent_skills import AgentSkills, DiagnosticKind, StartupError, create_agent_skills
from agent_skills._frozen import FrozenMapping
from agent_skills._index_format import MAGIC

# Past one tick of the coarsest file-timestamp clock (HZ = 100): a change made after this pause
# gets a ctime different from the one the index stored.
TICK = 0.03


def _write_skill(root: Path, name: str, description: str = "does things", **extra: str) -> Path:
    d = root / name
    d.mkdir(parents=True, exist_ok=True)
    lines = [
        f"name: {name}",
        f"description: {description}",
        *(f"{k}: {v}" for k, v in extra.items()),
    ]
    (d / "SKILL.md").write_text("---\n" + "\n".join(lines) + "\n---\n# " + name + "\nbody\n")
    return d


def _shape(value: Any) -> Any:
    """``value`` with the type of every container kept: a read-only mapping and a plain dict, or
    a tuple and a list, compare unequal here."""
    if isinstance(value, Mapping):
        return (type(value).__name__, [(k, _shape(v)) for k, v in value.items()])
    if isinstance(value, list | tuple):
        return (type(value).__name__, [_shape(v) for v in value])
    return (type(value).__name__, value)


def _view(skills: AgentSkills) -> dict[str, Any]:
    """Everything discovery reports, but the index's own diagnostics."""
    return {
        "infos": [s.to_dict() for s in skills.list_skills()],
        "metadata": [_shape(s.metadata) for s in skills.list_skills()],
        "real_dirs": [s.real_dir for s in skills.list_skills()],
        "pins": [
            (p.real_dir, p.dev, p.ino, p.hops, p.manifest)
            for p in (s.pin for s in skills.registry.skills)
            if p is not None
        ],
        "allowed_tools": [s.allowed_tools for s in skills.list_skills()],
        "bodies": [s.body for s in skills.registry.skills],
        "entries": [e.to_dict() for e in skills.report().entries],
        "diagnostics": [
            d.to_dict() for d in skills.diagnostics if d.kind != DiagnosticKind.INDEX_IGNORED
        ],
    }


def _sections(data: bytes | bytearray) -> tuple[int, int]:
    """Where an index file's header starts and how long it is."""
    start = data.index(b"\n", len(MAGIC)) + 1
    return start, int(data[len(MAGIC) : start - 1].split(b" ")[0])


def _entries(data: bytes) -> dict[str, list[Any]]:
    """An index file's entries in full (the section after the frontmatters)."""
    start, head_len = _sections(data)
    sizes = json.loads(data[start : start + head_len])["sections"]
    at = start + head_len + sum(sizes[:3])
    entries: dict[str, list[Any]] = json.loads(data[at : at + sizes[3]])
    return entries


def _rewrite_entries(idx: Path, change: Callable[[dict[str, list[Any]]], object]) -> None:
    """Rewrite an index file with its entries in full as ``change`` leaves them (the header's
    short entries as they were), sizes and checksums to match."""
    data = idx.read_bytes()
    start, head_len = _sections(data)
    header = json.loads(data[start : start + head_len])
    rest = data[start + head_len :]
    at, size = sum(header["sections"][:3]), header["sections"][3]
    entries = json.loads(rest[at : at + size])
    change(entries)
    text = json.dumps(entries, separators=(",", ":")).encode()
    header["sections"][3] = len(text)
    _forge(idx, json.dumps(header).encode(), rest[:at] + text + rest[at + size :])


def _forge(idx: Path, head: bytes, rest: bytes) -> None:
    """Write an index file from its header and the rest, with a matching checksum: what a
    writer that knows the format could write, checked entry by entry. The bodies are what
    follows the sections the header gives (none when it gives none)."""
    try:
        bodies = len(rest) - sum(json.loads(head)["sections"])
    except (ValueError, KeyError, TypeError):
        bodies = 0
    idx.write_bytes(_framed(head, rest, bodies))


def _framed(head: bytes, rest: bytes, bodies: int) -> bytes:
    """An index file of this format around ``head`` and ``rest`` (whose last ``bodies`` bytes
    are the bodies), both checksums matching."""
    split = len(rest) - bodies if 0 <= bodies <= len(rest) else len(rest)
    crc, bodies_crc = zlib.crc32(head + rest[:split]), zlib.crc32(rest[split:])
    sizes = f"{len(head)} {len(rest)} {bodies} {crc:08x} {bodies_crc:08x}\n"
    return MAGIC + sizes.encode() + head + rest


def _index_notes(skills: AgentSkills) -> list[str]:
    return [d.message for d in skills.diagnostics if d.kind == DiagnosticKind.INDEX_IGNORED]


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The manifests discovery reads from disk: by the plain lane or the general one."""
    seen: list[str] = []
    real = scan_mod._read_manifest
    real_plain = scan_mod._plain_child

    def counting(lookup: Any, *args: Any) -> Any:
        seen.append(lookup.path)
        return real(lookup, *args)

    def counting_plain(*args: Any) -> Any:
        cand = real_plain(*args)
        if cand is not None:
            seen.append(cand.location)
        return cand

    monkeypatch.setattr(scan_mod, "_read_manifest", counting)
    monkeypatch.setattr(scan_mod, "_plain_child", counting_plain)
    return seen


@pytest.fixture
def no_racy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Treat files written before a scan as settled (the tests wait a tick before changing any)."""
    monkeypatch.setattr(index_mod, "RACY_WINDOW_NS", 0)


def test_warm_index_reads_no_manifest_and_gives_the_same_result(
    tmp_path: Path, reads: list[str], no_racy: None
) -> None:
    root = tmp_path / "skills"
    for i in range(5):
        _write_skill(root, f"skill-{i}", f"skill number {i}", license="MIT")
    (root / "skill-1" / "SKILL.md").write_text("---\nname: skill-1\ndescription: [unclosed\n---\n")
    _write_skill(root, "Odd").joinpath("SKILL.md").rename(root / "Odd" / "skill.md")
    idx = tmp_path / "index"
    cold = create_agent_skills([root], index=idx)
    assert len(reads) == 6 and idx.is_file()
    reads.clear()
    warm = create_agent_skills([root], index=idx)
    assert reads == []
    plain = create_agent_skills([root])
    assert _view(warm) == _view(cold) == _view(plain)
    assert {d.kind for d in warm.diagnostics} >= {"invalid_skill", "manifest_case"}
    assert _index_notes(warm) == []


def test_warm_index_opens_no_skill_directory_and_pins_what_a_scan_pins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_racy: None
) -> None:
    # A hit is two lstat calls: the directory's stat gives the identity pinned (SPEC §20.1).
    root = tmp_path / "skills"
    for i in range(3):
        _write_skill(root, f"skill-{i}")
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx)
    opened: list[str] = []
    real_open = scan_mod._open_pinned_child

    def counting(parent_dir: Any, name: str) -> Any:
        opened.append(name)
        return real_open(parent_dir, name)

    monkeypatch.setattr(scan_mod, "_open_pinned_child", counting)
    warm = create_agent_skills([root], index=idx)
    assert opened == []
    plain = create_agent_skills([root])
    assert len(opened) == 3
    assert _view(warm) == _view(plain)
    pin = warm.registry.pin("skill-1")
    st = os.stat(root / "skill-1")
    assert (pin.real_dir, pin.dev, pin.ino) == (str(root / "skill-1"), st.st_dev, st.st_ino)
    assert warm.read_resource("skill-1", "SKILL.md").startswith(b"---")


def test_a_hit_candidate_holds_what_a_read_one_holds(tmp_path: Path, no_racy: None) -> None:
    # The scan builds a hit's candidate as the tuple it is, field by field: each field holds
    # what the candidate of a read manifest holds there, but the bytes and the stamp.
    # A hit is checked by the scan (an IndexHit) and its candidate built from it when needed.
    from agent_skills._discover import _open_index
    from agent_skills._scan import Candidate, IndexHit, hit_candidate, scan_root

    root = tmp_path / "skills"
    _write_skill(root, "a")
    config = create_agent_skills([root], index=tmp_path / "index").config
    (read,) = scan_root(config.roots[0], follow_symlinks=True)[1]
    index = _open_index(config)
    assert index is not None
    (checked,) = scan_root(config.roots[0], follow_symlinks=True, index=index)[1]
    assert isinstance(checked, IndexHit) and isinstance(read, Candidate)
    hit = hit_candidate(checked, index, follow_symlinks=True, cap=config.max_manifest_bytes)
    assert type(hit) is type(read) and len(hit) == len(read)
    assert isinstance(hit.cached, index_mod.CachedSkill) and hit.data is None
    assert read.cached is None and read.data is not None
    for field in ("data", "cached", "stamp"):
        hit, read = hit._replace(**{field: None}), read._replace(**{field: None})
    assert hit == read


@pytest.mark.parametrize(
    ("declared", "stored"),
    [
        ("allowed-tools: [Read, Grep]", True),  # clean names: the frontmatter's own tuple
        ("tools: [Read]", True),
        ("allowed-tools: Read Grep", ["Read", "Grep"]),  # a string: a tuple of its own
        ("allowed-tools: [' Read ', Grep]", ["Read", "Grep"]),  # names cleaned
        ("allowed-tools: []\ntools: [Read]", True),  # allowed-tools first, even empty
        ("license: MIT", None),
    ],
)
def test_allowed_tools_are_stored_as_the_frontmatter_s_own_or_as_a_list(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_racy: None, declared: str, stored: Any
) -> None:
    # As discovery without the index: allowed tools equal to the frontmatter's list are that
    # very tuple (stored as true), others a tuple of their own. Stored values that cannot be
    # allowed tools (true without a tools key, a list of non-strings, a string) are damage.
    monkeypatch.setattr(index_mod, "_memo", None)
    root = tmp_path / "skills"
    (root / "a").mkdir(parents=True)
    (root / "a" / "SKILL.md").write_text(f"---\nname: a\ndescription: d\n{declared}\n---\nbody\n")
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx)
    (entry,) = _entries(idx.read_bytes()).values()
    assert entry[10] == stored
    plain = create_agent_skills([root])
    warm = create_agent_skills([root], index=idx)
    assert _index_notes(warm) == [] and _view(warm) == _view(plain)
    (got,), (want,) = warm.list_skills(), plain.list_skills()
    assert any(want.allowed_tools is v for v in want.metadata.values()) == (stored is True)
    assert any(got.allowed_tools is v for v in got.metadata.values()) == (stored is True)
    forgeries: list[Any] = [[1, 2], "Read"] + ([True] if stored is None else [])
    for forged in forgeries:

        def forge(entries: dict[str, list[Any]], forged: Any = forged) -> None:
            for entry in entries.values():
                entry[10] = forged

        _rewrite_entries(idx, forge)
        monkeypatch.setattr(index_mod, "_memo", None)
        damaged = create_agent_skills([root], index=idx)
        assert _view(damaged) == _view(plain)
        assert any("damaged entry" in n for n in _index_notes(damaged)), forged


def test_a_directory_renamed_into_place_is_read_and_pinned_anew(
    tmp_path: Path, reads: list[str], no_racy: None
) -> None:
    # Same name, same manifest bytes, another directory: its stamp differs, so it is read again
    # and the pin is the new directory's; the old pin is stale.
    root = tmp_path / "skills"
    _write_skill(root, "a", "the same text")
    idx = tmp_path / "index"
    first = create_agent_skills([root], index=idx)
    time.sleep(TICK)
    shutil.copytree(root / "a", tmp_path / "copy")
    shutil.rmtree(root / "a")
    (tmp_path / "copy").rename(root / "a")
    reads.clear()
    again = create_agent_skills([root], index=idx)
    assert reads == [str(root / "a" / "SKILL.md")]
    assert again.registry.pin("a").ino == os.stat(root / "a").st_ino != first.registry.pin("a").ino
    assert _view(again) == _view(create_agent_skills([root]))
    with pytest.raises(Exception, match="changed since discovery"):
        first.read_resource("a", "SKILL.md")


def test_cached_frontmatter_is_read_only_like_a_parsed_one(tmp_path: Path, no_racy: None) -> None:
    root = tmp_path / "skills"
    d = root / "a"
    d.mkdir(parents=True)
    (d / "SKILL.md").write_text(
        "---\nname: a\ndescription: nested values\nallowed-tools: [Read, ' Grep ', 'Bash(git:*)']\n"
        "metadata:\n  tags: [x, y]\n  deep: {rows: [[1, 2], {k: v}], flag: true, n: 1.5}\n"
        "empty: []\nnothing: {}\n---\nbody\n"
    )
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx)
    warm = create_agent_skills([root], index=idx)
    plain = create_agent_skills([root])
    assert _view(warm) == _view(plain)
    meta = warm.list_skills()[0].metadata
    assert type(meta["metadata"]["deep"]["rows"][1]) is FrozenMapping
    assert meta["metadata"]["deep"]["rows"][0] == (1, 2)
    assert warm.list_skills()[0].allowed_tools == ("Read", "Grep", "Bash(git:*)")
    with pytest.raises(TypeError):
        meta["metadata"]["tags"] = ()  # type: ignore[index]


NESTED = (
    "---\nname: a\ndescription: every kind of container\n"
    "metadata:\n  author: me\n  deep: {rows: [[1, 2], {k: v}, [], {}], flag: true, n: 1.5}\n"
    "steps: [{run: x, with: {a: 1}}, {run: y}, [nested, [deeper]]]\n"
    "empty-map: {}\nempty-list: []\n\u00e9t\u00e9: \u2603 snow\n\u540d\u524d: {\u9375: \u5024}\n"
    "nothing: null\nnumbers: [0, -1, 2.5, .inf]\n---\nbody\n"
)


def test_cached_frontmatter_is_what_freeze_makes_of_every_kind_of_container(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_racy: None
) -> None:
    # Nested mappings, lists of mappings and of lists, empty ones, unicode keys and values:
    # the same contents, types, key order and shared key layouts as discovery without an index.
    root = tmp_path / "skills"
    (root / "a").mkdir(parents=True)
    (root / "a" / "SKILL.md").write_text(NESTED, encoding="utf-8")
    _write_skill(root, "b", license="MIT")
    _write_skill(root, "c", license="MIT")
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx)
    monkeypatch.setattr(index_mod, "_memo", None)  # read from the file
    warm = create_agent_skills([root], index=idx)
    plain = create_agent_skills([root])
    assert _index_notes(warm) == [] and _view(warm) == _view(plain)
    for got, want in zip(warm.list_skills(), plain.list_skills(), strict=True):
        assert list(got.metadata) == list(want.metadata)
        assert got.metadata._layout is want.metadata._layout  # type: ignore[attr-defined]
    meta = warm.list_skills()[0].metadata
    assert meta["steps"][0]["with"] == {"a": 1} and type(meta["steps"][0]) is FrozenMapping
    assert meta["steps"][2] == ("nested", ("deeper",))
    assert meta["metadata"]["deep"]["rows"][2:] == ((), FrozenMapping())
    assert meta["empty-map"] == {} and meta["empty-list"] == ()
    assert meta["\u540d\u524d"] == {"\u9375": "\u5024"} and meta["\u00e9t\u00e9"] == "\u2603 snow"


def _frontmatter_sections(idx: Path) -> tuple[dict[str, Any], list[Any], list[Any], bytes]:
    """An index file's header, decoded layouts and frontmatter nodes, and its bodies."""
    data = idx.read_bytes()
    start, head_len = _sections(data)
    header = json.loads(data[start : start + head_len])
    stamps, layouts, nodes, _ = header["sections"]
    rest = data[start + head_len :]
    decoded = json.loads(rest[stamps : stamps + layouts])
    frontmatters = json.loads(rest[stamps + layouts : stamps + layouts + nodes])
    return header, decoded, frontmatters, rest[:stamps] + rest[stamps + layouts + nodes :]


def _reforge(idx: Path, header: dict[str, Any], layouts: Any, nodes: Any, rest: bytes) -> None:
    """Write an index file with other frontmatter sections, sizes and checksum to match."""
    stamps = header["sections"][0]
    texts = [json.dumps(v, separators=(",", ":")).encode() for v in (layouts, nodes)]
    header["sections"] = [stamps, *map(len, texts), header["sections"][3]]
    _forge(idx, json.dumps(header).encode(), rest[:stamps] + b"".join(texts) + rest[stamps:])


def _wrong_layout_number(layouts: list[Any], nodes: list[Any]) -> None:
    nodes[0][-1] = len(layouts)


def _negative_layout_number(layouts: list[Any], nodes: list[Any]) -> None:
    nodes[0][-1] = -1


def _row_too_long(layouts: list[Any], nodes: list[Any]) -> None:
    nodes[1][-1].append("extra")


def _row_too_short(layouts: list[Any], nodes: list[Any]) -> None:
    nodes[1][-1].pop()


def _row_not_a_list(layouts: list[Any], nodes: list[Any]) -> None:
    nodes[1][-1] = {"name": "a"}


def _object_among_values(layouts: list[Any], nodes: list[Any]) -> None:
    nodes[1][-1][-1] = {"k": "v"}


def _array_among_values(layouts: list[Any], nodes: list[Any]) -> None:
    nodes[1][-1][-1] = ["not", "encoded"]


def _link_to_a_later_node(layouts: list[Any], nodes: list[Any]) -> None:
    nodes[2][2] = nodes[2][0]


def _links_cut_short(layouts: list[Any], nodes: list[Any]) -> None:
    nodes[2].pop()


def _links_out_of_order(layouts: list[Any], nodes: list[Any]) -> None:
    links = nodes[2]
    links[:] = links[-3:] + links[:-3]


def _layout_key_twice(layouts: list[Any], nodes: list[Any]) -> None:
    keys = next(k for k in layouts if type(k) is list and len(k) > 1)
    keys[1] = keys[0]


def _layout_key_not_a_string(layouts: list[Any], nodes: list[Any]) -> None:
    next(k for k in layouts if type(k) is list and k)[0] = 1


def _layout_negative_length(layouts: list[Any], nodes: list[Any]) -> None:
    at = next(i for i, k in enumerate(layouts) if type(k) is int)
    layouts[at] = -1


def _nodes_not_three_arrays(layouts: list[Any], nodes: list[Any]) -> None:
    nodes.append([])


def _a_number_is_a_bool(layouts: list[Any], nodes: list[Any]) -> None:
    nodes[0][0] = True


@pytest.mark.parametrize(
    "damage",
    [
        _wrong_layout_number,
        _negative_layout_number,
        _row_too_long,
        _row_too_short,
        _row_not_a_list,
        _object_among_values,
        _array_among_values,
        _link_to_a_later_node,
        _links_cut_short,
        _links_out_of_order,
        _layout_key_twice,
        _layout_key_not_a_string,
        _layout_negative_length,
        _nodes_not_three_arrays,
        _a_number_is_a_bool,
    ],
)
def test_damaged_or_foreign_frontmatter_nodes_are_ignored_with_a_diagnostic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_racy: None, damage: Any
) -> None:
    # A file whose checksum matches (what a writer that knows the format could write) but whose
    # frontmatter nodes do not fit their layouts: ignored like any damage, never a crash.
    monkeypatch.setattr(index_mod, "_memo", None)
    root = tmp_path / "skills"
    (root / "a").mkdir(parents=True)
    (root / "a" / "SKILL.md").write_text(NESTED, encoding="utf-8")
    _write_skill(root, "b", tags="[x, y]")
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx)
    header, layouts, nodes, rest = _frontmatter_sections(idx)
    damage(layouts, nodes)
    _reforge(idx, header, layouts, nodes, rest)
    skills = create_agent_skills([root], index=idx)
    assert _view(skills) == _view(create_agent_skills([root]))
    assert [n for n in _index_notes(skills) if "damaged entry" in n] != []
    assert _index_notes(create_agent_skills([root], index=idx)) == []  # rewritten whole


def test_an_entry_naming_a_list_node_as_its_frontmatter_is_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_racy: None
) -> None:
    monkeypatch.setattr(index_mod, "_memo", None)
    root = tmp_path / "skills"
    _write_skill(root, "a", tags="[x, y]")
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx)
    _, layouts, nodes, _ = _frontmatter_sections(idx)
    assert type(layouts[nodes[0][0]]) is int  # node 0: the list, before its mapping

    def forge(entries: dict[str, list[Any]]) -> None:
        (entry,) = entries.values()
        entry[6] = 0

    _rewrite_entries(idx, forge)
    skills = create_agent_skills([root], index=idx)
    assert _view(skills) == _view(create_agent_skills([root]))
    assert any("damaged entry" in n for n in _index_notes(skills))


def test_the_frontmatter_nodes_reforged_unchanged_are_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_racy: None
) -> None:
    # The damage test above changes only what it names: the same sections rewritten are read.
    monkeypatch.setattr(index_mod, "_memo", None)
    root = tmp_path / "skills"
    (root / "a").mkdir(parents=True)
    (root / "a" / "SKILL.md").write_text(NESTED, encoding="utf-8")
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx)
    _reforge(idx, *_frontmatter_sections(idx))
    skills = create_agent_skills([root], index=idx)
    assert _index_notes(skills) == [] and _view(skills) == _view(create_agent_skills([root]))


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The index files decoded (a remembered index is not)."""
    seen: list[Path] = []
    real = index_mod.ManifestIndex._parse

    def counting(self: index_mod.ManifestIndex, read: Any) -> None:
        seen.append(self.path)
        real(self, read)

    monkeypatch.setattr(index_mod.ManifestIndex, "_parse", counting)
    monkeypatch.setattr(index_mod, "_memo", None)
    return seen


def test_an_index_left_as_it_was_is_remembered_and_still_checked_entry_by_entry(
    tmp_path: Path, reads: list[str], parses: list[Path], no_racy: None
) -> None:
    root = tmp_path / "skills"
    for i in range(3):
        _write_skill(root, f"skill-{i}", f"skill number {i}")
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx)  # writes the index
    create_agent_skills([root], index=idx)  # reads it: left as it was, so remembered
    parses.clear()
    reads.clear()
    warm = create_agent_skills([root], index=idx)
    assert parses == [] and reads == []
    assert _view(warm) == _view(create_agent_skills([root]))
    # Each entry is still checked by its stamps: a changed skill is read again and the index
    # rewritten (then decoded again by the next scan, which remembers the new file).
    time.sleep(TICK)
    _write_skill(root, "skill-1", "changed")
    reads.clear()
    changed = create_agent_skills([root], index=idx)
    assert parses == [] and reads == [str(root / "skill-1" / "SKILL.md")]
    assert _view(changed) == _view(create_agent_skills([root]))
    reads.clear()
    assert _view(create_agent_skills([root], index=idx)) == _view(changed)
    assert parses == [idx] and reads == []
    shutil.rmtree(root / "skill-2")
    gone = create_agent_skills([root], index=idx)
    assert [s.name for s in gone.list_skills()] == ["skill-0", "skill-1"]
    assert _view(gone) == _view(create_agent_skills([root]))


def test_a_remembered_index_changed_on_disk_is_read_again(
    tmp_path: Path, parses: list[Path], no_racy: None
) -> None:
    root = tmp_path / "skills"
    _write_skill(root, "a")
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx)
    create_agent_skills([root], index=idx)
    time.sleep(TICK)
    data = idx.read_bytes()
    with open(idx, "r+b") as fh:  # in place: same inode, same size
        fh.write(b"X" * len(data))
    parses.clear()
    skills = create_agent_skills([root], index=idx)
    assert parses == [idx]
    assert [n.startswith(f"ignoring the index {idx}: ") for n in _index_notes(skills)] == [True]
    assert _view(skills) == _view(create_agent_skills([root]))


def test_a_just_written_index_is_not_remembered(tmp_path: Path, parses: list[Path]) -> None:
    # Within the racy window an in-place rewrite could keep the file's stamp: decoded each time.
    root = tmp_path / "skills"
    _write_skill(root, "a")
    idx = tmp_path / "index"
    for _ in range(3):
        create_agent_skills([root], index=idx)
    assert parses == [idx, idx]


def test_a_remembered_entry_builds_no_stale_value_for_another_root_or_settings(
    tmp_path: Path, no_racy: None, parses: list[Path]
) -> None:
    # What a scan built from an entry is reused only for the same root, scope and source; an
    # index of other settings is another file's worth of entries.
    root = tmp_path / "skills"
    _write_skill(root, "a")
    idx = tmp_path / "index"
    spec = {"path": str(root), "scope": "user", "source": "one"}
    create_agent_skills([spec], index=idx)
    create_agent_skills([spec], index=idx)
    other = create_agent_skills([{**spec, "source": "two"}], index=idx)
    assert [(s.scope, s.source) for s in other.list_skills()] == [("user", "two")]
    assert _view(other) == _view(create_agent_skills([{**spec, "source": "two"}]))
    moved = tmp_path / "elsewhere"
    root.rename(moved)
    root.symlink_to(moved, target_is_directory=True)  # the same directories, reached by a link
    linked = create_agent_skills([{**spec, "source": "two"}], index=idx)
    assert _view(linked) == _view(create_agent_skills([{**spec, "source": "two"}]))
    assert linked.list_skills()[0].real_dir == moved / "a"
    strict = create_agent_skills([spec], index=idx, strict=True)
    assert _view(strict) == _view(create_agent_skills([spec], strict=True))


def test_nested_and_linked_skills_are_answered_through_their_open_directory(
    tmp_path: Path, reads: list[str], no_racy: None
) -> None:
    # Below depth 1, and for a root entry that is a link, the directory is opened and pinned
    # as without an index; the entry is then checked through the descriptor.
    root = tmp_path / "skills"
    _write_skill(root / "ios", "swiftui")
    _write_skill(root / "web", "react", "a react skill")
    _write_skill(tmp_path / "store", "linked")
    (root / "linked").symlink_to(tmp_path / "store" / "linked", target_is_directory=True)
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx, max_depth=2)
    reads.clear()
    warm = create_agent_skills([root], index=idx, max_depth=2)
    assert reads == []
    assert _view(warm) == _view(create_agent_skills([root], max_depth=2))
    assert sorted(s.name for s in warm.list_skills()) == ["linked", "react", "swiftui"]
    assert warm.registry.pin("linked").real_dir == str(tmp_path / "store" / "linked")
    time.sleep(TICK)
    _write_skill(tmp_path / "store", "linked", "changed behind the link")
    reads.clear()
    again = create_agent_skills([root], index=idx, max_depth=2)
    assert reads == [str(root / "linked" / "SKILL.md")]
    assert _view(again) == _view(create_agent_skills([root], max_depth=2))


def test_unchanged_tree_does_not_rewrite_the_index(tmp_path: Path, no_racy: None) -> None:
    root = tmp_path / "skills"
    _write_skill(root, "a")
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx)
    before = os.stat(idx)
    time.sleep(TICK)
    create_agent_skills([root], index=idx)
    after = os.stat(idx)
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_rewrite_is_atomic_and_leaves_no_temporary_file(tmp_path: Path, no_racy: None) -> None:
    root = tmp_path / "skills"
    _write_skill(root, "a")
    idx = tmp_path / "cache" / "index"  # the parent is created
    create_agent_skills([root], index=idx)
    first = os.stat(idx).st_ino
    time.sleep(TICK)
    _write_skill(root, "b")
    create_agent_skills([root], index=idx)
    assert os.stat(idx).st_ino != first  # replaced by rename, never rewritten in place
    assert sorted(p.name for p in idx.parent.iterdir()) == ["index"]
    assert idx.read_bytes().startswith(MAGIC)
    assert oct(os.stat(idx).st_mode & 0o777) == oct(0o600)


def test_racy_entries_are_marked_and_read_again(tmp_path: Path, reads: list[str]) -> None:
    root = tmp_path / "skills"
    manifest = _write_skill(root, "a", "old text") / "SKILL.md"
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx)  # the manifest is seconds old at most: racy
    data = idx.read_bytes()
    start, head_len = _sections(data)
    short = json.loads(data[start : start + head_len])["entries"]
    assert [e[4] for e in _entries(data).values()] == [True] and list(short.values()) == [[]]
    # Same size, same mtime: only the racy mark can tell the index this changed.
    st = os.stat(manifest)
    manifest.write_text(manifest.read_text().replace("old text", "new text"))
    os.utime(manifest, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(manifest).st_size == st.st_size
    reads.clear()
    again = create_agent_skills([root], index=idx)
    assert reads == [str(manifest)]
    assert again.list_skills()[0].description == "new text"


def test_entry_stamped_after_the_scan_started_is_racy(
    tmp_path: Path, reads: list[str], no_racy: None
) -> None:
    root = tmp_path / "skills"
    manifest = _write_skill(root, "a") / "SKILL.md"
    future = time.time_ns() + 3600 * 10**9  # a clock ahead, or a change during the scan
    os.utime(manifest, ns=(future, future))
    idx = tmp_path / "index"
    for _ in range(2):
        reads.clear()
        create_agent_skills([root], index=idx)
        assert reads == [str(manifest)]


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not an index at all\n",
        b"\x00\xff" * 100,
        MAGIC + b"12 0\n{}",
        MAGIC + b"2 0\n{}",
        MAGIC + b"x y\n",
        MAGIC + b'17 0\n{"entries": []}',
        MAGIC + b"9 0\n[1, 2, 3]",
        MAGIC + b"2 0 0 00000000\n{}",  # a checksum that does not match
        MAGIC + b"2 0 0 0\n{}\n",  # a byte more than the sizes give
        MAGIC + b"3 0 0 0\n{}",  # a byte less
        MAGIC + b"2 1 2 0\n{}x",  # more bodies than the rest holds
        MAGIC + b"-2 4 0 0\n{}xx",
        MAGIC + b"2 0 0 0",  # no end to the sizes line
        MAGIC + b"2 0 0 0 0\n{}",
        MAGIC + b"1" * 200 + b"\n{}",
        _framed(b"{}", b"", 0),  # no entries
        _framed(b'{"entries": 1}', b"xy", 2),  # entries that are not a mapping
    ],
)
def test_corrupt_or_foreign_index_is_ignored_with_a_diagnostic_and_rewritten(
    tmp_path: Path, content: bytes
) -> None:
    root = tmp_path / "skills"
    _write_skill(root, "a")
    idx = tmp_path / "index"
    idx.write_bytes(content)
    skills = create_agent_skills([root], index=idx)
    assert [s.name for s in skills.list_skills()] == ["a"]
    notes = _index_notes(skills)
    assert len(notes) == 1 and notes[0].startswith(f"ignoring the index {idx}: ")
    assert idx.read_bytes().startswith(MAGIC)
    assert _index_notes(create_agent_skills([root], index=idx)) == []
    assert _view(skills) == _view(create_agent_skills([root]))


def test_an_index_of_an_earlier_format_is_rebuilt_without_a_diagnostic(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    _write_skill(root, "a")
    idx = tmp_path / "index"
    idx.write_bytes(b"agent-skills manifest index 2\n12 0\n{}")
    skills = create_agent_skills([root], index=idx)
    assert _index_notes(skills) == [] and [s.name for s in skills.list_skills()] == ["a"]
    assert idx.read_bytes().startswith(MAGIC) and MAGIC != b"agent-skills manifest index 2\n"


def test_damaged_entry_is_ignored_with_a_diagnostic(tmp_path: Path, no_racy: None) -> None:
    root = tmp_path / "skills"
    _write_skill(root, "a")
    _write_skill(root, "b")
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx)

    def forge(entries: dict[str, list[Any]]) -> None:
        key = next(k for k in entries if k.endswith("/a"))
        entries[key][2] = 42  # the manifest name is not a string

    _rewrite_entries(idx, forge)
    skills = create_agent_skills([root], index=idx)
    assert [s.name for s in skills.list_skills()] == ["a", "b"]
    assert any("damaged entry" in n for n in _index_notes(skills))


@pytest.mark.parametrize("section", [0, 1, 2, 3])
def test_damaged_section_is_ignored_with_a_diagnostic(
    tmp_path: Path, section: int, no_racy: None
) -> None:
    # Sections: the stamps, the frontmatters' key layouts, the frontmatters, the entries.
    root = tmp_path / "skills"
    _write_skill(root, "a", tools="Read")
    _write_skill(root, "b", tags="[x, y]")
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx)
    data = bytearray(idx.read_bytes())
    start, head_len = _sections(data)
    sizes = json.loads(data[start : start + head_len])["sections"]
    assert len(sizes) == 4 and all(sizes)
    at = start + head_len + sum(sizes[:section])
    data[at : at + sizes[section]] = b"\xff" * sizes[section]  # match nothing, or not JSON
    _forge(idx, bytes(data[start : start + head_len]), bytes(data[start + head_len :]))
    skills = create_agent_skills([root], index=idx)
    assert _view(skills) == _view(create_agent_skills([root]))
    if section:
        assert any("damaged entry" in n for n in _index_notes(skills))
    assert _index_notes(create_agent_skills([root], index=idx)) == []  # rewritten whole


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    flips=st.lists(
        st.tuples(st.floats(0, 1, exclude_max=True), st.integers(0, 255)), min_size=1, max_size=4
    )
)
def test_any_damage_to_an_index_file_changes_nothing_discovery_reports(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    flips: list[tuple[float, int]],
) -> None:
    # Bytes overwritten anywhere (sizes, header, stamps, frontmatters, bodies): the checksum
    # or the checks of the layout see it, the file is ignored with a note and rewritten, and
    # what is found is what discovery without an index finds; never a crash.
    monkeypatch.setattr(index_mod, "RACY_WINDOW_NS", 0)
    monkeypatch.setattr(index_mod, "_memo", None)
    base = tmp_path_factory.mktemp("damaged")
    root = base / "skills"
    _write_skill(root, "a", tools="Read")
    _write_skill(root, "b", tags="[x, {k: [1, 2]}]")
    (root / "c").mkdir()
    (root / "c" / "SKILL.md").write_text("---\nname: [\n---\n")
    idx = base / "index"
    create_agent_skills([root], index=idx)
    data = bytearray(idx.read_bytes())
    original = bytes(data)
    for where, value in flips:
        data[int(where * len(data))] = value
    idx.write_bytes(bytes(data))
    plain = _view(create_agent_skills([root]))
    damaged = create_agent_skills([root], index=idx)
    assert _view(damaged) == plain
    if data.startswith(MAGIC):  # (damage to the version digit reads as another format)
        assert (len(_index_notes(damaged)) == 1) == (bytes(data) != original)
    assert _view(create_agent_skills([root], index=idx)) == plain


def test_a_changed_byte_fails_the_checksum(tmp_path: Path, no_racy: None) -> None:
    # A byte of a body is covered by no stamp: the checksum is what sees it.
    root = tmp_path / "skills"
    _write_skill(root, "a")
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx)
    data = idx.read_bytes()
    assert data.endswith(b"body\n") or data.endswith(b"body")
    idx.write_bytes(data.replace(b"# a\nbody", b"# a\nBODY"))
    skills = create_agent_skills([root], index=idx)
    assert [
        n.endswith("checksum mismatch; it will be rewritten") for n in _index_notes(skills)
    ] == [True]
    assert skills.registry.skills[0].body == "# a\nbody"


def _stored(skill: Any) -> memoryview | None:
    """The UTF-8 bytes a discovered skill's body is kept as, or ``None`` (it holds the text)."""
    try:
        view: memoryview = object.__getattribute__(skill, "_body_bytes")
    except AttributeError:
        return None
    return view


def _body_read(skill: Any) -> bool:
    try:
        object.__getattribute__(skill, "body")
    except AttributeError:
        return False
    return True


def _store_of(root: Path, texts: dict[str, str]) -> None:
    for name, text in texts.items():
        d = root / name
        d.mkdir(parents=True)
        (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\n{text}", "utf-8")


def test_a_warm_index_keeps_each_ascii_body_as_its_bytes_until_first_read(
    tmp_path: Path, no_racy: None
) -> None:
    # SPEC §8: the body is the snapshot taken at discovery; SPEC §26: discovery copies no body.
    root = tmp_path / "skills"
    texts = {"plain": "body", "long": "x" * 70_000, "empty": ""}
    _store_of(root, texts)
    idx = tmp_path / "index"
    cold = create_agent_skills([root], index=idx)
    assert [_stored(s) for s in cold.registry.skills] == [None] * 3  # parsed: the text itself
    warm = create_agent_skills([root], index=idx)
    skills = {s.name: s for s in warm.registry.skills}
    assert not any(map(_body_read, skills.values()))
    views = {name: _stored(s) for name, s in skills.items()}
    assert {n: None if v is None else bytes(v) for n, v in views.items()} == {
        n: t.encode() for n, t in texts.items()
    }
    # One buffer holds the bodies and nothing else of the file.
    held = {id(v.obj): v.obj for v in views.values() if v is not None}
    assert [len(b) for b in held.values()] == [sum(map(len, texts.values()))]
    # Read, it is the text; equal, replaced, copied and pickled as a parsed skill is.
    plain = {s.name: s for s in create_agent_skills([root]).registry.skills}
    assert skills["long"] == plain["long"] and repr(skills["plain"]) == repr(plain["plain"])
    assert {n: s.body for n, s in skills.items()} == texts
    assert all(map(_body_read, skills.values()))
    import copy
    import dataclasses
    import pickle

    fresh = create_agent_skills([root], index=idx).registry.skills
    assert [pickle.loads(pickle.dumps(s)).body for s in fresh] == [s.body for s in fresh]
    fresh = create_agent_skills([root], index=idx).registry.skills
    assert [copy.copy(s).body for s in fresh] == [plain[s.name].body for s in fresh]
    fresh = create_agent_skills([root], index=idx).registry.skills
    assert [dataclasses.replace(s, pin=None).body for s in fresh] == [
        plain[s.name].body for s in fresh
    ]
    loaded = create_agent_skills([root], index=idx).load_skill("plain")
    assert loaded is not None and loaded.to_dict()["body"] == texts["plain"]
    with pytest.raises(AttributeError, match="no attribute 'bodyx'"):
        skills["plain"].bodyx  # noqa: B018  (any other missing attribute is still an error)


def test_a_body_that_is_not_ascii_is_decoded_when_restored_the_others_when_read(
    tmp_path: Path, no_racy: None
) -> None:
    # Bytes that are not ASCII are checked as UTF-8 by decoding them (damage is found at the
    # scan); an ASCII body is valid UTF-8 as it is.
    root = tmp_path / "skills"
    texts = {
        "plain": "body",
        "accent": "caf\u00e9",
        "wide": "\u2603 \U0001f600",
        "lone": "ends with \u00e9",
        "empty": "",
    }
    _store_of(root, texts)
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx)
    skills = {s.name: s for s in create_agent_skills([root], index=idx).registry.skills}
    assert {n for n, s in skills.items() if _body_read(s)} == {"accent", "wide", "lone"}
    assert {n for n, s in skills.items() if _stored(s) is not None} == {"plain", "empty"}
    plain = {s.name: s for s in create_agent_skills([root]).registry.skills}
    assert {n: s.body for n, s in skills.items()} == texts == {n: s.body for n, s in plain.items()}


def test_a_stored_body_read_by_many_threads_at_once_is_one_text(
    tmp_path: Path, no_racy: None
) -> None:
    import threading

    root = tmp_path / "skills"
    _write_skill(root, "a")
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx)
    for _ in range(20):
        skill = create_agent_skills([root], index=idx).registry.skills[0]
        assert _stored(skill) is not None
        barrier = threading.Barrier(4)
        seen: list[str] = []

        def read(
            skill: Any = skill, barrier: threading.Barrier = barrier, seen: list[str] = seen
        ) -> None:
            barrier.wait(5)
            seen.append(skill.body)

        threads = [threading.Thread(target=read) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(5)
        assert seen == ["# a\nbody"] * 4 and skill.body == "# a\nbody"


@pytest.mark.parametrize(
    "forged",
    [b"\xff\xed\xa0y", b"\x80abc", b"ab\xc3(", b"\xed\xa0\x80\xc3", b"\xf4\x90\x80\x80"],
)
def test_a_forged_body_that_is_not_utf8_is_damage_found_at_the_scan(
    tmp_path: Path, no_racy: None, forged: bytes
) -> None:
    # A file whose checksum matches but whose body bytes are not UTF-8 was not written by us:
    # the entry is damaged (a diagnostic, the manifest read again), never an error later.
    root = tmp_path / "skills"
    _write_skill(root, "a")
    _write_skill(root, "b")
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx)
    data = idx.read_bytes()
    start, head_len = _sections(data)
    rest = data[start + head_len :].replace(b"# a\nbody", b"# a\n" + forged)  # (same size)
    assert len(rest) == len(data) - start - head_len
    _forge(idx, data[start : start + head_len], rest)
    skills = create_agent_skills([root], index=idx)
    assert any("damaged entry" in n for n in _index_notes(skills))
    assert _view(skills) == _view(create_agent_skills([root]))


@pytest.fixture
def prefetching(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every index file read on the reader's thread, held back until the scan's prefetch has
    taken the stats of every listed directory (on a fast disk the read may end first); gives
    how many stats each prefetch took."""
    import threading

    monkeypatch.setattr(index_mod, "_THREADED_READ_BYTES", 0)
    monkeypatch.setattr(index_mod, "_memo", None)
    taken: list[int] = []
    go = threading.Event()
    real_run, real_wait = index_mod._Reader._run, index_mod._Reader.wait
    real_prefetch = index_mod.ManifestIndex.prefetch
    real_init = index_mod._Reader.__init__

    def run(self: Any) -> None:
        go.wait(10)
        real_run(self)

    def wait(self: Any) -> None:
        go.set()
        real_wait(self)

    def init(self: Any, fd: int, size: int) -> None:
        go.clear()  # (each reader waits for its own scan's prefetch)
        real_init(self, fd, size)

    def prefetch(self: index_mod.ManifestIndex, parent_fd: int, entries: Any) -> None:
        reading = self._reader is not None
        real_prefetch(self, parent_fd, entries)
        if reading:
            taken.append(len(self._prestat))
        go.set()

    monkeypatch.setattr(index_mod._Reader, "__init__", init)
    monkeypatch.setattr(index_mod._Reader, "_run", run)
    monkeypatch.setattr(index_mod._Reader, "wait", wait)
    monkeypatch.setattr(index_mod.ManifestIndex, "prefetch", prefetch)
    return taken


def _open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else set()


def _targets() -> list[str]:
    """What each open descriptor of this process leads to (the listing's own left out)."""
    targets = []
    for fd in sorted(_open_fds()):
        with contextlib.suppress(OSError):  # (the listing's own descriptor, closed since)
            targets.append(os.readlink(f"/proc/self/fd/{fd}"))
    return targets


def _assert_holds_only_the_index(before: set[str], idx: Path) -> None:
    """The descriptors open now are those of ``before`` and one more, the index file's."""
    if os.path.isdir("/proc/self/fd"):
        now = _targets()
        assert len(_open_fds() - before) <= 1 and now.count(str(idx)) == 1
        now.remove(str(idx))
        assert len(now) == len(before) - 1  # (``before`` held the listing's own)


def test_an_unread_registry_from_a_warm_index_holds_the_index_open_until_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_racy: None
) -> None:
    # The bodies are read from the file the scan opened when the skills are first read; a
    # registry dropped unread closes it (the process's remembered index too, once replaced).
    import gc

    monkeypatch.setattr(index_mod, "_memo", None)
    root = tmp_path / "skills"
    _write_skill(root, "a")
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx)
    monkeypatch.setattr(index_mod, "_memo", None)
    before = _open_fds()
    skills = create_agent_skills([root], index=idx)
    assert skills.registry._pending is not None  # (nothing built yet)
    _assert_holds_only_the_index(before, idx)
    idx.unlink()  # the file read stays the one the scan opened
    del skills
    index_mod._memo = None  # (not by monkeypatch, which would hold the one replaced)
    gc.collect()
    assert str(idx) not in [t.removesuffix(" (deleted)") for t in _targets()]
    assert len(_targets()) == len(before) - 1  # (``before`` held the listing's own)


def test_a_large_index_is_read_on_a_thread_while_the_scan_takes_its_stats(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, reads: list[str], no_racy: None
) -> None:
    # The file is read and checksummed on another thread; the scan meanwhile takes the two
    # stats of each listed directory the lookups then use: no manifest is read, nothing
    # differs, no descriptor is left open, and a changed byte (in a body, or one that also
    # breaks the header) is a checksum mismatch as when read in place.
    monkeypatch.setattr(index_mod, "_THREADED_READ_BYTES", 0)
    monkeypatch.setattr(index_mod, "_memo", None)
    root = tmp_path / "skills"
    for name in ("a", "b", "c"):
        _write_skill(root, name)
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx)
    good = idx.read_bytes()
    threads: list[str] = []
    real_start = index_mod.threading.Thread.start

    def start(thread: Any) -> None:
        threads.append(thread.name)
        real_start(thread)

    monkeypatch.setattr(index_mod.threading.Thread, "start", start)
    taken: list[int] = []
    real_prefetch = index_mod.ManifestIndex.prefetch

    def prefetch(self: index_mod.ManifestIndex, parent_fd: int, entries: Any) -> None:
        real_prefetch(self, parent_fd, entries)
        taken.append(len(self._prestat))

    monkeypatch.setattr(index_mod.ManifestIndex, "prefetch", prefetch)
    reads.clear()
    before = _open_fds()
    skills = create_agent_skills([root], index=idx)
    _assert_holds_only_the_index(before, idx)  # (for its bodies, until the skills are read)
    assert _index_notes(skills) == [] and threads == ["agent-skills-index-read"]
    assert _open_fds() == before
    assert reads == [] and len(taken) == 1 and 0 <= taken[0] <= 3
    assert _view(skills) == _view(create_agent_skills([root]))
    start_at, _ = _sections(good)
    for changed in (
        good.replace(b"# a\nbody", b"# a\nBODY"),
        good[:start_at] + b"[" + good[start_at + 1 :],
    ):
        assert changed != good
        idx.write_bytes(changed)
        skills = create_agent_skills([root], index=idx)
        assert [
            n.endswith("checksum mismatch; it will be rewritten") for n in _index_notes(skills)
        ] == [True]
        assert _view(skills) == _view(create_agent_skills([root]))


def test_stats_prefetched_while_the_index_is_read_decide_as_the_lookup_s_own(
    tmp_path: Path, prefetching: list[int], reads: list[str], no_racy: None
) -> None:
    # Every kind of directory prefetch meets (a plain skill, a manifest in another letter
    # case, a changed manifest, a manifest that is a directory, a directory that is a file, a
    # link, a directory without a manifest): the lookups decide on what prefetch found as on
    # stats of their own, and only the changed manifest is read.
    root = tmp_path / "skills"
    spare = tmp_path / "spare"
    for name in ("plain", "variant", "changed", "gone", "odd", "file"):
        _write_skill(root, name)
    (root / "variant" / "SKILL.md").rename(root / "variant" / "skill.md")
    _write_skill(spare, "linked")
    (root / "link").symlink_to(spare / "linked", target_is_directory=True)
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx)
    time.sleep(TICK)
    _write_skill(root, "changed", "changed since")
    (root / "gone" / "SKILL.md").unlink()
    (root / "odd" / "SKILL.md").unlink()
    (root / "odd" / "SKILL.md").mkdir()
    shutil.rmtree(root / "file")
    (root / "file").write_text("not a directory")
    plain = _view(create_agent_skills([root]))
    reads.clear()
    skills = create_agent_skills([root], index=idx)
    assert prefetching == [5]  # the directories that are not links: all prefetched
    assert [Path(p).parent.name for p in reads] == ["changed"]
    assert _index_notes(skills) == [] and _view(skills) == plain
    assert {s.name: s.description for s in skills.list_skills()}["changed"] == "changed since"
    reads.clear()
    again = create_agent_skills([root], index=idx)
    assert reads == [] and _view(again) == plain


def test_a_change_after_prefetch_is_seen_by_the_next_scan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prefetching: list[int], no_racy: None
) -> None:
    # A manifest rewritten after its stats were taken: this scan answers what the stats
    # vouched for (as when the rewrite follows the lookup's own stats), the next sees it.
    root = tmp_path / "skills"
    _write_skill(root, "a", "before")
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx)
    time.sleep(TICK)
    real_prefetch = index_mod.ManifestIndex.prefetch

    def rewrite_after(self: index_mod.ManifestIndex, parent_fd: int, entries: Any) -> None:
        real_prefetch(self, parent_fd, entries)
        _write_skill(root, "a", "after, and longer")

    monkeypatch.setattr(index_mod.ManifestIndex, "prefetch", rewrite_after)
    first = create_agent_skills([root], index=idx)
    assert [s.description for s in first.list_skills()] == ["before"]
    monkeypatch.setattr(index_mod.ManifestIndex, "prefetch", real_prefetch)
    monkeypatch.setattr(index_mod, "_memo", None)
    assert [s.description for s in create_agent_skills([root], index=idx).list_skills()] == [
        "after, and longer"
    ]


def test_an_index_without_a_thread_to_read_it_is_read_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_racy: None
) -> None:
    monkeypatch.setattr(index_mod, "_THREADED_READ_BYTES", 0)
    monkeypatch.setattr(index_mod, "_memo", None)

    def refuse(thread: Any) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(index_mod.threading.Thread, "start", refuse)
    root = tmp_path / "skills"
    _write_skill(root, "a")
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx)
    before = _open_fds()
    skills = create_agent_skills([root], index=idx)
    _assert_holds_only_the_index(before, idx)
    assert _index_notes(skills) == [] and _view(skills) == _view(create_agent_skills([root]))
    assert _open_fds() == before


@pytest.mark.parametrize("threaded", [False, True])
@pytest.mark.parametrize("failure", [OSError(5, "Input/output error"), MemoryError()])
def test_an_index_that_fails_to_read_is_ignored_with_a_diagnostic(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    no_racy: None,
    threaded: bool,
    failure: BaseException,
) -> None:
    # A read that fails, on the reader's thread or in place: one diagnostic, discovery as
    # without the index, the descriptor closed, nothing printed by a dying thread.
    monkeypatch.setattr(index_mod, "_THREADED_READ_BYTES", 0 if threaded else 1 << 40)
    monkeypatch.setattr(index_mod, "_memo", None)
    root = tmp_path / "skills"
    _write_skill(root, "a")
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx)
    real_fdopen = os.fdopen

    def failing(fd: int, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        if mode == "rb":
            raise failure
        return real_fdopen(fd, mode, *args, **kwargs)

    monkeypatch.setattr(index_mod.os, "fdopen", failing)
    before = _open_fds()
    skills = create_agent_skills([root], index=idx)
    assert _open_fds() == before
    notes = _index_notes(skills)
    assert len(notes) == 1 and "cannot be read" in notes[0], notes
    want = "Input/output error" if isinstance(failure, OSError) else "MemoryError"
    assert want in notes[0]
    assert _view(skills) == _view(create_agent_skills([root]))
    assert "Traceback" not in capsys.readouterr().err


def test_index_path_that_is_a_directory_or_a_fifo_never_blocks(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    _write_skill(root, "a")
    folder = tmp_path / "folder"
    folder.mkdir()
    skills = create_agent_skills([root], index=folder)
    assert [s.name for s in skills.list_skills()] == ["a"]
    notes = _index_notes(skills)
    assert notes == [f"ignoring the index {folder}: not a regular file; it is left as it is"]
    assert folder.is_dir() and list(folder.iterdir()) == []
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    skills = create_agent_skills([root], index=fifo)
    assert [s.name for s in skills.list_skills()] == ["a"]
    assert _index_notes(skills) == [
        f"ignoring the index {fifo}: not a regular file; it is left as it is"
    ]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # never replaced (think of /dev/null)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "folder", "skills"]


def test_index_path_that_is_a_link_is_left_alone(tmp_path: Path) -> None:
    """A link named as the index (to a file or dangling) is never replaced by the rewrite: the
    index is not written, with a diagnostic; discovery is unchanged (SPEC §26)."""
    root = tmp_path / "skills"
    _write_skill(root, "a")
    (tmp_path / "real.idx").write_text("not an index")
    for target in (tmp_path / "real.idx", tmp_path / "missing"):
        link = tmp_path / f"link-to-{target.name}"
        link.symlink_to(target)
        skills = create_agent_skills([root], index=link)
        assert [s.name for s in skills.list_skills()] == ["a"]
        assert link.is_symlink() and os.readlink(link) == str(target)
        assert _index_notes(skills)[-1] == (
            f"the index {link} was not written: the path is not a regular file"
        )
    assert (tmp_path / "real.idx").read_text() == "not an index"
    assert not (tmp_path / "missing").exists()


def test_other_settings_rebuild_the_index_without_a_diagnostic(
    tmp_path: Path, reads: list[str], no_racy: None
) -> None:
    root = tmp_path / "skills"
    _write_skill(root, "a", version="1")  # a number: dropped leniently, an error in strict mode
    idx = tmp_path / "index"
    lenient = create_agent_skills([root], index=idx)
    assert [d.kind for d in lenient.diagnostics] == ["invalid_field"]
    reads.clear()
    with pytest.raises(Exception, match="version"):
        create_agent_skills([root], index=idx, strict=True)
    assert len(reads) == 1  # not answered from the lenient entry
    again = create_agent_skills([root], index=idx)
    assert _index_notes(again) == [] and [d.kind for d in again.diagnostics] == ["invalid_field"]


def test_index_path_is_resolved_against_cwd_and_home(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    _write_skill(root, "a")
    skills = create_agent_skills([root], index="rel.idx", cwd=tmp_path)
    assert skills.config.index == tmp_path / "rel.idx"
    assert (tmp_path / "rel.idx").is_file()
    home = create_agent_skills([root], index="~/h.idx", home=tmp_path)
    assert home.config.index == tmp_path / "h.idx"
    assert create_agent_skills([root]).config.index is None
    with pytest.raises(StartupError, match="index"):
        create_agent_skills([root], index=3)  # type: ignore[arg-type]


def test_a_change_only_the_directory_shows_is_seen(tmp_path: Path, no_racy: None) -> None:
    # The variant stays byte for byte as it was: only the directory's stamp tells the index that
    # an exact SKILL.md now wins (SPEC §4).
    root = tmp_path / "skills"
    d = root / "a"
    d.mkdir(parents=True)
    (d / "skill.md").write_text("---\nname: a\ndescription: the variant\n---\n")
    idx = tmp_path / "index"
    assert create_agent_skills([root], index=idx).list_skills()[0].description == "the variant"
    time.sleep(TICK)
    (d / "SKILL.md").write_text("---\nname: a\ndescription: the exact one\n---\n")
    skills = create_agent_skills([root], index=idx)
    assert skills.list_skills()[0].description == "the exact one"
    assert _view(skills) == _view(create_agent_skills([root]))


def test_refresh_uses_the_index(tmp_path: Path, reads: list[str], no_racy: None) -> None:
    root = tmp_path / "skills"
    _write_skill(root, "a")
    skills = create_agent_skills([root], index=tmp_path / "index")
    reads.clear()
    skills.refresh()
    assert reads == []
    time.sleep(TICK)
    _write_skill(root, "a", "changed")
    skills.refresh()
    assert reads == [str(root / "a" / "SKILL.md")]
    assert skills.list_skills()[0].description == "changed"


# --- the property: any sequence of changes between indexed scans ----------------------------------

NAMES = ["alpha", "beta", "gamma", "delta"]
_mutation = st.tuples(
    st.sampled_from(
        [
            "rewrite_same_size_and_mtime",
            "rewrite",
            "rename",
            "replace_dir_by_link",
            "replace_manifest_by_link",
            "delete_skill",
            "delete_manifest",
            "add",
            "add_case_variant",
            "add_exact_beside_variant",
            "break_yaml",
            "replace_dir_by_renamed_copy",
            "swap_dirs",
        ]
    ),
    st.sampled_from(NAMES),
    st.sampled_from(NAMES),
)


def _mutate(root: Path, spare: Path, kind: str, name: str, other: str) -> None:
    d = root / name
    manifest = d / "SKILL.md"
    if kind == "add":
        _write_skill(root, name if not d.exists() else name + "-new", "added")
        return
    if kind == "add_exact_beside_variant":
        # Only the directory's listing changes what the manifest is: the variant stays as it was.
        if (d / "skill.md").is_file() and not manifest.exists():
            manifest.write_text(f"---\nname: {name}\ndescription: exact wins\n---\n")
        return
    if not d.is_dir() or d.is_symlink() or not manifest.is_file() or manifest.is_symlink():
        return
    if kind == "rewrite_same_size_and_mtime":
        st_ = os.stat(manifest)
        text = manifest.read_text()
        swapped = text.replace("skill", "SKILL", 1) if "skill" in text else text.swapcase()
        manifest.write_text(swapped)
        os.utime(manifest, ns=(st_.st_atime_ns, st_.st_mtime_ns))
    elif kind == "rewrite":
        manifest.write_text(manifest.read_text() + "more body\n")
    elif kind == "rename":
        target = root / (other if not (root / other).exists() else name + "-moved")
        if not target.exists():  # (a directory moved here earlier stays as it is)
            d.rename(target)
    elif kind == "replace_dir_by_link":
        shutil.rmtree(d)
        linked = spare / f"linked-{name}"
        if not linked.exists():
            _write_skill(spare, f"linked-{name}", "through a link")
        d.symlink_to(linked, target_is_directory=True)
    elif kind == "replace_manifest_by_link":
        outside = spare / f"{name}.md"
        outside.write_text(f"---\nname: {name}\ndescription: a linked manifest\n---\n")
        manifest.unlink()
        manifest.symlink_to(outside)
    elif kind == "delete_skill":
        shutil.rmtree(d)
    elif kind == "delete_manifest":
        manifest.unlink()
    elif kind == "add_case_variant":
        (d / "skill.md").write_text(f"---\nname: {name}\ndescription: variant\n---\n")
        manifest.unlink()
    elif kind == "break_yaml":
        manifest.write_text("---\nname: [\n---\n")
    elif kind == "replace_dir_by_renamed_copy":
        # Byte for byte the same skill, in another directory renamed into place.
        copy = spare / f"copy-{name}"
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(d, copy, symlinks=True)
        shutil.rmtree(d)
        copy.rename(d)
    elif kind == "swap_dirs":
        o = root / other
        if o != d and o.is_dir() and not o.is_symlink():
            held = spare / "held"
            d.rename(held)
            o.rename(d)
            held.rename(o)


@pytest.mark.slow
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(rounds=st.lists(st.lists(_mutation, min_size=1, max_size=3), min_size=1, max_size=2))
@pytest.mark.parametrize("prefetch", [False, True])
def test_indexed_discovery_equals_discovery_without_index_after_any_changes(
    tmp_path_factory: pytest.TempPathFactory,
    monkeypatch: pytest.MonkeyPatch,
    rounds: list[list[tuple[str, str, str]]],
    prefetch: bool,
    request: pytest.FixtureRequest,
) -> None:
    # With ``prefetch``, every index file is read on the reader's thread and the scan takes
    # the stats of every listed directory before its lookups (see ``prefetching``).
    taken: list[int] = request.getfixturevalue("prefetching") if prefetch else []
    monkeypatch.setattr(index_mod, "RACY_WINDOW_NS", 0)
    base = tmp_path_factory.mktemp("tree")
    root, spare = base / "skills", base / "spare"
    spare.mkdir()
    for name in NAMES[:3]:
        _write_skill(root, name, f"the {name} skill", license="MIT")
    idx = base / "index"
    create_agent_skills([root], index=idx)
    for mutations in rounds:
        time.sleep(TICK)
        for kind, name, other in mutations:
            _mutate(root, spare, kind, name, other)
        monkeypatch.setattr(index_mod, "_memo", None if prefetch else index_mod._memo)
        taken.clear()
        indexed = create_agent_skills([root], index=idx)
        if prefetch:  # every listed directory that is not a link (none when all are links)
            listed = [p for p in root.iterdir() if p.is_dir() or p.is_symlink()]
            dirs = [p for p in listed if not p.is_symlink()]
            assert taken == ([len(dirs)] if listed else [])
        assert _index_notes(indexed) == []
        assert _view(indexed) == _view(create_agent_skills([root]))
        # And the index written now answers the next scan rightly too.
        assert _view(create_agent_skills([root], index=idx)) == _view(indexed)


def test_cli_index_option_writes_and_reuses_the_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from agent_skills.cli import main

    root = tmp_path / "skills"
    _write_skill(root, "a")
    idx = tmp_path / "cli.idx"
    args = ["list", "--json", "--preset", "none", "--root", str(root), "--index", str(idx)]
    assert main(args) == 0
    first = json.loads(capsys.readouterr().out)
    assert idx.read_bytes().startswith(MAGIC)
    assert main(args) == 0
    assert (
        json.loads(capsys.readouterr().out)
        == first
        == [s.to_dict() for s in create_agent_skills([root]).list_skills()]
    )


def _deferred(skills: AgentSkills) -> bool:
    """Whether the registry still waits to build its skills (see SkillRegistry.deferred)."""
    return object.__getattribute__(skills.registry, "_pending") is not None


def test_a_warm_index_defers_the_skills_until_first_read_and_builds_them_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_racy: None
) -> None:
    # Every candidate vouched for, none with a diagnostic that needs the parser: the scan ends
    # at the stamps; the first read builds the very snapshot a scan without the index gives,
    # and every later read (on any thread) sees those same objects.
    import threading

    monkeypatch.setattr(index_mod, "_memo", None)
    root = tmp_path / "skills"
    for name in ("a", "b", "c"):
        _write_skill(root, name, tags="[x, y]")
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx)
    monkeypatch.setattr(index_mod, "_memo", None)
    skills = create_agent_skills([root], index=idx)
    assert _deferred(skills)
    seen: list[tuple[int, ...]] = []

    def read() -> None:
        seen.append(tuple(id(s) for s in skills.registry.skills))

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert not _deferred(skills) and len(seen) == 8 and len(set(seen)) == 1
    assert _view(skills) == _view(create_agent_skills([root]))


def test_a_deferred_scan_is_the_snapshot_of_discovery_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_racy: None
) -> None:
    # SPEC §8: what the skills hold is what the scan found, even when built later: a manifest
    # changed, a skill removed and one added after discovery change nothing until a refresh.
    monkeypatch.setattr(index_mod, "_memo", None)
    root = tmp_path / "skills"
    for name in ("a", "b"):
        _write_skill(root, name, "old words")
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx)
    before = _view(create_agent_skills([root]))
    skills = create_agent_skills([root], index=idx)
    assert _deferred(skills)
    _write_skill(root, "a", "new words")
    shutil.rmtree(root / "b")
    _write_skill(root, "c")
    assert _view(skills) == before
    skills.refresh()
    assert [(s.name, s.description) for s in skills.list_skills()] == [
        ("a", "new words"),
        ("c", "does things"),
    ]


def test_a_deferred_scan_emits_each_diagnostic_once_when_it_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_racy: None
) -> None:
    # A stored diagnostic (an invalid optional field) is emitted when the scan ends, as without
    # the index, and not again when the skills are built.
    monkeypatch.setattr(index_mod, "_memo", None)
    root = tmp_path / "skills"
    _write_skill(root, "a", **{"argument-hint": "[x, y]"})
    _write_skill(root, "b")
    idx = tmp_path / "index"
    warnings: list[str] = []
    agent_skills.set_warn_sink(warnings.append)
    try:
        plain = create_agent_skills([root])
        expected = [*warnings]
        assert any("argument-hint" in w for w in expected)
        create_agent_skills([root], index=idx)
        warnings.clear()
        skills = create_agent_skills([root], index=idx)
        assert _deferred(skills) and warnings == expected
        assert _view(skills) == _view(plain) and warnings == expected
        assert [d.message for d in skills.diagnostics] == [d.message for d in plain.diagnostics]
    finally:
        agent_skills.set_warn_sink(None)


@pytest.mark.parametrize(
    "change",
    ["strict", "disabled", "duplicate", "invalid", "name_mismatch", "miss"],
)
def test_what_a_scan_must_decide_now_is_never_deferred(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_racy: None, change: str
) -> None:
    # Strict mode, disabled names, a name found twice, an invalid skill, a name that is not its
    # directory's and a directory the index cannot vouch for: the scan builds everything now.
    monkeypatch.setattr(index_mod, "_memo", None)
    root = tmp_path / "skills"
    _write_skill(root, "a")
    _write_skill(root, "b")
    options: dict[str, Any] = {}
    if change == "strict":
        options["strict"] = True
    elif change == "disabled":
        options["disabled"] = ["a"]
    elif change == "duplicate":
        _write_skill(root, "c").joinpath("SKILL.md").write_text(
            "---\nname: a\ndescription: d\n---\n"
        )
    elif change == "invalid":
        (root / "c").mkdir()
        (root / "c" / "SKILL.md").write_text("no frontmatter\n")
    elif change == "name_mismatch":
        (root / "c").mkdir()
        (root / "c" / "SKILL.md").write_text("---\nname: other\ndescription: d\n---\n")
    idx = tmp_path / "index"
    create_agent_skills([root], index=idx, **options)
    if change == "miss":
        time.sleep(0.01)
        _write_skill(root, "b", "changed")
    monkeypatch.setattr(index_mod, "_memo", None)
    skills = create_agent_skills([root], index=idx, **options)
    assert not _deferred(skills)
    assert _view(skills) == _view(create_agent_skills([root], **options))
