"""Random bytes given to every reader of a file the library keeps or is given (SPEC §20, §30).

The lock, the trust store, the index and the archive readers get random bytes, and mutations of
valid files (bytes flipped, cut or inserted; for the index, with its checksum made right again so
the decoding behind it is reached; for a ``.tar.gz``, mutations of the tar inside a valid gzip
stream so ``tarfile`` sees them). Each reader answers with its result, a ``SkillError`` or a
diagnostic, never another exception, within a bound of time (against a hang only) and of memory.
"""

from __future__ import annotations

import gzip
import io
import os
import shutil
import tarfile
import tempfile
import threading
import tracemalloc
import zipfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agent_skills import SkillError, SkillRoot, TrustStore, create_agent_skills
from agent_skills import _archive as arc
from agent_skills import _index as index_mod
from agent_skills import packages as pkg
from conftest import make_skill

HANG = 30.0
MEMORY = 64 * 1024 * 1024
FUZZ = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
MANIFEST = b"---\nname: hello\ndescription: Says hello.\n---\nBody.\n"


def _answer(fn: Callable[[], Any]) -> Any:
    """``fn()`` or the SkillError it raised, within ``HANG`` seconds and ``MEMORY`` bytes of
    Python allocations; any other exception fails."""
    out: dict[str, Any] = {}

    def target() -> None:
        tracemalloc.start()
        try:
            out["value"] = fn()
        except SkillError as err:
            out["value"] = err
        except BaseException as exc:
            out["error"] = exc
        finally:
            out["peak"] = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(HANG)
    assert not worker.is_alive(), f"still running after {HANG} s"
    if "error" in out:
        raise out["error"]
    assert out["peak"] < MEMORY, out["peak"]
    return out["value"]


# Mutations of a valid file: (position as a fraction of its length, what happens there).
MUTATIONS = st.lists(
    st.tuples(
        st.floats(0, 1, allow_nan=False),
        st.sampled_from(["flip", "cut", "insert", "truncate"]),
        st.binary(min_size=1, max_size=8),
    ),
    min_size=1,
    max_size=6,
)


def _mutate(data: bytes, mutations: list[tuple[float, str, bytes]]) -> bytes:
    out = bytearray(data)
    for where, how, what in mutations:
        at = min(int(where * len(out)), max(len(out) - 1, 0))
        if how == "flip" and out:
            for i, b in enumerate(what):
                if at + i < len(out):
                    out[at + i] ^= b or 0xFF
        elif how == "cut":
            del out[at : at + len(what)]
        elif how == "insert":
            out[at:at] = what
        else:
            del out[at:]
    return bytes(out)


_ROOT = Path(tempfile.mkdtemp(prefix="agent-skills-fuzz-"))


@pytest.fixture(scope="module", autouse=True)
def _cleanup() -> Iterator[None]:
    yield
    shutil.rmtree(_ROOT, ignore_errors=True)


def _write(data: bytes, name: str) -> Path:
    folder = Path(tempfile.mkdtemp(dir=_ROOT))
    path = folder / name
    path.write_bytes(data)
    return path


# -- lock and trust store -----------------------------------------------------------------------

VALID_LOCK = (
    b'{"version": 1, "skills": [{"name": "hello", "scope": "workspace", "source": "agents", '
    b'"dir": ".agents/skills/hello", "digest": "sha256:' + b"0" * 64 + b'", "files": '
    b'[{"path": "SKILL.md", "size": 3, "sha256": "sha256:' + b"1" * 64 + b'"}]}]}'
)
VALID_STORE = (
    b'{"version": 1, "approvals": {"/r/s": {"digest": "sha256:' + b"0" * 64 + b'", '
    b'"files": {"SKILL.md": [3, "sha256:' + b"1" * 64 + b'"]}}}}'
)
JSONISH = st.one_of(
    st.binary(max_size=2048),
    st.text(alphabet='{}[]",:\\ 0123456789truefalsnul-.eE\n', max_size=2048).map(str.encode),
    MUTATIONS.map(lambda m: _mutate(VALID_LOCK, m)),
    MUTATIONS.map(lambda m: _mutate(VALID_STORE, m)),
)


@pytest.mark.slow
@FUZZ
@given(data=JSONISH)
def test_lock_reader_answers_any_bytes(data: bytes) -> None:
    path = _write(data, "skills.lock.json")
    got = _answer(lambda: pkg.read_lock(path))
    if isinstance(got, SkillError):
        assert got.code in ("invalid_input", "too_large")
        assert got.fields["path"] == str(path)
    else:
        assert got["version"] == 1 and isinstance(got["skills"], list)
        current = _answer(lambda: pkg.verify_lock(got, {"version": 1, "skills": []}))
        assert isinstance(current, list)


