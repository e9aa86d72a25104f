"""``serve``: the skills over MCP, on stdio or streamable HTTP (SPEC §17, §23.2, §24).

Owns the command's options and its hand-over to ``agent_skills.mcp``, which is imported only
here, when the command runs (the SDK is the heaviest dependency, SPEC §26).
"""

from __future__ import annotations

import importlib
import sys

import click

from .._collector import resume_for_server
from .._core import AgentSkills
from .._errors import missing_extra
from ._app import CliErrorCode, echo_stderr, fail, is_terminal
from ._roots import with_skills

__all__ = ["serve_command"]


@click.command("serve", short_help="Serve the skills over MCP (stdio, or HTTP with --http).")
@click.option("--http", "use_http", is_flag=True, help="Serve streamable HTTP, not stdio.")
@click.option(
    "--port",
    type=click.IntRange(1, 65535),
    default=8000,
    show_default=True,
    help="HTTP port (with --http).",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to bind (with --http); 0.0.0.0 serves every interface.",
)
@click.option(
    "--allow-host",
    "allow_hosts",
    multiple=True,
    metavar="NAME",
    help="With --http: a host name clients use to reach the server, allowed in the Host and "
    "Origin headers besides the loopback names and the bind address (repeatable).",
)
@click.option(
    "--stateless",
    is_flag=True,
    help="With --http: no sessions, so replicas behind any load balancer need no affinity.",
)
@click.option(
    "--watch",
    is_flag=True,
    help="Refresh when skills change and notify clients (needs the 'watch' extra).",
)
@with_skills()
def serve_command(
    skills: AgentSkills,
    use_http: bool,
    port: int,
    host: str,
    allow_hosts: tuple[str, ...],
    stateless: bool,
    watch: bool,
) -> None:
    """Serve the skills over MCP (stdio, or HTTP at http://HOST:PORT/mcp).

    Over HTTP, GET /healthz answers {"status": "ok", "skills": N}. Every HTTP request must name
    an allowed host in its Host and Origin headers, whatever --host binds (protection from DNS
    rebinding): the loopback names, the bind address, and each --allow-host NAME. Needs the
    optional MCP dependency: from a checkout, pip install '.[mcp]' (see the README for
    installing from git).

    \b
    Examples:
      agent-skills serve --watch
      agent-skills serve --http --port 8765 --root ./skills
      agent-skills serve --http --host 0.0.0.0 --allow-host skills.internal
    """
    if (stateless or host != "127.0.0.1") and not use_http:
        fail(CliErrorCode.USAGE_ERROR, "--stateless and --host apply to --http only", 2)
    if allow_hosts and not use_http:
        fail(CliErrorCode.USAGE_ERROR, "--allow-host applies to --http only", 2)
    try:
        # Imported with the program's collector still paused: the SDK's import makes many
        # long-lived objects, and no young-generation pass need run over them while it runs
        # (SPEC §26, serve start-up; docs/performance.md).
        mcp_server = importlib.import_module("agent_skills.mcp")
        run = mcp_server.run_http if use_http else mcp_server.run_stdio  # (loads the SDK)
    except ImportError as exc:
        # A missing extra is a matter of the installation, as every other one is: exit 2.
        fail("mcp_unavailable", missing_extra("mcp", "the MCP server", exc), 2)
    finally:
        resume_for_server()  # a server runs on: its garbage is collected as usual
    if use_http:
        run(
            skills,
            host=host,
            port=port,
            allow_hosts=allow_hosts,
            stateless=stateless,
            watch=watch,
            ready=lambda url: click.echo(f"listening on {url}", err=True),
        )
    else:
        if is_terminal(sys.stdin):  # a person ran it by hand: say what it waits for
            count = len(skills.list_skills())
            echo_stderr(
                f"serving {count} skill{'' if count == 1 else 's'} over MCP: waiting for a "
                "client on stdin (Ctrl-C to stop)"
            )
        run(skills, watch=watch)
