"""Property tests of confinement (SPEC §9-§10) over random skill trees.

Each example builds a fresh tree: a skill ``skills/s`` (or, in the "store" layout, ``skills/s`` a
symlink to ``store/s``) holding files, directories and symlinks that stay inside, leave (to the
sibling ``s-x``, the parent, an absolute outside path), dangle or loop, next to secrets outside.
Random relative paths made of names, ``.``, ``..`` and empty segments, with ``/`` or ``\\``, are
then resolved, opened and read. The properties:

* whatever ``resolve_resource_path``, ``resource_path`` and ``read_resource`` return lies inside the
  real skill directory, and a read never yields a secret;
* what they refuse carries the code the input deserves;
* ``read_resource``/``open_resource`` give the same outcome as ``resource_path`` followed by a plain
  read, on the descriptor walk and on the identity fallback;
* every enumerated resource (``load_skill(...).resources``) resolves and reads.
"""

from __future__ import annotations

import errno
import os
import posixpath
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

import agent_skills
from agent_skills import SkillError, _confine, _fs, create_agent_skills, resolve_resource_path
from conftest import make_skill

# Hypothesis properties over trees of links: many examples each.
pytestmark = [pytest.mark.slow]

NAMES = ("a", "b", "c")
SECRET = b"SECRET-outside-the-skill"
SEGMENTS = st.sampled_from(
    ["a", "b", "c", "..", ".", "", "secret.txt", "s-x", "SKILL.md", "f", "s"]
)

# A link target: ("rel", text) relative to the link, or ("abs_out" | "abs_in", text).
TARGETS = st.one_of(
    # A leading empty segment would make the target absolute ("/a"): outside the test's base,
    # where building entries through the link would write into the machine's own root.
    st.tuples(
        st.just("rel"),
        st.lists(SEGMENTS, min_size=1, max_size=4).map("/".join).filter(lambda t: t[:1] != "/"),
    ),
    st.tuples(
        st.just("rel"),
        st.sampled_from(
            [
                "../s-x/secret.txt",
                "../s-x",
                "../../s-x/secret.txt",
                "../parent.txt",
                "../../out/secret.txt",
                "..",
                ".",
                "nope",
                "../nope",
                "../s/a",
                "../../skills/s/a",
            ]
        ),
    ),
    st.tuples(st.just("abs_out"), st.sampled_from(["out/secret.txt", "out", "missing/x"])),
    st.tuples(st.just("abs_in"), st.sampled_from(["", "a", "b/c", "f"])),
)

ENTRY = st.tuples(
    st.lists(st.sampled_from([*NAMES, "f"]), min_size=1, max_size=3).map(tuple),
    st.sampled_from(["file", "dir", "link"]),
    TARGETS,
)
TREES = st.lists(ENTRY, max_size=12)
RELS = st.tuples(
    st.one_of(
        st.lists(st.sampled_from([*NAMES, "f"]), min_size=1, max_size=3),
        st.lists(SEGMENTS, min_size=1, max_size=6),
    ),
    st.sampled_from(["/", "\\"]),
).map(lambda t: t[1].join(t[0]))


@dataclass(frozen=True)
class Tree:
    """A built example: the skill directory as configured, its real directory, the facade."""

    base: Path
    skill_dir: Path
    real_dir: Path
    skills: agent_skills.AgentSkills


