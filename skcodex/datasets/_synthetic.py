"""Synthetic tournaments drawn from the seed model's generative process, with known truth."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.special import expit, logit
from sklearn.utils import Bunch, check_random_state

from skcodex._docstrings import shared_parameters
from skcodex.codex import CODEX, Catalogue, Deck, format_deck, legal_decks
from skcodex.datasets._checks import check_flag


def _check_positive_int(value, name, minimum=1):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")


def _check_series(n_players, n_matches, n_tournaments, decks_per_player, sd: dict) -> None:
    """Check the size of a series of tournaments and the true spreads (``sd``, by block)."""
    _check_positive_int(n_players, "n_players", 2)
    _check_positive_int(n_matches, "n_matches")
    _check_positive_int(n_tournaments, "n_tournaments")
    _check_positive_int(decks_per_player, "decks_per_player")
    for block, value in sd.items():
        if not np.isfinite(value) or value < 0:
            raise ValueError(f"sd_{block} must be a finite number >= 0, got {value!r}")
    if n_tournaments > n_matches:
        raise ValueError(f"n_tournaments ({n_tournaments}) cannot exceed n_matches ({n_matches})")


def _player_names(n_players: int) -> list[str]:
    width = len(str(n_players))
    return [f"player{i + 1:0{width}d}" for i in range(n_players)]


def _tournament_labels(n_tournaments: int) -> list[str]:
    width = len(str(n_tournaments))
    return [f"T{t + 1:0{width}d}" for t in range(n_tournaments)]


def _draw_effects(rng, n_players: int, S: int, K: int, sd: dict):
    """Skills and the four matchup blocks (starter-starter, -spec, spec-starter, -spec)."""
    skill = rng.normal(0.0, sd["player"], n_players)
    stst = rng.normal(0.0, sd["stst"], (S, S))
    stsp = rng.normal(0.0, sd["stsp"], (S, K))
    spst = rng.normal(0.0, sd["stsp"], (K, S))
    spsp = rng.normal(0.0, sd["spsp"], (K, K))
    return skill, (stst, stsp, spst, spsp)


def _symmetric_blocks(stst, stsp, spst, spsp):
    """The matchup blocks of a symmetric game: ``m(a, b) = -m(b, a)`` for every pair of decks.

    The upper triangles of ``stst`` and ``spsp`` are kept and mirrored with the
    opposite sign (diagonals 0); ``spst`` becomes minus the transpose of ``stsp``.
    """

    def antisymmetric(x):
        upper = np.triu(x, 1)
        return upper - upper.T

    return antisymmetric(stst), stsp, -stsp.T, antisymmetric(spsp)


def _truth(players, skill, blocks, starters, specs) -> dict:
    """The drawn effects as labelled pandas objects, player 1's component as rows."""
    stst, stsp, spst, spsp = blocks
    return {
        "skill": pd.Series(skill, index=pd.Index(players, name="player"), name="skill"),
        "stst": pd.DataFrame(stst, index=starters, columns=starters),
        "stsp": pd.DataFrame(stsp, index=starters, columns=specs),
        "spst": pd.DataFrame(spst, index=specs, columns=starters),
        "spsp": pd.DataFrame(spsp, index=specs, columns=specs),
    }


