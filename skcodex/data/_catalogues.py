"""Which catalogue reads a table when none is given, what an open one lets through, walk sizes.

`plain_fallback` is the Python API's side of what ``skcodex fit`` does with a
CSV of another game: when a table's decks are not Codex decks and no
catalogue was given, they are read as ``starter/component/...`` with every
name a level (`skcodex.codex._notation.plain_catalogue_for`), and a warning says
so and shows the one argument that makes it explicit. `warn_unseen_names`
warns, once per name and fitted model, when a forecast meets a starter or
component the fit never saw and the catalogue cannot check: with an open
catalogue a misspelt name would otherwise pass silently as a new level.
`warn_if_walk_is_large` warns before a skill walk that will be slow to fit.
`spelled_alike` gives an open catalogue's names the case handling of a listed
one (names that differ only in case are one name) and checks the ties of
components to starters on decks given as `Deck` values.
"""

from __future__ import annotations

import difflib
import warnings
import weakref
from typing import Any

import pandas as pd

from skcodex.codex._deck import Deck
from skcodex.codex._notation import plain_catalogue_for
from skcodex.codex._plain import PlainCatalogue
from skcodex.data._codes import walk_size
from skcodex.data._table import MatchTableError, check_match_table, table_catalogue

__all__ = [
    "WALK_STEPS_SLOW",
    "checked_with_catalogue",
    "close_name",
    "plain_fallback",
    "spelled_alike",
    "warn_if_walk_is_large",
    "warn_unseen_names",
]

#: Walk steps (one per player and period played after their first) from which
#: ``time_varying=True`` warns that the fit is slow (benchmarks/results/time_varying.json,
#: docs/model-choice.md).
WALK_STEPS_SLOW = 4000

#: The unseen names each fitted model has warned about: model -> (vocabulary, names).
_WARNED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def plain_fallback(X: Any, error: MatchTableError) -> PlainCatalogue:
    """The open catalogue for a table whose decks failed as Codex decks, or ``error`` again.

    Parameters
    ----------
    X : pandas.DataFrame
        The match table (no catalogue given for it).
    error : MatchTableError
        What reading its decks as Codex decks raised.

    Returns
    -------
    PlainCatalogue
        Open (every name a level), with the number of components the decks hold.

    Raises
    ------
    MatchTableError
        ``error`` itself when the decks are mostly Codex decks (or the table
        has no deck columns); a new one when they hold different numbers of
        components.
    """
    if not isinstance(X, pd.DataFrame) or not {"deck1", "deck2"} <= set(X.columns):
        raise error
    texts = pd.unique(X[["deck1", "deck2"]].astype(str).to_numpy().ravel())
    try:
        catalogue = plain_catalogue_for(texts)
    except ValueError as err:
        raise MatchTableError(
            f"{err}; give every deck the same number, or pass "
            "catalogue=PlainCatalogue(specs_per_deck=K) (from skcodex.codex import "
            "PlainCatalogue) to read each deck as a starter and K components"
        ) from None
    if catalogue is None:
        raise error
    k = catalogue.specs_per_deck
    warnings.warn(
        f"the decks are not Codex decks: reading each as a starter followed by {k} "
        f"component(s), every name seen a level. Say so explicitly with "
        f"catalogue=PlainCatalogue(specs_per_deck={k}), or list the names to have them "
        f"checked: catalogue=PlainCatalogue(starters=[...], specs_per_deck={k}) "
        "(from skcodex.codex import PlainCatalogue)",
        UserWarning,
        stacklevel=3,
    )
    return catalogue


def close_name(name: Any, known: Any) -> str | None:
    """The known name ``name`` was most likely meant to be, or None.

    A name that differs only in case or spaces first (``"CHAR0"`` for
    ``"char0"``), then the closest by `difflib` of the names as written, then
    of the names in lower case.
    """
    text = str(name)
    names = [str(k) for k in known]
    folded = {"".join(n.split()).casefold(): n for n in names}
    same = folded.get("".join(text.split()).casefold())
    if same is not None and same != text:
        return same
    hint = difflib.get_close_matches(text, names, n=1)
    if hint:
        return hint[0]
    hint = difflib.get_close_matches(text.casefold(), list(folded), n=1)
    return folded[hint[0]] if hint else None


def warn_unseen_names(model: Any, catalogue: Any, codes: Any) -> None:
    """Warn once per never-seen starter or component name that ``catalogue`` does not list.

    A closed catalogue has already refused unknown names (with a "did you
    mean"); a name it lists but the fit never saw is a real new level. With
    an open list (`PlainCatalogue` without ``starters`` or ``components``)
    any string passes, so a misspelling would become a new level unnoticed.

    Parameters
    ----------
    model : fitted estimator
        Its ``vocabulary_`` keys which names it has warned about.
    catalogue : Catalogue, PlainCatalogue or None
        The catalogue the table was read against.
    codes : skcodex.data.MatchCodes
        The table encoded against the model's vocabulary.
    """
    if not isinstance(catalogue, PlainCatalogue):
        return
    kinds = []
    if catalogue.starters is None:
        kinds.append((catalogue.starter_word, codes.unseen_starters, model.vocabulary_.starters))
    if catalogue.components is None:
        kinds.append((catalogue.component_word, codes.unseen_specs, model.vocabulary_.specs))
    vocabulary, warned = _WARNED.get(model, (None, set()))
    if vocabulary is not model.vocabulary_:
        warned = set()
    for word, names, known in kinds:
        for name in names:
            if (word, name) in warned:
                continue
            warned.add((word, name))
            hint = close_name(name, known)
            also = f" (did you mean {hint!r}?)" if hint is not None else ""
            warnings.warn(
                f"{word} {name!r} was not in the fitted matches{also}; it is forecast as a new "
                f"{word}, its effects drawn from the population of {word}s",
                UserWarning,
                stacklevel=4,
            )
    _WARNED[model] = (model.vocabulary_, warned)


