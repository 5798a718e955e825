"""``python -m skcodex.cli``: the ``skcodex`` command."""

from skcodex.cli import main

raise SystemExit(main())