def _play_tournaments(
    rng,
    players: list[str],
    n_matches: int,
    n_tournaments: int,
    pools: list[list],
    deck_codes,
    skill: np.ndarray,
    blocks: tuple[np.ndarray, ...],
    *,
    first_move: float = 0.0,
    sd_step: float = 0.0,
    draw_threshold: float = 0.0,
) -> tuple[pd.DataFrame, np.ndarray, np.ndarray, list[np.ndarray]]:
    """The series of tournaments and its outcomes, drawn from the seed model.

    In each tournament about two thirds of the players take part, each with one
    deck from their pool; matches pair random entrants in a random order, and
    player 1 wins with probability ``expit(first_move + p[f] - p[s] + m)``, where
    ``m`` sums the matchup blocks over the decks' components. ``deck_codes(deck)``
    gives a deck's starter index and its list of spec indices. With ``sd_step``
    > 0 the skills take a Gaussian random-walk step between tournaments.
    With ``draw_threshold`` c > 0, the same uniform draw gives player 1 a win
    below ``expit(q - c)``, player 2 a win above ``expit(q + c)`` and a draw
    (0.5) between (the ordered logit the classifier fits); ``p_win`` is then ``expit(q - c)``.

    Returns the table (decks as they are in the pools), ``y``, the true
    probabilities and the skills of each tournament.
    """
    stst, stsp, spst, spsp = blocks
    n_players = len(players)
    per_tournament = np.diff(np.linspace(0, n_matches, n_tournaments + 1).round().astype(int))
    labels = _tournament_labels(n_tournaments)
    start = pd.Timestamp("2020-01-06")
    rows, path = [], []
    for t, (label, n_t) in enumerate(zip(labels, per_tournament)):
        n_entrants = max(2, round(n_players * rng.uniform(0.5, 0.85)))
        entrants = rng.choice(n_players, n_entrants, replace=False)
        deck_of = {int(e): pools[e][rng.randint(len(pools[e]))] for e in entrants}
        begin = start + pd.Timedelta(weeks=6 * t)
        if t > 0 and sd_step > 0:
            skill = skill + rng.normal(0.0, sd_step, n_players)
        path.append(skill)
        for m in range(n_t):
            first, second = rng.choice(entrants, 2, replace=False)
            d1, d2 = deck_of[int(first)], deck_of[int(second)]
            (g, h), (s, u) = deck_codes(d1), deck_codes(d2)
            m_deck = stst[g, s] + stsp[g, u].sum() + spst[h, s].sum()
            m_deck += spsp[np.ix_(h, u)].sum()
            q = first_move + skill[first] - skill[second] + m_deck
            day = begin + pd.Timedelta(days=int(28 * m / max(n_t, 1)))
            rows.append((players[first], players[second], d1, d2, label, day, expit(q), q))

    frame = pd.DataFrame(
        rows, columns=["player1", "player2", "deck1", "deck2", "period", "date", "p_win", "q"]
    )
    p_win = frame.pop("p_win").to_numpy()
    q = frame.pop("q").to_numpy(dtype=float)
    u = rng.uniform(size=len(p_win))
    y = (u < p_win).astype(np.int64)
    if draw_threshold > 0:  # a draw between the two sides' thresholds
        p_win, not_lost = expit(q - draw_threshold), expit(q + draw_threshold)
        y = np.where(u < p_win, 1.0, np.where(u < not_lost, 0.5, 0.0))
    return frame, y, p_win, path


