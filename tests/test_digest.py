"""Per-file and whole-skill digests (SPEC §17, §23.3, §25.3)."""

from __future__ import annotations

import hashlib
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_skills._digest import (
    FileDigest,
    digest_files,
    digest_stream,
    file_digest,
    hex_of,
    skill_digest,
    skill_digest_text,
)

EMPTY = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"


def test_file_digest_known_values() -> None:
    assert file_digest(b"") == "sha256:" + EMPTY
    assert file_digest(b"abc") == "sha256:" + ABC


def test_hex_of_strips_the_prefix_only_once() -> None:
    assert hex_of("sha256:" + ABC) == ABC
    assert hex_of(ABC) == ABC


def test_skill_digest_is_over_sorted_lines() -> None:
    files = [
        FileDigest("scripts/run.sh", 3, "sha256:" + ABC),
        FileDigest("SKILL.md", 0, "sha256:" + EMPTY),
    ]
    text = f"{EMPTY} 0 SKILL.md\n{ABC} 3 scripts/run.sh\n"
    expected = "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    assert skill_digest(files) == expected
    assert skill_digest(reversed(files)) == expected


def test_skill_digest_sorts_by_code_point_not_casefold() -> None:
    # "Z" (U+005A) sorts before "a" (U+0061) in code-point order; casefold order would swap them.
    files = [FileDigest("a.md", 3, "sha256:" + ABC), FileDigest("Z.md", 0, "sha256:" + EMPTY)]
    text = f"{EMPTY} 0 Z.md\n{ABC} 3 a.md\n"
    assert skill_digest(files) == "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def test_skill_digest_hashes_undecodable_names_as_their_bytes() -> None:
    rel = b"caf\xe9.txt".decode("utf-8", "surrogateescape")
    text = f"{EMPTY} 0 ".encode() + b"caf\xe9.txt\n"
    expected = "sha256:" + hashlib.sha256(text).hexdigest()
    assert skill_digest([FileDigest(rel, 0, "sha256:" + EMPTY)]) == expected


def test_skill_digest_of_nothing_is_the_empty_hash() -> None:
    assert skill_digest([]) == "sha256:" + EMPTY


def test_digest_files_reads_in_order() -> None:
    data = {"SKILL.md": b"", "b.txt": b"abc"}
    assert digest_files(["SKILL.md", "b.txt"], data.__getitem__) == (
        FileDigest("SKILL.md", 0, "sha256:" + EMPTY),
        FileDigest("b.txt", 3, "sha256:" + ABC),
    )


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.text(min_size=1, max_size=8).filter(lambda s: "\n" not in s),
        st.binary(max_size=16),
        max_size=6,
    )
)
def test_skill_digest_changes_with_any_file(files: dict[str, bytes]) -> None:
    records = digest_files(list(files), files.__getitem__)
    base = skill_digest(records)
    assert skill_digest(list(reversed(records))) == base
    for rel in files:
        changed = dict(files)
        changed[rel] = files[rel] + b"x"
        assert skill_digest(digest_files(list(changed), changed.__getitem__)) != base


def test_digest_stream_reads_to_the_end_in_chunks() -> None:
    import io

    data = b"abc" * 50_000
    assert digest_stream(io.BytesIO(data), chunk_size=7) == (len(data), file_digest(data))
    assert digest_stream(io.BytesIO(b"")) == (0, "sha256:" + EMPTY)


# -- the digest text is injective: no name can forge another line (SPEC §23.3) ----------------

_NAME_BYTES = st.binary(min_size=1, max_size=12).filter(lambda b: b"\x00" not in b)
_PARTS = st.lists(_NAME_BYTES, min_size=1, max_size=3)
_REL = st.one_of(
    _PARTS.map(lambda parts: os.fsdecode(b"/".join(parts))),
    st.sampled_from(["SKILL.md", "a.md", "b.md", '"q.md', 'x"\n"', "a.md\nb", "\n", " ", "a b"]),
)
_HEX = st.text("0123456789abcdef", min_size=64, max_size=64)
_FILES = st.dictionaries(_REL, st.tuples(st.integers(0, 10**12), _HEX), max_size=6)


def _records(files: dict[str, tuple[int, str]]) -> list[FileDigest]:
    return [FileDigest(rel, size, "sha256:" + sha) for rel, (size, sha) in files.items()]


def _parsed(text: bytes) -> dict[str, tuple[int, str]]:
    """The file set a digest text was made from, read back (so the text is injective)."""
    import json

    assert text == b"" or text.endswith(b"\n")
    out: dict[str, tuple[int, str]] = {}
    for line in text.split(b"\n")[:-1]:
        sha, size, rel = line[:64].decode(), *line[65:].split(b" ", 1)
        assert line[64:65] == b" "
        name = json.loads(rel) if rel.startswith(b'"') else os.fsdecode(rel)
        assert name not in out
        out[name] = (int(size), sha)
    return out


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(files=_FILES)
def test_the_digest_text_reads_back_as_the_file_set_it_was_made_from(
    files: dict[str, tuple[int, str]],
) -> None:
    assert _parsed(skill_digest_text(_records(files))) == files


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(one=_FILES, other=_FILES)
def test_two_different_file_sets_never_give_the_same_digest_text(
    one: dict[str, tuple[int, str]], other: dict[str, tuple[int, str]]
) -> None:
    same = skill_digest_text(_records(one)) == skill_digest_text(_records(other))
    assert same == (one == other)


@settings(max_examples=100, deadline=None)
@given(
    names=st.lists(_NAME_BYTES.map(os.fsdecode), min_size=2, max_size=4, unique=True),
    sizes=st.lists(st.integers(0, 10**6), min_size=4, max_size=4),
    shas=st.lists(_HEX, min_size=4, max_size=4),
)
def test_a_name_holding_a_forged_line_never_stands_in_for_a_dropped_file(
    names: list[str], sizes: list[int], shas: list[str]
) -> None:
    honest = {n: (sizes[i], shas[i]) for i, n in enumerate(names)}
    first, *rest = sorted(honest)
    dropped = rest[-1]
    # The attack: drop the last file and rename the first so its name carries the dropped
    # file's line ("a.md\n<sha> <size> b.md").
    size, sha = honest[dropped]
    forged = {k: v for k, v in honest.items() if k not in (first, dropped)}
    forged[f"{first}\n{sha} {size} {dropped}"] = honest[first]
    assert skill_digest(_records(forged)) != skill_digest(_records(honest))


def test_names_without_newline_or_leading_quote_keep_their_old_digest() -> None:
    files = [FileDigest("a b.md", 3, "sha256:" + ABC), FileDigest("SKILL.md", 0, "sha256:" + EMPTY)]
    old_text = f"{EMPTY} 0 SKILL.md\n{ABC} 3 a b.md\n".encode()
    assert skill_digest(files) == "sha256:" + hashlib.sha256(old_text).hexdigest()
    quoted = [FileDigest("a\nb", 0, "sha256:" + EMPTY), FileDigest('"x', 3, "sha256:" + ABC)]
    assert skill_digest_text(quoted) == f'{ABC} 3 "\\"x"\n{EMPTY} 0 "a\\nb"\n'.encode()
