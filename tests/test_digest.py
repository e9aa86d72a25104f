"""Per-file and whole-skill digests (SPEC §17, §23.3, §25.3)."""

from __future__ import annotations

import hashlib

from hypothesis import given, settings
from hypothesis import strategies as st

from agent_skills._digest import (
    FileDigest,
    digest_files,
    digest_stream,
    file_digest,
    hex_of,
    skill_digest,
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