def _build(
    base: Path, entries: list[tuple[tuple[str, ...], str, tuple[str, str]]], store: bool
) -> Tree:
    skills_root = base / "skills"
    skills_root.mkdir()
    (base / "out").mkdir()
    (base / "out" / "secret.txt").write_bytes(SECRET + b"-out")
    (skills_root / "parent.txt").write_bytes(SECRET + b"-parent")
    if store:
        (base / "store").mkdir()
        real = make_skill(base / "store", "s", frontmatter={"name": "s", "description": "d"})
        os.symlink(real, skills_root / "s")
        make_skill(base / "store", "s-x", files={"secret.txt": SECRET + b"-store-sibling"})
        (base / "store" / "parent.txt").write_bytes(SECRET + b"-store-parent")
    else:
        real = make_skill(skills_root, "s", frontmatter={"name": "s", "description": "d"})
    make_skill(skills_root, "s-x", files={"secret.txt": SECRET + b"-sibling"})
    for i, (parts, kind, (tkind, ttext)) in enumerate(entries):
        path = real.joinpath(*parts)
        try:
            if not Path(os.path.realpath(path.parent)).is_relative_to(os.path.realpath(base)):
                continue  # never build through a link that leads out of the test's own folder
            path.parent.mkdir(parents=True, exist_ok=True)
            if path.is_symlink() or path.exists():
                continue
            if kind == "file":
                path.write_bytes(f"file {i} {'/'.join(parts)}".encode())
            elif kind == "dir":
                path.mkdir()
            else:
                target = ttext
                if tkind == "abs_out":
                    target = str(base / ttext)
                elif tkind == "abs_in":
                    target = str(real / ttext)
                os.symlink(target, path)
        except OSError:
            continue  # a parent is a file or a link into a place we cannot build in
    skills = create_agent_skills([skills_root])
    return Tree(base, skills_root / "s", Path(os.path.realpath(real)), skills)


@contextmanager
def _tree(
    entries: list[tuple[tuple[str, ...], str, tuple[str, str]]], store: bool
) -> Iterator[Tree]:
    with tempfile.TemporaryDirectory() as tmp:
        yield _build(Path(tmp), entries, store)


def _loops(path: str | Path) -> bool:
    """Whether the kernel cannot resolve ``path`` for a symlink loop (``ELOOP``): it leads to
    nothing, inside or out."""
    try:
        os.stat(path)
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


def _inside(path: str | Path, real_dir: Path) -> bool:
    """Whether ``path`` leads inside ``real_dir``, by ``os.path.realpath``; a path the kernel
    cannot resolve for a loop leads nowhere, so nothing outside is reached through it.
    (``os.path.realpath`` answers a loop with the rest of the looping link's text joined to
    the unresolved link: for ``b -> b//a`` that rest is ``/a``, an absolute path unrelated to
    the tree.)"""
    if _loops(path):
        return True
    return Path(os.path.realpath(path)).is_relative_to(real_dir)


def _lexical(tree: Tree, rel: str) -> Path:
    """The lexical candidate of SPEC §10.3."""
    return Path(posixpath.normpath(posixpath.join(tree.skill_dir, rel.replace("\\", "/"))))


def _syntax_error(rel: str) -> bool:
    """The inputs SPEC §10.1-2 refuses before looking at the tree."""
    posix = rel.replace("\\", "/")
    return rel == "" or posix.startswith("/")


def _outcome_path(tree: Tree, rel: str) -> tuple[str, object]:
    """``resource_path`` then a plain read: ``("ok", bytes)`` or ``(code, fields)``."""
    try:
        path = tree.skills.resource_path("s", rel)
    except SkillError as err:
        return (err.code.value, err.fields)
    return ("ok", path.read_bytes())


def _outcome_read(tree: Tree, rel: str) -> tuple[str, object]:
    try:
        return ("ok", tree.skills.read_resource("s", rel))
    except SkillError as err:
        return (err.code.value, err.fields)


def _outcome_open(tree: Tree, rel: str) -> tuple[str, object]:
    try:
        with tree.skills.open_resource("s", rel) as fh:
            return ("ok", fh.read())
    except SkillError as err:
        return (err.code.value, err.fields)


