"""The classes a saved file may hold, listed once, and `register_savable` for more.

A saved file names classes by name only: the estimator it holds and the value
classes among its fitted attributes. Loading builds only classes listed here,
so a file can never name an arbitrary class. Two kinds are listed:

estimators
    Classes with the ``save`` method of `skcodex._format.persistence.PersistenceMixin`
    that declare their fitted attributes in ``_persisted_state``. A file
    holds their constructor parameters and those attributes.
values
    Classes of fitted attribute values. A dataclass is saved as its
    ``__init__`` fields; any other class is saved through the pair of
    functions it was registered with (``to_state`` and ``from_state``), as
    the game's `Catalogue` and `Deck` are.

skcodex's own classes are listed by module in `ESTIMATORS` and `VALUES`
and imported when a file first needs them: this module imports the classes
it lists, they never import it. Other classes join with `register_savable`.

Examples
--------
>>> import dataclasses
>>> from skcodex._format.savable import register_savable
>>> @register_savable
... @dataclasses.dataclass(frozen=True)
... class Season:
...     year: int
...     name: str
>>> register_savable(Season) is Season
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from importlib import import_module
from typing import Any

from skcodex.codex import Catalogue, Deck

__all__ = [
    "CODEC_TAGS",
    "ESTIMATORS",
    "VALUES",
    "SavableValue",
    "estimator_class",
    "estimator_names",
    "register_savable",
    "value_entry",
    "value_entry_for",
]


#: The tags the state codec (`state_codec.Reader`) reads as values of its own, before any
#: class listed here: no class registered with ``to_state`` may take one of these names.
CODEC_TAGS = frozenset(
    {
        "NaT",
        "RandomState",
        "dataclass",
        "dict",
        "float",
        "frame",
        "index",
        "ndarray",
        "object_array",
        "posterior",
        "range_index",
        "scalar",
        "series",
        "timedelta",
        "timestamp",
        "tuple",
    }
)


@dataclasses.dataclass(frozen=True)
class SavableValue:
    """How a value class is written to a file and built again.

    Parameters
    ----------
    cls : type
        The class.
    to_state : callable or None
        ``to_state(value) -> dict`` of the values that rebuild it; None for a
        dataclass, whose ``__init__`` fields are its state.
    from_state : callable or None
        ``from_state(dict) -> value``, the inverse of ``to_state``; None for a
        dataclass, rebuilt as ``cls(**fields)``.
    """

    cls: type
    to_state: Callable[[Any], dict] | None = None
    from_state: Callable[[dict], Any] | None = None

    @property
    def as_fields(self) -> bool:
        """Whether the value is saved as its dataclass fields."""
        return self.to_state is None


def _catalogue_state(catalogue: Catalogue) -> dict:
    return {
        "spec_colours": [[spec, colour] for spec, colour in catalogue.spec_colours.items()],
        "starters": list(catalogue.starters),
        "nicknames": [
            [name, deck.starter, list(deck.specs)] for name, deck in catalogue.nicknames.items()
        ],
        "specs_per_deck": int(catalogue.specs_per_deck),
    }


def _catalogue_from_state(state: dict) -> Catalogue:
    return Catalogue(
        {str(spec): str(colour) for spec, colour in state["spec_colours"]},
        tuple(str(starter) for starter in state["starters"]),
        {
            str(name): Deck(str(starter), [str(spec) for spec in specs])
            for name, starter, specs in state["nicknames"]
        },
        int(state["specs_per_deck"]),
    )


def _deck_state(deck: Deck) -> dict:
    return {"starter": deck.starter, "specs": list(deck.specs)}


def _deck_from_state(state: dict) -> Deck:
    return Deck(str(state["starter"]), [str(spec) for spec in state["specs"]])


#: skcodex's estimators a file may hold: each class's name and its module.
ESTIMATORS: dict[str, str] = {
    "BayesianMatchupClassifier": "skcodex._classifier",
    "EloClassifier": "skcodex.ratings._elo",
    "Glicko2Classifier": "skcodex.ratings._glicko2",
    "MatchupEncoder": "skcodex.preprocessing",
}

#: skcodex's value classes a file may hold: each class's name and its module
#: (a dataclass, saved as its fields), or how it is saved.
VALUES: dict[str, str | SavableValue] = {
    "Vocabulary": "skcodex.data._codes",
    "ModelOptions": "skcodex._matchup.options",
    "Layout": "skcodex._matchup.layout",
    "SpreadPriors": "skcodex._matchup.graph",
    "PlainCatalogue": "skcodex.codex",
    "Catalogue": SavableValue(Catalogue, _catalogue_state, _catalogue_from_state),
    "Deck": SavableValue(Deck, _deck_state, _deck_from_state),
}

_CATALOGUES = frozenset(("Catalogue", "PlainCatalogue"))
_VOCABULARY = frozenset(("Vocabulary", "Deck"))
_LAYOUT = frozenset(("Layout", "ModelOptions"))

#: What each of skcodex's estimators may hold, by parameter or fitted attribute: the
#: value classes (and ``"posterior"``) that may appear anywhere inside it. A
#: parameter or attribute not listed holds none of them: a file naming a value class
#: (even a registered one) or a posterior anywhere else is refused before anything
#: is built. Estimators registered with `register_savable` are not listed: their
#: parameters and attributes may hold any listed or registered value class.
HELD: dict[str, dict[str, frozenset[str]]] = {
    "BayesianMatchupClassifier": {
        "catalogue": _CATALOGUES,
        "catalogue_": _CATALOGUES,
        "vocabulary_": _VOCABULARY,
        "layout_": _LAYOUT,
        "idata_": frozenset(("posterior",)),
    },
    "MatchupEncoder": {"catalogue": _CATALOGUES, "vocabulary_": _VOCABULARY, "layout_": _LAYOUT},
    "EloClassifier": {},
    "Glicko2Classifier": {},
}


_RATINGS = {
    "classes_": "ndarray",
    "first_mover_advantage_": "number",
    "n_periods_": "int",
    "ratings_": "DataFrame",
    "_players": "Index",
}

#: The kind of value each fitted attribute of skcodex's estimators is, checked once
#: the file's values are built (before any is set): ``"ndarray"``, ``"int"``,
#: ``"number"``, ``"DataFrame"``, ``"Index"``, ``"list"``, ``"posterior"``, or the
#: value classes the attribute may be (`HELD`).
KINDS: dict[str, dict[str, str]] = {
    "BayesianMatchupClassifier": {
        "classes_": "ndarray",
        "idata_": "posterior",
        "vocabulary_": "Vocabulary",
        "catalogue_": "Catalogue PlainCatalogue NoneType",
        "layout_": "Layout",
        "_unseen_seed": "int",
        "feature_names_in_": "ndarray",
        "n_features_in_": "int",
        "convergence_problems_": "list",
        "part_evidence_": "DataFrame NoneType",
        "late_arrivals_": "ndarray NoneType",
        "half_life_": "float NoneType",
        "half_life_evidence_": "DataFrame NoneType",
    },
    "MatchupEncoder": {"vocabulary_": "Vocabulary", "layout_": "Layout"},
    "EloClassifier": {**_RATINGS, "_rating": "ndarray"},
    "Glicko2Classifier": {**_RATINGS, "_mu": "ndarray", "_phi2": "ndarray"},
}


def held_by(estimator: str, name: str) -> frozenset[str] | None:
    """The value classes the parameter or attribute ``name`` of ``estimator`` may hold.

    None: any (an estimator registered with `register_savable`).
    """
    if estimator not in HELD:
        return None
    return HELD[estimator].get(name, frozenset())


#: The classes registered so far, by name, and the listed ones once imported.
_estimators: dict[str, type] = {}
_values: dict[str, SavableValue] = {}


def estimator_class(name: str) -> type | None:
    """The estimator class a file may name ``name``, or None if there is none."""
    if name not in _estimators and name in ESTIMATORS:
        _estimators[name] = getattr(import_module(ESTIMATORS[name]), name)
    return _estimators.get(name)


def estimator_names() -> list[str]:
    """The names of every estimator class a file may hold, sorted."""
    return sorted({*ESTIMATORS, *_estimators})


def value_entry(name: str) -> SavableValue | None:
    """How the value class a file names ``name`` is built, or None if there is none."""
    if name not in _values and name in VALUES:
        listed = VALUES[name]
        if isinstance(listed, str):
            listed = SavableValue(getattr(import_module(listed), name))
        _values[name] = listed
    return _values.get(name)


def value_entry_for(value: Any) -> tuple[str, SavableValue] | None:
    """The name and entry under which ``value``'s own class is saved, or None."""
    name = type(value).__name__
    entry = value_entry(name)
    if entry is None or entry.cls is not type(value):
        return None
    return name, entry


