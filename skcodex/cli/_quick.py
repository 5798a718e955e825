"""``skcodex predict``'s quick path: one forecast from the model file, without the estimator.

Loading the estimator imports scikit-learn (its base classes) and, on the ArviZ
0.x line, ArviZ: over two seconds of CPU before any arithmetic. A forecast
between players and decks the model has seen needs neither: the file's
posterior, layout and vocabulary, the match encoded as the estimator encodes
it, and the effect draws the estimator derives (`skcodex._matchup.readers`), all
from the same functions the estimator calls. A match with a never-seen player,
starter or component, or any file this path does not read, goes the whole way
(`quick_forecast` answers None), so both paths give the same numbers
(``tests/test_cli.py`` compares them).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

#: The fitted attributes the quick path reads.
_NAMES = ("idata_", "vocabulary_", "catalogue_", "layout_", "_unseen_seed")


@dataclasses.dataclass(frozen=True)
class QuickModel:
    """What a forecast reads of a saved classifier: the stand-in for the estimator here."""

    idata_: Any
    vocabulary_: Any
    catalogue_: Any
    layout_: Any
    _unseen_seed: int
    catalogue: Any = None
    symmetric: bool = False


def read_quick_model(path: Path) -> QuickModel | None:
    """The parts of the saved classifier at ``path`` a forecast reads, or None if unreadable."""
    from skcodex._format.persistence import read_saved_state
    from skcodex._matchup import readers as fit_readers
    from skcodex.exceptions import PersistenceError

    try:
        state = read_saved_state(path, "BayesianMatchupClassifier", _NAMES)
    except (PersistenceError, OSError, ValueError, KeyError, TypeError):
        return None  # the whole way says what is wrong, as it always has
    layout = fit_readers.upgrade_saved_layout(state["layout_"], state["idata_"])
    return QuickModel(
        idata_=state["idata_"],
        vocabulary_=state["vocabulary_"],
        catalogue_=state["catalogue_"],
        layout_=layout,
        _unseen_seed=state["_unseen_seed"],
        catalogue=state["params"].get("catalogue"),
        symmetric=bool(state["params"].get("symmetric", False)),
    )


def quick_probability_draws(model: QuickModel, table: pd.DataFrame) -> np.ndarray | None:
    """P(player 1 wins) per draw for ``table``'s matches, as ``predict_proba_draws`` gives it.

    None when a match has a level the fit never saw (the estimator draws
    those; this path does not), or for a model fitted with draws.
    """
    from skcodex._compat import posterior
    from skcodex._matchup import debut as debut_decks
    from skcodex._matchup import readers as fit_readers
    from skcodex._matchup.prediction import win_probability_draws
    from skcodex.data import _kinds as kinds
    from skcodex.data import check_match_table, encode
    from skcodex.data._catalogues import spelled_alike

    if getattr(model.layout_.options, "draws", False):
        return None  # a model with draws: P(player 1 wins) needs its threshold
    catalogue = model.catalogue or model.catalogue_
    table = spelled_alike(check_match_table(table, catalogue), catalogue, model.vocabulary_)
    codes = encode(table, model.vocabulary_)
    if kinds.has_unseen(codes):
        return None
    sampled = model.layout_
    forecast = sampled.static()
    layout = dataclasses.replace(forecast, **kinds.grown_sizes(forecast, codes))
    if layout != forecast:
        return None
    index = layout.index_matrix(codes)
    idata = model.idata_
    sd = posterior.draws(idata, "sd").astype(np.float64)
    theta, _ = fit_readers.current_effects(
        fit_readers.effect_draws(idata, sampled),
        sd,
        sampled,
        model._unseen_seed,
        fit_readers.training_index(idata),
    )
    signs = forecast.signs
    rows = np.zeros(len(index), dtype=bool)
    columns = factor = None
    if debut_decks.has_factor(sampled):
        factor = debut_decks.factor_draws(idata)
        if factor is not None:
            rows = debut_decks.debut_rows(layout, index)
            columns = debut_decks.deck_columns(forecast)
    return debut_decks.by_rows(
        lambda t, i, _: win_probability_draws(t, i, signs, engine="numpy"),
        theta,
        index,
        rows,
        columns,
        factor,
    )


def quick_forecast(
    model: QuickModel, table: pd.DataFrame, interval: float
) -> tuple[float, float, float] | None:
    """``(mean, lower, upper)`` of the first match of ``table``, as `match_forecast` gives them."""
    p = quick_probability_draws(model, table)
    if p is None:
        return None
    tail = (1.0 - interval) / 2.0
    lower, upper = np.quantile(p, tail, axis=0), np.quantile(p, 1.0 - tail, axis=0)
    return float(p.mean(axis=0)[0]), float(lower[0]), float(upper[0])


def player1_words(catalogue: Any, layout: Any, symmetric: bool) -> str:
    """How a forecast line names player 1: ``, moving first,``, ``, listed first,`` or nothing.

    As the report says it (`skcodex.report.game_words`): Codex, or a model
    with a first-move effect, has a side that moves first; another ordered
    game's player 1 is the side listed first; a symmetric game has neither.
    """
    from skcodex.codex import PlainCatalogue

    if symmetric or getattr(layout.options, "symmetric", False):
        return ""
    codex = not isinstance(catalogue, PlainCatalogue) and int(layout.specs_per_deck) == 3
    if codex or getattr(layout.options, "first_move", False):
        return ", moving first,"
    return ", listed first,"