PROPERTY_SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@pytest.mark.parametrize("store", [False, True], ids=["plain", "store-link"])
@PROPERTY_SETTINGS
@given(entries=TREES, rels=st.lists(RELS, min_size=1, max_size=8))
@example(
    entries=[(("a",), "file", ("rel", "../s-x/secret.txt")), (("b",), "link", ("rel", "b//a"))],
    rels=["b", "b/a", "a"],
)
def test_resolver_results_lie_inside_and_refusals_carry_the_right_code(
    store: bool, entries: list[tuple[tuple[str, ...], str, tuple[str, str]]], rels: list[str]
) -> None:
    with _tree(entries, store) as tree:
        for rel in rels:
            try:
                path = resolve_resource_path(tree.skill_dir, rel)
            except SkillError as err:
                if _syntax_error(rel):
                    assert (err.code.value, err.fields) == ("invalid_input", {"rel": rel})
                    continue
                assert (err.code.value, err.fields) == ("path_escape", {"rel": rel})
                lexical = _lexical(tree, rel)
                assert not lexical.is_relative_to(tree.skill_dir) or not _inside(
                    lexical, tree.real_dir
                )
                continue
            assert not _syntax_error(rel)
            assert path.is_relative_to(tree.skill_dir)
            assert _inside(path, tree.real_dir)
            if _loops(path):  # a loop on the way: nothing is reached, and access says so (§10)
                event("a loop")
                with pytest.raises(SkillError) as loop:
                    tree.skills.resource_path("s", rel)
                assert loop.value.code.value == "not_found"


@pytest.mark.parametrize("store", [False, True], ids=["plain", "store-link"])
@pytest.mark.parametrize("mode", ["openat2", "descriptor-walk", "identity-fallback"])
@PROPERTY_SETTINGS
@given(entries=TREES, rels=st.lists(RELS, min_size=1, max_size=8))
def test_reads_agree_with_resource_path_and_never_leave_the_skill(
    store: bool,
    mode: str,
    entries: list[tuple[tuple[str, ...], str, tuple[str, str]]],
    rels: list[str],
) -> None:
    safe_open = mode != "identity-fallback"
    fast = _fs._OPENAT2 if mode == "openat2" else [None]  # the walk alone, or openat2 first
    with (
        _tree(entries, store) as tree,
        mock.patch.object(_fs, "HAS_SAFE_OPEN", safe_open),
        mock.patch.object(_fs, "_OPENAT2", fast),
    ):
        for rel in rels:
            by_path = _outcome_path(tree, rel)
            by_read = _outcome_read(tree, rel)
            assert by_read == by_path, rel
            assert _outcome_open(tree, rel) == by_path, rel
            code, value = by_path
            event(f"outcome: {code}")
            if code == "ok":
                assert isinstance(value, bytes)
                assert not value.startswith(SECRET)
                path = tree.skills.resource_path("s", rel)
                assert path.is_relative_to(tree.skill_dir)
                assert _inside(path, tree.real_dir)
                assert path.is_file()
            elif _syntax_error(rel):
                assert by_path == ("invalid_input", {"rel": rel})
            else:
                assert code in {"path_escape", "not_found", "not_a_file"}
                assert value == {"name": "s", "rel": rel}
                if code == "not_a_file":
                    assert os.path.exists(_lexical(tree, rel))


@pytest.mark.parametrize("store", [False, True], ids=["plain", "store-link"])
@PROPERTY_SETTINGS
@given(entries=TREES)
def test_every_enumerated_resource_resolves_and_reads(
    store: bool, entries: list[tuple[tuple[str, ...], str, tuple[str, str]]]
) -> None:
    with _tree(entries, store) as tree:
        content = tree.skills.load_skill("s")
        assert content is not None
        rels = [r.rel for r in content.resources]
        assert rels == sorted(rels, key=lambda r: (r.casefold(), r))
        for res in content.resources:
            assert res.path == tree.skill_dir / res.rel
            path = tree.skills.resource_path("s", res.rel)
            assert path == res.path
            assert _inside(path, tree.real_dir)
            data = tree.skills.read_resource("s", res.rel)
            assert data == path.read_bytes()
            assert not data.startswith(SECRET)
            assert res.size == len(data)


