"""TournamentSplit: exact folds on handmade tables, overlap, errors, and sklearn integration."""

import numpy as np
import pandas as pd
import pytest
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.model_selection import GridSearchCV, cross_val_score

from skcodex import TournamentSplit
from skcodex.metrics import brier_scorer

# Five tournaments; L is a long series overlapping B, C and D, and A overlaps B.
#   pos period start  end            spans: A [01-01, 01-07]  L [01-03, 03-01]
#   0   A      01-01  01-02                 B [01-05, 01-08]  C [01-08, 01-11]
#   1   A      01-02  01-04                 D [01-12, 01-14]
#   2   L      01-03  03-01          order by start: A, L, B, C, D
#   3   B      01-05  01-06
#   4   A      01-05  01-07
#   5   B      01-06  01-08
#   6   C      01-08  01-09
#   7   L      01-09  01-10
#   8   C      01-09  01-11
#   9   D      01-12  01-13
#   10  D      01-12  01-14
PERIOD = ["A", "A", "L", "B", "A", "B", "C", "L", "C", "D", "D"]
START = ["01-01", "01-02", "01-03", "01-05", "01-05", "01-06", "01-08", "01-09", "01-09", "01-12"]
START = [*START, "01-12"]
END = ["01-02", "01-04", "03-01", "01-06", "01-07", "01-08", "01-09", "01-10", "01-11", "01-13"]
END = [*END, "01-14"]
Y = np.array([1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 0])

# train = every match that ended strictly before the test tournament started
FOLDS_3 = [
    ([0, 1], [3, 5]),  # B starts 01-05: row 4 (A, ends 01-07) and row 2 (L) are out
    ([0, 1, 3, 4], [6, 8]),  # C starts 01-08: row 5 ends on 01-08, so it is out
    ([0, 1, 3, 4, 5, 6, 7, 8], [9, 10]),  # D starts 01-12: L's row 2 has not ended
]
FOLD_L = ([0], [2, 7])  # L starts 01-03: only row 0 has ended


def table(dates=True):
    X = pd.DataFrame(
        {
            "player1": list("abcdeabcdea"),
            "player2": list("bcdeabcdeab"),
            "deck1": ["MonoRed"] * 11,
            "deck2": ["MonoBlue"] * 11,
            "period": PERIOD,
        }
    )
    if dates:
        X["start"] = pd.to_datetime(["2020-" + d for d in START])
        X["end"] = pd.to_datetime(["2020-" + d for d in END])
    return X


def as_lists(folds):
    return [(train.tolist(), test.tolist()) for train, test in folds]


def test_folds_with_overlapping_tournaments():
    cv = TournamentSplit(n_splits=3)
    assert as_lists(cv.split(table())) == FOLDS_3
    assert as_lists(TournamentSplit(n_splits=4).split(table())) == [FOLD_L, *FOLDS_3]


def test_index_arrays_are_integer_positions():
    X = table()
    X.index = [f"m{i}" for i in range(len(X))]
    for train, test in TournamentSplit(3).split(X):
        assert train.dtype.kind == "i" and test.dtype.kind == "i"
    assert as_lists(TournamentSplit(3).split(X)) == FOLDS_3


def test_row_order_does_not_matter_when_there_are_dates():
    X = table()
    perm = np.random.default_rng(0).permutation(len(X))
    shuffled = X.iloc[perm].reset_index(drop=True)
    folds = as_lists(TournamentSplit(3).split(shuffled))
    expected = [(sorted(perm.argsort()[tr]), sorted(perm.argsort()[te])) for tr, te in FOLDS_3]
    assert folds == [(list(map(int, tr)), list(map(int, te))) for tr, te in expected]


def test_without_dates_the_row_order_is_the_time_order():
    # first rows: A 0, L 2, B 3, C 6, D 9; train = every row above the first test row
    cv = TournamentSplit(n_splits=3)
    assert as_lists(cv.split(table(dates=False))) == [
        ([0, 1, 2], [3, 5]),
        ([0, 1, 2, 3, 4, 5], [6, 8]),
        ([0, 1, 2, 3, 4, 5, 6, 7, 8], [9, 10]),
    ]


