"""DNS rebinding protection on every bind address (SPEC §24.4, §30): whatever ``--host`` binds,
a request must name an allowed host in ``Host`` and, when it sends one, in ``Origin``; the
allowed names are the loopback names, the bind address and every ``--allow-host``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp")

import httpx2 as httpx  # the HTTP client the mcp SDK itself uses

from agent_skills import StartupError, create_agent_skills
from agent_skills.mcp import SkillServer
from agent_skills.mcp._http import allowed_hosts, refusal
from conftest import make_skill
from mcp_support import HEADERS, Uvicorn, free_port, initialize_request

WAIT = 30.0
LOOPBACK = ["127.0.0.1", "localhost", "[::1]"]


@pytest.mark.parametrize(
    ("host", "allow", "names"),
    [
        ("127.0.0.1", (), LOOPBACK),
        ("localhost", (), LOOPBACK),
        ("::1", (), LOOPBACK),
        ("127.0.0.2", (), [*LOOPBACK, "127.0.0.2"]),
        ("0.0.0.0", (), LOOPBACK),
        ("::", (), LOOPBACK),
        ("", (), LOOPBACK),
        ("192.0.2.7", (), [*LOOPBACK, "192.0.2.7"]),
        ("fe80::1", (), [*LOOPBACK, "[fe80::1]"]),
        (
            "0.0.0.0",
            ("skills.internal", "10.0.0.7:8443", "2001:db8::5", "localhost"),
            [*LOOPBACK, "skills.internal", "10.0.0.7:8443", "[2001:db8::5]"],
        ),
    ],
)
def test_the_allowed_names_of_every_bind_address(
    host: str, allow: tuple[str, ...], names: list[str]
) -> None:
    assert allowed_hosts(host, allow) == names


@pytest.mark.parametrize(
    "name", ["", "*", "http://evil.example", "a/b", "a b", "evil.example/", "x\ny", "a:99999999"]
)
def test_a_name_that_is_no_host_is_refused(name: str) -> None:
    with pytest.raises(StartupError):
        allowed_hosts("0.0.0.0", [name])


NAMES = allowed_hosts("0.0.0.0", ["skills.internal", "pinned.internal:8443"])


@pytest.mark.parametrize(
    ("host", "origin", "answer"),
    [
        ("127.0.0.1:8000", None, None),
        ("localhost", "http://localhost:6274", None),
        ("[::1]:8000", "https://[::1]", None),
        ("LOCALHOST:8000", "HTTP://LocalHost:1", None),
        ("skills.internal", "https://skills.internal", None),
        ("pinned.internal:8443", "https://pinned.internal:8443", None),
        ("10.1.2.3:8000", None, None),  # an address: never what a rebound page sends
        ("[2001:db8::7]:8000", None, None),
        ("evil.example", None, 421),
        ("evil.example:8000", "http://localhost", 421),
        ("pinned.internal:9999", None, 421),  # a name given with a port allows that port only
        ("pinned.internal", None, 421),
        ("127.0.0.1.evil.example", None, 421),
        ("", None, 421),
        (None, None, 421),
        ("a b", None, 421),
        ("localhost:8000", "http://evil.example", 403),
        ("localhost:8000", "http://10.1.2.3:8000", 403),  # an origin must be named
        ("localhost:8000", "null", 403),
        ("localhost:8000", "file://localhost", 403),
        ("localhost:8000", "http://localhost.evil.example", 403),
        ("localhost:8000", "http://pinned.internal:1", 403),
    ],
)
def test_the_check_of_one_request(host: str | None, origin: str | None, answer: int | None) -> None:
    refused = refusal(host, origin, NAMES)
    assert (refused[0] if refused else None) == answer


_INIT = json.dumps(initialize_request(1)).encode()


@pytest.fixture(scope="module")
def skills(tmp_path_factory: pytest.TempPathFactory) -> Any:
    root = tmp_path_factory.mktemp("hosts") / "skills"
    make_skill(root, "alpha")
    return create_agent_skills([root])


def _status(port: int, host_header: str, origin: str | None = None, path: str = "/mcp") -> int:
    headers = {**HEADERS, "Host": host_header}
    if origin is not None:
        headers["Origin"] = origin
    with httpx.Client(timeout=WAIT) as http:
        if path == "/healthz":
            return http.get(f"http://127.0.0.1:{port}{path}", headers=headers).status_code
        return http.post(
            f"http://127.0.0.1:{port}{path}", content=_INIT, headers=headers
        ).status_code


@pytest.mark.parametrize("bind", ["127.0.0.1", "127.0.0.2", "0.0.0.0", "::", "192.0.2.7"])
@pytest.mark.parametrize("path", ["/mcp", "/healthz"])
def test_every_bind_address_refuses_a_foreign_host_and_origin(
    skills: Any, bind: str, path: str
) -> None:
    app = SkillServer(skills).http_app(host=bind)
    with Uvicorn(app, wait=WAIT) as port:
        ok = 200
        assert _status(port, f"127.0.0.1:{port}", path=path) == ok
        assert _status(port, f"localhost:{port}", f"http://localhost:{port}", path) == ok
        assert _status(port, f"evil.example:{port}", path=path) == 421
        assert _status(port, "evil.example", path=path) == 421
        assert _status(port, f"127.0.0.1:{port}", "http://evil.example", path) == 403
        assert _status(port, f"127.0.0.1:{port}", f"http://evil.example:{port}", path) == 403
        assert _status(port, f"192.0.2.99:{port}", path=path) == ok  # an address, not a name
        named = bind not in ("0.0.0.0", "::")
        shown = f"[{bind}]" if ":" in bind else bind
        origin = f"http://{shown}:{port}"
        assert _status(port, f"localhost:{port}", origin, path) == (ok if named else 403)


def test_allow_host_names_the_hosts_clients_use(skills: Any) -> None:
    app = SkillServer(skills).http_app(host="0.0.0.0", allow_hosts=["skills.internal"])
    with Uvicorn(app, wait=WAIT) as port:
        assert _status(port, f"skills.internal:{port}") == 200
        assert _status(port, "skills.internal", "https://skills.internal") == 200
        assert _status(port, f"skills.internal:{port}", f"http://skills.internal:{port}") == 200
        assert _status(port, f"other.internal:{port}") == 421
        assert _status(port, f"skills.internal:{port}", "http://evil.example") == 403


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Any]:
    root = tmp_path / "skills"
    make_skill(root, "alpha")
    procs: list[subprocess.Popen[bytes]] = []

    def start(*args: str) -> int:
        port = free_port()
        command = [sys.executable, "-m", "agent_skills", "serve", "--http", "--port", str(port)]
        proc = subprocess.Popen(
            [*command, *args, "--preset", "none", "--root", str(root)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env={**os.environ, "HOME": str(tmp_path)},
        )
        procs.append(proc)
        assert proc.stderr is not None
        line = proc.stderr.readline()  # "listening on ..." once bound
        assert line.startswith(b"listening on "), line
        return port

    yield start
    for proc in procs:
        proc.terminate()
        proc.wait(WAIT)


@pytest.mark.slow
@pytest.mark.live
def test_the_command_line_keeps_the_checks_on_every_bind_address(served: Any) -> None:
    port = served("--host", "127.0.0.2")
    with httpx.Client(timeout=WAIT) as http:
        base = f"http://127.0.0.2:{port}"
        assert http.get(f"{base}/healthz").status_code == 200
        assert http.get(f"{base}/healthz", headers={"Host": "evil.example"}).status_code == 421
    port = served("--host", "0.0.0.0", "--allow-host", "skills.internal")
    with httpx.Client(timeout=WAIT) as http:
        base = f"http://127.0.0.1:{port}"
        assert http.post(f"{base}/mcp", content=_INIT, headers=HEADERS).status_code == 200
        evil = {**HEADERS, "Host": f"evil.example:{port}"}
        assert http.post(f"{base}/mcp", content=_INIT, headers=evil).status_code == 421
        named = {**HEADERS, "Host": f"skills.internal:{port}"}
        assert http.post(f"{base}/mcp", content=_INIT, headers=named).status_code == 200


@pytest.mark.slow
def test_allow_host_is_for_http_and_takes_host_names(tmp_path: Path) -> None:
    (tmp_path / "skills").mkdir()
    command = [sys.executable, "-m", "agent_skills", "serve", "--preset", "none"]
    command += ["--root", str(tmp_path / "skills")]
    done = subprocess.run([*command, "--allow-host", "x"], capture_output=True, timeout=WAIT)
    assert done.returncode == 2
    assert done.stderr.decode().strip().endswith("--allow-host applies to --http only")
    done = subprocess.run(
        [*command, "--http", "--port", "1", "--allow-host", "http://evil/"],
        capture_output=True,
        timeout=WAIT,
    )
    assert done.returncode == 2
    assert done.stderr.decode().startswith("startup_error: --allow-host takes a host name")


@pytest.mark.parametrize(
    ("host", "origin", "answer"),
    [
        (["localhost"], ["http://localhost"], None),
        (["localhost"], [], None),
        (["localhost"], ["http://localhost", "http://evil.example"], 403),
        (["localhost"], ["http://evil.example", "http://localhost"], 403),
        (["localhost"], ["http://localhost", "http://localhost"], 403),
        (["localhost", "localhost"], None, 421),
        (["localhost", "evil.example"], None, 421),
        ([], None, 421),
    ],
)
def test_a_header_sent_more_than_once_is_refused(
    host: list[str], origin: list[str] | None, answer: int | None
) -> None:
    refused = refusal(host, origin, NAMES)
    assert (refused[0] if refused else None) == answer


def test_two_origin_headers_are_refused_over_the_wire(skills: Any) -> None:
    import http.client

    app = SkillServer(skills).http_app()
    with Uvicorn(app, wait=WAIT) as port:
        for origins, expected in (
            (["http://localhost"], 200),
            (["http://localhost", "http://evil.example"], 403),
            (["http://evil.example", "http://localhost"], 403),
        ):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT)
            conn.putrequest("POST", "/mcp", skip_host=True)
            conn.putheader("Host", f"localhost:{port}")
            for origin in origins:
                conn.putheader("Origin", origin)
            for name, value in HEADERS.items():
                conn.putheader(name, value)
            conn.putheader("Content-Length", str(len(_INIT)))
            conn.endheaders(_INIT)
            response = conn.getresponse()
            response.read()
            conn.close()
            assert response.status == expected, origins
