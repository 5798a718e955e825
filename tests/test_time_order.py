"""The match table's time order is computed once per fit, at the boundary, and carried.

Before, one fit ordered its table in time three to five times (the vocabulary's
debut periods and period order, the encoding's epochs, the walk's date check and
the posterior's period names); now `TimeOrder.of` computes it once and the
vocabulary, the encoding and the period names read it.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from skcodex import BayesianMatchupClassifier
from skcodex.data import (
    MatchTableError,
    Vocabulary,
    _table,
    check_match_table,
    encode,
)
from skcodex.data._codes import period_labels
from skcodex.data._table import TimeOrder, check_dated
from skcodex.datasets import make_matches


@pytest.fixture
def shuffled():
    data = make_matches(n_players=8, n_matches=90, n_tournaments=3, random_state=1)
    order = np.random.default_rng(0).permutation(len(data.y))
    return data.X.iloc[order].reset_index(drop=True), data.y[order]


def test_a_fit_orders_its_table_in_time_once(shuffled, monkeypatch):
    X, y = shuffled
    calls = []
    original = _table.time_order

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(_table, "time_order", counted)
    clf = BayesianMatchupClassifier(
        time_varying=True, debut=True, period_offset=True, draws=10, tune=10, chains=1
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf.fit(X, y)
    assert len(calls) == 1
    # the walk's periods are named in the order they began, from the order carried
    assert list(clf.idata_.posterior["epoch"].values) == period_labels(check_match_table(X))


def test_the_carried_order_gives_what_computing_it_again_gives(shuffled):
    table = check_match_table(shuffled[0])
    time = TimeOrder.of(table)
    assert time.rows is not None  # the shuffled rows are out of order
    assert Vocabulary.from_table(table, time=time) == Vocabulary.from_table(table)
    vocab = Vocabulary.from_table(table)
    carried, again = encode(table, vocab, time=time), encode(table, vocab)
    np.testing.assert_array_equal(carried.epoch, again.epoch)
    assert period_labels(table, time=time) == period_labels(table)


def test_a_walk_still_refuses_a_match_without_a_date(shuffled):
    X, y = shuffled
    X = X.copy()
    X.loc[3, "date"] = None
    with pytest.raises(MatchTableError, match="column 'date' is missing a value at row 3"):
        check_dated(check_match_table(X))
    with pytest.raises(MatchTableError, match="column 'date' is missing a value at row 3"):
        BayesianMatchupClassifier(time_varying=True, draws=10, tune=10, chains=1).fit(X, y)
