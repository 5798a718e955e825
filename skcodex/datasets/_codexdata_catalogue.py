"""The catalogue files of a codexdata folder, and the reading of its CSV files.

A codexdata folder (see `skcodex.datasets._codexdata`) may hold ``specs.csv``
(``spec``, ``starter``), ``starters.csv`` (``starter``) and ``nicknames.csv``
(``nickname``, ``starter``, ``spec1``, ``spec2``, ``spec3``), which extend the
base Codex catalogue with variant specs and starters (``DemonBash``,
``AnarchyP22``, the ``F20`` edits) and deck nicknames.
`load_codex_catalogue` builds that catalogue.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pandas as pd

from skcodex.codex import CODEX, Catalogue, Deck

__all__ = ["CodexDataError", "load_codex_catalogue"]


class CodexDataError(ValueError):
    """A codexdata file that cannot be read; the message names the file, row and value."""


# --------------------------------------------------------------------------- files


def codex_folder(path: str | os.PathLike) -> Path:
    """The codexdata folder: `path` itself, or the folder of a ``matches.csv`` given directly."""
    p = Path(path).expanduser()
    if p.is_file():
        return p.parent
    if not p.exists():
        raise FileNotFoundError(f"no codexdata folder at {str(p)!r}")
    return p


def read_codex_csv(file: Path, required: tuple[str, ...]) -> pd.DataFrame:
    """Read a CSV as text (only empty cells are missing) and check its columns."""
    try:
        frame = pd.read_csv(
            file,
            dtype=str,
            keep_default_na=False,
            na_values=[""],
            skipinitialspace=True,
            encoding="utf-8",
        )
    except (pd.errors.ParserError, UnicodeDecodeError) as err:
        raise CodexDataError(f"{file.name} is not a readable CSV file: {err}") from None
    except pd.errors.EmptyDataError:
        raise CodexDataError(f"{file.name} is empty: it needs at least a header row") from None
    frame.columns = [str(c).strip() for c in frame.columns]
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise CodexDataError(
            f"{file.name} is missing the required column(s) {', '.join(map(repr, missing))}; "
            f"it has {', '.join(map(repr, frame.columns))}"
        )
    return frame.astype(object).where(frame.notna(), None)


def _text(value: Any) -> str | None:
    """A cell as stripped text, or None when it is empty."""
    if value is None:
        return None
    text = str(value).strip()
    return text or None


def at_row(file: str, pos: int) -> str:
    """Where a data row sits in its file, as a spreadsheet shows it (the header is row 1)."""
    return f"{file} row {pos + 2} (header = row 1)"


# --------------------------------------------------------------------------- catalogue


def load_codex_catalogue(path: str | os.PathLike) -> Catalogue:
    """Build the catalogue a codexdata folder's decks are read against.

    Starts from the base Codex catalogue (`skcodex.codex.CODEX`) and adds the
    starters of ``starters.csv``, the specs of ``specs.csv`` (each with its
    starter) and the nicknames of ``nicknames.csv``; a file that is absent adds
    nothing. Variant specs and starters (``DemonBash``, ``AnarchyP22``,
    ``FireF20``, ``RedF20``) become components in their own right.

    Parameters
    ----------
    path : str or path-like
        The folder (or its ``matches.csv``).

    Returns
    -------
    Catalogue
        Immutable; it can be kept in ``DataFrame.attrs``, copied and pickled.

    Raises
    ------
    CodexDataError
        If a file lacks a required column, or a nickname uses an unknown
        spec or starter.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from skcodex.datasets import load_codex_catalogue
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "specs.csv").write_text(
    ...     "spec,starter\\nDemonBash,Black\\nFireF20,RedF20\\n"
    ... )
    >>> _ = (folder / "nicknames.csv").write_text(
    ...     "nickname,starter,spec1,spec2,spec3\\nBlack Bash,Black,DemonBash,Disease,Necromancy\\n"
    ... )
    >>> cat = load_codex_catalogue(folder)
    >>> cat.colour("DemonBash"), cat.colour("FireF20")
    ('Black', 'RedF20')
    >>> cat.nickname("Black Bash")
    Deck(starter='Black', specs=('DemonBash', 'Disease', 'Necromancy'))
    """
    folder = codex_folder(path)
    cat: Catalogue = CODEX
    try:
        file = folder / "starters.csv"
        if file.exists():
            frame = read_codex_csv(file, ("starter",))
            names = [_text(v) for v in frame["starter"]]
            blank = [i for i, v in enumerate(names) if v is None]
            if blank:
                raise CodexDataError(f"{at_row(file.name, blank[0])}: the starter name is empty")
            cat = cat.with_starters([n for n in names if n not in cat.starters])

        file = folder / "specs.csv"
        if file.exists():
            frame = read_codex_csv(file, ("spec", "starter"))
            specs: dict[str, str] = {}
            for pos, (spec, starter) in enumerate(zip(frame["spec"], frame["starter"])):
                spec, starter = _text(spec), _text(starter)
                if spec is None or starter is None:
                    raise CodexDataError(
                        f"{at_row(file.name, pos)}: every spec needs a name and a starter"
                    )
                specs[spec] = starter
            cat = cat.with_specs(specs)

        file = folder / "nicknames.csv"
        if file.exists():
            frame = read_codex_csv(file, ("nickname", "starter"))
            spec_cols = sorted(
                (c for c in frame.columns if c.startswith("spec") and c[4:].isdigit()),
                key=lambda c: int(c[4:]),
            )
            if not spec_cols:
                raise CodexDataError(
                    f"{file.name} is missing the columns 'spec1', 'spec2', 'spec3'; "
                    f"it has {', '.join(map(repr, frame.columns))}"
                )
            nicknames: dict[str, Deck] = {}
            for pos, values in enumerate(frame.to_dict("records")):
                nicknames[_nickname_name(values, file.name, pos)] = _nickname_deck(
                    cat, values, spec_cols, file.name, pos
                )
            cat = cat.with_nicknames(nicknames)
    except ValueError as err:
        if isinstance(err, CodexDataError):
            raise
        raise CodexDataError(f"the catalogue files in {str(folder)!r} clash: {err}") from None
    return cat


def _nickname_name(values: dict, file: str, pos: int) -> str:
    name = _text(values.get("nickname"))
    if name is None:
        raise CodexDataError(f"{at_row(file, pos)}: the nickname is empty")
    return name


def _nickname_deck(cat: Catalogue, values: dict, spec_cols: list, file: str, pos: int) -> Deck:
    raw = [_text(values.get(c)) for c in ("starter", *spec_cols)]
    where = f"{at_row(file, pos)} (nickname {values.get('nickname')!r})"
    if any(v is None for v in raw):
        raise CodexDataError(f"{where}: the starter and every spec must be given")
    starter = cat.canonical(raw[0])
    if starter not in cat.starters:
        raise CodexDataError(f"{where}: {raw[0]!r} is not a known starter")
    specs = []
    for name in raw[1:]:
        spec = cat.canonical(name)
        if spec not in cat.spec_colours:
            raise CodexDataError(f"{where}: {name!r} is not a known spec")
        specs.append(spec)
    if len(specs) != cat.specs_per_deck:
        raise CodexDataError(
            f"{where}: a deck has {cat.specs_per_deck} specs, this nickname has {len(specs)}"
        )
    try:
        return Deck(starter, specs)
    except ValueError as err:
        raise CodexDataError(f"{where}: {err}") from None