@pytest.mark.slow
@FUZZ
@given(data=JSONISH)
def test_trust_store_answers_any_bytes(data: bytes) -> None:
    path = _write(data, "trust.json")
    store = TrustStore(path)
    got = _answer(store.approved)
    if isinstance(got, SkillError):
        assert got.code in ("invalid_input", "too_large")
    else:
        assert all(isinstance(k, Path) and isinstance(v, str) for k, v in got.items())
    # A store that cannot be read approves nothing, and discovery goes on.
    repo = path.parent / "repo"
    make_skill(repo, "s")
    skills = _answer(lambda: create_agent_skills([SkillRoot(repo, "workspace")], trust=store))
    assert not isinstance(skills, SkillError)
    assert skills.list_skills() == []


# -- the index ------------------------------------------------------------------------------------


def _valid_index(folder: Path) -> bytes:
    root = folder / "skills"
    for name in ("alpha", "beta"):
        make_skill(root, name, files={"references/a.md": "A"}, body=f"The {name} body.")
    index = folder / "index"
    create_agent_skills([root], index=index)
    return index.read_bytes()


_BASE = Path(tempfile.mkdtemp(dir=_ROOT))
_INDEX = _valid_index(_BASE)


def _resealed(data: bytes, mutations: list[tuple[float, str, bytes]]) -> bytes:
    """``data`` (an index file) with its payload mutated and its sizes line and checksum made
    right again, so that what decodes the payload is reached."""
    magic = index_mod.MAGIC
    line_end = data.index(b"\n", len(magic)) + 1
    head, rest, bodies = (int(x) for x in data[len(magic) : line_end - 1].split(b" ")[:3])
    payload = data[line_end:]
    front, tail = payload[: head + rest - bodies], payload[head + rest - bodies :]
    front = _mutate(front, mutations)
    head = min(head, len(front))
    crc, tail_crc = zlib.crc32(front), zlib.crc32(tail)
    sizes = f"{head} {len(front) - head + len(tail)} {len(tail)} {crc:x} {tail_crc:x}\n"
    return magic + sizes.encode() + front + tail


@pytest.mark.slow
@FUZZ
@given(
    data=st.one_of(
        st.binary(max_size=4096),
        st.binary(max_size=2048).map(lambda b: index_mod.MAGIC + b),
        MUTATIONS.map(lambda m: _mutate(_INDEX, m)),
        MUTATIONS.map(lambda m: _resealed(_INDEX, m)),
    )
)
def test_index_reader_answers_any_bytes(data: bytes) -> None:
    index = _write(data, "index")
    plain = create_agent_skills([_BASE / "skills"])
    skills = _answer(lambda: create_agent_skills([_BASE / "skills"], index=index))
    assert not isinstance(skills, SkillError)
    # Whatever the file held, discovery serves what the skills hold.
    assert [s.to_dict() for s in skills.list_skills()] == [s.to_dict() for s in plain.list_skills()]
    assert {d.kind.value for d in skills.diagnostics} <= {"index_ignored"}


# -- archives -------------------------------------------------------------------------------------


def _zip_bytes() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("hello/SKILL.md", MANIFEST)
        zf.writestr("hello/references/a.md", b"A" * 300)
        zf.writestr("hello/scripts/run.sh", b"echo hi\n")
    return out.getvalue()


def _tar_bytes() -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tf:
        for name, data in (
            ("hello/SKILL.md", MANIFEST),
            ("hello/references/" + "long" * 30 + ".md", b"B" * 200),  # a pax path
            ("hello/scripts/run.sh", b"echo hi\n"),
        ):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return out.getvalue()


ZIP, TAR = _zip_bytes(), _tar_bytes()
# The members of TAR without its end-of-archive blocks and record padding, for headers to follow.
_MEMBERS = TAR.rstrip(b"\0")
_MEMBERS += b"\0" * (-len(_MEMBERS) % 512)


def _block(kind: bytes, size_field: bytes, payload: bytes, name: bytes) -> bytes:
    """One tar header with any type and any size field (checksum made right), then payload."""
    header = bytearray(512)
    header[: len(name[:100])] = name[:100]
    header[100:108] = b"0000644\0"
    header[124:136] = size_field[:12].ljust(12, b"\0")
    header[156:157] = kind[:1]
    header[257:263] = b"ustar\0"
    header[263:265] = b"00"
    header[148:156] = b" " * 8
    header[148:156] = b"%06o\0 " % (sum(header) & 0o777777)
    return bytes(header) + payload + b"\0" * (-len(payload) % 512)


