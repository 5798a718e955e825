"""``python -m skcodex.cli``: the ``skcodex`` command."""

from skcodex.cli import main

if __name__ == "__main__":  # importing the module (as the docs build does) runs nothing
    raise SystemExit(main())
