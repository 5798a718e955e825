"""A catalogue of bad inputs to every public entry point, and what each must give.

Every case names the entry point, the input, and either the error (its class
and a fragment of its message) or the documented correct result. For every
case the test also checks that

- the input is left exactly as it was;
- an error is raised by skcodex itself (the innermost traceback frame is in
  skcodex; scikit-learn's own parameter and fitted checks are allowed where
  named), never from deep inside pandas, NumPy, SciPy or PyTensor;
- the message is short enough to read (under 400 characters);
- no probability returned is NaN, and every one lies in [0, 1].

The table is reproduced in docs/reliability.md.
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tracemalloc
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning, NotFittedError

import skcodex
from skcodex import (
    BayesianMatchupClassifier,
    EloClassifier,
    Glicko2Classifier,
    TournamentSplit,
    brier_score,
    brier_scorer,
)
from skcodex._compat.scikit_learn import InvalidParameterError
from skcodex._format.persistence import PersistenceError
from skcodex.cli import main as cli
from skcodex.data import LuckWarning, MatchTableError
from skcodex.datasets import load_codex_matches, make_matches
from skcodex.datasets._codexdata import CodexDataError
from skcodex.preprocessing import MatchupEncoder

PACKAGE = Path(skcodex.__file__).resolve().parent
SKLEARN = Path(__import__("sklearn").__file__).resolve().parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
# The same data and settings as tests/test_classifier.py, so one compiled model serves both.
TINY = {"draws": 100, "tune": 100, "chains": 2, "random_state": 0}


@pytest.fixture(scope="module")
def data():
    return make_matches(n_players=16, n_matches=240, n_tournaments=4, random_state=5)


@pytest.fixture(scope="module")
def fitted(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return {
            "bayes": BayesianMatchupClassifier(**TINY).fit(data.X, data.y),
            "elo": EloClassifier().fit(data.X, data.y),
            "glicko": Glicko2Classifier().fit(data.X, data.y),
        }


@pytest.fixture(scope="module")
def files(tmp_path_factory, fitted, data):
    """Files the loaders and the command line are pointed at."""
    root = tmp_path_factory.mktemp("bad-inputs")
    no_victor = root / "no_victor"
    shutil.copytree(FIXTURES / "codexdata_minimal", no_victor)
    frame = pd.read_csv(no_victor / "matches.csv")
    frame.drop(columns="victor").to_csv(no_victor / "matches.csv", index=False)
    empty = root / "empty"
    empty.mkdir()
    (empty / "matches.csv").write_text("")
    no_csv = root / "no_csv"
    no_csv.mkdir()
    model = fitted["bayes"].save(root / "model.skcodex")
    broken = root / "broken.skcodex"
    broken.write_bytes(model.read_bytes()[:1000])
    table = root / "table.csv"
    table.write_text("player1,player2,deck1,y\nann,bob,MonoRed,1\n")
    matches = root / "matches.csv"
    data.X.assign(y=data.y).to_csv(matches, index=False)
    hostile = _hostile_files(root, model, fitted["glicko"].save(root / "glicko.skcodex"))
    return {
        **hostile,
        "matches": matches,
        "signed": fitted["glicko"].save(root / "signed.skcodex", key=b"ours"),
        "root": root,
        "no_victor": no_victor,
        "empty": empty,
        "no_csv": no_csv,
        "model": model,
        "broken": broken,
        "table": table,
    }


def _members(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _write_hostile(path: Path, members: dict[str, bytes], fix: bool = True) -> Path:
    """A model file as its author could write it, digests recomputed (unless ``fix`` is off)."""
    members = dict(members)
    if fix:
        manifest = json.loads(members["manifest.json"])
        manifest["members"] = {
            n: {"sha256": hashlib.sha256(b).hexdigest(), "bytes": len(b)}
            for n, b in members.items()
            if n not in ("manifest.json", "signature")
        }
        members["manifest.json"] = json.dumps(manifest).encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, blob in members.items():
            method = zipfile.ZIP_DEFLATED if name.endswith(".json") else zipfile.ZIP_STORED
            archive.writestr(name, blob, compress_type=method)
    return path


def _edit_meta(members: dict, edit: Callable) -> dict:
    meta = json.loads(members["metadata.json"])
    edit(meta)
    return {**members, "metadata.json": json.dumps(meta).encode()}


def _npz(extra: dict[str, bytes], base: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as npz:
        with zipfile.ZipFile(io.BytesIO(base)) as real:
            for name in real.namelist():
                npz.writestr(name, real.read(name))
        for name, blob in extra.items():
            npz.writestr(name, blob)
    return buffer.getvalue()


def _posterior_reaching_out(root: Path, members: dict, kind: str) -> dict:
    import h5py

    member = next(n for n in members if n.endswith(".nc"))
    nc = root / f"posterior-{kind}.nc"
    nc.write_bytes(members[member])
    secret = root / "secret.h5"
    if not secret.exists():
        with h5py.File(secret, "w") as fh:
            fh.create_dataset("data", data=np.arange(4.0))
    with h5py.File(nc, "a") as fh:
        del fh["posterior/sd"]
        group = fh["posterior"]
        if kind == "external":
            group.create_dataset("sd", shape=(8,), dtype="u1", external=[(str(secret), 0, 8)])
        elif kind == "virtual":
            layout = h5py.VirtualLayout(shape=(4,), dtype="f8")
            layout[:] = h5py.VirtualSource(str(secret), "data", shape=(4,))
            group.create_virtual_dataset("sd", layout)
        else:
            group["sd"] = h5py.ExternalLink(str(secret), "/data")
    return {**members, member: nc.read_bytes()}


def _hostile_files(root: Path, bayes_file: Path, glicko_file: Path) -> dict[str, Path]:
    """Model files a hostile author could hand over, by name."""
    import os

    out: dict[str, Path] = {}
    g = _members(glicko_file)
    for name, edit in {
        "state_class": lambda m: m["state"].update(__class__="x"),
        "state_method": lambda m: m["state"].update(predict_proba=1),
        "state_dict": lambda m: m["state"].update(__dict__={}),
        "param_class": lambda m: m["params"].update(__class__="x"),
        "param_invalid": lambda m: m["params"].update(tau="fast"),
        "estimator_load": lambda m: m.update(estimator="load"),
        "state_list": lambda m: m.update(state=[]),
        "deep": lambda m: m.update(junk=json.loads("[" * 5000 + "]" * 5000)),
    }.items():
        out[name] = _write_hostile(root / f"{name}.skcodex", _edit_meta(g, edit))
    out["edited"] = _write_hostile(
        root / "edited.skcodex", _edit_meta(g, lambda m: m["params"].update(tau=0.9)), fix=False
    )
    out["huge_npz"] = _write_hostile(
        root / "huge_npz.skcodex",
        {
            **g,
            "arrays.npz": _npz({"a999.npy": _npy_header((10**12,)) + b"\0" * 8}, g["arrays.npz"]),
        },
    )
    buffer = io.BytesIO()
    np.savez_compressed(buffer, a0=np.zeros(3))
    out["compressed_npz"] = _write_hostile(
        root / "cnpz.skcodex", {**g, "arrays.npz": buffer.getvalue()}
    )
    buffer = io.BytesIO()
    np.savez(buffer, a0=np.array([1, "x"], dtype=object))
    out["object_npz"] = _write_hostile(
        root / "onpz.skcodex", {**g, "arrays.npz": buffer.getvalue()}
    )
    out["extra_member"] = _write_hostile(root / "extra.skcodex", {**g, "payload.pkl": b"x"})
    out["v1"] = root / "v1.skcodex"
    with zipfile.ZipFile(out["v1"], "w") as archive:
        archive.writestr("metadata.json", json.dumps({"format": "skcodex-model"}))
    out["duplicate"] = root / "duplicate.skcodex"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with zipfile.ZipFile(out["duplicate"], "w") as archive:
            for name, blob in g.items():
                archive.writestr(name, blob)
            archive.writestr("metadata.json", b"{}")
    out["bomb"] = root / "bomb.skcodex"
    with zipfile.ZipFile(out["bomb"], "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("metadata.json", "w", force_zip64=True) as fh:
            for _ in range(100):
                fh.write(b"\0" * (1 << 20))
    b = _members(bayes_file)
    for kind in ("external", "virtual", "link"):
        out[f"nc_{kind}"] = _write_hostile(
            root / f"nc_{kind}.skcodex", _posterior_reaching_out(root, b, kind)
        )
    out["posterior_again"] = _posterior_named(root, b, 8)
    member = next(n for n in b if n.endswith(".nc"))
    out["text_bomb"] = _write_hostile(
        root / "text_bomb.skcodex", {**b, member: _text_bomb_netcdf(root)}
    )
    out["fifo"] = root / "pipe.skcodex"
    os.mkfifo(out["fifo"])
    out["device_link"] = root / "zero.skcodex"
    out["device_link"].symlink_to("/dev/zero")
    return out


def _posterior_named(root: Path, members: dict, repeats: int) -> Path:
    """A model file whose metadata names its posterior member ``repeats`` more times."""
    ref = json.loads(members["metadata.json"])["state"]["idata_"]
    # Inside idata_, the one attribute that may hold a posterior (elsewhere it is refused
    # at once, before any posterior is read).
    again = ref if repeats == 0 else {"__skcodex__": "tuple", "items": [ref] * (repeats + 1)}
    return _write_hostile(
        root / f"posterior_named_{repeats}.skcodex",
        _edit_meta(members, lambda m: m["state"].update(idata_=again)),
    )


def _text_bomb_netcdf(root: Path) -> bytes:
    """A 2 MB posterior whose 20,000 level names (one of a million characters) xarray
    would decode into a 74.5 GiB fixed-width text array."""
    import xarray as xr

    names = np.empty(20_000, dtype=object)
    names[:] = [f"p{i}" for i in range(len(names))]
    names[0] = "x" * 1_000_000
    path = root / "text_bomb.nc"
    xr.Dataset(
        {"skill": (("player",), np.zeros(len(names), dtype="f4"))}, coords={"player": names}
    ).to_netcdf(path, engine="h5netcdf", group="posterior")
    return path.read_bytes()


def _npy_header(shape: tuple) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buffer, {"descr": "<f8", "fortran_order": False, "shape": shape}
    )
    return buffer.getvalue()


@dataclass
class Case:
    """One bad input: ``build(env)`` returns ``(function, args, kwargs)``."""

    name: str
    build: Callable[[dict], tuple[Callable, tuple, dict]]
    error: type[BaseException] | None = None
    match: str = ""
    check: Callable[[Any, dict], None] | None = None
    sklearn_error: bool = False  # raised by scikit-learn's own parameter or fitted checks


def _x(env: dict, **columns: Any) -> pd.DataFrame:
    return env["data"].X.assign(**columns)


def _y(env: dict) -> np.ndarray:
    return env["data"].y


def _fit_bayes(X: Any, y: Any, **kwargs: Any) -> Any:
    return BayesianMatchupClassifier(**TINY).fit(X, y, **kwargs)


def _proba(model: str) -> Callable:
    return lambda env: env["fitted"][model].predict_proba


def _same_probabilities(reference: Callable[[dict], np.ndarray]) -> Callable:
    def check(result: Any, env: dict) -> None:
        assert np.array_equal(result, reference(env))

    return check


def _shape(n: int) -> Callable:
    def check(result: Any, env: dict) -> None:
        assert result.shape == (n, 2)

    return check


def _split_by_date(X: pd.DataFrame) -> list:
    """Folds as sets of match ids, for comparing shuffled tables."""
    return [
        (set(X["id"].iloc[tr]), set(X["id"].iloc[te]))
        for tr, te in TournamentSplit(n_splits=2).split(X)
    ]


def _shuffled_folds_equal(result: Any, env: dict) -> None:
    X = env["data"].X.assign(id=range(len(env["data"].X)))
    assert result == _split_by_date(X)


def _cli_fails(*fragments: str) -> Callable:
    def check(result: Any, env: dict) -> None:
        code, err = result
        lines = [line for line in err.splitlines() if line.strip()]
        assert code == 2, (code, err)
        assert len(lines) == 1, err
        assert re.match(r"skcodex( \w+)?: error: ", lines[0]), err
        for fragment in fragments:
            assert re.search(fragment, lines[0]), (fragment, lines[0])

    return check


def _run_cli(env: dict) -> Callable:
    def run(*argv: str) -> tuple[int, str]:
        env["capsys"].readouterr()
        try:
            code = cli(list(argv))
        except SystemExit as exc:  # argparse's own errors exit
            code = exc.code
        return code, env["capsys"].readouterr().err

    return run


def _ids(env: dict, which: str, name: str) -> pd.Series:
    """The player column with one name replaced at row 3."""
    col = list(env["data"].X["player1" if which == "p1" else "player2"])
    col[3] = name
    return pd.Series(col, index=env["data"].X.index, dtype=object)  # str columns refuse surrogates


def _pair(a: str, b: str) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "player1": ["bob", a],
            "player2": ["cat", b],
            "deck1": ["MonoRed", "MonoRed"],
            "deck2": ["MonoBlue", "MonoBlue"],
        }
    )


def _refit_proba(make: type, data: Any, shuffle: bool, key: str = "date") -> np.ndarray:
    X, y = data.X, data.y
    if key == "numeric":
        X = X.drop(columns="date").assign(period=pd.factorize(X["period"])[0] * 10)
    else:  # one date per match, so that the time order is complete
        X = X.assign(date=pd.Timestamp("2020-01-01") + pd.to_timedelta(np.arange(len(X)), "h"))
    if shuffle:
        order = np.random.default_rng(0).permutation(len(X))
        X, y = X.iloc[order], y[order]
    return make().fit(X, y).predict_proba(data.X)


def _elo_by_period() -> EloClassifier:
    return EloClassifier(updates="period")


def _with_nat(env: dict) -> pd.Series:
    dates = env["data"].X["date"].copy()
    dates.iloc[3] = pd.NaT
    return dates


def _spaced_names_proba(clean: bool = False) -> np.ndarray:
    X = pd.DataFrame(
        {
            "player1": ["ann", "Zo\u00eb", "bob"] * 4,
            "player2": ["bob", "ann", "Zo\u00eb"] * 4,
            "deck1": ["MonoRed"] * 12,
            "deck2": ["MonoBlue"] * 12,
        }
    )
    y = np.array([1, 0, 1] * 4)
    model = EloClassifier().fit(X, y)
    if not clean:
        X = X.replace({"ann": " ann ", "Zo\u00eb": "Zoe\u0308"})
        model = EloClassifier().fit(X, y)
    return model.predict_proba(X)


def _set_params_then(key: str, call: str, params: dict) -> Callable:
    """``call`` (a method) of a copy of a fitted model whose parameters were then set."""

    def build(env: dict) -> tuple:
        if key == "encoder":
            model = MatchupEncoder().fit(env["data"].X)
        else:
            model = copy.deepcopy(env["fitted"][key])
        model.set_params(**params)
        if call == "save":
            return model.save, (env["files"]["root"] / "refused.skcodex",), {}
        return getattr(model, call), (env["data"].X,), {}

    return build


def _elo_of_four_long_names() -> EloClassifier:
    names = [letter * 9_000_000 for letter in "abcd"]
    X = pd.DataFrame(
        {
            "player1": names[:2],
            "player2": names[2:],
            "deck1": ["MonoRed"] * 2,
            "deck2": ["MonoBlue"] * 2,
        }
    )
    return EloClassifier().fit(X, [1, 0])


def _renamed(env: dict, name: str) -> pd.DataFrame:
    """The training table with its first player renamed ``name`` in both columns."""
    X = env["data"].X
    old = X["player1"].iloc[0]
    return X.assign(**{c: X[c].where(X[c] != old, name) for c in ("player1", "player2")})


def _names_held_once(result: Any, env: dict) -> None:
    """The posterior's player names are held once each, fitted and after a save and load."""
    loaded = skcodex.load(result.save(env["files"]["root"] / "long-name.skcodex"))
    for model in (result, loaded):
        player = skcodex._compat.posterior.group(model.idata_, "posterior")["player"]
        assert player.dtype == object and player.values.nbytes == 8 * player.size
        assert max(len(name) for name in player.values) == 50_000
    X = _renamed(env, "x" * 50_000)
    assert np.array_equal(loaded.predict_proba(X), result.predict_proba(X))