@PROPERTY_SETTINGS
@given(
    rel=st.one_of(
        st.text(max_size=40),
        st.binary(max_size=20),
        st.none(),
        st.integers(),
        st.lists(st.text(max_size=3), max_size=2),
    )
)
def test_arbitrary_input_raises_only_skill_errors(rel: object) -> None:
    with _tree([(("a",), "file", ("rel", "")), (("b",), "link", ("rel", "a"))], False) as tree:
        for call in (
            lambda: resolve_resource_path(tree.skill_dir, rel),  # type: ignore[arg-type]
            lambda: tree.skills.resource_path("s", rel),  # type: ignore[arg-type]
            lambda: tree.skills.read_resource("s", rel),  # type: ignore[arg-type]
            lambda: tree.skills.resource_path(rel, "a"),  # type: ignore[arg-type]
            lambda: tree.skills.load_skill(rel),  # type: ignore[arg-type]
        ):
            try:
                result = call()
            except SkillError as err:
                assert err.code.value in {
                    "invalid_input",
                    "path_escape",
                    "not_found",
                    "not_a_file",
                }
                continue
            if isinstance(result, Path):
                assert _inside(result, tree.real_dir)


REPOINTS = st.sampled_from(["link-to-sibling", "link-to-out", "copy", "rename-sibling", "remove"])


@PROPERTY_SETTINGS
@given(entries=TREES, rels=st.lists(RELS, min_size=1, max_size=6), repoint=REPOINTS)
def test_repointing_the_store_entry_after_discovery_serves_nothing_new(
    entries: list[tuple[tuple[str, ...], str, tuple[str, str]]], rels: list[str], repoint: str
) -> None:
    """SPEC §20.1: between discovery and access ``store/s`` is repointed (a link to the sibling or
    to the outside, a copy with the same files, another directory renamed into its place, or
    removed). Every access then raises ``stale_skill`` and no list or approval names it."""
    import shutil

    from agent_skills.agent import SkillSession

    with _tree(entries, True) as tree:
        session = SkillSession(tree.skills)
        session.activate("s")
        real, base = tree.real_dir, tree.base
        shutil.move(real, base / "s.moved")
        if repoint == "link-to-sibling":
            os.symlink(base / "store" / "s-x", real)
        elif repoint == "link-to-out":
            os.symlink(base / "out", real)
        elif repoint == "copy":
            shutil.copytree(base / "s.moved", real, symlinks=True)
        elif repoint == "rename-sibling":
            os.rename(base / "store" / "s-x", real)
        stale = ("stale_skill", {"name": "s", "dir": str(real)})
        calls = {
            "resource_path": tree.skills.resource_path,
            "read_resource": tree.skills.read_resource,
            "session": session.read_resource,
        }
        for rel in rels:
            for what, call in calls.items():
                try:
                    result = call("s", rel)
                except SkillError as err:
                    got = (err.code.value, dict(err.fields))
                    # input checks come first: a bad or lexically escaping path is refused as such
                    lexical_out = not _lexical(tree, rel).is_relative_to(tree.skill_dir)
                    assert (
                        got == stale
                        or (_syntax_error(rel) and got[0] == "invalid_input")
                        or (lexical_out and got[0] == "path_escape")
                    ), (what, got)
                    continue
                pytest.fail(f"{what}({rel!r}) served {result!r} from a repointed skill")
        with pytest.raises(SkillError) as info:
            tree.skills.load_skill("s")
        assert (info.value.code.value, dict(info.value.fields)) == stale
        granted = tree.skills.allowed_read_roots()
        assert granted == [tree.skill_dir.with_name("s-x")]  # the other skill of the root only
        assert session.allowed_read_roots() == []
        for probe in (real / "secret.txt", real / "a", real):
            with pytest.raises(SkillError) as denied:
                session.check_read(probe)
            assert denied.value.code == "access_denied"


# --- the fast paths of the lexical rules give what the general ones give --------------------

_BASES = st.sampled_from(["/r/s", "/", "/r/s/", "/r/./s", "/r/x/../s", "//r/s", "/r/s-x"])
_RELS = st.lists(SEGMENTS, min_size=1, max_size=6).flatmap(
    lambda parts: st.sampled_from(["/", "\\"]).map(lambda sep: sep.join(parts))
)