def _check_name_free(name: str, cls: type, taken: type | None) -> None:
    if taken is not None and taken is not cls:
        raise ValueError(
            f"cannot register {cls.__module__}.{cls.__qualname__}: a saved file already "
            f"names {taken.__module__}.{taken.__qualname__} {name!r}"
        )


def register_savable(
    klass: type | None = None,
    *,
    to_state: Callable[[Any], dict] | None = None,
    from_state: Callable[[dict], Any] | None = None,
) -> Any:
    """Let a saved file hold instances of ``klass``, named by its class name.

    Usable as a class decorator. An estimator (a class declaring the
    attributes a saved file holds, as skcodex's estimators do) is saved with its constructor
    parameters and those attributes; a dataclass value with its ``__init__``
    fields; any other value class through ``to_state`` and ``from_state``.

    Parameters
    ----------
    klass : type, optional, default None
        The class; omitted when used as ``@register_savable(to_state=...,
        from_state=...)``.
    to_state : callable, optional, default None
        For a value class that is not a dataclass: ``to_state(value)``
        returns a dict of str keys to savable values.
    from_state : callable, optional, default None
        The inverse of ``to_state``: builds the value from that dict.

    Returns
    -------
    type
        ``klass`` itself (or, without ``klass``, a decorator).

    Raises
    ------
    TypeError
        If ``klass`` is not a class, is neither an estimator nor a dataclass and
        has no ``to_state``/``from_state``, or only one of the two is given.
    ValueError
        If another class is already saved under the same name.
    """
    if klass is None:
        return lambda inner: register_savable(inner, to_state=to_state, from_state=from_state)
    if not isinstance(klass, type):
        raise TypeError(f"register_savable takes a class, got {type(klass).__name__}")
    if (to_state is None) != (from_state is None):
        raise TypeError(f"{klass.__name__}: give both to_state and from_state, or neither")
    name = klass.__name__
    if "_persisted_state" in dir(klass) and to_state is None:
        if not hasattr(klass, "get_params") or not hasattr(klass, "_get_param_names"):
            raise TypeError(
                f"{name} declares _persisted_state but is not a scikit-learn estimator "
                "(it has no get_params)"
            )
        _check_name_free(name, klass, estimator_class(name))
        _estimators[name] = klass
        return klass
    if to_state is None and not dataclasses.is_dataclass(klass):
        raise TypeError(
            f"{name} is not a dataclass: register it with to_state and from_state functions"
        )
    if to_state is not None and name in CODEC_TAGS:  # the codec reads its own tags first
        raise ValueError(f"cannot register {name!r}: the file format uses that name itself")
    taken = value_entry(name)
    _check_name_free(name, klass, None if taken is None else taken.cls)
    _values[name] = SavableValue(klass, to_state, from_state)
    return klass