def _matches_for_prediction(env: dict) -> pd.DataFrame:
    return pd.read_csv(env["files"]["matches"]).drop(columns="y")


_FRESH_LOAD = """
import json, sys
{setup}
import pandas as pd
import skcodex
X = pd.read_csv(sys.argv[2]).drop(columns="y")
print(json.dumps(skcodex.load(sys.argv[1]).predict_proba(X).tolist()))
"""


def _load_in_fresh_process(setup: str = "", home_is_a_file: bool = False) -> Callable:
    """Load the saved model and predict in a new interpreter, its environment degraded."""

    def build(env: dict) -> tuple:
        files = env["files"]

        def run() -> np.ndarray:
            environ = {**os.environ, "PYTHONPATH": str(PACKAGE.parent)}
            if home_is_a_file:  # no folder can be made under it, even by root
                home = files["root"] / "home-is-a-file"
                home.write_text("")
                environ["HOME"] = str(home)
                environ.pop("XDG_CACHE_HOME", None)
            done = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    _FRESH_LOAD.format(setup=setup),
                    str(files["model"]),
                    str(files["matches"]),
                ],
                capture_output=True,
                text=True,
                env=environ,
                timeout=900,
            )
            assert done.returncode == 0, done.stderr[-1500:]
            return np.array(json.loads(done.stdout.splitlines()[-1]))

        return run, (), {}

    return build


