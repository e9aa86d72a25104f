"""Running the command-line program on a pseudo-terminal of a given width (tests/cli)."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path


def run_in_terminal(
    args: list[str], env: dict[str, str], cwd: Path, columns: int, *, stderr: bool = False
) -> str:
    """Run the CLI with stdout (or, with ``stderr``, stderr alone) on a pseudo-terminal
    ``columns`` wide; return what it printed there."""
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    proc = subprocess.Popen(
        [sys.executable, "-m", "agent_skills", *args],
        stdout=subprocess.DEVNULL if stderr else terminal,
        stderr=terminal if stderr else subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        cwd=cwd,
        env=env,
    )
    os.close(terminal)
    chunks: list[bytes] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([controller], [], [], 0.5)
        if ready:
            try:
                data = os.read(controller, 65536)
            except OSError:  # the terminal closed: the program has exited
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    proc.wait(timeout=30)
    os.close(controller)
    text = b"".join(chunks).decode("utf-8")
    # Strip colour codes; the terminal turns LF into CRLF.
    return re.sub(r"\x1b\[[0-9;]*m", "", text).replace("\r\n", "\n")