@settings(max_examples=400, deadline=None)
@given(base=_BASES, rel=_RELS)
def test_an_already_normal_rel_is_what_normalising_it_gives(base: str, rel: str) -> None:
    # The lexical rules answer a path with no empty, ``.`` or ``..`` component at once; the
    # general normalisation (join below the base, normalise, take it below the base again)
    # gives the very same inner path, under every kind of base; other paths go through it.
    try:
        inner, text = _confine._lexical_inner(base, rel)
    except SkillError as err:
        assert err.code in ("invalid_input", "path_escape")  # (invalid: refused before both)
        if err.code == "path_escape":
            with pytest.raises(SkillError) as again:
                _confine._normalised_inner(base, rel.replace("\\", "/"), rel)
            assert again.value.code == "path_escape"
        return
    posix = rel.replace("\\", "/")
    assert text == rel
    assert inner == _confine._normalised_inner(base, posix, rel)
    parts = posix.split("/")
    if "" not in parts and "." not in parts and ".." not in parts:
        event("already normal")
        assert inner == posix


@settings(max_examples=300, deadline=None)
@given(
    parts=st.lists(st.sampled_from(["a", "b c", "é", "x.md", "-", "s-x", "..a", ".h"]), max_size=4),
    inner=st.lists(st.sampled_from(["f", "g.txt", "ü", "d d", ".hidden"]), max_size=3),
)
def test_a_handed_out_path_built_by_components_equals_the_parsed_one(
    parts: list[str], inner: list[str]
) -> None:
    # ``lexical_child`` builds the path under an absolute skill directory component by
    # component; it is equal to (and prints as) ``Path(base + "/" + inner)``; a directory
    # given relative or of another type is parsed as before.
    from agent_skills._fs import lexical_child

    base = "/" + "/".join(parts)
    text = "/".join(inner)
    want = Path(base.rstrip("/") + "/" + text if text else base)
    got = lexical_child(Path(base), base, text)
    assert got == want and str(got) == str(want) and type(got) is type(want)
    assert got.parts == want.parts and got.name == want.name
    relative = Path("rel", *parts)
    absolute = os.path.join(os.getcwd(), os.fspath(relative))
    assert lexical_child(relative, absolute, text) == Path(absolute, *inner)


# --- resource_path's fast path for a plain rel gives what the general resolution gives ------


def _outcome_handed(tree: Tree, rel: str) -> tuple[str, object]:
    """``resource_path``'s own answer: ``("ok", path)`` or ``(code, fields)``."""
    try:
        return ("ok", tree.skills.resource_path("s", rel))
    except SkillError as err:
        return (err.code.value, err.fields)


@pytest.mark.parametrize("store", [False, True], ids=["plain", "store-link"])
@PROPERTY_SETTINGS
@given(entries=TREES, rels=st.lists(RELS, min_size=1, max_size=8))
def test_the_fast_path_of_resource_path_gives_what_the_general_resolution_gives(
    store: bool, entries: list[tuple[tuple[str, ...], str, tuple[str, str]]], rels: list[str]
) -> None:
    # SPEC §10, §20.1, §26: a plain rel (no empty, "." or ".." component, "/" only, ASCII) is
    # answered by six system calls without the general steps; on any other outcome than a
    # regular file reached with no link on the way the general resolution decides. Both give
    # the same path, or the same error, for every input (links inside and out, dangling,
    # looping, directories).
    with _tree(entries, store) as tree:
        for rel in rels:
            fast = _outcome_handed(tree, rel)
            with mock.patch.object(_confine, "_stat_plain", lambda pin, rel: None):
                general = _outcome_handed(tree, rel)
            assert fast == general, rel
            event(f"plain: {_confine._plain_rel(rel)}, outcome: {fast[0]}")


_ANY_RELS = st.lists(
    st.sampled_from(["a", "b.md", "/", "\\", ".", "..", ":", "C", "C:", "\x00", "é", " ", "//"]),
    min_size=1,
    max_size=6,
).map("".join)