def _load_without_temp_folder(path: Path) -> np.ndarray:
    previous = tempfile.tempdir
    tempfile.tempdir = str(path.parent / "no-such-folder")
    try:
        model = skcodex.load(path)
    finally:
        tempfile.tempdir = previous
    return model


def _predicts_as_fitted(result: Any, env: dict) -> None:
    X = env["data"].X
    assert np.array_equal(result.predict_proba(X), env["fitted"]["bayes"].predict_proba(X))


def _cli_fails_and_leaves_nothing(folder: str, *fragments: str) -> Callable:
    """``_cli_fails``, and the folder the outputs were to go in is left empty."""
    fails = _cli_fails(*fragments)

    def check(result: Any, env: dict) -> None:
        fails(result, env)
        parent = env["files"]["root"] / folder
        assert not parent.exists() or not any(parent.iterdir()), list(parent.iterdir())

    return check


def _huge_sampling_cli(folder: str, option: str, value: str) -> Callable:
    def build(env: dict) -> tuple:
        out = env["files"]["root"] / folder / "out"
        argv = ("fit", str(env["files"]["matches"]), "--out", str(out), option, value)
        return _run_cli(env), (*argv, "--no-progress"), {}

    return build


HUGE = "x" * 1_000_000
UNICODE = ["Ægir 🃏", "Σοφία", "李小龍", "Zoë\u0301", "נועה", "ann"]

