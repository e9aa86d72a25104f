#!/usr/bin/env python3
"""Collect the commits of a git range and group them for release notes.

Usage:
    python3 scripts/collect_commits.py [--since REF] [--until REF] [--repo DIR]
                                       [--format json|markdown]

The range is ``since..until``. Without ``--since`` it starts at the latest tag reachable from
``--until``; when the repository has no tag it covers the whole history. Merge commits are left
out. The script only reads ``git log``: it never changes the repository. Standard library only.

Subjects that follow the Conventional Commits header ``type(scope)!: subject`` are grouped by
known type; a ``!`` or a ``BREAKING CHANGE:`` footer puts a commit in the "breaking" group.
Anything else is in the "other" group, with its subject kept whole.

Exit status: 0 on success, 1 when git fails (no git, not a repository, unknown ref), 2 on bad
command-line arguments.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from dataclasses import asdict, dataclass

FIELD_SEP = "\x1f"
RECORD_SEP = "\x1e"
# Hash, author name, author date, subject, body; fields and records use control characters
# that do not occur in normal commit messages.
LOG_FORMAT = "%H%x1f%an%x1f%ad%x1f%s%x1f%b%x1e"

HEADER_RE = re.compile(
    r"^(?P<type>[A-Za-z]+)(?:\((?P<scope>[^()]*)\))?(?P<bang>!)?:\s+(?P<subject>\S.*)$"
)
BREAKING_FOOTERS = ("BREAKING CHANGE:", "BREAKING-CHANGE:")

# Group key -> heading, in the order the groups are printed.
GROUPS: dict[str, str] = {
    "breaking": "Breaking changes",
    "feat": "Features",
    "fix": "Bug fixes",
    "perf": "Performance",
    "other": "Other changes",
    "internal": "Internal",
}
TYPE_TO_GROUP = {
    "feat": "feat",
    "fix": "fix",
    "perf": "perf",
    "build": "internal",
    "chore": "internal",
    "ci": "internal",
    "docs": "internal",
    "refactor": "internal",
    "style": "internal",
    "test": "internal",
    "revert": "other",
}


class GitError(Exception):
    """Raised when a git command cannot run or exits with a non-zero status."""


@dataclass(frozen=True)
class Commit:
    """One commit of the range, classified.

    ``type`` and ``scope`` are empty strings when the subject is not a conventional header.
    ``date`` is the author date as YYYY-MM-DD.
    """

    sha: str
    author: str
    date: str
    type: str
    scope: str
    subject: str
    breaking: bool
    group: str


def run_git(repo: str, args: list[str]) -> str:
    """Run ``git -C repo *args`` and return its standard output.

    Raises:
        GitError: git is missing or exits with a non-zero status.
    """
    try:
        done = subprocess.run(
            ["git", "-C", repo, *args],
            capture_output=True,
            encoding="utf-8",
            errors="replace",
            check=False,
        )
    except FileNotFoundError as exc:
        raise GitError("git is not installed or not on PATH") from exc
    if done.returncode != 0:
        message = done.stderr.strip() or f"exit status {done.returncode}"
        raise GitError(f"git {args[0]} failed: {message}")
    return done.stdout


def latest_tag(repo: str, until: str) -> str | None:
    """Return the most recent tag reachable from ``until``, or None when there is none."""
    try:
        tag = run_git(repo, ["describe", "--tags", "--abbrev=0", until]).strip()
    except GitError:
        return None
    return tag or None


def classify(subject: str, body: str) -> tuple[str, str, str, bool, str]:
    """Split a commit message into (type, scope, subject, breaking, group)."""
    breaking = any(line.startswith(BREAKING_FOOTERS) for line in body.splitlines())
    match = HEADER_RE.match(subject)
    if match is None or match["type"].lower() not in TYPE_TO_GROUP:
        # Not a conventional header, or a word before a colon that is not a known type
        # ("Note: ..."): keep the subject whole.
        return "", "", subject, breaking, "breaking" if breaking else "other"
    kind = match["type"].lower()
    breaking = breaking or match["bang"] is not None
    group = "breaking" if breaking else TYPE_TO_GROUP[kind]
    return kind, (match["scope"] or "").strip(), match["subject"].strip(), breaking, group


def parse_log(output: str) -> list[Commit]:
    """Parse the output of ``git log --format=LOG_FORMAT`` into commits, newest first."""
    commits: list[Commit] = []
    for record in output.split(RECORD_SEP):
        record = record.strip("\n")
        if not record:
            continue
        sha, author, date, subject, body = (record.split(FIELD_SEP, 4) + [""] * 5)[:5]
        kind, scope, text, breaking, group = classify(subject.strip(), body)
        commits.append(Commit(sha, author, date, kind, scope, text, breaking, group))
    return commits


def collect(repo: str, since: str | None, until: str) -> tuple[str, list[Commit]]:
    """Return the range expression actually used and its commits.

    Raises:
        GitError: git fails (not a repository, unknown ref).
    """
    start = since if since is not None else latest_tag(repo, until)
    rev_range = f"{start}..{until}" if start else until
    output = run_git(
        repo, ["log", "--no-merges", "--date=short", f"--format={LOG_FORMAT}", rev_range, "--"]
    )
    return rev_range, parse_log(output)


def render_markdown(rev_range: str, commits: list[Commit]) -> str:
    """Render the grouped commits as a markdown outline (a draft, not the final notes)."""
    noun = "commit" if len(commits) == 1 else "commits"
    lines = [f"## {rev_range} ({len(commits)} {noun})"]
    for key, heading in GROUPS.items():
        members = [c for c in commits if c.group == key]
        if not members:
            continue
        lines += ["", f"### {heading}", ""]
        for c in members:
            scope = f"**{c.scope}:** " if c.scope else ""
            lines.append(f"- {scope}{c.subject} ({c.sha[:7]}, {c.author})")
    return "\n".join(lines) + "\n"


def render_json(rev_range: str, commits: list[Commit]) -> str:
    """Render the grouped commits as JSON: range, count, and every group (empty ones too)."""
    groups = {key: [asdict(c) for c in commits if c.group == key] for key in GROUPS}
    return json.dumps({"range": rev_range, "count": len(commits), "groups": groups}, indent=2)


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description="Group the commits of a git range.")
    parser.add_argument("--since", help="start of the range (default: the latest tag)")
    parser.add_argument("--until", default="HEAD", help="end of the range (default: HEAD)")
    parser.add_argument("--repo", default=".", help="repository directory (default: .)")
    parser.add_argument("--format", choices=("json", "markdown"), default="markdown")
    args = parser.parse_args(argv)
    try:
        rev_range, commits = collect(args.repo, args.since, args.until)
    except GitError as exc:
        print(f"collect_commits: {exc}", file=sys.stderr)
        return 1
    if args.format == "json":
        print(render_json(rev_range, commits))
    else:
        print(render_markdown(rev_range, commits), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
