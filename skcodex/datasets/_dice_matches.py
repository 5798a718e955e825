"""Matches of the exact race between players of known skill (`make_dice_matches`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from sklearn.utils import Bunch, check_random_state

from skcodex.datasets._checks import check_flag
from skcodex.datasets._dice import DICE_DECK, DiceGame, _check_int


def make_dice_matches(
    n_players: int = 20,
    n_matches: int = 1000,
    *,
    skill_range: tuple[float, float] = (0.5, 1.0),
    skills: Any = None,
    evaluator: str | np.ndarray = "exact",
    length: int = 30,
    random_state: Any = None,
    return_X_y: bool = False,
) -> Bunch | tuple[pd.DataFrame, np.ndarray]:
    """Simulate matches of the dice game between players of known skill, with each roll's luck.

    Each match pairs two distinct players drawn at random; which of them moves
    first is random too. A player's skill is their move accuracy: the chance
    they pick the exact best move when there is a choice (see `DiceGame.play`).
    The games are drawn the same way whatever ``evaluator`` is, so the same
    ``random_state`` gives the same games, outcomes and true skills with the
    exact and the biased evaluator; only the luck estimates differ.

    Parameters
    ----------
    n_players : int, default 20
        Number of players (at least 2).
    n_matches : int, default 1000
        Number of matches.
    skill_range : (float, float), default (0.5, 1.0)
        Skills are drawn uniformly from this range inside [0, 1].
    skills : array-like of shape (n_players,) or None, default None
        Fixed skills instead of random ones.
    evaluator : {"exact", "biased"} or ndarray, default "exact"
        What the luck estimates use (see `DiceGame.evaluator_values`).
    length : int, default 30
        Race length (see `DiceGame`).
    random_state : int, RandomState instance or None, default None
        Seed or generator of the players' pairings, skills and games.
    return_X_y : bool, default=False
        If True, return ``(X, y)`` only, without the luck, skills and events.

    Returns
    -------
    Bunch
        ``X``: the match table (``player1``, ``player2``, ``deck1``, ``deck2``;
        every deck is ``Deck("Dice", ("dice",))``);
        ``y``: 1 where player 1 won;
        ``luck``: each match's net luck for player 1 on the win-probability
        scale by ``evaluator`` (player 1's luck on their rolls minus player 2's
        on theirs), the vector the estimators take as ``fit(X, y, luck=...)``;
        ``net_skill``: each match's net skill for player 1 by the exact value
        function (player 2's total move errors minus player 1's);
        ``skills``: the true skills, a Series indexed by player;
        ``events``: one row a roll (see `DiceGame.play` and
        `DiceGame.annotate_luck`);
        ``initial_value``: the exact chance that player 1 wins under optimal
        play; ``game``: the `DiceGame`; ``evaluator``: its table.

        With the exact evaluator ``y - initial_value == luck + net_skill`` for
        every match: Zare's fundamental equation, Final - Initial = Net Luck +
        Net Skill.
    (X, y) : tuple
        Only the table and the outcomes, with ``return_X_y=True``.

    Examples
    --------
    >>> from skcodex.datasets import make_dice_matches
    >>> data = make_dice_matches(n_players=6, n_matches=200, random_state=0)
    >>> data.X.shape, data.y.shape, data.luck.shape
    ((200, 4), (200,), (200,))
    >>> import numpy as np
    >>> bool(np.allclose(data.y - data.initial_value, data.luck + data.net_skill))
    True
    """
    check_flag(return_X_y, "return_X_y")
    n_players = _check_int(n_players, "n_players", 2)
    n_matches = _check_int(n_matches, "n_matches", 1)
    game = DiceGame(length=length)
    table = game.evaluator_values(evaluator)
    rng = check_random_state(random_state)

    width = len(str(n_players))
    players = [f"player{i + 1:0{width}d}" for i in range(n_players)]
    if skills is None:
        lo, hi = (float(v) for v in skill_range)
        if not (0.0 <= lo <= hi <= 1.0):
            raise ValueError(f"skill_range must satisfy 0 <= low <= high <= 1, got {skill_range!r}")
        true = rng.uniform(lo, hi, n_players)
    else:
        true = np.asarray(skills, dtype=float).ravel()
        if len(true) != n_players:
            raise ValueError(f"skills has {len(true)} values for {n_players} players")
        if not (np.isfinite(true).all() and ((true >= 0) & (true <= 1)).all()):
            raise ValueError("skills must lie in [0, 1]")

    first = rng.randint(n_players, size=n_matches)
    second = (first + 1 + rng.randint(n_players - 1, size=n_matches)) % n_players
    y, events = game.play(true[first], true[second], random_state=rng)
    events = game.annotate_luck(events, table)
    events.insert(
        3,
        "player",
        np.asarray(players, dtype=object)[
            np.where(events["roller"] == 1, first[events["match"]], second[events["match"]])
        ],
    )

    luck = np.bincount(events["match"], weights=events["luck_p1"], minlength=n_matches)
    sign = np.where(events["roller"].to_numpy() == 1, 1.0, -1.0)
    net_skill = np.bincount(events["match"], weights=sign * events["error"], minlength=n_matches)
    names = np.asarray(players, dtype=object)
    X = pd.DataFrame(
        {
            "player1": names[first],
            "player2": names[second],
            "deck1": [DICE_DECK] * n_matches,
            "deck2": [DICE_DECK] * n_matches,
        }
    )
    if return_X_y:
        return X, y
    return Bunch(
        X=X,
        y=y,
        luck=luck,
        net_skill=net_skill,
        skills=pd.Series(true, index=pd.Index(players, name="player"), name="skill"),
        events=events,
        initial_value=game.initial_value,
        game=game,
        evaluator=table,
    )
