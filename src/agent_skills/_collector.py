"""The cyclic garbage collector paused while discovery makes many small objects (SPEC §26).

Discovery and the YAML loader build large trees of small objects and no reference cycles that
need collecting: reference counting frees them. The collector's passes over them would only
cost time (and more the more the process holds). One pause, shared by every thread, restores the
collector as it was when the outermost pause ends.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = [
    "collector_paused",
    "enable_promoted",
    "freeze_for_exit",
    "pause_for_program",
    "resume_for_server",
]

_lock = threading.Lock()
_depth = 0  # pauses in progress in this process
_resume = False  # whether the collector was enabled when the outermost one began


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while many small objects are made.

    Used around a scan (from loading the index to the report, not the warning sinks, which run
    the caller's code) and around loading a large frontmatter: neither makes reference cycles
    that need collecting, and the collector's passes over a growing heap cost as much as a tenth
    of a scan of a large store, and made parsing a large manifest cost more per byte the more the
    process held (SPEC §20.7, §26). Reference counting still frees everything. Pauses nest and
    are shared between threads: the collector is disabled when the first begins and restored, as
    it was then, when the last ends, so no interleaving leaves it off.
    """
    global _depth, _resume
    with _lock:
        if _depth == 0:
            _resume = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _resume:
                enable_promoted()


def enable_promoted() -> None:
    """Enable the collector, what it tracks moved to the oldest generation first.

    What a scan (or a program's start-up) built is long-lived: it goes to the oldest generation
    without the two young-generation passes over it that re-enabling would start at once (each
    visits every reference, cold in cache: a tenth of a scan of 10 000 skills). The host's young
    objects go with it: a cycle among them is collected by the next full collection instead of
    a young one. Promoted only when nothing else froze objects, whose freeze must last.
    """
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()
    gc.enable()


# -- the command-line program's own switches -------------------------------------------------
# Used only by ``agent_skills.cli.main`` run as the program (no argument list): never in a host's
# process, whose collector the library leaves as the host set it.

_program_paused = False  # whether pause_for_program() paused the collector


def pause_for_program() -> None:
    """Pause the cyclic garbage collector for the rest of a command run as the program.

    A command answers and the process ends: the cycles it makes are few and small, and a pass of
    the collector over everything discovery built would cost more than the whole output (SPEC
    §26). ``serve`` runs on, and resumes it (:func:`resume_for_server`).
    """
    global _program_paused
    if gc.isenabled():
        gc.disable()
        _program_paused = True


def resume_for_server() -> None:
    """Resume the collector :func:`pause_for_program` paused: for a command that runs on.

    What the process made until now (the modules, the skills) lives as long as it does: it goes
    to the oldest generation first (:func:`enable_promoted`), so that re-enabling starts no
    young-generation passes over all of it; cycles among it are still found by full collections.
    """
    global _program_paused
    if _program_paused:
        _program_paused = False
        enable_promoted()


def freeze_for_exit() -> None:
    """Freeze what the process holds (``gc.freeze``) once a command run as the program ends.

    The process exits next, and the interpreter's last collection at exit would pass over all
    that discovery built (with the collector paused it is all still young; docs/performance.md
    has the measurement). Output is flushed and ``atexit`` handlers run as before, and what
    reference counting frees is freed; only the search for unreachable cycles among what was
    frozen is left out (the commands leave no open file or thread behind in one).
    """
    gc.freeze()
