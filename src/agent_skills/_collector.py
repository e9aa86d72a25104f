"""The cyclic garbage collector of the command-line program, and only of it (SPEC §26).

The library never switches the collector of a host's process: discovery, parsing and serving run
with the collector as the host left it. ``agent-skills`` run as the program (``cli.main`` without
an argument list) is its own process: a command answers and the process ends, so it pauses the
collector for the command (:func:`pause_for_program`), resumes it for a command that runs on
(:func:`resume_for_server`), and freezes what it holds before the interpreter's last collection
at exit (:func:`freeze_for_exit`). The measurements behind each are in docs/performance.md.
"""

from __future__ import annotations

import gc

__all__ = ["freeze_for_exit", "pause_for_program", "resume_for_server"]

_program_paused = False  # whether pause_for_program() paused the collector


def pause_for_program() -> None:
    """Pause the cyclic garbage collector for the rest of a command run as the program.

    A command answers and the process ends: the cycles it makes are few and small, and the
    collector's passes over everything discovery built would cost more than they free (SPEC
    §26). ``serve`` runs on, and resumes it (:func:`resume_for_server`).
    """
    global _program_paused
    if gc.isenabled():
        gc.disable()
        _program_paused = True


def resume_for_server() -> None:
    """Resume the collector :func:`pause_for_program` paused: for a command that runs on.

    What the process made until now (the modules, the skills) lives as long as it does: it goes
    to the oldest generation first, so that re-enabling starts no young-generation passes over
    all of it; cycles among it are still found by full collections. Promoted only when nothing
    else froze objects, whose freeze must last.
    """
    global _program_paused
    if _program_paused:
        _program_paused = False
        if gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        gc.enable()


def freeze_for_exit() -> None:
    """Freeze what the process holds (``gc.freeze``) once a command run as the program ends.

    The process exits next, and the interpreter's last collection at exit would pass over all
    that discovery built (with the collector paused it is all still young). Output is flushed
    and ``atexit`` handlers run as before, and what reference counting frees is freed; only the
    search for unreachable cycles among what was frozen is left out (the commands leave no open
    file or thread behind in one).
    """
    gc.freeze()
