"""The stdio transport's reader (``_stdio.StdinLines``): lines as the SDK reads them, from a pipe
(waited on by the event loop, so cancelling it ends it at once) and from a regular file or
``/dev/null`` (read on a worker thread)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

pytest.importorskip("mcp")

import anyio
import anyio.to_thread
from hypothesis import given, settings
from hypothesis import strategies as st

from agent_skills.mcp._stdio import StdinLines, _refusal


async def _lines(reader: StdinLines) -> list[str]:
    return [line async for line in reader]


def test_lines_from_a_pipe_written_in_pieces() -> None:
    read_fd, write_fd = os.pipe()
    big = "x" * 200_000  # over several reads

    async def go() -> list[str]:
        async with anyio.create_task_group() as tg:

            async def write() -> None:
                for piece in (b'{"a": 1}\n{"b"', b": 2}\n", big.encode(), b"\ncaf\xc3", b"\xa9\n"):
                    # (on a thread: a blocking write of more than the pipe holds waits for
                    # the reader, which runs on this loop)
                    await anyio.to_thread.run_sync(os.write, write_fd, piece)
                    await anyio.sleep(0.01)
                os.write(write_fd, b"\xff no newline at the end")
                os.close(write_fd)

            tg.start_soon(write)
            return await _lines(StdinLines(read_fd))

    try:
        lines = anyio.run(go)
    finally:
        os.close(read_fd)
    assert lines == [
        '{"a": 1}\n',
        '{"b": 2}\n',
        big + "\n",
        "café\n",
        "\ufffd no newline at the end",
    ]


def test_lines_from_a_regular_file_and_dev_null(tmp_path: Path) -> None:
    path = tmp_path / "requests.jsonl"
    path.write_bytes(b"one\ntwo\n\nthree")
    fd = os.open(path, os.O_RDONLY)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        assert anyio.run(_lines, StdinLines(fd)) == ["one\n", "two\n", "\n", "three"]
        assert anyio.run(_lines, StdinLines(null)) == []
    finally:
        os.close(fd)
        os.close(null)


def test_cancelling_a_read_that_waits_ends_it_at_once() -> None:
    read_fd, write_fd = os.pipe()  # nothing is ever written: a client that says nothing

    async def go() -> float:
        started = time.monotonic()
        with anyio.move_on_after(0.2):
            await _lines(StdinLines(read_fd))
        return time.monotonic() - started

    try:
        assert anyio.run(go) < 2.0
    finally:
        os.close(read_fd)
        os.close(write_fd)


# -- lines the SDK refused: answered with a code, never a crash (SPEC §30.4) ------------------

_ID = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: not f.is_integer()),
    st.booleans(),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.lists(st.integers(), max_size=2),
)


@settings(max_examples=60, deadline=None)
@given(depth=st.integers(65, 50_000), brackets=st.sampled_from(["[]", "{}"]), rid=st.integers())
def test_a_line_nested_past_the_bound_is_a_parse_error_with_a_null_id(
    depth: int, brackets: str, rid: int
) -> None:
    opener, closer = brackets
    inner = opener * depth if opener == "[" else '{"a":' * depth
    tail = closer * depth
    value = inner + ("" if opener == "[" else "1") + tail
    line = f'{{"jsonrpc":"2.0","id":{rid},"method":"ping","params":{{"x":{value}}}}}'
    assert _refusal(line) == (-32700, None)


@settings(max_examples=60, deadline=None)
@given(rid=_ID)
def test_a_request_whose_id_is_not_a_string_or_integer_is_an_invalid_request(rid: object) -> None:
    line = json.dumps({"jsonrpc": "2.0", "id": rid, "method": "ping"})
    assert _refusal(line) == (-32600, None)


def test_refusals_of_ordinary_lines() -> None:
    assert _refusal('{"jsonrpc":"2.0","id":7,"method":"x","params":"\\ud800"}') == (-32700, 7)
    assert _refusal('{"jsonrpc":"2.0","id":"a","method":"x"}') == (-32700, "a")
    assert _refusal('{"jsonrpc":"2.0","method":"notifications/x","params":1}') == (None, None)
    assert _refusal("{not json") == (-32700, None)
    assert _refusal(None) == (-32700, None)
    assert _refusal("[]") == (-32700, None)