def spelled_alike(table: pd.DataFrame, catalogue: Any, vocabulary: Any = None) -> pd.DataFrame:
    """``table``'s decks with an open catalogue's names spelled one way, and ties checked.

    A listed catalogue matches names case-insensitively and spells them as it
    lists them. An open one (starters or components None) cannot know the
    spelling beforehand, so names of an open kind that differ only in case
    are made one name here: spelled as ``vocabulary`` (the fitted model's
    levels) spells them, else as the first match of ``table`` that holds the
    name. Every distinct deck is then checked against the catalogue's ties of
    components to starters (`PlainCatalogue.check_ties`), which deck strings
    already were when read but `Deck` values were not.

    Parameters
    ----------
    table : pandas.DataFrame
        A checked match table (`check_match_table`), its decks `Deck` values;
        changed in place when a name is respelt.
    catalogue : Catalogue, PlainCatalogue or None
        The catalogue the table was read against; nothing is done unless it is
        a `PlainCatalogue`.
    vocabulary : skcodex.data.Vocabulary, optional
        The fitted model's levels, whose spellings win.

    Returns
    -------
    pandas.DataFrame
        ``table``.

    Raises
    ------
    MatchTableError
        If a deck holds a component tied to another starter.
    """
    if not isinstance(catalogue, PlainCatalogue) or not len(table):
        return table
    kinds = []
    for open_, known in (
        (catalogue.starters is None, getattr(vocabulary, "starters", ())),
        (catalogue.components is None, getattr(vocabulary, "specs", ())),
    ):
        spelling: dict[str, str] | None = None
        if open_:
            spelling = {}
            for name in known:
                spelling.setdefault(str(name).casefold(), str(name))
        kinds.append(spelling)
    starters, components = kinds
    if starters is None and components is None and not catalogue.tied_to:
        return table
    distinct = pd.unique(table[["deck1", "deck2"]].to_numpy().ravel())  # in order of play
    respelt: dict[Deck, Deck] = {}
    for deck in distinct:
        starter = deck.starter
        if starters is not None:
            starter = starters.setdefault(starter.casefold(), starter)
        specs = deck.specs
        if components is not None:
            specs = tuple(components.setdefault(c.casefold(), c) for c in specs)
        try:
            new = Deck(starter, specs) if (starter, specs) != (deck.starter, deck.specs) else deck
            catalogue.check_ties(new)
        except ValueError as err:
            raise MatchTableError(str(err)) from None
        if new is not deck:
            respelt[deck] = new
    if respelt:
        for column in ("deck1", "deck2"):
            table[column] = pd.Series(
                [respelt.get(d, d) for d in table[column]], index=table.index, dtype=object
            )
    return table


def warn_if_walk_is_large(codes: Any) -> None:
    """Warn when a skill walk over ``codes`` has `WALK_STEPS_SLOW` steps or more.

    Parameters
    ----------
    codes : skcodex.data.MatchCodes
        The training table, encoded, with its rating periods.
    """
    n_steps, every_period = walk_size(codes)
    if n_steps < WALK_STEPS_SLOW:
        return
    warnings.warn(
        f"time_varying=True on {codes.n_players:,} players and {codes.n_epochs:,} rating "
        f"periods: the skill walk takes {n_steps:,} steps (one per player and period played "
        f"after the player's first; {every_period:,} through every period). Expect the fit to take "
        "several times longer than without the walk and the step spread to mix slowly "
        "(low ESS, R-hat warnings); coarser periods (months rather than tournaments) shrink "
        "it. See 'The skill walk on many players and periods' in docs/model-choice.md.",
        UserWarning,
        stacklevel=4,
    )


def checked_with_catalogue(
    X: Any, catalogue: Any = None, *, warn: bool = True
) -> tuple[pd.DataFrame, Any]:
    """``X`` checked against its catalogue, another game's decks read as the command line does.

    The catalogue is the given one, else the table's own (`table_catalogue`);
    with neither, decks that are not Codex decks are read through `plain_fallback`,
    which warns that it did so (silenced with ``warn=False``, for a table read
    again after a fit that warned).

    Returns
    -------
    table : pandas.DataFrame
        The checked match table.
    catalogue : Catalogue, PlainCatalogue or None
        The catalogue it was read with.
    """
    catalogue = table_catalogue(X, catalogue)
    try:
        return check_match_table(X, catalogue), catalogue
    except MatchTableError as err:
        if catalogue is not None:
            raise
        with warnings.catch_warnings():
            if not warn:
                warnings.simplefilter("ignore", UserWarning)
            catalogue = plain_fallback(X, err)  # another game's decks
        return check_match_table(X, catalogue), catalogue
