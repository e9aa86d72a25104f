"""The click group of the command line: each command loaded on first use, every failure of a
command turned into ``code: message`` or one JSON object and an exit code (SPEC §16, §21.11,
§26), and the ``--json`` option the commands share.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping, Sequence
from typing import Any

import click

from ._app import (
    COMMANDS,
    CONTEXT,
    PROG,
    CliErrorCode,
    command_line,
    echo_error,
    failure_exit_code,
    flush_warnings,
    wants_json,
)

__all__ = ["SkillsGroup", "cli", "json_option"]


class SkillsGroup(click.Group):
    """A group that loads each command on first use and turns every failure of a command into
    ``code: message`` (or, under ``--json``, one JSON object on stderr) and an exit code (SPEC
    §16, §21.11).

    Its commands are named by import path (``"agent_skills.cli.discover.list_command"``), as
    click documents lazily loaded subcommands: a command line imports only the module of the
    command it runs, not every other command and its dependencies (SPEC §26). A loaded command
    is kept in :attr:`commands`.

    Args:
        lazy_subcommands: ``{name: "module.path.attribute"}`` of the commands.
    """

    def __init__(
        self, *args: Any, lazy_subcommands: Mapping[str, str] | None = None, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.lazy_subcommands: dict[str, str] = dict(lazy_subcommands or {})

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # The program run with no arguments shows its help as --help does: on stdout, exit 0
        # (click's own no_args_is_help writes it to stderr with the usage-error status 2).
        if not args and self.no_args_is_help and not ctx.resilient_parsing:
            click.echo(ctx.get_help(), color=ctx.color)
            ctx.exit(0)
        return super().parse_args(ctx, args)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy_subcommands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        path = self.lazy_subcommands.pop(cmd_name, None)
        if path is not None:
            module, _, attribute = path.rpartition(".")
            command = getattr(importlib.import_module(module), attribute)
            if not isinstance(command, click.Command):
                raise TypeError(f"{path} is not a click command")
            self.add_command(command, cmd_name)
        return super().get_command(ctx, cmd_name)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        if args and args[0] not in self.commands and args[0] not in self.lazy_subcommands:
            for name in list(self.lazy_subcommands):  # "did you mean" looks among every command
                self.get_command(ctx, name)
        return super().resolve_command(ctx, args)

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        with command_line(argv):
            try:
                rv = super().main(argv, prog_name, complete_var, standalone_mode=False, **extra)
            except click.ClickException as exc:
                if wants_json(argv):
                    code = CliErrorCode.USAGE_ERROR if exc.exit_code == 2 else "error"
                    echo_error(code, exc.format_message())
                elif standalone_mode:
                    exc.show()
                else:
                    raise
                rv = exc.exit_code
            except click.Abort:
                if not standalone_mode:
                    raise
                echo_error(CliErrorCode.ABORTED, "interrupted")
                rv = 1
            flush_warnings()
        if standalone_mode:
            sys.exit(rv if isinstance(rv, int) else 0)
        return rv

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except Exception as exc:
            ctx.exit(failure_exit_code(exc))


json_option = click.option("--json", "as_json", is_flag=True, help="Machine-readable JSON output.")


@click.group(cls=SkillsGroup, context_settings=CONTEXT, lazy_subcommands=COMMANDS)
@click.version_option(package_name="clarvis-agent-skills", prog_name=PROG)
def cli() -> None:
    """Discover, inspect, validate and serve Agent Skills (SKILL.md folders).

    Options come after the command. Every command but `validate` reads the skill folders of a
    preset (default: auto, every client's: Claude Code, Codex, Gemini CLI, Copilot, Cursor,
    opencode, goose, Antigravity, Windsurf and .agents) plus any --root.

    \b
    Examples:
      agent-skills list
      agent-skills list --preset none --root ./skills --json
      agent-skills show pdf-processing
      agent-skills report
      agent-skills where
      agent-skills validate skills/
      agent-skills serve --http --port 8000

    Exit codes: 0 ok; 1 a skill error or validation errors; 2 usage or configuration errors;
    130 interrupted (Ctrl-C).
    Warnings print `warning: CODE: message` on stderr. Under --json, stderr is at most one JSON
    object: {"error": {code, message, fields}, "warnings": [{code, message}]} on a failure, else
    {"warnings": [...]} when there were warnings.
    """