def test_a_date_column_is_a_one_day_match():
    X = table().drop(columns=["start", "end"])
    X["date"] = pd.to_datetime(["2020-" + d for d in START])
    # B starts 01-05: rows 0, 1, 2 are dated before it
    assert as_lists(TournamentSplit(2).split(X)) == [
        ([0, 1, 2, 3, 4, 5], [6, 8]),
        ([0, 1, 2, 3, 4, 5, 6, 7, 8], [9, 10]),
    ]
    X["date"] = X["date"].dt.strftime("%Y-%m-%d")  # dates as text are read too
    assert as_lists(TournamentSplit(2).split(X))[0] == ([0, 1, 2, 3, 4, 5], [6, 8])


def test_groups_override_the_period_column_and_work_without_a_table():
    X = table()
    X["period"] = "ignored"
    assert as_lists(TournamentSplit(3).split(X, groups=PERIOD)) == FOLDS_3
    positions = np.arange(11).reshape(-1, 1)
    assert as_lists(TournamentSplit(3).split(positions, Y, np.array(PERIOD))) == [
        ([0, 1, 2], [3, 5]),
        ([0, 1, 2, 3, 4, 5], [6, 8]),
        ([0, 1, 2, 3, 4, 5, 6, 7, 8], [9, 10]),
    ]


def test_ties_in_start_are_broken_by_end_then_first_row():
    X = pd.DataFrame(
        {
            "period": ["P", "Q", "R", "Q", "S"],
            "start": pd.to_datetime(
                ["2020-01-01", "2020-01-03", "2020-01-03", "2020-01-04", "2020-01-09"]
            ),
            "end": pd.to_datetime(
                ["2020-01-02", "2020-01-05", "2020-01-04", "2020-01-05", "2020-01-10"]
            ),
        }
    )
    # R and Q both start 01-03; R ends first, so the order is P, R, Q, S
    assert TournamentSplit(3).describe(X)["tournament"].tolist() == ["R", "Q", "S"]


def test_describe():
    info = TournamentSplit(3).describe(table())
    assert info["tournament"].tolist() == ["B", "C", "D"]
    assert info["n_train"].tolist() == [2, 4, 8]
    assert info["n_test"].tolist() == [2, 2, 2]
    assert info["start"].tolist() == list(
        pd.to_datetime(["2020-01-05", "2020-01-08", "2020-01-12"])
    )
    assert info["end"].tolist() == list(pd.to_datetime(["2020-01-08", "2020-01-11", "2020-01-14"]))
    assert info["train_end"].tolist() == list(
        pd.to_datetime(["2020-01-04", "2020-01-07", "2020-01-11"])
    )


def test_get_n_splits_and_repr():
    cv = TournamentSplit()
    assert cv.n_splits == 8
    assert cv.get_n_splits() == 8
    assert TournamentSplit(3).get_n_splits(table(), Y, PERIOD) == 3
    assert repr(TournamentSplit(5)) == "TournamentSplit(n_splits=5)"


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize("bad", [0, -1, 2.0, "3", True, None])
def test_n_splits_must_be_a_positive_integer(bad):
    with pytest.raises(ValueError, match="n_splits must be an integer >= 1"):
        TournamentSplit(bad)


def test_too_few_tournaments():
    with pytest.raises(ValueError, match=r"needs at least 6 tournaments.*the data have 5"):
        list(TournamentSplit(5).split(table()))


def test_a_fold_with_nothing_to_train_on():
    X = pd.DataFrame(
        {
            "period": ["A", "B", "A", "C"],
            "start": pd.to_datetime(["2020-01-01", "2020-01-03", "2020-01-04", "2020-01-09"]),
            "end": pd.to_datetime(["2020-01-05", "2020-01-04", "2020-01-06", "2020-01-10"]),
        }
    )
    assert as_lists(TournamentSplit(1).split(X)) == [([0, 1, 2], [3])]
    with pytest.raises(ValueError, match=r"tournament 'B' .*nothing to train on"):
        list(TournamentSplit(2).split(X))


