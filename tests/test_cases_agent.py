"""Cases C1 and C2 of ``shared/cases/CASES.md`` (SPEC §13-§14), plus more inputs of each kind.

C1: a sandboxed agent reads the files of the skills it activated, and nothing else outside the
project. C2: every path the library advertises is a plain absolute path that opens.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from pathlib import Path
from xml.sax.saxutils import unescape

import pytest

from agent_skills import AgentSkills, SkillError, clarvis_skill_roots, create_agent_skills
from agent_skills.agent import SkillSession
from agent_skills.catalog import render_available_skills_xml
from conftest import caught_code_and_fields as _err
from conftest import make_skill, symlink


def _denied(session: SkillSession, path: str | os.PathLike[str]) -> None:
    with pytest.raises(SkillError) as exc:
        session.check_read(path)
    assert _err(exc) == ("access_denied", {"path": os.fspath(path)})


# -- C1: a sandboxed agent reads its activated skills' files ---------------------------------


@pytest.fixture
def c1(tmp_path: Path) -> dict[str, Path]:
    home, ws = tmp_path / "home", tmp_path / "ws"
    user = home / ".agents" / "skills"
    make_skill(
        user,
        "release-notes",
        body="Read references/style.md before writing.\n",
        files={"references/style.md": "# Style\nShort sentences.\n"},
    )
    make_skill(user, "csv-profiler", files={"references/metrics.md": "metrics"})
    make_skill(home / ".clarvis" / "skills", "deploy", files={"references/user.md": "user copy"})
    make_skill(ws / ".clarvis" / "skills", "deploy", files={"references/ws.md": "ws copy"})
    make_skill(
        user,
        "manual-only",
        frontmatter={
            "name": "manual-only",
            "description": "Only on request.",
            "disable-model-invocation": True,
        },
        files={"references/m.md": "m"},
    )
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "x.py").write_text("x = 1\n")
    return {"home": home, "ws": ws, "user": user, "tmp": tmp_path}


def _c1_session(c1: dict[str, Path]) -> tuple[AgentSkills, SkillSession]:
    skills = create_agent_skills(clarvis_skill_roots(workspace=c1["ws"], home=c1["home"]))
    return skills, SkillSession(skills, project_root=c1["ws"])


def test_c1_user_skill_references_readable_after_activation(
    c1: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    skills, session = _c1_session(c1)
    style = c1["user"] / "release-notes" / "references" / "style.md"
    _denied(session, style)
    _denied(session, str(style))
    activation = session.activate("release-notes")
    assert "Read references/style.md before writing." in activation.content
    assert session.check_read(style) == style
    assert session.check_read(str(style)) == style
    assert session.check_read("src/x.py") == c1["ws"] / "src" / "x.py"
    # Another, non-activated skill stays closed.
    _denied(session, c1["user"] / "csv-profiler" / "references" / "metrics.md")
    _denied(session, c1["user"] / "csv-profiler")
    # The library reads the reference whatever the working directory.
    for cwd in (c1["tmp"], c1["ws"], Path("/"), c1["user"] / "release-notes"):
        monkeypatch.chdir(cwd)
        assert skills.read_resource("release-notes", "references/style.md") == (
            b"# Style\nShort sentences.\n"
        )
        assert session.read_resource("release-notes", "references/style.md") == (
            b"# Style\nShort sentences.\n"
        )
        assert session.check_read(style) == style
    assert session.allowed_read_roots() == [c1["ws"], c1["user"] / "release-notes"]


def test_c1_relative_paths_are_project_relative(c1: dict[str, Path]) -> None:
    _skills, session = _c1_session(c1)
    session.activate("release-notes")
    # A path relative to the skill directory is not a project path: the model must use the
    # absolute skill directory it was given, or read_skill_resource.
    assert session.check_read("references/style.md") == c1["ws"] / "references" / "style.md"
    assert session.read_resource("release-notes", "references/style.md").startswith(b"# Style")


def test_c1_other_skill_read_resource_denied(c1: dict[str, Path]) -> None:
    skills, session = _c1_session(c1)
    session.activate("release-notes")
    with pytest.raises(SkillError) as exc:
        session.read_resource("csv-profiler", "references/metrics.md")
    assert _err(exc) == ("access_denied", {"name": "csv-profiler", "rel": "references/metrics.md"})
    # The library itself has no session: it serves any skill's files.
    assert skills.read_resource("csv-profiler", "references/metrics.md") == b"metrics"


def test_c1_non_model_invocable_skill_stays_closed(c1: dict[str, Path]) -> None:
    _skills, session = _c1_session(c1)
    with pytest.raises(SkillError) as exc:
        session.activate("manual-only")
    # Not even suggested: the model never learns the name (SPEC §21.10).
    assert _err(exc) == ("not_found", {"name": "manual-only", "suggestions": []})
    _denied(session, c1["user"] / "manual-only" / "references" / "m.md")
    assert session.allowed_read_roots() == [c1["ws"]]


def test_c1_shadowed_copy_stays_closed(c1: dict[str, Path]) -> None:
    _skills, session = _c1_session(c1)
    activation = session.activate("deploy")
    winner = c1["ws"] / ".clarvis" / "skills" / "deploy"
    assert activation.skill_dir == winner
    assert session.check_read(winner / "references" / "ws.md") == winner / "references" / "ws.md"
    _denied(session, c1["home"] / ".clarvis" / "skills" / "deploy" / "references" / "user.md")


def test_c1_dotdot_out_of_an_activated_skill(c1: dict[str, Path]) -> None:
    _skills, session = _c1_session(c1)
    session.activate("release-notes")
    skill = c1["user"] / "release-notes"
    for path in (
        f"{skill}/../csv-profiler/references/metrics.md",
        f"{skill}/references/../../csv-profiler/SKILL.md",
        f"{skill}/..",
        f"{skill}/../../../.ssh/id_rsa",
    ):
        _denied(session, path)
    assert session.check_read(f"{skill}/references/../SKILL.md") == skill / "SKILL.md"
    with pytest.raises(SkillError) as exc:
        session.read_resource("release-notes", "../csv-profiler/SKILL.md")
    assert _err(exc) == (
        "path_escape",
        {"rel": "../csv-profiler/SKILL.md", "name": "release-notes"},
    )


def test_c1_sibling_prefix_of_an_activated_skill(c1: dict[str, Path]) -> None:
    make_skill(c1["user"], "release-notes-evil", files={"secret.md": "s"})
    _skills, session = _c1_session(c1)
    session.activate("release-notes")
    _denied(session, c1["user"] / "release-notes-evil" / "secret.md")


def test_c1_symlinks_inside_the_project_pointing_out(c1: dict[str, Path]) -> None:
    ws, user = c1["ws"], c1["user"]
    out = c1["tmp"] / "out"
    (out / "secrets").mkdir(parents=True)
    (out / "secrets" / "id_key").write_text("KEY")
    symlink(ws / "vendor", out / "secrets")
    symlink(ws / "src" / "key.txt", out / "secrets" / "id_key")
    symlink(ws / "skills-link", user)
    symlink(ws / "rn-link", user / "release-notes")
    symlink(ws / "chain", ws / "vendor")
    _skills, session = _c1_session(c1)
    for path in (
        "vendor/id_key",
        "src/key.txt",
        "chain/id_key",
        "skills-link/release-notes/references/style.md",
        "rn-link/references/style.md",
        str(ws / "vendor" / "id_key"),
    ):
        _denied(session, path)
    session.activate("release-notes")
    style = user / "release-notes" / "references" / "style.md"
    # A link into an activated skill lands inside the allowlist; the rest stay closed.
    assert session.check_read("rn-link/references/style.md") == style
    assert session.check_read("skills-link/release-notes/references/style.md") == style
    _denied(session, "skills-link/csv-profiler/SKILL.md")
    _denied(session, "vendor/id_key")


def test_c1_symlink_inside_an_activated_skill_pointing_out(c1: dict[str, Path]) -> None:
    out = c1["tmp"] / "out"
    (out / "secrets").mkdir(parents=True)
    (out / "secrets" / "id_key").write_text("KEY")
    skill = c1["user"] / "release-notes"
    symlink(skill / "references" / "keys", out / "secrets")
    symlink(skill / "references" / "sibling", c1["user"] / "csv-profiler")
    _skills, session = _c1_session(c1)
    activation = session.activate("release-notes")
    assert "keys" not in activation.content
    for rel in ("references/keys/id_key", "references/sibling/SKILL.md"):
        _denied(session, skill / rel)
        with pytest.raises(SkillError) as exc:
            session.read_resource("release-notes", rel)
        assert _err(exc) == ("path_escape", {"rel": rel, "name": "release-notes"})


def test_c1_skill_dir_is_a_symlink_into_a_store(c1: dict[str, Path]) -> None:
    store = c1["tmp"] / "store"
    make_skill(store, "pdf", files={"references/forms.md": "FORMS"})
    make_skill(store, "pdf-tools", files={"references/x.md": "X"})
    symlink(c1["user"] / "pdf", store / "pdf")
    symlink(c1["user"] / "pdf-tools", store / "pdf-tools")
    _skills, session = _c1_session(c1)
    advertised = c1["user"] / "pdf" / "references" / "forms.md"
    real = store / "pdf" / "references" / "forms.md"
    _denied(session, advertised)
    _denied(session, real)
    activation = session.activate("pdf")
    assert activation.skill_dir == c1["user"] / "pdf"
    assert f"Skill directory: {c1['user'] / 'pdf'}\n" in activation.content
    assert session.allowed_read_roots() == [c1["ws"], store / "pdf"]
    assert session.check_read(advertised) == real
    assert session.check_read(real) == real
    assert session.read_resource("pdf", "references/forms.md") == b"FORMS"
    # Neither the store around it nor a sibling with a longer name opens.
    _denied(session, store / "pdf-tools" / "references" / "x.md")
    _denied(session, c1["user"] / "pdf-tools" / "references" / "x.md")
    _denied(session, f"{c1['user'] / 'pdf'}/../pdf-tools/SKILL.md")
    _denied(session, store)


def test_c1_home_behind_a_symlink(tmp_path: Path) -> None:
    real_home, ws = tmp_path / "real-home", tmp_path / "ws"
    make_skill(real_home / ".agents" / "skills", "notes", files={"references/n.md": "N"})
    ws.mkdir()
    home = symlink(tmp_path / "home", real_home)
    skills = create_agent_skills(clarvis_skill_roots(workspace=ws, home=home))
    session = SkillSession(skills, project_root=ws)
    session.activate("notes")
    real = real_home / ".agents" / "skills" / "notes"
    assert session.allowed_read_roots() == [ws, real]
    assert skills.allowed_read_roots() == [real]
    through_link = home / ".agents" / "skills" / "notes" / "references" / "n.md"
    assert session.check_read(through_link) == real / "references" / "n.md"


# -- C2: advertised locations are plain and openable ------------------------------------------

C2_DIRS = [
    "toolbox.git#v1.3.0/skills",
    "my notes",
    "100% done",
    "café ñ 日本",
    "R&D <lab>",
    "a'b\"c",
]


@pytest.fixture
def c2(tmp_path: Path) -> tuple[AgentSkills, dict[str, Path]]:
    roots: list[Path] = []
    dirs: dict[str, Path] = {}
    for i, parent in enumerate(C2_DIRS):
        root = tmp_path / "repo" / parent
        name = f"skill-{i}"
        dirs[name] = make_skill(
            root,
            name,
            body=f"Body {i}.",
            files={
                "references/guide #1.md": f"guide {i}",
                "assets/50% off & <more>.txt": f"asset {i}",
                "scripts/naïve run.py": f"print({i})",
            },
        )
        roots.append(root)
    return create_agent_skills(roots), dirs


def test_c2_catalog_locations_are_plain_and_open(
    c2: tuple[AgentSkills, dict[str, Path]],
) -> None:
    skills, dirs = c2
    xml = render_available_skills_xml(skills.list_skills())
    assert "%23" not in xml and "%20" not in xml and "file:" not in xml
    assert "R&amp;D &lt;lab&gt;" in xml
    parsed = ET.fromstring(xml)
    locations = {
        skill.findtext("name"): skill.findtext("location") for skill in parsed.iter("skill")
    }
    assert locations == {name: str(path / "SKILL.md") for name, path in dirs.items()}
    for name, location in locations.items():
        assert location is not None
        assert Path(location).read_bytes().startswith(b"---\nname: " + name.encode())


def test_c2_activation_paths_are_plain_and_open(
    c2: tuple[AgentSkills, dict[str, Path]],
) -> None:
    skills, dirs = c2
    session = SkillSession(skills)
    for i, (name, skill_dir) in enumerate(dirs.items()):
        content = session.activate(name).content
        assert "%23" not in content and "%20" not in content and "%25" not in content
        lines = content.splitlines()
        (shown,) = [ln for ln in lines if ln.startswith("Skill directory: ")]
        directory = unescape(shown.removeprefix("Skill directory: "))
        assert directory == str(skill_dir)
        files = [
            unescape(ln[len("<file>") : -len("</file>")]) for ln in lines if ln[:6] == "<file>"
        ]
        assert files == [
            "assets/50% off & <more>.txt",
            "references/guide #1.md",
            "scripts/naïve run.py",
        ]
        assert "<file>assets/50% off &amp; &lt;more&gt;.txt</file>" in lines
        expected = {
            "assets/50% off & <more>.txt": f"asset {i}",
            "references/guide #1.md": f"guide {i}",
            "scripts/naïve run.py": f"print({i})",
        }
        for rel in files:
            advertised = Path(directory) / rel
            # The sandbox lets the model open exactly what it was shown...
            allowed = session.check_read(advertised)
            assert allowed == skill_dir / rel
            assert allowed.read_text(encoding="utf-8") == expected[rel]
            # ...and the read tool takes the listed rel as is.
            assert session.read_resource(name, rel) == expected[rel].encode()


def test_c2_catalog_prompt_advertises_no_path(c2: tuple[AgentSkills, dict[str, Path]]) -> None:
    skills, dirs = c2
    session = SkillSession(skills)
    prompt = session.catalog_prompt("xml")
    assert "<location>" not in prompt
    for path in dirs.values():
        assert str(path) not in prompt
        _denied(session, path / "SKILL.md")
    assert session.catalog_prompt("markdown").count("\n- **") == len(dirs)


def test_c2_escaped_name_attribute(tmp_path: Path) -> None:
    root = tmp_path / "odd & <root>"
    make_skill(root, "Mixed_Case", body="B.")
    session = SkillSession(create_agent_skills([root]))
    content = session.activate("Mixed_Case").content
    assert content.startswith('<skill_content name="Mixed_Case">\nB.\n\n')
    assert f"Skill directory: {tmp_path}/odd &amp; &lt;root&gt;/Mixed_Case\n" in content


# -- property: the policy agrees with an independent oracle -----------------------------------

_PARTS = ["..", ".", "src", "x.py", "up", "out", "sib", "act", "loop", "dangle", "references",
          "r.md", "secret", "act-evil", "store"]  # fmt: skip


def _policy_tree(base: Path) -> tuple[SkillSession, list[Path]]:
    """A project and skills wired with every kind of link: out, into skills, loops, dangling."""
    project, root, store, out = base / "p", base / "skills", base / "store", base / "out"
    (project / "src").mkdir(parents=True)
    (project / "src" / "x.py").write_text("x")
    (out / "secret").mkdir(parents=True)
    make_skill(store, "act", files={"references/r.md": "R"})
    symlink(root / "act", store / "act")
    make_skill(root, "sib", files={"references/r.md": "S"})
    make_skill(root, "act-evil", files={"secret": "E"})
    symlink(project / "out", out)
    symlink(project / "up", "..")
    symlink(project / "sib", root / "sib")
    symlink(project / "act", root / "act")
    symlink(project / "loop", "loop")
    symlink(project / "dangle", base / "missing")
    symlink(store / "act" / "references" / "store", "../..")
    symlink(store / "act" / "references" / "sib", root / "sib")
    symlink(root / "sib" / "act", store / "act")
    session = SkillSession(create_agent_skills([root]), project_root=project)
    session.activate("act")
    return session, [project, store / "act"]


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> tuple[SkillSession, list[Path], Path]:
    base = tmp_path_factory.mktemp("policy")
    session, roots = _policy_tree(base)
    return session, roots, base


def _oracle(path: str, project: Path) -> Path:
    return Path(os.path.realpath(project / path))


def _unresolvable(path: str, project: Path) -> bool:
    """Whether the resolution of ``path`` meets a link it cannot resolve (a loop): then
    ``os.path.realpath`` of the path up to that link still ends in a link (SPEC §30.6: such a
    path is refused, whatever the rest of it would name)."""
    components = str(project / path).split("/")
    return any(
        os.path.islink(os.path.realpath("/".join(components[:k])))
        for k in range(2, len(components) + 1)
    )


def test_policy_matches_oracle(policy: tuple[SkillSession, list[Path], Path]) -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    session, roots, base = policy
    assert session.allowed_read_roots() == roots
    prefixes = st.sampled_from(["", f"{base}/p/", f"{base}/skills/act/", f"{base}/skills/"])
    seen: set[bool] = set()

    @settings(max_examples=400, deadline=None)
    @given(prefixes, st.lists(st.sampled_from(_PARTS), min_size=1, max_size=6))
    def check(prefix: str, parts: list[str]) -> None:
        path = prefix + "/".join(parts)
        real = _oracle(path, roots[0])
        inside = not _unresolvable(path, roots[0]) and any(
            real == r or real.is_relative_to(r) for r in roots
        )
        seen.add(inside)
        try:
            got = session.check_read(path)
        except SkillError as err:
            assert (err.code.value, err.fields) == ("access_denied", {"path": path})
            assert not inside, path
        else:
            assert (got, inside) == (real, True), path

    check()
    assert seen == {True, False}
