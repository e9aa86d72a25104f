"""``python -m agent_skills``: the ``agent-skills`` command line (SPEC §16)."""

from agent_skills.cli import main

raise SystemExit(main())