def test_no_tournament_labels():
    X = table().drop(columns="period")
    with pytest.raises(ValueError, match=r"give X a 'period' column or pass groups="):
        list(TournamentSplit(2).split(X))
    with pytest.raises(ValueError, match=r"'period' column or pass groups="):
        list(TournamentSplit(2).split(np.zeros((11, 2))))


def test_bad_groups_and_dates():
    X = table()
    with pytest.raises(ValueError, match="X has 11 rows, groups has shape"):
        list(TournamentSplit(2).split(X, groups=PERIOD[:-1]))
    bad = list(PERIOD)
    bad[4] = None
    with pytest.raises(ValueError, match="tournament label is missing at row 4"):
        list(TournamentSplit(2).split(X, groups=bad))
    X.loc[3, "end"] = pd.Timestamp("2019-12-31")
    with pytest.raises(ValueError, match="row 3 ends before it starts"):
        list(TournamentSplit(2).split(X))
    X = table()
    X["start"] = X["start"].astype(object)
    X.loc[5, "start"] = "not a date"
    with pytest.raises(ValueError, match="cannot read column 'start' as dates"):
        list(TournamentSplit(2).split(X))


# --------------------------------------------------------------------------- properties


@st.composite
def tournaments(draw):
    n_t = draw(st.integers(2, 6))
    rows = []
    for t in range(n_t):
        begin = draw(st.integers(0, 40))
        for _ in range(draw(st.integers(1, 5))):
            start = begin + draw(st.integers(0, 10))
            rows.append((f"T{t}", start, start + draw(st.integers(0, 6))))
    order = draw(st.permutations(range(len(rows))))
    rows = [rows[i] for i in order]
    day = pd.Timestamp("2020-01-01")
    return pd.DataFrame(
        {
            "period": [r[0] for r in rows],
            "start": [day + pd.Timedelta(days=r[1]) for r in rows],
            "end": [day + pd.Timedelta(days=r[2]) for r in rows],
        }
    )


@settings(max_examples=60, deadline=None)
@given(tournaments(), st.integers(1, 5))
def test_every_fold_trains_on_exactly_the_matches_that_ended_before(X, n_splits):
    cv = TournamentSplit(n_splits)
    try:
        folds = list(cv.split(X))
    except ValueError as err:
        assert "tournaments" in str(err) or "nothing to train on" in str(err)
        return
    assert len(folds) == n_splits == cv.get_n_splits()
    starts = []
    for train, test in folds:
        label = X["period"].iloc[test].unique()
        assert len(label) == 1
        assert test.tolist() == np.flatnonzero(X["period"] == label[0]).tolist()
        t_start = X["start"].iloc[test].min()
        assert train.tolist() == np.flatnonzero(X["end"] < t_start).tolist()
        assert len(train) > 0
        starts.append(t_start)
    assert starts == sorted(starts)
    # the test tournaments are the ones that start last
    first = X.groupby("period")["start"].min()
    tested = {X["period"].iloc[test[0]] for _, test in folds}
    assert first[list(tested)].min() >= first.drop(list(tested)).max()


# --------------------------------------------------------------------------- sklearn


class BaseRate(ClassifierMixin, BaseEstimator):
    """Predicts player 1's training win rate, shrunk toward 1/2 by `prior_weight` matches."""

    def __init__(self, prior_weight=0.0):
        self.prior_weight = prior_weight

    def fit(self, X, y):
        y = np.asarray(y)
        self.classes_ = np.array([0, 1])
        self.p_ = (y.sum() + 0.5 * self.prior_weight) / (len(y) + self.prior_weight)
        return self

    def predict_proba(self, X):
        return np.tile([1 - self.p_, self.p_], (len(X), 1))

    def predict(self, X):
        return (self.predict_proba(X)[:, 1] > 0.5).astype(int)


# Base rates of the training folds of FOLDS_3 and the Brier scores on their test rows:
#   B: train y = 1, 1          -> p = 1     test y = 1, 0 -> (0 + 1) / 2
#   C: train y = 1, 1, 1, 0    -> p = 3/4   test y = 1, 0 -> (1/16 + 9/16) / 2
#   D: train y = 1,1,1,0,0,1,1,0 -> p = 5/8 test y = 1, 0 -> (9/64 + 25/64) / 2
EXPECTED_SCORES = [-0.5, -0.3125, -0.265625]


