"""The newcomer-variants benchmark (benchmarks/newcomer_variants.py): its deconvolved mean
and the late arrivals' spread against known truth, and its debut matches by hand."""

import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from newcomer_variants import debut_rows, deconvolved_mean, late_spread


def test_the_deconvolved_mean_finds_the_group_mean_the_shrunk_skills_hide():
    # late arrivals of true mean -0.6 around it with spread sd; each seen through a noisy
    # score of known error, their posterior under the population prior N(0, sd^2) is exact
    rng = np.random.default_rng(0)
    n, sd, truth = 400, 0.8, -0.6
    skill = rng.normal(truth, sd, n)
    error = rng.uniform(0.3, 3.0, n)  # some players seen well, most barely
    score = rng.normal(skill, error)
    post_var = 1.0 / (1.0 / sd**2 + 1.0 / error**2)
    post_mean = post_var * score / error**2
    draws = rng.normal(post_mean, np.sqrt(post_var), (4000, n))
    sds = np.full(4000, sd)
    plain = draws.mean(axis=1).mean()  # the shrunk skills' mean sits far nearer 0
    found = deconvolved_mean(draws, sds, tau=10.0).mean()
    assert abs(plain) < 0.5 * abs(truth)
    assert abs(found - truth) < 0.1
    # a player the matches say nothing about (posterior = prior) adds nothing
    blank = rng.normal(0.0, sd, (4000, 1))
    again = deconvolved_mean(np.hstack([draws, blank]), sds, tau=10.0).mean()
    assert abs(again - found) < 0.01


def test_debut_rows_are_a_late_arrivals_first_period_against_an_older_hand():
    X = pd.DataFrame(
        {
            "player1": ["a", "c", "c", "d", "c"],
            "player2": ["b", "a", "d", "b", "e"],
            "period": ["t1", "t2", "t2", "t3", "t3"],
            "date": pd.to_datetime(
                ["2020-01-01", "2020-02-01", "2020-02-02", "2020-03-01", "2020-03-02"]
            ),
        }
    )
    before = X.copy()
    rows, new1, new2 = debut_rows(X)
    # row 1: c debuts against a; row 2: c and d both debut (left out); row 3: d is in
    # their second period against b; row 4: e debuts against c, in c's second period
    np.testing.assert_array_equal(rows, [1, 4])
    np.testing.assert_array_equal(new1, [True, False])
    np.testing.assert_array_equal(new2, [False, True])
    pd.testing.assert_frame_equal(X, before)


def test_the_late_arrivals_spread_is_their_own_and_the_population_s_without_evidence():
    # late arrivals of true spread 0.3 (around -0.6), each measured well (error 0.1), with
    # exact posteriors under the population prior N(0, 0.8^2): their draws' spread is theirs
    rng = np.random.default_rng(1)
    n, sd, error = 400, 0.8, 0.1
    skill = rng.normal(-0.6, 0.3, n)
    score = rng.normal(skill, error)
    post_var = 1.0 / (1.0 / sd**2 + 1.0 / error**2)
    draws = rng.normal(post_var * score / error**2, np.sqrt(post_var), (2000, n))
    sds = np.full(2000, sd)
    found = late_spread(draws, sds)
    assert abs(np.median(found) - 0.3) < 0.05  # measurement noise widens it a little
    # players the matches say nothing about (posterior = prior): the population's spread
    blank = rng.normal(0.0, sd, (2000, n))
    assert abs(np.median(late_spread(blank, sds)) - sd) < 0.02
    # one late arrival has no spread of their own: the population's, exactly
    np.testing.assert_allclose(late_spread(draws[:, :1], sds), sds)