@settings(max_examples=500, deadline=None)
@given(base=_BASES, rel=_ANY_RELS)
def test_a_plain_rel_is_what_the_lexical_rules_take_as_it_is(base: str, rel: str) -> None:
    # What the fast path takes as it is, the lexical rules (SPEC §10.1-4) take as it is too,
    # whatever the skill's directory: no refusal, no normalisation.
    if not _confine._plain_rel(rel):
        event("not plain")
        return
    event("plain")
    assert _confine._check_inside(base, rel) == (rel, rel)


def test_a_plain_rel_is_answered_without_the_general_resolution(tmp_path: Path) -> None:
    make_skill(tmp_path, "s", files={"scripts/run.sh": "echo", "notes.md": "n"})
    os.symlink("scripts", tmp_path / "s" / "bin")  # a link inside the skill: allowed (§10.5)
    skills = create_agent_skills([tmp_path])

    def general(*args: object, **kwargs: object) -> object:
        raise AssertionError("the general resolution was used")

    with mock.patch.object(_confine, "reach", general):
        assert skills.resource_path("s", "scripts/run.sh") == tmp_path / "s" / "scripts/run.sh"
        assert skills.resource_path("s", "notes.md") == tmp_path / "s" / "notes.md"
    calls: list[str] = []
    real_reach = _confine.reach

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(str(args[2]))
        return real_reach(*args, **kwargs)  # type: ignore[arg-type]

    with mock.patch.object(_confine, "reach", counted):
        # Not plain, or not a regular file reached with no link on the way: the general one.
        assert skills.resource_path("s", "./scripts/run.sh") == tmp_path / "s" / "scripts/run.sh"
        assert skills.resource_path("s", "bin/run.sh") == tmp_path / "s" / "bin/run.sh"
        with pytest.raises(SkillError) as err:
            skills.resource_path("s", "scripts")
        assert (err.value.code.value, err.value.fields) == (
            "not_a_file",
            {"name": "s", "rel": "scripts"},
        )
        with pytest.raises(SkillError) as err:
            skills.resource_path("s", "scripts/missing.sh")
        assert err.value.code.value == "not_found"
    assert calls == ["scripts/run.sh", "bin/run.sh", "scripts", "scripts/missing.sh"]
    # A pinned directory replaced after discovery: the fast path answers nothing, the general
    # one finds the stale pin (SPEC §20.1).
    os.rename(tmp_path / "s", tmp_path / "s-old")
    make_skill(tmp_path, "s", files={"scripts/run.sh": "echo other"})
    with pytest.raises(SkillError) as err:
        skills.resource_path("s", "scripts/run.sh")
    assert err.value.code.value == "stale_skill"


# --- check_read: chains of links of every length (SPEC §14, §20.6, §30.6) ---------------------

# Where a chain starts, where each hop is written (hops alternate between the chain's directory
# and a subdirectory, relative or absolute), and where the last hop leads.
CHAIN_ENDS = st.sampled_from(
    [
        "project-file",
        "project-dir",
        "project-missing",
        "skill-file",
        "skill-dir",
        "out-file",
        "out-dir",
        "out-missing",
        "loop-to-start",
        "loop-to-self",
    ]
)