CASES = [
    # -- BayesianMatchupClassifier.fit: the table -----------------------------------------
    Case(
        "fit: X is a NumPy array",
        lambda e: (_fit_bayes, (e["data"].X.to_numpy(), _y(e)), {}),
        MatchTableError,
        "X must be a pandas DataFrame .* got ndarray",
    ),
    Case(
        "fit: X is a list of dicts",
        lambda e: (_fit_bayes, (e["data"].X.to_dict("records"), _y(e)), {}),
        MatchTableError,
        "X must be a pandas DataFrame .* got list",
    ),
    Case("fit: X is None", lambda e: (_fit_bayes, (None, _y(e)), {}), MatchTableError, "NoneType"),
    Case(
        "fit: missing column",
        lambda e: (_fit_bayes, (e["data"].X.drop(columns="deck2"), _y(e)), {}),
        MatchTableError,
        "missing the column.*'deck2'",
    ),
    Case(
        "fit: empty table",
        lambda e: (_fit_bayes, (e["data"].X.iloc[:0], _y(e)[:0]), {}),
        MatchTableError,
        "has no rows",
    ),
    Case(
        "fit: duplicated column",
        lambda e: (
            _fit_bayes,
            (pd.concat([e["data"].X, e["data"].X[["deck1"]]], axis=1), _y(e)),
            {},
        ),
        MatchTableError,
        "column 'deck1' more than once",
    ),
    Case(
        "fit: missing player (NaN)",
        lambda e: (_fit_bayes, (_x(e, player2=[np.nan, *e["data"].X.player2[1:]]), _y(e)), {}),
        MatchTableError,
        "'player2' is missing a value at row 0",
    ),
    Case(
        "fit: float player ids (inf)",
        lambda e: (_fit_bayes, (_x(e, player1=np.inf), _y(e)), {}),
        MatchTableError,
        "must hold player names .* got inf of type float",
    ),
    Case(
        "fit: mixed str and int player ids",
        lambda e: (
            _fit_bayes,
            (_x(e, player1=[*range(100), *e["data"].X.player1[100:]]), _y(e)),
            {},
        ),
        MatchTableError,
        "mixes str and int player ids",
    ),
    Case(
        "fit: player faces themself",
        lambda e: (_fit_bayes, (_x(e, player2=e["data"].X.player1), _y(e)), {}),
        MatchTableError,
        "faces themself at row 0",
    ),
    Case(
        "fit: unknown spec in a deck",
        lambda e: (_fit_bayes, (_x(e, deck1="[Demonology]/Anarchy/Lawe"), _y(e)), {}),
        MatchTableError,
        "unknown spec or starter 'Lawe'.*did you mean 'Law'",
    ),
    Case(
        "fit: deck with two specs",
        lambda e: (_fit_bayes, (_x(e, deck2="Anarchy/Law/Red"), _y(e)), {}),
        MatchTableError,
        "has 2 specs; a deck has 3",
    ),
    Case(
        "fit: missing deck (NaN)",
        lambda e: (_fit_bayes, (_x(e, deck1=np.nan), _y(e)), {}),
        MatchTableError,
        "'deck1' is missing a deck at row 0",
    ),
    Case(
        "fit: huge deck string",
        lambda e: (_fit_bayes, (_x(e, deck1=HUGE).iloc[:3], _y(e)[:3]), {}),
        MatchTableError,
        "1,000,000 characters is too long to be a deck",
    ),
    Case(
        "fit: date that is not a date",
        lambda e: (_fit_bayes, (_x(e, date="the day after"), _y(e)), {}),
        MatchTableError,
        "column 'date' holds 'the day after' at row 0 .*, which is not a date",
    ),
    Case(
        "fit: missing period",
        lambda e: (_fit_bayes, (_x(e, period=None), _y(e)), {}),
        MatchTableError,
        "'period' is missing a value at row 0",
    ),
    # -- BayesianMatchupClassifier.fit: outcomes, luck and parameters ---------------------
    Case(
        "fit: y holds NaN",
        lambda e: (_fit_bayes, (e["data"].X, np.r_[np.nan, _y(e)[1:]]), {}),
        MatchTableError,
        r"y must be 1 \(player1 won\) or 0 \(player2 won\); got nan at row 0",
    ),
    Case(
        "fit: y holds inf",
        lambda e: (_fit_bayes, (e["data"].X, np.r_[_y(e)[:-1], np.inf]), {}),
        MatchTableError,
        "got inf at row 239",
    ),
    Case(
        "fit: y holds a draw (0.5) and a value that is no outcome",
        lambda e: (_fit_bayes, (e["data"].X, np.r_[0.5, 0.3, _y(e)[2:]]), {}),
        MatchTableError,
        r"1 \(player1 won\), 0\.5 \(a draw\) or 0 \(player2 won\); got 0\.3 at row 1",
    ),
    Case(
        "fit: y holds words",
        lambda e: (_fit_bayes, (e["data"].X, np.where(_y(e) == 1, "win", "loss")), {}),
        MatchTableError,
        "got 'win' at row 0|got 'loss' at row 0",
    ),
    Case(
        "fit: y shorter than X",
        lambda e: (_fit_bayes, (e["data"].X, _y(e)[:-1]), {}),
        MatchTableError,
        "X has 240 matches but y has 239 outcomes",
    ),
    Case(
        "fit: y has two columns",
        lambda e: (_fit_bayes, (e["data"].X, np.c_[_y(e), _y(e)]), {}),
        MatchTableError,
        "y must be one-dimensional",
    ),
    Case(
        "fit: luck holds NaN",
        lambda e: (_fit_bayes, (e["data"].X, _y(e)), {"luck": np.full(240, np.nan)}),
        MatchTableError,
        "luck must be finite",
    ),
    Case(
        "fit: luck of the wrong length",
        lambda e: (_fit_bayes, (e["data"].X, _y(e)), {"luck": np.zeros(3)}),
        MatchTableError,
        "one number per match",
    ),
    Case(
        "fit: zero draws",
        lambda e: (BayesianMatchupClassifier(draws=0).fit, (e["data"].X, _y(e)), {}),
        InvalidParameterError,
        "'draws' parameter .* must be an int in the range",
        sklearn_error=True,
    ),
    Case(
        "fit: NaN prior scale",
        lambda e: (
            BayesianMatchupClassifier(log_sd_player_scale=float("nan")).fit,
            (e["data"].X, _y(e)),
            {},
        ),
        InvalidParameterError,
        "'log_sd_player_scale' parameter .* Got nan",
        sklearn_error=True,
    ),
    Case(
        "fit: unknown method",
        lambda e: (BayesianMatchupClassifier(method="magic").fit, (e["data"].X, _y(e)), {}),
        InvalidParameterError,
        "'method' parameter",
        sklearn_error=True,
    ),
    # -- rating estimators: fit --------------------------------------------------------
    Case(
        "Elo fit: Unicode player names (correct result)",
        lambda e: (
            lambda X, y: EloClassifier().fit(X, y).ratings_["player"].tolist(),
            (_x(e, player1=[UNICODE[i % 3] for i in range(240)], player2=UNICODE[3]), _y(e)),
            {},
        ),
        check=lambda r, e: sorted(r) == sorted(UNICODE[:4]) or pytest.fail(str(r)),
    ),
    Case(
        "Elo fit: huge player name (correct result)",
        lambda e: (
            lambda X, y: EloClassifier().fit(X, y).predict_proba(X),
            (_x(e, player1=HUGE).iloc[:10], _y(e)[:10]),
            {},
        ),
        check=_shape(10),
    ),
    Case(
        "Glicko-2 fit: one-row table (correct result)",
        lambda e: (
            lambda X, y: Glicko2Classifier().fit(X, y).predict_proba(X),
            (e["data"].X.iloc[:1], _y(e)[:1]),
            {},
        ),
        check=lambda r, e: (r[0, 1] > 0.5) == bool(e["data"].y[0]) or pytest.fail(str(r)),
    ),
    Case(
        "Elo fit: y is True/False (correct result)",
        lambda e: (
            lambda X, y: EloClassifier().fit(X, y).predict_proba(X),
            (e["data"].X, _y(e).astype(bool)),
            {},
        ),
        check=_same_probabilities(lambda e: e["fitted"]["elo"].predict_proba(e["data"].X)),
    ),
    Case(
        "Glicko-2 fit: NaN in y",
        lambda e: (Glicko2Classifier().fit, (e["data"].X, np.r_[np.nan, _y(e)[1:]]), {}),
        MatchTableError,
        "got nan at row 0",
    ),
    # -- predict_proba ---------------------------------------------------------------
    Case(
        "predict_proba before fit",
        lambda e: (BayesianMatchupClassifier().predict_proba, (e["data"].X,), {}),
        NotFittedError,
        "not fitted yet",
        sklearn_error=True,
    ),
    Case(
        "predict_proba: unseen players, starters and specs (correct result)",
        lambda e: (
            _proba("bayes")(e),
            (_x(e, player1="stranger", deck2="Anarchy/Growth/Law/Black"),),
            {},
        ),
        check=lambda r, e: np.ptp(r[:, 1]) > 0 or pytest.fail("all equal"),
    ),
    Case(
        "predict_proba: int ids against a model fitted on names (correct result: unseen)",
        lambda e: (_proba("glicko")(e), (_x(e, player1=1, player2=2),), {}),
        check=lambda r, e: np.allclose(r[:, 1], r[0, 1]) or pytest.fail(str(r)),
    ),
    Case(
        "predict_proba: one-row table (correct result)",
        lambda e: (_proba("bayes")(e), (e["data"].X.iloc[[7]],), {}),
        check=_same_probabilities(lambda e: e["fitted"]["bayes"].predict_proba(e["data"].X)[[7]]),
    ),
    Case(
        "predict_proba: empty table (Bayesian)",
        lambda e: (_proba("bayes")(e), (e["data"].X.iloc[:0],), {}),
        MatchTableError,
        "has no rows",
    ),
    Case(
        "predict_proba: empty table (Elo; correct result)",
        lambda e: (_proba("elo")(e), (e["data"].X.iloc[:0],), {}),
        check=_shape(0),
    ),
    Case(
        "predict_proba: extra columns are ignored (correct result)",
        lambda e: (_proba("bayes")(e), (_x(e, notes="x", y=1, winner="ann"),), {}),
        check=_same_probabilities(lambda e: e["fitted"]["bayes"].predict_proba(e["data"].X)),
    ),
    Case(
        "predict_proba: columns reordered, categorical dtypes (correct result)",
        lambda e: (
            _proba("bayes")(e),
            (e["data"].X[e["data"].X.columns[::-1]].astype("category"),),
            {},
        ),
        check=_same_probabilities(lambda e: e["fitted"]["bayes"].predict_proba(e["data"].X)),
    ),
    Case(
        "predict_proba: Unicode names never seen (correct result)",
        lambda e: (
            _proba("bayes")(e),
            (_x(e, player1=UNICODE[0], player2=UNICODE[1]).iloc[:5],),
            {},
        ),
        check=_shape(5),
    ),
    Case(
        "predict_proba: mixed-type ids",
        lambda e: (_proba("elo")(e), (_x(e, player1=[1, *e["data"].X.player1[1:]]),), {}),
        MatchTableError,
        "mixes str and int player ids",
    ),
    Case(
        "predict_proba: NaN deck",
        lambda e: (_proba("bayes")(e), (_x(e, deck2=np.nan),), {}),
        MatchTableError,
        "'deck2' is missing a deck",
    ),
    Case(
        "predict_proba: a Series instead of a table",
        lambda e: (_proba("bayes")(e), (e["data"].X.iloc[0],), {}),
        MatchTableError,
        "got Series",
    ),
    # -- loaders ------------------------------------------------------------------------
    Case(
        "load_codex_matches: no such folder",
        lambda e: (load_codex_matches, (e["files"]["root"] / "nowhere",), {}),
        FileNotFoundError,
        "no codexdata folder",
    ),
    Case(
        "load_codex_matches: folder without matches.csv",
        lambda e: (load_codex_matches, (e["files"]["no_csv"],), {}),
        FileNotFoundError,
        "no matches.csv",
    ),
    Case(
        "load_codex_matches: missing column",
        lambda e: (load_codex_matches, (e["files"]["no_victor"],), {}),
        CodexDataError,
        "victor",
    ),
    Case(
        "load_codex_matches: empty matches.csv",
        lambda e: (load_codex_matches, (e["files"]["empty"],), {}),
        CodexDataError,
        "is empty",
    ),
    Case(
        "skcodex.load: a CSV file",
        lambda e: (skcodex.load, (e["files"]["table"],), {}),
        PersistenceError,
        "not a saved skcodex estimator",
    ),
    Case(
        "skcodex.load: a truncated model file",
        lambda e: (skcodex.load, (e["files"]["broken"],), {}),
        PersistenceError,
        "truncated or corrupted",
    ),
    # -- skcodex.load: files that are not regular files, too large, or hostile --------------
    *[
        Case(
            f"skcodex.load: {what}",
            lambda e, key=key: (skcodex.load, (e["files"][key],), {}),
            PersistenceError,
            pattern,
        )
        for what, key, pattern in [
            ("a FIFO", "fifo", "not a regular file"),
            ("a symlink to /dev/zero", "device_link", "not a regular file"),
            ("the folder of the files", "root", "is a folder"),
            ("state key __class__", "state_class", "'__class__', which is not a fitted"),
            ("state key named like a method", "state_method", "'predict_proba', which is not"),
            ("state key __dict__", "state_dict", "'__dict__', which is not a fitted"),
            ("parameter __class__", "param_class", "does not have"),
            ("a parameter of the wrong type", "param_invalid", "invalid parameter"),
            ("estimator named 'load'", "estimator_load", "unknown estimator class 'load'"),
            ("state that is a list", "state_list", "no fitted state"),
            ("JSON nested 5000 deep", "deep", "nested"),
            ("metadata edited without its digest", "edited", "metadata.json does not match"),
            ("npz header claiming 8 TB", "huge_npz", "claims 8000000000000 bytes"),
            ("compressed npz", "compressed_npz", "compressed"),
            ("npz of Python objects", "object_npz", "dtype object"),
            ("an extra member", "extra_member", "unexpected member 'payload.pkl'"),
            ("format version 1", "v1", "format version 1"),
            ("a member name twice", "duplicate", "member name twice"),
            ("a zip bomb (100 MB of zeros)", "bomb", "claims 104857600 bytes"),
            ("posterior with HDF5 external storage", "nc_external", "external file"),
            ("posterior with a virtual dataset", "nc_virtual", "virtual dataset"),
            ("posterior with an external link", "nc_link", "external link"),
        ]
    ],
    Case(
        "skcodex.load: /dev/zero",
        lambda e: (skcodex.load, ("/dev/zero",), {}),
        PersistenceError,
        "not a regular file",
    ),
    Case(
        "skcodex.load: larger than max_bytes",
        lambda e: (skcodex.load, (e["files"]["model"],), {"max_bytes": 100}),
        PersistenceError,
        "more than the 100 bytes",
    ),
    Case(
        "skcodex.load: max_bytes=0",
        lambda e: (skcodex.load, (e["files"]["model"],), {"max_bytes": 0}),
        TypeError,
        "max_bytes must be a positive int",
    ),
    Case(
        "skcodex.load: the wrong key",
        lambda e: (skcodex.load, (e["files"]["signed"],), {"key": b"theirs"}),
        PersistenceError,
        "signature does not match",
    ),
    Case(
        "skcodex.load: a key for an unsigned file",
        lambda e: (skcodex.load, (e["files"]["model"],), {"key": b"ours"}),
        PersistenceError,
        "not signed",
    ),
    Case(
        "skcodex.load: an empty key",
        lambda e: (skcodex.load, (e["files"]["signed"],), {"key": b""}),
        TypeError,
        "key must be non-empty",
    ),
    Case(
        "save: a key that is a number",
        lambda e: (e["fitted"]["elo"].save, (e["files"]["root"] / "k.skcodex",), {"key": 123}),
        TypeError,
        "key must be non-empty bytes or str",
    ),
    Case(
        "save: a model fitted on a name with a lone surrogate is impossible",
        lambda e: (EloClassifier().fit, (_x(e, player1=_ids(e, "p1", "bad\ud800")), _y(e)), {}),
        MatchTableError,
        "lone surrogate",
    ),
    # -- save after set_params: what fit refuses, save refuses (so that load never does) ---
    *[
        Case(
            f"save: {key} after set_params({param}={value!r})",
            _set_params_then(key, "save", {param: value}),
            PersistenceError,
            rf"^cannot save this \w+: The '{param}' parameter of \w+ must be .* Got .* "
            "Set a value fit accepts before saving.$",
        )
        for key, param, value in [
            ("bayes", "draws", "many"),
            ("bayes", "draws", -5),
            ("bayes", "method", "magic"),
            ("bayes", "target_accept", 2.0),
            ("bayes", "catalogue", "codex"),
            ("elo", "k_factor", -3.0),
            ("glicko", "tau", "fast"),
            ("encoder", "catalogue", "codex"),
        ]
    ],
    *[
        Case(
            f"{method}: {key} after set_params(catalogue='codex')",
            _set_params_then(key, method, {"catalogue": "codex"}),
            InvalidParameterError,
            "The 'catalogue' parameter of .* Got 'codex' instead",
            sklearn_error=True,
        )
        for key, method in [("bayes", "predict_proba"), ("encoder", "transform")]
    ],
    Case(
        "save: Elo with four player names of 9 MB (metadata above 64 MiB)",
        lambda e: (_elo_of_four_long_names().save, (e["files"]["root"] / "long.skcodex",), {}),
        PersistenceError,
        r"^cannot save this EloClassifier: its metadata would take 72,0\d\d,\d{3} bytes "
        r"\(ratings_ alone takes 36,0\d\d,\d{3}\), more than the 67,108,864 \(64 MiB\)",
    ),
    # -- skcodex.load: one budget, each member read once ----------------------------------
    Case(
        "skcodex.load: metadata naming its posterior 8 more times",
        lambda e: (skcodex.load, (e["files"]["posterior_again"],), {}),
        PersistenceError,
        "its metadata names the posterior 0_idata_.nc more than once",
    ),
    Case(
        "skcodex.load: 2 MB of level names decoding to 74.5 GiB of text",
        lambda e: (skcodex.load, (e["files"]["text_bomb"],), {}),
        PersistenceError,
        r"the posterior's datasets would take more than 268435456 bytes once read; refused",
    ),
    # -- skcodex.load: the file name and the key ------------------------------------------
    Case(
        "skcodex.load: a file name holding a NUL",
        lambda e: (skcodex.load, ("a\0b",), {}),
        PersistenceError,
        r"^a\\x00b: a file name cannot hold a NUL character$",
    ),
    Case(
        "skcodex.load: a key holding a lone surrogate",
        lambda e: (skcodex.load, (e["files"]["signed"],), {"key": "ours\ud800"}),
        TypeError,
        r"^key must be non-empty bytes or str .*not valid Unicode \(it holds a lone surrogate\)",
    ),
    # -- skcodex.load and predict_proba in a degraded environment -------------------------
    Case(
        "predict_proba after load: numba finds no folder to cache its kernels in",
        _load_in_fresh_process(
            "import numba.core.caching as caching\ncaching.CacheImpl._locator_classes = []"
        ),
        check=_same_probabilities(
            lambda e: e["fitted"]["bayes"].predict_proba(_matches_for_prediction(e))
        ),
    ),
    Case(
        "skcodex.load: a home folder in which no cache folder can be made",
        _load_in_fresh_process(home_is_a_file=True),
        check=_same_probabilities(
            lambda e: e["fitted"]["bayes"].predict_proba(_matches_for_prediction(e))
        ),
    ),
    Case(
        "skcodex.load: no temporary folder",
        lambda e: (_load_without_temp_folder, (e["files"]["model"],), {}),
        check=_predicts_as_fitted,
    ),
    # -- sizes that cannot fit in memory, refused before sampling --------------------------
    *[
        Case(
            f"fit: {param}={value:,} (the draws cannot fit in memory)",
            lambda e, kw={param: value}: (
                BayesianMatchupClassifier(**{**TINY, **kw}).fit,
                (e["data"].X, _y(e)),
                {},
            ),
            ValueError,
            rf"^chains={chains} x draws={draws} would keep [\d,]+\.\d GiB of posterior draws, "
            r"more than the [\d,]+\.\d GiB of memory available; lower draws or chains$",
        )
        for param, value, chains, draws in [
            ("draws", 10**12, 2, 10**12),
            ("chains", 10**6, 10**6, 100),
        ]
    ],
    # -- a very long name is held once -----------------------------------------------------
    Case(
        "fit: one player name of 50,000 characters",
        lambda e: (_fit_bayes, (_renamed(e, "x" * 50_000), _y(e)), {}),
        check=_names_held_once,
    ),
    # -- numerically absurd parameters --------------------------------------------------
    *[
        Case(
            f"{est.__name__}: {param}={value!r}",
            lambda e, est=est, kw={param: value}: (est(**kw).fit, (e["data"].X, _y(e)), {}),
            InvalidParameterError,
            param,
            sklearn_error=True,
        )
        for est, param, value in [
            (EloClassifier, "k_factor", 1e308),
            (EloClassifier, "initial_rating", 1e300),
            (EloClassifier, "first_mover_advantage", 1e5),
            (Glicko2Classifier, "tau", 1e300),
            (Glicko2Classifier, "initial_rd", 1e308),
            (Glicko2Classifier, "initial_volatility", 100.0),
            (Glicko2Classifier, "epsilon", 1e-300),
            (Glicko2Classifier, "first_mover_advantage", -1e9),
        ]
    ],
    *[
        Case(
            f"fit: {param}={value!r}",
            (
                lambda kw: (
                    lambda e: (
                        BayesianMatchupClassifier(**TINY, **kw).fit,
                        (e["data"].X, _y(e)),
                        {},
                    )
                )
            )({param: value}),
            InvalidParameterError,
            param,
            sklearn_error=True,
        )
        for param, value in [
            ("log_sd_player_scale", 1e-300),
            ("log_sd_player_loc", 1e6),
            ("log_total_scale", 100.0),
            ("log_sd_spsp_loc", -50.0),
        ]
    ],
    # -- time order ---------------------------------------------------------------------
    Case(
        "EloClassifier.fit: rows shuffled against their dates",
        lambda e: (_refit_proba, (EloClassifier, e["data"], True), {}),
        check=_same_probabilities(lambda e: _refit_proba(EloClassifier, e["data"], False)),
    ),
    Case(
        "Glicko2Classifier.fit: rows shuffled against their dates",
        lambda e: (_refit_proba, (Glicko2Classifier, e["data"], True), {}),
        check=_same_probabilities(lambda e: _refit_proba(Glicko2Classifier, e["data"], False)),
    ),
    Case(
        "EloClassifier(updates='period').fit: rows shuffled against numeric periods",
        lambda e: (_refit_proba, (_elo_by_period, e["data"], True, "numeric"), {}),
        check=_same_probabilities(
            lambda e: _refit_proba(_elo_by_period, e["data"], False, "numeric")
        ),
    ),
    Case(
        "EloClassifier.fit: a missing date",
        lambda e: (EloClassifier().fit, (_x(e, date=_with_nat(e)), _y(e)), {}),
        MatchTableError,
        "column 'date' is missing a value at row 3",
    ),
    # -- sample weights -----------------------------------------------------------------
    *[
        Case(
            f"brier_score: sample_weight {what}",
            (lambda w: lambda e: (brier_score, ([1, 0, 1], [0.6, 0.4, 0.5]), {"sample_weight": w}))(
                weights
            ),
            ValueError,
            pattern,
        )
        for what, weights, pattern in [
            ("with NaN", [1.0, np.nan, 1.0], "finite and non-negative; found nan"),
            ("negative", [1.0, -1.0, 1.0], "found -1.0 at position 1"),
            ("all zero", [0, 0, 0], "sums to zero"),
            ("too short", [1.0, 1.0], "2 weights but there are 3 matches"),
            ("two-dimensional", [[1.0, 1.0, 1.0]], "one-dimensional"),
            ("text", ["a", "b", "c"], "must be numbers"),
            ("infinite", [1.0, np.inf, 1.0], "found inf"),
        ]
    ],
    # -- player names and period labels -------------------------------------------------
    Case(
        "fit: 'ann' faces 'ann ' (spaces)",
        lambda e: (EloClassifier().fit, (_pair("ann", "ann "), [1, 0]), {}),
        MatchTableError,
        "player 'ann' faces 'ann ' at row 1",
    ),
    Case(
        "fit: NFC faces NFD of one name",
        lambda e: (EloClassifier().fit, (_pair("Zo\u00eb", "Zoe\u0308"), [1, 0]), {}),
        MatchTableError,
        "same player once surrounding spaces, invisible characters and Unicode normal form",
    ),
    Case(
        "EloClassifier: 'ann ' and NFD names are the players 'ann' and NFC",
        lambda e: (_spaced_names_proba, (), {}),
        check=_same_probabilities(lambda e: _spaced_names_proba(clean=True)),
    ),
    *[
        Case(
            f"fit: a player name {what}",
            lambda e, name=name: (
                EloClassifier().fit,
                (_x(e, player2=_ids(e, "p2", name)), _y(e)),
                {},
            ),
            MatchTableError,
            pattern,
        )
        for what, name, pattern in [
            ("with a NUL", "bad\0name", "player2.*NUL character"),
            ("with a lone surrogate", "bad\udc80", "player2.*lone surrogate"),
            ("of spaces only", "   ", "player2.*empty or only spaces"),
        ]
    ],
    Case(
        "predict_proba: a player name with a NUL",
        lambda e: (_proba("glicko")(e), (_x(e, player1=_ids(e, "p1", "x\0")),), {}),
        MatchTableError,
        "NUL character",
    ),
    *[
        Case(
            f"fit: period {what}",
            lambda e, col=col: (EloClassifier().fit, (_x(e, period=col(e)), _y(e)), {}),
            MatchTableError,
            pattern,
        )
        for what, col, pattern in [
            (
                "holding lists",
                lambda e: [[i] for i in range(len(e["data"].X))],
                "period' holds a list",
            ),
            (
                "label with a NUL",
                lambda e: pd.Series(
                    ["T\0"] * len(e["data"].X), index=e["data"].X.index, dtype=object
                ),
                "NUL character",
            ),
            (
                "label with a lone surrogate",
                lambda e: pd.Series(
                    ["T\ud800"] * len(e["data"].X), index=e["data"].X.index, dtype=object
                ),
                "lone surrogate",
            ),
        ]
    ],
    Case(
        "BayesianMatchupClassifier.fit: period holding lists",
        lambda e: (_fit_bayes, (_x(e, period=[[1]] * len(e["data"].X)), _y(e)), {}),
        MatchTableError,
        "period' holds a list",
    ),
    # -- the command line's output folder -----------------------------------------------
    Case(
        "skcodex fit: --out is a file",
        lambda e: (
            _run_cli(e),
            ("fit", str(e["files"]["matches"]), "--out", str(e["files"]["table"])),
            {},
        ),
        check=_cli_fails("is a file, not a folder"),
    ),
    Case(
        "skcodex fit: --out holds other files",
        lambda e: (
            _run_cli(e),
            ("fit", str(e["files"]["matches"]), "--out", str(e["files"]["no_victor"])),
            {},
        ),
        check=_cli_fails("holds files skcodex did not write"),
    ),
    Case(
        "skcodex fit: --out is the folder of the input",
        lambda e: (
            _run_cli(e),
            ("fit", str(e["files"]["matches"]), "--out", str(e["files"]["root"])),
            {},
        ),
        check=_cli_fails("would replace the input"),
    ),
    # -- splitters ----------------------------------------------------------------------
    Case(
        "TournamentSplit: n_splits=0",
        lambda e: (TournamentSplit, (0,), {}),
        ValueError,
        "n_splits must be an integer >= 1, got 0",
    ),
    Case(
        "TournamentSplit: fewer tournaments than folds",
        lambda e: (lambda X: list(TournamentSplit(4).split(X)), (e["data"].X,), {}),
        ValueError,
        "needs at least 5 tournaments .* the data have 4",
    ),
    Case(
        "TournamentSplit: groups of the wrong length",
        lambda e: (
            lambda X, g: list(TournamentSplit(2).split(X, groups=g)),
            (e["data"].X, [1, 2]),
            {},
        ),
        ValueError,
        "X has 240 rows, groups has shape",
    ),
    Case(
        "TournamentSplit: missing tournament label",
        lambda e: (lambda X: list(TournamentSplit(2).split(X)), (_x(e, period=np.nan),), {}),
        ValueError,
        "tournament label is missing at row 0",
    ),
    Case(
        "TournamentSplit: no tournaments at all",
        lambda e: (
            lambda X: list(TournamentSplit(2).split(X)),
            (e["data"].X.drop(columns="period"),),
            {},
        ),
        ValueError,
        "give X a 'period' column or pass groups=",
    ),
    Case(
        "TournamentSplit: rows not in time order (correct result: same folds)",
        lambda e: (
            _split_by_date,
            (e["data"].X.assign(id=range(240)).sample(frac=1.0, random_state=1),),
            {},
        ),
        check=_shuffled_folds_equal,
    ),
    # -- scorers ------------------------------------------------------------------------
    Case(
        "brier_score: NaN probability",
        lambda e: (brier_score, ([1, 0], [0.5, np.nan]), {}),
        ValueError,
        r"p_win must be probabilities in \[0, 1\]; found nan",
    ),
    Case(
        "brier_score: lengths differ",
        lambda e: (brier_score, ([1, 0, 1], [0.5, 0.5]), {}),
        ValueError,
        "y_true has 3 outcomes but p_win has 2",
    ),
    Case(
        "brier_score: nothing to score",
        lambda e: (brier_score, ([], []), {}),
        ValueError,
        "no matches to score",
    ),
    Case(
        "brier_score: both predict_proba columns passed",
        lambda e: (brier_score, ([1, 0], np.full((2, 2), 0.5)), {}),
        ValueError,
        r"pass P\(player 1 wins\)",
    ),
    Case(
        "brier_score: outcome 2",
        lambda e: (brier_score, ([2, 0], [0.5, 0.5]), {}),
        ValueError,
        r"y_true must be outcomes in \[0, 1\]",
    ),
    Case(
        "brier_scorer: unfitted estimator",
        lambda e: (brier_scorer, (EloClassifier(), e["data"].X, _y(e)), {}),
        ValueError,
        "has no classes_; fit it before scoring",
    ),
    # -- command line ---------------------------------------------------------------------
    Case(
        "cli: unknown option",
        lambda e: (_run_cli(e), ("demo", "--bogus"), {}),
        check=_cli_fails("unrecognized arguments: --bogus"),
    ),
    Case(
        "cli: bad number",
        lambda e: (_run_cli(e), ("demo", "--matches", "0"), {}),
        check=_cli_fails("expected a number of at least 8, got '0'"),
    ),
    Case(
        "cli: fit a missing file",
        lambda e: (
            _run_cli(e),
            ("fit", str(e["files"]["root"] / "nowhere.csv"), "--out", str(e["files"]["root"])),
            {},
        ),
        check=_cli_fails("nowhere.csv"),
    ),
    Case(
        "cli: fit a table without deck2",
        lambda e: (
            _run_cli(e),
            ("fit", str(e["files"]["table"]), "--out", str(e["files"]["root"] / "out")),
            {},
        ),
        check=_cli_fails("deck2"),
    ),
    Case(
        "cli: fit --draws 1000000000000",
        _huge_sampling_cli("huge-draws", "--draws", "1000000000000"),
        check=_cli_fails_and_leaves_nothing("huge-draws", "would keep", "memory available"),
    ),
    Case(
        "cli: fit --chains 1000000",
        _huge_sampling_cli("huge-chains", "--chains", "1000000"),
        check=_cli_fails_and_leaves_nothing("huge-chains", "chains=1000000 x", "lower draws"),
    ),
    Case(
        "cli: predict from a missing model",
        lambda e: (
            _run_cli(e),
            (
                "predict",
                str(e["files"]["root"] / "none.skcodex"),
                "--p1",
                "a",
                "--deck1",
                "MonoRed",
                "--p2",
                "b",
                "--deck2",
                "MonoBlue",
            ),
            {},
        ),
        check=_cli_fails("none.skcodex"),
    ),
    Case(
        "cli: predict from a truncated model",
        lambda e: (
            _run_cli(e),
            (
                "predict",
                str(e["files"]["broken"]),
                "--p1",
                "a",
                "--deck1",
                "MonoRed",
                "--p2",
                "b",
                "--deck2",
                "MonoBlue",
            ),
            {},
        ),
        check=_cli_fails("truncated or corrupted"),
    ),
    Case(
        "cli: predict with a misspelt deck",
        lambda e: (
            _run_cli(e),
            (
                "predict",
                str(e["files"]["model"]),
                "--p1",
                "a",
                "--deck1",
                "[Demonolgy]/Law/Peace",
                "--p2",
                "b",
                "--deck2",
                "MonoBlue",
            ),
            {},
        ),
        check=_cli_fails("--deck1", "did you mean 'Demonology'"),
    ),
]