def test_cross_val_score_reads_the_period_column():
    scores = cross_val_score(BaseRate(), table(), Y, cv=TournamentSplit(3), scoring=brier_scorer)
    np.testing.assert_allclose(scores, EXPECTED_SCORES)


def test_cross_val_score_with_groups():
    X = table().drop(columns="period")
    scores = cross_val_score(
        BaseRate(), X, Y, groups=PERIOD, cv=TournamentSplit(3), scoring=brier_scorer
    )
    np.testing.assert_allclose(scores, EXPECTED_SCORES)


def test_cross_val_score_with_metadata_routing():
    with sklearn.config_context(enable_metadata_routing=True):
        scores = cross_val_score(
            BaseRate(), table(), Y, cv=TournamentSplit(3), scoring=brier_scorer
        )
        np.testing.assert_allclose(scores, EXPECTED_SCORES)
        X = table().drop(columns="period")
        scores = cross_val_score(
            BaseRate(),
            X,
            Y,
            params={"groups": PERIOD},
            cv=TournamentSplit(3),
            scoring=brier_scorer,
        )
        np.testing.assert_allclose(scores, EXPECTED_SCORES)


def test_grid_search():
    search = GridSearchCV(
        BaseRate(), {"prior_weight": [0.0, 100.0]}, cv=TournamentSplit(3), scoring=brier_scorer
    )
    search.fit(table(), Y)
    results = search.cv_results_
    assert search.n_splits_ == 3
    np.testing.assert_allclose(
        [results[f"split{i}_test_score"][0] for i in range(3)], EXPECTED_SCORES
    )
    # shrinking to a coin flip scores about 0.25 on every fold, better than the raw base rate
    assert search.best_params_ == {"prior_weight": 100.0}


def test_requests_groups_under_metadata_routing():
    """Like scikit-learn's group splitters, groups are requested by default."""
    routing = TournamentSplit().get_metadata_routing()
    assert routing.split.requests == {"groups": True}


def test_period_months_are_split_in_time_order_whatever_the_rows():
    """TournamentSplit never trains on a later month than it tests, with rows shuffled."""
    rng = np.random.default_rng(0)
    labels = [f"2024-{m:02d}" for m in range(1, 9) for _ in range(10)]
    months = pd.Series(pd.PeriodIndex(labels, freq="M"))
    X = pd.DataFrame({"period": months, "id": range(len(months))})
    shuffled = X.iloc[rng.permutation(len(X))]
    for frame in (shuffled, shuffled.assign(period=shuffled["period"].astype(object))):
        folds = list(TournamentSplit(n_splits=3).split(frame))
        tested = [set(frame["period"].iloc[test]) for _, test in folds]
        assert [str(next(iter(t))) for t in tested] == ["2024-06", "2024-07", "2024-08"]
        for train, test in folds:
            assert frame["period"].iloc[train].max() < frame["period"].iloc[test].min()
            trained = set(frame["id"].iloc[train])
            want = set(X["id"][X["period"] < frame["period"].iloc[test].min()])
            assert trained == want


def test_min_test_matches_merges_small_tournaments_from_the_latest_back():
    # sizes in start order: A 3, L 2, B 2, C 2, D 2; folds of at least 3 matches
    cv = TournamentSplit(n_splits=2, min_test_matches=3)
    assert repr(cv) == "TournamentSplit(n_splits=2, min_test_matches=3)"
    assert as_lists(cv.split(table())) == [([0], [2, 3, 5, 7]), ([0, 1, 3, 4], [6, 8, 9, 10])]
    described = cv.describe(table())
    assert described["tournament"].tolist() == [("L", "B"), ("C", "D")]
    assert described["n_test"].tolist() == [4, 4]
    assert (described["n_test"] >= 3).all()
    # a fold that already holds enough matches stays one tournament
    assert as_lists(TournamentSplit(n_splits=3, min_test_matches=2).split(table())) == FOLDS_3


