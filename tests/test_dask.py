"""Grid search over prior spreads on a Dask cluster, through joblib's dask backend."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, cross_validate

from skcodex import BayesianMatchupClassifier, TournamentSplit, brier_scorer
from skcodex.data import Vocabulary, check_match_table
from skcodex.datasets import make_matches

distributed = pytest.importorskip("dask.distributed")
joblib = pytest.importorskip("joblib")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning"),
]

GRID = {"log_sd_player_scale": [0.25, 1.0]}


def _estimator():
    # static skills: the walk's shape follows each fold's periods, and the test counts
    # compiled models of one shape
    return BayesianMatchupClassifier(
        draws=50, tune=50, chains=2, cores=1, random_state=0, time_varying=False
    )


@pytest.fixture(scope="module")
def data():
    # Every training fold sees the same number of players, starters and specs, so
    # each worker compiles the model once (its cache is keyed by those sizes).
    return make_matches(
        n_players=8,
        n_matches=160,
        n_tournaments=4,
        decks_per_player=2,
        deck_kind="monocolour",
        random_state=0,
    )


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            # a free port for the scheduler's web server, which starts even without the
            # dashboard (on 8787 by default: taken on a shared machine, it warns)
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield client


@pytest.fixture(scope="module")
def sequential(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        search = GridSearchCV(
            _estimator(), GRID, cv=TournamentSplit(n_splits=2), scoring=brier_scorer, n_jobs=1
        ).fit(data.X, data.y)
        folds = cross_validate(
            _estimator(),
            data.X,
            data.y,
            cv=TournamentSplit(n_splits=2),
            scoring=brier_scorer,
            return_estimator=True,
        )
    return search, folds


def test_folds_share_one_layout(data):
    sizes = {
        Vocabulary.from_table(check_match_table(data.X.iloc[train])).sizes
        for train, _ in TournamentSplit(n_splits=2).split(data.X)
    }
    assert len(sizes) == 1


def test_grid_search_on_a_dask_cluster_matches_the_sequential_run(client, data, sequential):
    reference, _ = sequential
    search = GridSearchCV(
        _estimator(), GRID, cv=TournamentSplit(n_splits=2), scoring=brier_scorer, n_jobs=-1
    )
    with joblib.parallel_backend("dask"):
        search.fit(data.X, data.y)
    assert search.best_params_ == reference.best_params_
    for key in ("mean_test_score", "split0_test_score", "split1_test_score"):
        assert np.array_equal(search.cv_results_[key], reference.cv_results_[key]), key
    assert np.array_equal(
        search.best_estimator_.predict_proba(data.X),
        reference.best_estimator_.predict_proba(data.X),
    )
    # the work ran on both workers, each of which compiled the model once
    compiled = client.run(
        lambda: len(__import__("skcodex._matchup.compile_cache")._matchup.compile_cache._COMPILED)
    )
    assert len(compiled) == 2
    assert all(n <= 1 for n in compiled.values()), compiled
    assert sum(compiled.values()) >= 1


def test_estimators_fitted_on_workers_come_back_and_predict(client, data, sequential):
    _, reference = sequential
    with joblib.parallel_backend("dask"):
        folds = cross_validate(
            _estimator(),
            data.X,
            data.y,
            cv=TournamentSplit(n_splits=2),
            scoring=brier_scorer,
            return_estimator=True,
            n_jobs=-1,
        )
    assert np.array_equal(folds["test_score"], reference["test_score"])
    for remote, local in zip(folds["estimator"], reference["estimator"]):
        assert remote is not local
        assert np.array_equal(remote.predict_proba(data.X), local.predict_proba(data.X))
        assert np.array_equal(remote.effect_draws_, local.effect_draws_)


def test_fitted_estimators_travel_to_workers(client, data, sequential):
    """An estimator fitted here predicts on a worker: nothing stale travels with it."""
    search, _ = sequential
    model = search.best_estimator_
    future = client.submit(lambda m, X: m.predict_proba(X), model, data.X, pure=False)
    assert np.array_equal(future.result(timeout=300), model.predict_proba(data.X))