# -- hostile names, pipes and devices, time order, the command line, luck -----------------

INVISIBLE = ["\u200b", "\u200d", "\u00ad", "\ufeff", "\u202e"]
FORMULAS = ["=1+2", "+A1", "-2+3", "@SUM(A1)", "\tx", "\rx"]
DOLLARS = [r"$\fakecommand$", "$_$", "$$", "$^_^$", "Ca$h$", "$money$"]


def _invisible_names_proba(clean: bool = False) -> np.ndarray:
    """Elo on names carrying invisible characters, or on the same names without them."""
    names = ["ann", "bob", "cy", "dee", "eve"]
    marked = [f"{n[0]}{mark}{n[1:]}" for n, mark in zip(names, INVISIBLE)]
    use = names if clean else marked
    X = pd.DataFrame(
        {
            "player1": [use[i % 5] for i in range(20)],
            "player2": [names[(i + 1 + i // 5) % 5] for i in range(20)],
            "deck1": ["MonoRed"] * 20,
            "deck2": ["MonoBlue"] * 20,
        }
    )
    y = np.array([1, 0, 1, 1, 0] * 4)
    return (
        EloClassifier().fit(X, y).predict_proba(X.assign(player1=[names[i % 5] for i in range(20)]))
    )


def _safe_cells(result: Any, env: dict) -> None:
    assert list(result["name"]) == ["'" + f for f in FORMULAS] + ["a=b"]
    assert list(result["value"]) == [-0.5] * 7 and result["value"].dtype == float


def _skill_frame(names: list[str]) -> pd.DataFrame:
    n = len(names)
    means = np.linspace(1.0, -1.0, n)
    return pd.DataFrame(
        {"mean": means, "lower": means - 0.5, "upper": means + 0.5}, index=pd.Index(names)
    )


def _plot_skills_drawn(names: list[str]) -> list:
    """What plot_skills draws as its player labels, and whether each would be read as maths."""
    from skcodex.plotting import plot_skills

    fig = plot_skills(_skill_frame(names))
    fig.savefig(io.BytesIO(), format="png", dpi=20)
    return [t._preprocess_math(t.get_text()) for t in fig.axes[0].get_yticklabels()]


def _drawn_as_typed(result: Any, env: dict) -> None:
    assert result == [(name, False) for name in DOLLARS]


def _period_months(env: dict) -> pd.DataFrame:
    X = env["data"].X.drop(columns="date")
    k = pd.factorize(X["period"])[0]
    return X.assign(period=pd.PeriodIndex([f"2024-{i + 1:02d}" for i in k], freq="M"))


def _elo_on_months(X: pd.DataFrame, y: np.ndarray, later_first: bool) -> np.ndarray:
    if later_first:  # the last month's rows first, each month's rows in order
        order = np.argsort(-pd.factorize(X["period"])[0], kind="stable")
        X, y = X.iloc[order], y[order]
    return EloClassifier().fit(X, y).predict_proba(X.sort_values("period", kind="stable"))


def _month_folds(X: pd.DataFrame) -> list:
    X = X.iloc[np.random.default_rng(1).permutation(len(X))]
    return [
        (str(X["period"].iloc[tr].max()), str(X["period"].iloc[te].min()))
        for tr, te in TournamentSplit(n_splits=2).split(X)
    ]


def _months_in_order(result: Any, env: dict) -> None:
    assert result == [("2024-02", "2024-03"), ("2024-03", "2024-04")]


def _write(env: dict, name: str, content: bytes) -> str:
    path = env["files"]["root"] / name
    path.write_bytes(content)
    return str(path)


def _bad_cell_csv(env: dict, column: str) -> str:
    table = env["data"].X.assign(y=env["data"].y).astype({column: object})
    table.loc[3, column] = {"deck1": "Lawx", "player2": "\u200b", "y": "won"}[column]
    buffer = io.StringIO()
    table.to_csv(buffer, index=False)
    return _write(env, f"bad_{column}.csv", buffer.getvalue().encode())


def _link_out(env: dict) -> str:
    link = env["files"]["root"] / "out-link"
    if not link.is_symlink():
        link.symlink_to(env["files"]["root"] / "out-target")
    return str(link)


def _predict_out(env: dict) -> Callable:
    def run(*argv: str) -> tuple[int, str, str]:
        env["capsys"].readouterr()
        code = cli(list(argv))
        captured = env["capsys"].readouterr()
        return code, captured.out, captured.err

    return run


def _predict_argv(env: dict, p1: str) -> tuple:
    X = env["data"].X
    return (
        "predict",
        str(env["files"]["model"]),
        "--p1",
        p1,
        "--deck1",
        X["deck1"].iloc[0],
        "--p2",
        X["player2"].iloc[0],
        "--deck2",
        X["deck2"].iloc[0],
    )


def _same_forecast_as_typed_plainly(result: Any, env: dict) -> None:
    code, out, err = result
    assert code == 0, err
    assert "not in the fitted matches" not in out
    plain = _predict_out(env)(*_predict_argv(env, env["data"].X["player1"].iloc[0]))
    assert out.splitlines()[-2:] == plain[1].splitlines()[-2:]


def _noise_luck(env: dict, scale: float, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(0.0, scale, len(env["data"].y))


def _quiet(func: Callable, category: type) -> Callable:
    """``func`` with the warnings of ``category`` it gives on its way left out."""

    def run(*args: Any, **kwargs: Any) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", category)
            return func(*args, **kwargs)

    return run


def _warnings_of(func: Callable) -> Callable:
    def run(*args: Any, **kwargs: Any) -> list[str]:
        from skcodex.data import LuckWarning

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            func(*args, **kwargs)
        return [str(w.message) for w in caught if issubclass(w.category, LuckWarning)]

    return run


def _warned_noisier(result: Any, env: dict) -> None:
    assert len(result) == 1 and "vary more than the raw outcomes" in result[0]


def _pure_noise_luck(env: dict) -> np.ndarray:
    """Luck from a judge that is pure noise, large enough to push a player's total out of range."""
    return _noise_luck(env, 3.0, 0)


CASES.extend(
    [
        Case(
            "report CSV: text cells starting with =, +, -, @, tab or CR",
            lambda e: (
                __import__("skcodex.report", fromlist=["x"]).spreadsheet_safe,
                (pd.DataFrame({"name": [*FORMULAS, "a=b"], "value": [-0.5] * 7}),),
                {},
            ),
            check=_safe_cells,
        ),
        Case(
            "plot_skills: player names holding $ signs ($\\fakecommand$, Ca$h$, ...)",
            lambda e: (_plot_skills_drawn, (DOLLARS,), {}),
            check=_drawn_as_typed,
        ),
        Case(
            "fit: 'ann' facing 'ann' with a zero-width space",
            lambda e: (EloClassifier().fit, (_pair("ann", "ann\u200b"), [1, 0]), {}),
            MatchTableError,
            "same player once surrounding spaces, invisible characters",
        ),
        Case(
            "Elo fit: names differing by ZWSP, ZWJ, soft hyphen, BOM, RLO are one player each",
            lambda e: (_invisible_names_proba, (), {}),
            check=_same_probabilities(lambda e: _invisible_names_proba(clean=True)),
        ),
        Case(
            "fit: a name of invisible characters only",
            lambda e: (
                EloClassifier().fit,
                (_x(e, player2=_ids(e, "p2", "\u200b\ufeff")), _y(e)),
                {},
            ),
            MatchTableError,
            "player2.*empty or only spaces",
        ),
        Case(
            "time-varying fit: a match dated NaT",
            lambda e: (
                BayesianMatchupClassifier(time_varying=True, **TINY).fit,
                (_x(e, date=e["data"].X["date"].where(e["data"].X.index != 5)), _y(e)),
                {},
            ),
            MatchTableError,
            "column 'date' is missing a value at row 5",
        ),
        Case(
            "Elo fit: Period months, later months' rows first",
            lambda e: (_elo_on_months, (_period_months(e), _y(e), True), {}),
            check=_same_probabilities(lambda e: _elo_on_months(_period_months(e), _y(e), False)),
        ),
        Case(
            "TournamentSplit: Period months, rows shuffled",
            lambda e: (_month_folds, (_period_months(e),), {}),
            check=_months_in_order,
        ),
        Case(
            "Bayesian fit: luck from a pure-noise evaluator",
            # the noise is warned of (LuckWarning) before the refusal this case checks
            lambda e: (
                _quiet(_fit_bayes, LuckWarning),
                (e["data"].X, _y(e)),
                {"luck": _pure_noise_luck(e)},
            ),
            MatchTableError,
            r"after the luck adjustment player .* outside \[0, \d+\]",
        ),
        Case(
            "Elo fit: luck from a noisy evaluator",
            lambda e: (
                _warnings_of(EloClassifier().fit),
                (e["data"].X, _y(e)),
                {"luck": _noise_luck(e, 1.0, 1)},
            ),
            check=_warned_noisier,
        ),
        Case(
            "cli: fit /dev/zero",
            lambda e: (
                _run_cli(e),
                ("fit", "/dev/zero", "--out", str(e["files"]["root"] / "out")),
                {},
            ),
            check=_cli_fails("/dev/zero is not a regular file, a folder or a pipe"),
        ),
        Case(
            "cli: fit a Latin-1 CSV",
            lambda e: (
                _run_cli(e),
                (
                    "fit",
                    _write(e, "latin.csv", "player1,player2\nZoë,bob\n".encode("latin-1")),
                    "--out",
                    str(e["files"]["root"] / "out"),
                ),
                {},
            ),
            check=_cli_fails(r"latin\.csv: line 2 is not UTF-8 text", "save it as UTF-8"),
        ),
        *[
            Case(
                f"cli: fit a CSV with one bad cell in {column}",
                lambda e, column=column: (
                    _run_cli(e),
                    ("fit", _bad_cell_csv(e, column), "--out", str(e["files"]["root"] / "out")),
                    {},
                ),
                check=_cli_fails(column, "line 5"),
            )
            for column in ("deck1", "player2", "y")
        ],
        Case(
            "cli: fit --out a symbolic link",
            lambda e: (
                _run_cli(e),
                ("fit", str(e["files"]["matches"]), "--out", _link_out(e)),
                {},
            ),
            check=_cli_fails("is a symbolic link"),
        ),
        Case(
            "cli: fit --decks with a misspelt deck",
            lambda e: (
                _run_cli(e),
                (
                    "fit",
                    str(e["files"]["matches"]),
                    "--out",
                    str(e["files"]["root"] / "out"),
                    "--decks",
                    "MonoRed,[Demonolgy]/Law/Peace",
                ),
                {},
            ),
            check=_cli_fails("--decks: .*Demonolgy"),
        ),
        Case(
            "cli: predict --p1 with surrounding spaces and a zero-width space",
            lambda e: (
                _predict_out(e),
                _predict_argv(e, f" {e['data'].X['player1'].iloc[0]}\u200b "),
                {},
            ),
            check=_same_forecast_as_typed_plainly,
        ),
    ]
)


def _innermost_file(exc: BaseException) -> Path:
    tb = exc.__traceback__
    while tb.tb_next is not None:
        tb = tb.tb_next
    return Path(tb.tb_frame.f_code.co_filename).resolve()


def _assert_same(before: Any, after: Any) -> None:
    if isinstance(before, pd.DataFrame):
        pd.testing.assert_frame_equal(after, before)
    elif isinstance(before, pd.Series):
        pd.testing.assert_series_equal(after, before)
    elif isinstance(before, np.ndarray):
        assert after.dtype == before.dtype
        assert np.array_equal(after, before, equal_nan=before.dtype.kind == "f")
    elif isinstance(before, (list, tuple)):
        assert type(after) is type(before) and len(after) == len(before)
        for a, b in zip(before, after):
            _assert_same(a, b)
    elif isinstance(before, BaseEstimator):
        assert type(after) is type(before) and after.get_params() == before.get_params()
        assert vars(after).keys() == vars(before).keys()
    elif isinstance(before, dict):
        assert after.keys() == before.keys()
        for key in before:
            _assert_same(before[key], after[key])
    else:
        assert after == before or (after != after and before != before)


def _assert_probabilities(result: Any) -> None:
    if isinstance(result, np.ndarray) and result.ndim == 2 and result.shape[1] == 2:
        assert not np.isnan(result).any()
        assert np.all((result >= 0) & (result <= 1))
        assert np.allclose(result.sum(axis=1), 1.0)


def test_there_are_at_least_177_cases():
    assert len(CASES) >= 177
    assert len({c.name for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input(case, data, fitted, files, capsys):
    env = {"data": data, "fitted": fitted, "files": files, "capsys": capsys}
    func, args, kwargs = case.build(env)
    snapshot = copy.deepcopy((args, kwargs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if case.error is not None:
            with pytest.raises(case.error) as info:
                func(*args, **kwargs)
            message = str(info.value)
            assert re.search(case.match, message), message[:400]
            assert len(message) < 400, f"message of {len(message)} characters"
            where = _innermost_file(info.value)
            home = SKLEARN if case.sklearn_error else PACKAGE
            assert home in where.parents, f"raised in {where}"
        else:
            result = func(*args, **kwargs)
            _assert_probabilities(result)
            case.check(result, env)
    _assert_same(snapshot, (args, kwargs))


def test_a_posterior_named_many_times_is_not_inflated_again(files):
    """Peak memory traced while loading: a file naming its posterior 16 more times takes no
    more than the plain file (each repeat used to inflate the posterior once more)."""
    members = _members(files["model"])
    peaks = {}
    for repeats in (0, 16):
        path = _posterior_named(files["root"], members, repeats)
        tracemalloc.start()
        try:
            skcodex.load(path)
        except PersistenceError:
            assert repeats > 0
        peaks[repeats] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert peaks[16] <= 1.2 * peaks[0], peaks


def test_a_long_name_is_not_copied_for_every_row(data):
    """Encoding a table turns each distinct name into a Python string once: four names of
    1 MB over 240 rows (about 120 appearances) take a few MB of traced memory, not 120."""
    from skcodex.data import Vocabulary, check_match_table, encode

    X = data.X
    renamed = {p: letter * 1_000_000 for p, letter in zip(sorted(set(X["player1"]))[:4], "abcd")}
    X = X.assign(**{c: X[c].replace(renamed).astype("str") for c in ("player1", "player2")})
    table = check_match_table(X)
    tracemalloc.start()
    try:
        codes = encode(table, Vocabulary.from_table(table))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert codes.n_players == len(set(data.X["player1"]) | set(data.X["player2"]))
    assert peak < 20 * 1024**2, f"{peak / 2**20:.0f} MiB traced"