@shared_parameters
def make_matches(
    n_players: int = 40,
    n_matches: int = 1000,
    n_tournaments: int = 10,
    *,
    sd_player: float = 0.8,
    sd_stst: float = 0.4,
    sd_stsp: float = 0.25,
    sd_spsp: float = 0.15,
    sd_step: float = 0.0,
    decks_per_player: int = 3,
    deck_kind: str = "multicolour",
    catalogue: Catalogue | None = None,
    random_state=None,
    return_X_y: bool = False,
) -> Bunch | tuple[pd.DataFrame, np.ndarray]:
    """Draw a time-ordered series of tournaments from the seed model.

    Each player has a skill ``p ~ N(0, sd_player)`` and a pool of favourite
    decks. Every component matchup effect is drawn from its block's spread:
    starter vs starter ``a ~ N(0, sd_stst)``, starter vs spec and spec vs
    starter ``b, c ~ N(0, sd_stsp)``, spec vs spec ``d ~ N(0, sd_spsp)``, each
    ordered player 1 first. In each tournament about two thirds of the players
    take part, each with one deck from their pool; matches pair random
    entrants with a random turn order, and player 1 wins with probability
    ``expit(p[f] - p[s] + m)``, the seed model's formula.

    Parameters
    ----------
    {synthetic_field}
    {synthetic_skill_spreads}
    sd_stsp : float, default 0.25
        True spread of the starter-vs-spec and spec-vs-starter effects.
    sd_spsp : float, default 0.15
        True spread of the spec-vs-spec effects.
    sd_step : float, default 0.0
        Each player's skill moves by a N(0, sd_step) step between tournaments
        (a Gaussian random walk); 0 keeps skills fixed.
    decks_per_player : int, default 3
        Size of each player's deck pool.
    deck_kind : {"multicolour", "monocolour", "draft"}, default "multicolour"
        Which decks players draw their pools from (see `legal_decks`).
    catalogue : Catalogue or None, default None
        The specs and starters decks are built from; base Codex by default.
    random_state : int, RandomState instance or None, default None
        Seed or generator of every random draw.
    return_X_y : bool, default=False
        If True, return the match table and outcomes ``(X, y)`` rather than the
        Bunch with the truth.

    Returns
    -------
    Bunch
        ``X``: the match table (``player1``, ``player2``, ``deck1``, ``deck2`` in
        forum notation, ``period`` = tournament, ``date``); ``y``: 1 where
        player 1 won; ``p_win``: the true probabilities; ``params``: the truth,
        with ``skill`` (Series by player: the skill in the last tournament),
        ``skill_path`` (players x tournaments), ``stst``, ``stsp``, ``spst``,
        ``spsp`` (DataFrames, player 1's component as rows), ``sd`` (dict of
        the four spreads) and ``decks`` (each player's pool).
    {synthetic_X_y}

    Examples
    --------
    >>> from skcodex.datasets import make_matches
    >>> data = make_matches(n_players=10, n_matches=50, n_tournaments=2, random_state=0)
    >>> data.X.columns.tolist()
    ['player1', 'player2', 'deck1', 'deck2', 'period', 'date']
    >>> data.X.shape, data.y.shape, data.p_win.shape
    ((50, 6), (50,), (50,))
    """
    check_flag(return_X_y, "return_X_y")
    sd = {"player": sd_player, "stst": sd_stst, "stsp": sd_stsp, "spsp": sd_spsp, "step": sd_step}
    _check_series(n_players, n_matches, n_tournaments, decks_per_player, sd)
    cat = CODEX if catalogue is None else catalogue
    rng = check_random_state(random_state)

    players = _player_names(n_players)
    starters, specs = list(cat.starters), list(cat.specs)
    skill, blocks = _draw_effects(rng, n_players, len(starters), len(specs), sd)
    universe = legal_decks(deck_kind, cat)
    pools = [
        [universe[j] for j in rng.choice(len(universe), decks_per_player, replace=False)]
        if decks_per_player <= len(universe)
        else list(universe)
        for _ in range(n_players)
    ]
    st_index = {s: i for i, s in enumerate(starters)}
    sp_index = {s: i for i, s in enumerate(specs)}

    def deck_codes(deck: Deck) -> tuple[int, list[int]]:
        return st_index[deck.starter], [sp_index[s] for s in deck.specs]

    frame, y, p_win, path = _play_tournaments(
        rng, players, n_matches, n_tournaments, pools, deck_codes, skill, blocks, sd_step=sd_step
    )
    for col in ("deck1", "deck2"):
        frame[col] = [format_deck(d, cat) for d in frame[col]]
    truth = _truth(players, path[-1], blocks, starters, specs)
    params = {
        "skill": truth.pop("skill"),
        "skill_path": pd.DataFrame(
            np.column_stack(path),
            index=pd.Index(players, name="player"),
            columns=_tournament_labels(n_tournaments),
        ),
        **truth,
        "sd": sd,
        "decks": {players[i]: pools[i] for i in range(n_players)},
    }
    if return_X_y:
        return frame, y
    return Bunch(X=frame, y=y, p_win=p_win, params=params)


def _level_names(value, prefix: str, what: str, minimum: int = 1) -> list[str]:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if value < minimum:
            raise ValueError(f"{what} must be a positive number or a list of names, got {value!r}")
        width = len(str(int(value)))
        return [f"{prefix}{i:0{width}d}" for i in range(int(value))]
    if isinstance(value, str):
        raise ValueError(f"{what} must be a number or a list of names, got the string {value!r}")
    names = list(value)
    if len(set(names)) != len(names) or not all(isinstance(n, str) and n for n in names):
        raise ValueError(f"{what} must be distinct non-empty names, got {names[:4]!r}")
    return names