def test_min_test_matches_too_large_for_the_data():
    with pytest.raises(ValueError, match=r"2 test folds of at least 5 matches.*11 matches"):
        list(TournamentSplit(n_splits=2, min_test_matches=5).split(table()))
    for bad in (0, -1, 1.5, True, "3"):
        with pytest.raises(ValueError, match="min_test_matches must be an integer >= 1"):
            TournamentSplit(min_test_matches=bad)


def test_latest_share_split_holds_out_at_least_the_share():
    from skcodex.model_selection import latest_share_split

    # 15% of 11 matches is 1.65: the last tournament (D, 2 matches) is enough
    train, test = latest_share_split(table(), share=0.15)
    assert (train.tolist(), test.tolist()) == FOLDS_3[-1]
    # 40% is 4.4 matches: D and C (4) are not enough, B joins (6)
    train, test = latest_share_split(table(), share=0.4)
    assert test.tolist() == [3, 5, 6, 8, 9, 10]
    assert train.tolist() == [0, 1]
    # by date: every tournament starting on or after 2020-01-08 (C and D)
    train, test = latest_share_split(table(), since="2020-01-08")
    assert (train.tolist(), test.tolist()) == ([0, 1, 3, 4], [6, 8, 9, 10])


def test_latest_share_split_bad_inputs():
    from skcodex.model_selection import latest_share_split

    for bad in (0, 1, 1.5, -0.1, True, "0.2"):
        with pytest.raises(ValueError, match="share must be a number between 0 and 1"):
            latest_share_split(table(), share=bad)
    with pytest.raises(ValueError, match="no tournament starts on or after 2021-01-01"):
        latest_share_split(table(), since="2021-01-01")
    with pytest.raises(ValueError, match="every tournament starts on or after 1900-01-01: nothing"):
        latest_share_split(table(), since="1900-01-01")
    with pytest.raises(ValueError, match="cannot read the hold-out date 'soon'"):
        latest_share_split(table(), since="soon")
    with pytest.raises(ValueError, match="needs a 'date'"):
        latest_share_split(table(dates=False), since="2020-01-08")
    with pytest.raises(ValueError, match=r"a tournament before them to train on"):
        latest_share_split(table(), share=0.95)


def test_prior_grid_varies_only_the_blocks_the_decks_have():
    from skcodex import BayesianMatchupClassifier
    from skcodex.model_selection import prior_grid

    codex = prior_grid()
    assert len(codex) == 3 and all(len(g) == 4 for g in codex)
    for k in (0,):
        grid = prior_grid(specs_per_deck=k)
        assert all(set(g) == {"log_sd_player_loc", "log_sd_stst_loc"} for g in grid)
        candidates = list(sklearn.model_selection.ParameterGrid(grid))
        # six candidates, all different in the priors a k = 0 model uses
        assert len({tuple(sorted(c.items())) for c in candidates}) == len(candidates) == 6
        for c in candidates:
            BayesianMatchupClassifier(**c)  # every key is a parameter
    assert prior_grid(specs_per_deck=2) == codex
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="specs_per_deck must be an integer >= 0"):
            prior_grid(specs_per_deck=bad)


@pytest.mark.parametrize("n", [100, 49])
def test_a_share_of_whole_matches_holds_out_exactly_that_many(n):
    """share k/n of n one-match tournaments holds out exactly k matches, for every k.

    share * n in floating point can land a hair above k (0.07 * 100 is
    7.000000000000001), and a ceiling without its tolerance then holds out k + 1.
    """
    from skcodex.model_selection import latest_share_split

    days = pd.date_range("2020-01-01", periods=n, freq="D")
    X = pd.DataFrame(
        {"player1": "a", "player2": "b", "period": [f"T{k:04d}" for k in range(n)], "date": days}
    )
    wrong = {}
    for k in range(1, n):
        for share in (k / n, float(f"{k / n:.2f}") if n == 100 else k / n):
            _, test = latest_share_split(X, share=share)
            if len(test) != k:
                wrong[share] = len(test)
    assert not wrong, wrong