SIZE_FIELDS = st.one_of(
    st.integers(0, 4096).map(lambda n: b"%011o\0" % n),
    st.binary(min_size=12, max_size=12),
    st.integers(1, 2**40).map(lambda n: b"\xff" + (-n % 2**88).to_bytes(11, "big")),  # negative
    st.integers(0, 2**60).map(lambda n: b"\x80" + n.to_bytes(11, "big")),  # base-256
)
PAX_PAYLOADS = st.one_of(
    st.binary(max_size=600),
    st.lists(
        st.tuples(
            st.sampled_from(
                [b"path", b"size", b"linkpath", b"hdrcharset", b"GNU.sparse.map", b"x"]
            ),
            st.binary(max_size=40),
        ),
        max_size=4,
    ).map(lambda kv: b"".join(b"%d %s=%s\n" % (len(k) + len(v) + 8, k, v) for k, v in kv)),
)
TAR_HEADERS = st.lists(
    st.tuples(
        st.sampled_from(
            [b"0", b"\0", b"5", b"2", b"1", b"x", b"g", b"X", b"L", b"K", b"S", b"7", b"Z"]
        ),
        SIZE_FIELDS,
        PAX_PAYLOADS,
        st.sampled_from([b"hello/a.md", b"hello/SKILL.md", b"../x", b"hello/", b"/abs", b""]),
    ),
    min_size=1,
    max_size=12,
).map(lambda blocks: gzip.compress(_MEMBERS + b"".join(_block(*b) for b in blocks) + b"\0" * 1024))

ARCHIVES = st.one_of(
    st.tuples(st.just("tgz"), TAR_HEADERS),
    st.tuples(st.just("zip"), st.binary(max_size=4096)),
    st.tuples(st.just("tgz"), st.binary(max_size=4096)),
    st.tuples(st.just("zip"), MUTATIONS.map(lambda m: _mutate(ZIP, m))),
    st.tuples(st.just("tgz"), MUTATIONS.map(lambda m: _mutate(gzip.compress(TAR), m))),
    st.tuples(st.just("tgz"), MUTATIONS.map(lambda m: gzip.compress(_mutate(TAR, m)))),
)


@pytest.mark.slow
@FUZZ
@given(archive=ARCHIVES)
# A member whose compressed size was corrupted: its stream ends before its declared size.
@example(archive=("zip", _mutate(ZIP, [(0.69140625, "flip", b"\x00\x00")])))
def test_archive_readers_answer_any_bytes(archive: tuple[str, bytes]) -> None:
    kind, data = archive
    path = _write(data, "fuzz.skill" if kind == "zip" else "fuzz.tar.gz")

    def read_all() -> object:
        index = arc.read_index(path)
        for name, member in index.files.items():
            try:
                got = arc.read_member(index, name)
            except SkillError as err:
                assert err.code in ("invalid_archive", "too_large")
                continue
            assert len(got) == member.size
        return index

    got = _answer(read_all)
    if isinstance(got, SkillError):
        assert got.code == "invalid_archive" and got.fields["path"] == str(path)
    skills = _answer(lambda: create_agent_skills([path]))
    assert not isinstance(skills, SkillError)
    for info in skills.list_skills():
        content = _answer(lambda i=info: skills.load_skill(i.name))  # type: ignore[misc]
        if isinstance(content, SkillError) or content is None:
            continue
        for resource in content.resources:
            read = _answer(
                lambda n=info.name, r=resource.rel: skills.read_resource(n, r)  # type: ignore[misc]
            )
            assert isinstance(read, bytes | SkillError)
    root = path.parent / "installed"
    installed = _answer(lambda: pkg.install_skills(pkg.Source("archive", str(path)), root))
    if not isinstance(installed, SkillError):
        for item in installed:
            assert os.path.realpath(item.dir).startswith(os.path.realpath(root) + os.sep)


@pytest.mark.parametrize("kind", ["zip", "tgz"])
def test_the_unmutated_archives_load(kind: str) -> None:
    """The fuzz seeds are valid: the mutations start from archives that load and read."""
    data = ZIP if kind == "zip" else gzip.compress(TAR)
    path = _write(data, "seed.skill" if kind == "zip" else "seed.tgz")
    skills = create_agent_skills([path])
    assert [s.name for s in skills.list_skills()] == ["hello"]
    content = skills.load_skill("hello")
    assert content is not None and len(content.resources) == 2