def _check_game_terms(first_move, symmetric, draw_threshold) -> None:
    """The first-move effect, the symmetric flag and the draw threshold, checked."""
    if not np.isfinite(first_move):
        raise ValueError(f"first_move must be a finite number, got {first_move!r}")
    check_flag(symmetric, "symmetric")
    if not (
        isinstance(draw_threshold, (int, float, np.integer, np.floating))
        and np.isfinite(draw_threshold)
        and draw_threshold >= 0
    ):
        raise ValueError(
            f"draw_threshold must be a finite number >= 0 (0: no draws), got {draw_threshold!r}"
        )
    if symmetric and first_move != 0:
        raise ValueError(
            f"a symmetric game has no first-move effect, got first_move={first_move!r}"
        )


@shared_parameters
def make_game_matches(
    n_players: int = 40,
    n_matches: int = 1000,
    n_tournaments: int = 10,
    *,
    starters=12,
    components=(),
    specs_per_deck: int = 0,
    sd_player: float = 0.8,
    sd_stst: float = 0.4,
    sd_stsp: float = 0.25,
    sd_spsp: float = 0.15,
    first_move: float = 0.0,
    symmetric: bool = False,
    decks_per_player: int = 2,
    draw_threshold: float = 0.0,
    random_state=None,
    return_X_y: bool = False,
) -> Bunch | tuple[pd.DataFrame, np.ndarray]:
    """Draw matches of any game whose decks are a starter plus k side components, with known truth.

    A fighting game is ``specs_per_deck=0`` (a deck is a character); a hero
    with two of five colours is ``starters=[...heroes], components=[...colours],
    specs_per_deck=2``. Player 1 wins with probability
    ``expit(w + p[f] - p[s] + m)``: the first-move effect ``w``, player skills
    ``p ~ N(0, sd_player)`` and the deck matchup ``m`` of the seed model (one
    starter-vs-starter effect ``a ~ N(0, sd_stst)``, k starter-vs-component and
    k component-vs-starter effects ``b, c ~ N(0, sd_stsp)`` and k^2
    component-vs-component effects ``d ~ N(0, sd_spsp)``, player 1's part
    first). Each player has a pool of decks (a random starter with k random
    distinct components); in each tournament about two thirds of the players
    take part with one deck from their pool, and matches pair random entrants
    in a random order.

    Parameters
    ----------
    {synthetic_field}
    starters : int or sequence of str, default 12
        The starters (characters, heroes, factions), or how many (named
        ``char00``, ``char01``, ...).
    components : int or sequence of str, default ()
        The side components (colours, specs), or how many (``comp0``, ...).
    specs_per_deck : int, default 0
        The number k of components in every deck; at most the number of components.
    {synthetic_skill_spreads}
    sd_stsp : float, default 0.25
        True spread of the starter-vs-component and component-vs-starter effects.
    sd_spsp : float, default 0.15
        True spread of the component-vs-component effects.
    first_move : float, default 0.0
        True first-move effect (log-odds added for player 1).
    symmetric : bool, default False
        Draw a game where no side moves first (see
        ``BayesianMatchupClassifier(symmetric=True)``): the starter-vs-starter
        and component-vs-component effects are antisymmetric (one draw per
        unordered pair, zero on the diagonal) and the component-vs-starter
        effects are minus the transposed starter-vs-component ones, so that
        ``m(a, b) = -m(b, a)``. Needs ``first_move=0``.
    decks_per_player : int, default 2
        Size of each player's deck pool.
    draw_threshold : float, default 0.0
        True draw threshold ``c >= 0`` of the ordered-logit draw model
        (docs: "Draws"): player 1 wins with probability ``expit(q - c)``,
        player 2 with ``expit(-q - c)``, and the match is drawn (``y = 0.5``)
        otherwise; between equal sides a draw has chance ``tanh(c / 2)``.
        0 (the default) draws no draw, and the same ``random_state`` gives
        the same matches and outcomes as without the parameter.
    random_state : int, RandomState instance or None, default None
        Seed or generator of every random draw.
    return_X_y : bool, default=False
        If True, return ``(X, y)`` only, without the truth and the catalogue.

    Returns
    -------
    Bunch
        ``X``: the match table (``player1``, ``player2``, ``deck1``, ``deck2``
        in plain notation ``starter/component/...``, ``period``, ``date``);
        ``y`` (1, 0 and, with a draw threshold, 0.5); ``p_win``: the true
        probabilities that player 1 wins; ``p_draw``: of a draw; ``catalogue``: a
        `skcodex.codex.PlainCatalogue` of the starters and components;
        ``params``: the truth, ``skill`` (Series by player), ``stst``, ``stsp``,
        ``spst``, ``spsp`` (DataFrames, player 1's component as rows),
        ``first_move``, ``draw_threshold``, ``sd`` (dict of the spreads) and
        ``decks`` (each player's pool).
    {synthetic_X_y}

    Examples
    --------
    >>> from skcodex.datasets import make_game_matches
    >>> data = make_game_matches(n_players=8, n_matches=40, n_tournaments=2, random_state=0)
    >>> data.X["deck1"].iloc[0].startswith("char")
    True
    >>> heroes = make_game_matches(
    ...     n_matches=40, starters=["Tala", "Zane"], components=["Red", "Blue", "Green"],
    ...     specs_per_deck=2, random_state=0)
    >>> heroes.X["deck1"].str.count("/").unique().tolist()
    [2]
    """
    from skcodex.codex._plain import PlainCatalogue

    _check_positive_int(specs_per_deck, "specs_per_deck", 0)
    check_flag(return_X_y, "return_X_y")
    sd = {"player": sd_player, "stst": sd_stst, "stsp": sd_stsp, "spsp": sd_spsp}
    _check_series(n_players, n_matches, n_tournaments, decks_per_player, sd)
    _check_game_terms(first_move, symmetric, draw_threshold)
    st_names = _level_names(starters, "char", "starters")
    comp_names = _level_names(components, "comp", "components", minimum=0)
    if specs_per_deck > len(comp_names):
        raise ValueError(
            f"specs_per_deck ({specs_per_deck}) exceeds the number of components "
            f"({len(comp_names)})"
        )
    catalogue = PlainCatalogue(tuple(st_names), tuple(comp_names), specs_per_deck)
    rng = check_random_state(random_state)
    S, K, k = len(st_names), len(comp_names), specs_per_deck

    players = _player_names(n_players)
    skill, blocks = _draw_effects(rng, n_players, S, K, sd)
    if symmetric:
        blocks = _symmetric_blocks(*blocks)

    def random_deck() -> tuple[int, tuple[int, ...]]:
        comps = rng.choice(K, k, replace=False) if k else []
        return int(rng.randint(S)), tuple(sorted(int(c) for c in comps))

    def deck_codes(code: tuple[int, tuple[int, ...]]) -> tuple[int, list[int]]:
        return code[0], list(code[1])

    def deck(code: tuple[int, tuple[int, ...]]) -> Deck:
        return Deck(st_names[code[0]], [comp_names[c] for c in code[1]])

    pools = [[random_deck() for _ in range(decks_per_player)] for _ in range(n_players)]
    frame, y, p_win, _ = _play_tournaments(
        rng,
        players,
        n_matches,
        n_tournaments,
        pools,
        deck_codes,
        skill,
        blocks,
        first_move=first_move,
        draw_threshold=float(draw_threshold),
    )
    p_draw = np.zeros(len(p_win))
    if draw_threshold > 0:  # expit(q + c) - expit(q - c), with q - c = logit(p_win)
        p_draw = expit(logit(p_win) + 2.0 * draw_threshold) - p_win
    for col in ("deck1", "deck2"):
        frame[col] = [catalogue.format(deck(c)) for c in frame[col]]
    params = {
        **_truth(players, skill, blocks, st_names, comp_names),
        "first_move": float(first_move),
        "draw_threshold": float(draw_threshold),
        "sd": sd,
        "decks": {players[i]: [deck(c) for c in pools[i]] for i in range(n_players)},
    }
    if return_X_y:
        return frame, y
    return Bunch(X=frame, y=y, p_win=p_win, p_draw=p_draw, params=params, catalogue=catalogue)
