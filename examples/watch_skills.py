"""Keep a set of skills fresh while an agent runs, and say what changed.

``AgentSkills.watch()`` refreshes the skills whenever their folders change (the ``watch`` extra,
``watchfiles``); iterating the watcher yields what each refresh changed. A host rebuilds its
catalog prompt and tool list there. Ctrl-C stops it cleanly.

Run it, then add, edit or remove a skill folder in another terminal::

    python examples/watch_skills.py                       # the skills shipped in examples/skills
    python examples/watch_skills.py --root ~/.agents/skills --root .agents/skills
    python examples/watch_skills.py --count 1             # stop after the first change
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

try:
    from agent_skills import StartupError, create_agent_skills
    from agent_skills.agent import SkillSession
except ImportError:  # running from a source checkout without installing
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from agent_skills import StartupError, create_agent_skills
    from agent_skills.agent import SkillSession

EXAMPLE_SKILLS = Path(__file__).resolve().parent / "skills"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--root", dest="roots", action="append", type=Path, help="a skills folder (repeatable)"
    )
    parser.add_argument("--count", type=int, default=0, help="stop after N changes (0: never)")
    args = parser.parse_args(argv)
    roots = [root.expanduser() for root in args.roots or [EXAMPLE_SKILLS]]

    skills = create_agent_skills(roots)
    session = SkillSession(skills)
    seen = 0
    try:
        with skills.watch() as watcher:  # watching from now on; stopped however this ends
            shown = ", ".join(map(str, roots))
            print(f"watching {len(skills)} skills in {shown}; Ctrl-C stops", flush=True)
            for changes in watcher:
                seen += 1
                print(
                    f"added {list(changes.added)}, removed {list(changes.removed)}, "
                    f"changed {list(changes.changed)}; now {len(skills)} skills"
                )
                # Where a host rebuilds what the model sees: the catalog and the tools.
                tools = [tool["function"]["name"] for tool in session.tools("openai")]
                print(f"catalog: {len(session.catalog_prompt())} characters; tools: {tools}")
                sys.stdout.flush()
                if seen == args.count:
                    break  # leaving the loop stops the watcher
    except StartupError as err:  # watchfiles is not installed
        print(err, file=sys.stderr)
        return 2
    except KeyboardInterrupt:  # Ctrl-C, wherever it came
        print("stopped", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