def _kernel_view(path: str) -> str | None:
    """Where the kernel leads ``path`` now: its real path, ``None`` when the lookup fails for
    a loop or more than 40 links (``ELOOP``). A missing last component is kept, as check_read
    keeps it."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return None
    return os.path.realpath(path)


def _build_chain(
    base: Path, start: Path, length: int, end: str, hops: list[tuple[bool, bool]]
) -> tuple[str, str]:
    """Write ``length`` links in ``start`` (and its ``d`` subdirectory) leading one to the next
    and the last to ``end``; return ``(the first name, relative to start; what to append)``."""
    (start / "d").mkdir(exist_ok=True)
    targets = {
        "project-file": (base / "project" / "file.txt", ""),
        "project-dir": (base / "project" / "sub", "x.txt"),
        "project-missing": (base / "project" / "new.txt", ""),
        "skill-file": (base / "skills" / "s" / "ref.md", ""),
        "skill-dir": (base / "skills" / "s" / "refs", "r.md"),
        "out-file": (base / "out" / "secret.txt", ""),
        "out-dir": (base / "out", "secret.txt"),
        "out-missing": (base / "out" / "nothing.txt", ""),
    }
    names = [f"{'d/' if in_sub else ''}c{i}" for i, (in_sub, _) in enumerate(hops[:length])]
    if end in targets:
        final, tail = targets[end]
    else:
        final, tail = (start / names[0] if names else start / "self"), ""
    if not names:
        if end == "loop-to-self":
            os.symlink("self", start / "self")
        return (os.path.relpath(final, start) if end in targets else "self"), tail
    for i, name in enumerate(names):
        here = start / name
        nxt = start / names[i + 1] if i + 1 < length else final
        if end == "loop-to-self" and i + 1 == length:
            nxt = here
        absolute_hop = hops[i][1]
        text = str(nxt) if absolute_hop else os.path.relpath(nxt, here.parent)
        os.symlink(text, here)
    return names[0], tail


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    length=st.integers(0, 80),
    where=st.sampled_from(["project", "skill"]),
    end=CHAIN_ENDS,
    hops=st.lists(st.tuples(st.booleans(), st.booleans()), min_size=80, max_size=80),
    relative=st.booleans(),
)
@example(length=40, where="project", end="out-file", hops=[(False, False)] * 80, relative=True)
@example(length=41, where="project", end="out-file", hops=[(False, False)] * 80, relative=True)
@example(length=41, where="skill", end="out-dir", hops=[(True, True)] * 80, relative=False)
@example(length=80, where="project", end="project-file", hops=[(False, True)] * 80, relative=True)
@example(length=40, where="skill", end="skill-dir", hops=[(False, False)] * 80, relative=False)
@example(length=39, where="project", end="out-dir", hops=[(True, False)] * 80, relative=True)
def test_check_read_never_approves_a_path_the_kernel_leads_outside(
    length: int, where: str, end: str, hops: list[tuple[bool, bool]], relative: bool
) -> None:
    """SPEC §30.6: whatever the chain of links (0 to 80, leading inside, outside or looping),
    ``check_read`` approves a path only when the kernel leads it inside a readable root, returns
    that real path (no link left in it), and refuses every path the kernel cannot resolve;
    a path the kernel leads inside a root is approved."""
    from agent_skills.agent import SkillSession

    with tempfile.TemporaryDirectory() as tmp:
        base = Path(os.path.realpath(tmp))
        (base / "project" / "sub").mkdir(parents=True)
        (base / "project" / "file.txt").write_text("P")
        (base / "project" / "sub" / "x.txt").write_text("X")
        (base / "out").mkdir()
        (base / "out" / "secret.txt").write_bytes(SECRET)
        make_skill(base / "skills", "s", files={"ref.md": "R", "refs/r.md": "RR"})
        skills = create_agent_skills([base / "skills"])
        session = SkillSession(skills, project_root=base / "project")
        session.activate("s")
        start = base / "project" if where == "project" else base / "skills" / "s"
        first, tail = _build_chain(base, start, length, end, hops)
        asked = os.path.join(first, tail) if tail else first
        absolute_path = str(start / asked)
        path = asked if relative and where == "project" else absolute_path
        roots = [str(base / "project"), str(base / "skills" / "s")]
        kernel = _kernel_view(absolute_path)
        event(f"kernel: {'ELOOP' if kernel is None else 'resolves'}")
        try:
            got = session.check_read(path)
        except SkillError as err:
            assert (err.code.value, dict(err.fields)) == ("access_denied", {"path": path})
            # refused: it leads nowhere, or outside every root
            assert kernel is None or not any(Path(kernel).is_relative_to(root) for root in roots), (
                length,
                end,
                kernel,
            )
            return
        assert kernel is not None, f"approved {got} which the kernel cannot resolve"
        assert str(got) == kernel
        assert any(got.is_relative_to(root) for root in roots)
        assert os.path.realpath(got) == str(got)  # no link left in what is handed out
        if got.exists():
            assert got.read_bytes() != SECRET
