"""The saved-file format piece by piece, fast: every refusal with its exact reason, no PyMC fit.

Fitted estimators here are cheap: Elo and Glicko-2 fit in milliseconds, and the
Bayesian classifier is made fitted from known effect draws
(`skcodex._matchup.fitting.from_effect_draws`), so these tests can run for every mutant of
the persistence modules (tools/mutation.py).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import io
import json
import os
import signal
import struct
import zipfile
from numbers import Real
from types import MappingProxyType
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

import skcodex
from skcodex import BayesianMatchupClassifier, EloClassifier, Glicko2Classifier, MatchupEncoder
from skcodex._compat import posterior
from skcodex._format import archive, persistence, safe_files
from skcodex._format.persistence import PersistenceError, load, save
from skcodex._format.savable import register_savable as value_class
from skcodex._format.state_codec import Reader, Writer
from skcodex._matchup import fitting
from skcodex._matchup.layout import Layout
from skcodex.codex import CODEX, Deck, PlainCatalogue
from skcodex.data import Vocabulary, check_match_table
from skcodex.datasets import make_matches


@pytest.fixture(scope="module")
def data():
    return make_matches(n_players=8, n_matches=60, n_tournaments=2, random_state=1)


@pytest.fixture(scope="module")
def elo(data):
    return EloClassifier().fit(data.X, data.y)


@pytest.fixture(scope="module")
def drawn(data):
    """A Bayesian classifier made fitted from known draws: 2 chains of 6."""
    vocab = Vocabulary.from_table(check_match_table(data.X))
    layout = Layout(*vocab.sizes, vocab.specs_per_deck)
    rng = np.random.default_rng(3)
    clf = BayesianMatchupClassifier(draws=6, chains=2)
    clf.idata_ = fitting.from_effect_draws(
        rng.standard_normal((12, layout.size)),
        np.exp(rng.normal(-1, 0.2, (12, 4))),
        layout,
        n_chains=2,
    )
    clf.vocabulary_, clf.layout_, clf._unseen_seed = vocab, layout, 11
    clf.classes_ = np.array([0, 1])
    clf.catalogue_ = CODEX
    clf.feature_names_in_ = np.asarray(data.X.columns, dtype=object)
    clf.n_features_in_ = data.X.shape[1]
    clf.convergence_problems_ = [("rhat", "skill[a]", 1.02)]
    return clf


@pytest.fixture(scope="module")
def saved(elo, tmp_path_factory):
    return elo.save(tmp_path_factory.mktemp("saved") / "elo.skcodex")


def _members(path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as zf:
        return {i.filename: zf.read(i) for i in zf.infolist()}


def _zip(path, members: dict[str, bytes], method=zipfile.ZIP_STORED, manifest=True):
    """Write ``members`` (with a manifest of their digests unless told not) as a zip."""
    members = dict(members)
    if manifest:
        members["manifest.json"] = json.dumps(
            {
                "format": "skcodex-model",
                "format_version": 2,
                "members": {
                    n: {"sha256": hashlib.sha256(b).hexdigest(), "bytes": len(b)}
                    for n, b in members.items()
                    if n not in ("manifest.json", "signature")
                },
            }
        ).encode()
    with zipfile.ZipFile(path, "w") as zf:
        for name, blob in members.items():
            zf.writestr(name, blob, compress_type=method)
    return path


def _refused(path, message: str, **kwargs) -> None:
    """``load(path)`` fails with exactly ``<path>: message``."""
    with pytest.raises(PersistenceError) as info:
        load(path, **kwargs)
    assert str(info.value) == f"{path}: {message}"


def _with_meta(src, dst, edit) -> os.PathLike:
    members = _members(src)
    meta = json.loads(members.pop("metadata.json"))
    edit(meta)
    members.pop("manifest.json")
    return _zip(dst, {"metadata.json": json.dumps(meta).encode(), **members})


# -- round trips of every estimator kind --------------------------------------------------


def test_every_estimator_kind_round_trips_exactly(data, elo, drawn, tmp_path):
    glicko = Glicko2Classifier(first_mover_advantage="auto").fit(data.X, data.y)
    encoder = MatchupEncoder(sparse_output=False).fit(data.X)
    for model in (elo, glicko, drawn):
        again = load(model.save(tmp_path / "m.skcodex"))
        assert type(again) is type(model) and again.get_params() == model.get_params()
        np.testing.assert_array_equal(again.predict_proba(data.X), model.predict_proba(data.X))
    again = load(encoder.save(tmp_path / "e.skcodex"))
    np.testing.assert_array_equal(again.transform(data.X), encoder.transform(data.X))
    again = load(drawn.save(tmp_path / "b.skcodex"))
    assert again.vocabulary_ == drawn.vocabulary_ and again.layout_ == drawn.layout_
    assert again._unseen_seed == 11 and again.catalogue_ is not None
    assert again.convergence_problems_ == drawn.convergence_problems_
    assert posterior.group(again.idata_, "posterior").equals(
        posterior.group(drawn.idata_, "posterior")
    )


def test_file_layout_written(drawn, tmp_path):
    path = drawn.save(tmp_path / "b.skcodex", key="k")
    with zipfile.ZipFile(path) as zf:
        infos = zf.infolist()
    names = [i.filename for i in infos]
    assert names == ["manifest.json", "signature", "metadata.json", "arrays.npz", "0_idata_.nc"]
    methods = {i.filename: i.compress_type for i in infos}
    assert methods == {
        "manifest.json": zipfile.ZIP_DEFLATED,
        "signature": zipfile.ZIP_STORED,
        "metadata.json": zipfile.ZIP_DEFLATED,
        "arrays.npz": zipfile.ZIP_STORED,
        "0_idata_.nc": zipfile.ZIP_STORED,
    }
    assert {i.date_time for i in infos} == {(1980, 1, 1, 0, 0, 0)}
    assert {i.external_attr >> 16 for i in infos} == {0o644}
    members = _members(path)
    manifest = json.loads(members["manifest.json"])
    assert members["manifest.json"] == json.dumps(manifest, indent=1).encode()
    assert manifest["format"] == "skcodex-model" and manifest["format_version"] == 2
    assert manifest["members"] == {
        n: {"sha256": hashlib.sha256(b).hexdigest(), "bytes": len(b)}
        for n, b in members.items()
        if n not in ("manifest.json", "signature")
    }
    import hmac

    expected = hmac.new(b"k", members["manifest.json"], hashlib.sha256).hexdigest()
    assert members["signature"] == expected.encode("ascii")
    meta = json.loads(members["metadata.json"])
    # the metadata's layout is part of the format: equal models give byte-equal files
    assert members["metadata.json"] == json.dumps(meta, indent=1, ensure_ascii=False).encode()
    assert meta["format"] == "skcodex-model" and meta["format_version"] == 2
    assert meta["skcodex_version"] == skcodex.__version__
    assert meta["estimator"] == "BayesianMatchupClassifier"
    assert list(meta["library_versions"]) == [
        "python",
        "numpy",
        "pandas",
        "scikit-learn",
        "arviz",
        "xarray",
        "h5netcdf",
        "pymc",
    ]
    assert meta["library_versions"]["numpy"] == np.__version__
    assert meta["state"]["idata_"] == {"__skcodex__": "posterior", "member": "0_idata_.nc"}
    assert list(meta["state"]) == list(BayesianMatchupClassifier._persisted_state)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]


def test_key_may_be_str_bytes_or_bytearray(elo, tmp_path):
    path = elo.save(tmp_path / "k.skcodex", key="clé")
    for key in ("clé".encode(), bytearray("clé".encode())):
        again = load(path, key=key)
        assert type(again) is EloClassifier and again.ratings_.equals(elo.ratings_)
    assert archive.key_bytes(None) is None
    assert archive.key_bytes("ab") == b"ab" and type(archive.key_bytes(bytearray(b"x"))) is bytes
    for bad in (b"", "", 5, ["k"]):
        with pytest.raises(TypeError, match=r"^key must be non-empty bytes or str \(the secret"):
            archive.key_bytes(bad)


def test_a_failed_write_leaves_no_partial_file(tmp_path, monkeypatch):
    def broken(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError, match="disk full"):
        archive.write_archive(tmp_path / "x.skcodex", {"metadata.json": b"{}"}, None)
    assert list(tmp_path.iterdir()) == []


# -- save refusals ------------------------------------------------------------------------


def test_save_refusals(data, elo, tmp_path):
    with pytest.raises(PersistenceError) as info:
        save(object(), tmp_path / "x")
    assert str(info.value) == (
        "cannot save a builtins.object: the skcodex file format holds BayesianMatchupClassifier, "
        "EloClassifier, Glicko2Classifier, MatchupEncoder and the classes given to "
        "register_savable; use joblib or pickle for other objects"
    )
    with pytest.raises(
        TypeError, match=r"^path must be a file name \(str or path-like\), got int$"
    ):
        save(elo, 3)
    with pytest.raises(TypeError, match=r"^key must be"):
        save(elo, tmp_path / "x", key=1)
    with pytest.raises(NotFittedError) as info:
        save(EloClassifier(), tmp_path / "x")
    assert str(info.value) == (
        "this EloClassifier is not fitted (it has no classes_, first_mover_advantage_, "
        "n_periods_, ratings_, _players, _rating); fit it before saving"
    )
    other = EloClassifier().fit(data.X, data.y)
    other.extra_ = 1
    with pytest.raises(PersistenceError) as info:
        other.save(tmp_path / "x")
    assert str(info.value) == (
        "cannot save EloClassifier.extra_: it is not among the fitted attributes a EloClassifier "
        "saves; such values are not supported by the skcodex file format"
    )
    assert not (tmp_path / "x").exists()


def test_unsavable_values_are_named(data, tmp_path):
    model = EloClassifier().fit(data.X, data.y)
    model.ratings_ = {1, 2}
    with pytest.raises(PersistenceError) as info:
        model.save(tmp_path / "x")
    assert str(info.value) == (
        "cannot save EloClassifier.ratings_: values of type builtins.set are not supported by "
        "the skcodex file format"
    )
    model.ratings_ = "\ud800"
    with pytest.raises(PersistenceError, match=r"^cannot save this EloClassifier: it holds text"):
        model.save(tmp_path / "x")


def test_a_posterior_that_cannot_be_written_is_named(drawn, tmp_path, monkeypatch):
    import skcodex._format.state_codec as codec

    def broken(idata):
        raise RuntimeError("no\n  space" + "e" * 300)

    monkeypatch.setattr(codec, "write_posterior", broken)
    with pytest.raises(PersistenceError) as info:
        drawn.save(tmp_path / "x")
    detail = ("no space" + "e" * 300)[:160]
    assert str(info.value) == (
        f"cannot save the posterior of this BayesianMatchupClassifier as NetCDF "
        f"(RuntimeError: {detail})"
    )


# -- which classes and names a file may set -----------------------------------------------


@pytest.mark.parametrize(
    "names", [("__x__",), ("__x",), ("save",), ("1a",), (3,), ("a b",), ("_persisted_state",)]
)
def test_declared_state_must_be_plain_instance_names(names):
    with pytest.raises(TypeError) as info:
        type("Bad", (persistence.PersistenceMixin,), {"_persisted_state": names})
    assert str(info.value) == (
        f"Bad._persisted_state names {names[0]!r}, which is not a plain instance attribute "
        "(a dunder, or a name the class defines)"
    )
    with pytest.raises(TypeError, match=r"^Twice._persisted_state names an attribute twice$"):
        type("Twice", (persistence.PersistenceMixin,), {"_persisted_state": ("a_", "a_")})


def test_only_listed_or_registered_classes_are_saved(data, tmp_path):
    from skcodex._format import savable

    mine = type("Mine", (persistence.PersistenceMixin,), {"_persisted_state": ("a_",)})
    sub = type("SubElo", (EloClassifier,), {})
    inside = type("Inside2", (persistence.PersistenceMixin,), {"__module__": "skcodex.x"})
    with pytest.raises(PersistenceError, match=rf"^cannot save a {__name__}.Mine: the skcodex"):
        mine().save(tmp_path / "x")
    with pytest.raises(PersistenceError, match=rf"^cannot save a {__name__}.SubElo: the skcodex"):
        sub().fit(data.X, data.y).save(tmp_path / "x")
    with pytest.raises(PersistenceError, match=r"^cannot save a skcodex.x.Inside2: the skcodex"):
        inside().save(tmp_path / "x")
    assert savable.estimator_names() == [
        "BayesianMatchupClassifier",
        "EloClassifier",
        "Glicko2Classifier",
        "MatchupEncoder",
    ]


def test_every_savable_estimator_of_skcodex_is_listed():
    import importlib
    import pkgutil

    import skcodex
    from skcodex._format import savable

    for info in pkgutil.walk_packages(skcodex.__path__, "skcodex."):
        if info.name.split(".")[-1] not in ("__main__",):
            importlib.import_module(info.name)
    found = set()
    stack = [persistence.PersistenceMixin]
    while stack:
        for cls in stack.pop().__subclasses__():
            stack.append(cls)
            if cls.__module__.startswith("skcodex.") and "_persisted_state" in vars(cls):
                found.add(cls)
    assert found, "no estimator of skcodex declares its saved state"
    for cls in found:
        assert savable.estimator_class(cls.__name__) is cls, cls


class _Tally(persistence.PersistenceMixin, BaseEstimator):
    """An estimator of this test module, in no ``__all__`` of skcodex."""

    _persisted_state = ("total_", "season_")
    _parameter_constraints: ClassVar[dict] = {"scale": [Real]}

    def __init__(self, scale=1.0):
        self.scale = scale

    def fit(self, values):
        self.total_ = float(np.sum(values)) * self.scale
        self.season_ = _Season(2024, ("spring", "autumn"))
        return self


@__import__("dataclasses").dataclass(frozen=True)
class _Season:
    year: int
    halves: tuple


class _Score:  # not a dataclass: saved through the functions it is registered with
    def __init__(self, points):
        self.points = int(points)


def test_a_registered_class_saves_and_loads_outside_skcodex_all(tmp_path):
    import skcodex
    from skcodex._format import savable

    assert "_Tally" not in skcodex.__all__
    with pytest.raises(PersistenceError, match=r"cannot save a .*_Tally: the skcodex file"):
        _Tally(scale=2.0).fit([1, 2]).save(tmp_path / "x")
    try:
        assert persistence.register_savable(_Tally) is _Tally
        assert persistence.register_savable(_Season) is _Season
        path = _Tally(scale=2.0).fit([1, 2]).save(tmp_path / "t.skcodex")
        again = load(path)
        assert type(again) is _Tally and again.scale == 2.0 and again.total_ == 6.0
        assert again.season_ == _Season(2024, ("spring", "autumn"))
        register = persistence.register_savable(
            to_state=lambda score: {"points": score.points},
            from_state=lambda state: _Score(state["points"]),
        )
        assert register(_Score) is _Score
        assert _round_trip(_Score(7)).points == 7
    finally:
        savable._estimators.pop("_Tally", None)
        savable._values.pop("_Season", None)
        savable._values.pop("_Score", None)
    with pytest.raises(PersistenceError, match="unknown estimator class '_Tally'"):
        load(path)


def test_register_savable_refusals():
    import dataclasses

    @dataclasses.dataclass
    class Layout:  # the name of skcodex's own value class
        a: int

    with pytest.raises(ValueError, match=r"^cannot register .*Layout: a saved file already names"):
        persistence.register_savable(Layout)
    with pytest.raises(ValueError, match=r"^cannot register 'tuple': the file format uses"):
        persistence.register_savable(
            type("tuple", (), {}), to_state=lambda v: {}, from_state=lambda s: s
        )
    with pytest.raises(TypeError, match=r"^Plain is not a dataclass: register it with to_state"):
        persistence.register_savable(type("Plain", (), {}))
    with pytest.raises(TypeError, match=r"^One: give both to_state and from_state, or neither"):
        persistence.register_savable(type("One", (), {}), to_state=lambda v: {})
    with pytest.raises(TypeError, match=r"^register_savable takes a class, got int$"):
        persistence.register_savable(3)
    bare = type("Bare", (persistence.PersistenceMixin,), {"_persisted_state": ("a_",)})
    with pytest.raises(TypeError, match=r"^Bare declares _persisted_state but is not a scikit"):
        persistence.register_savable(bare)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda m: m.update(estimator=5), "it holds an unknown estimator class '5'"),
        (lambda m: m.update(estimator="nope"), "it holds an unknown estimator class 'nope'"),
        (
            lambda m: m.update(estimator="TournamentSplit"),
            "it holds an unknown estimator class 'TournamentSplit'",
        ),
        (
            lambda m: m.update(estimator="x" * 99),
            f"it holds an unknown estimator class {'x' * 60!r}",
        ),
        (lambda m: m.update(params=[]), "its metadata holds no parameters or no fitted state"),
        (lambda m: m.pop("state"), "its metadata holds no parameters or no fitted state"),
        (
            lambda m: m["params"].update(fit=1),
            "it sets parameters this skcodex's EloClassifier does not have ('fit')",
        ),
        (
            lambda m: m["state"].update(zz_=1, aa_=2),
            "it sets 'aa_', which is not a fitted attribute a EloClassifier saves",
        ),
        (
            lambda m: [m["state"].pop(k) for k in ("ratings_", "_rating")],
            "it lacks the fitted attribute(s) ratings_, _rating",
        ),
        (
            lambda m: m["params"].update(k_factor=-1),
            "it holds an invalid parameter (The 'k_factor' parameter of EloClassifier must be "
            "a float in the range (0.0, 10000.0]. Got -1 instead.)",
        ),
        (
            lambda m: m["state"].update(classes_={"x": 1}),
            "unrecognised value in the metadata: {'x': 1}",
        ),
        (
            lambda m: m["state"].update(classes_={"__skcodex__": "eval"}),
            "unrecognised value type 'eval' in the metadata",
        ),
        (
            lambda m: m.update(format="other"),
            "it is not a saved skcodex estimator (unknown format)",
        ),
        (
            lambda m: m.update(format_version=1),
            "its metadata and manifest disagree on the format version",
        ),
    ],
)
def test_metadata_refusals(saved, tmp_path, edit, message):
    _refused(_with_meta(saved, tmp_path / "m.skcodex", edit), message)


def test_parameters_and_state_are_set_as_declared(saved, tmp_path):
    path = _with_meta(saved, tmp_path / "m.skcodex", lambda m: m["params"].update(k_factor=7.5))
    again = load(path)
    assert again.k_factor == 7.5 and again.get_params()["k_factor"] == 7.5
    assert set(vars(again)) == set(again.get_params()) | set(EloClassifier._persisted_state)


# -- the container ------------------------------------------------------------------------


def test_container_refusals(saved, tmp_path):
    good = _members(saved)
    good.pop("manifest.json")
    p = tmp_path / "c.skcodex"
    p.write_bytes(b"not a zip")
    _refused(
        p,
        "it is not a saved skcodex estimator, or it is truncated or corrupted (File is not a zip "
        "file)",
    )
    _refused(
        _zip(p, {"metadata.json": b"{}"}, manifest=False),
        (
            "it has no manifest: it was written in skcodex file format version 1, which this "
            "skcodex (format version 2) does not read; refit and save again"
        ),
    )
    _refused(
        _zip(p, {"arrays.npz": b""}, manifest=False),
        "it is not a saved skcodex estimator (no manifest)",
    )
    _refused(_zip(p, {**good, "payload.pkl": b"x"}), "it holds an unexpected member 'payload.pkl'")
    many = {f"{i}_x.nc": b"" for i in range(31)}
    _refused(
        _zip(p, {**many, "metadata.json": b"{}"}), "it has 33 members; a saved estimator has a few"
    )
    for name in ("x.nc", "1234_x.nc", "0_1x.nc", "0_x.nc.bak", "a0.npy"):
        _refused(_zip(p, {**good, name: b""}), f"it holds an unexpected member {name!r}")
    _refused(_zip(p, {**good, "x" * 80: b""}), f"it holds an unexpected member {'x' * 60!r}")


def test_thirty_two_members_are_read(saved, tmp_path):
    good = _members(saved)
    good.pop("manifest.json")
    extra = {f"{i}_x.nc": b"" for i in range(32 - len(good) - 1)}
    path = _zip(tmp_path / "c.skcodex", {**good, **extra})
    with zipfile.ZipFile(path) as zf:
        assert len(zf.infolist()) == 32
    # every member is checked and listed: the model loads (the .nc members are unused)
    assert type(load(path)) is EloClassifier


def test_member_compression_rules(saved, tmp_path):
    good = _members(saved)
    good.pop("manifest.json")
    p = tmp_path / "c.skcodex"
    assert type(load(_zip(p, good))) is EloClassifier  # every member stored: read
    _refused(
        _zip(p, good, method=zipfile.ZIP_DEFLATED),
        "its member arrays.npz is compressed; skcodex stores it as is",
    )
    _refused(
        _zip(p, good, method=zipfile.ZIP_BZIP2),
        "its member metadata.json uses an unsupported compression",
    )
    only = {"manifest.json": b"{}"}
    with zipfile.ZipFile(p, "w") as zf:
        zf.writestr("manifest.json", b"{}", compress_type=zipfile.ZIP_LZMA)
    _refused(p, "its member manifest.json uses an unsupported compression")
    _zip(p, only, method=zipfile.ZIP_DEFLATED, manifest=False)
    _refused(p, "it is not a saved skcodex estimator (unknown format)")


def _load_error(path, **kwargs) -> str:
    try:
        load(path, **kwargs)
    except PersistenceError as err:
        return str(err)
    return ""


def test_encrypted_members_are_refused(saved, tmp_path):
    p = _zip(tmp_path / "c.skcodex", {"metadata.json": b"{}"})
    raw = bytearray(p.read_bytes())
    central = raw.index(b"PK\x01\x02")
    struct.pack_into("<H", raw, central + 8, 1)  # general purpose flag: encrypted
    p.write_bytes(bytes(raw))
    _refused(p, "its member metadata.json is encrypted")


def test_json_member_size_limit(saved, tmp_path, monkeypatch):
    good = _members(saved)
    size = len(good["metadata.json"])
    monkeypatch.setattr(archive, "MAX_JSON_BYTES", size)
    good.pop("manifest.json")
    path = _zip(tmp_path / "c.skcodex", good)
    assert type(load(path)) is EloClassifier  # exactly at the limit
    monkeypatch.setattr(archive, "MAX_JSON_BYTES", size - 1)
    _refused(path, f"its member metadata.json claims {size} bytes, more than {size - 1}")


def test_member_inflating_past_its_declared_size(tmp_path):
    p = tmp_path / "liar.skcodex"
    with zipfile.ZipFile(p, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", b"\0" * 5000)
    raw = bytearray(p.read_bytes())
    struct.pack_into("<I", raw, raw.index(b"PK\x03\x04") + 22, 1000)
    struct.pack_into("<I", raw, raw.index(b"PK\x01\x02") + 24, 1000)
    p.write_bytes(bytes(raw))
    # zipfile itself reads no further than the declared size, and finds the CRC wrong
    with pytest.raises(PersistenceError) as info:
        load(p)
    assert str(info.value) == (
        f"{p} is corrupted or malformed and cannot be loaded (BadZipFile: Bad CRC-32 for file "
        "'manifest.json')"
    )


@pytest.mark.parametrize(
    ("manifest", "message"),
    [
        ([], "it is not a saved skcodex estimator (unknown format)"),
        (
            {"format": "x", "format_version": 2},
            "it is not a saved skcodex estimator (unknown format)",
        ),
        (
            {"format": "skcodex-model", "format_version": 3, "members": {}},
            "it is in skcodex file format version 3, but this skcodex 0.1.0 reads format "
            "version 2 only; load it with the skcodex version that wrote it, or refit",
        ),
        (
            {"format": "skcodex-model", "format_version": "9" * 40},
            f"it is in skcodex file format version {'9' * 20}, but this skcodex 0.1.0 reads "
            "format version 2 only; load it with the skcodex version that wrote it, or refit",
        ),
        ({"format": "skcodex-model", "format_version": 2}, "its manifest lists no members"),
        (
            {"format": "skcodex-model", "format_version": 2, "members": []},
            "its manifest lists no members",
        ),
        (
            {"format": "skcodex-model", "format_version": 2, "members": {"metadata.json": []}},
            "it is corrupted: the manifest entry of metadata.json is wrong",
        ),
        (
            {
                "format": "skcodex-model",
                "format_version": 2,
                "members": {"metadata.json": {"sha256": 1}},
            },
            "it is corrupted: the manifest entry of metadata.json is wrong",
        ),
        (
            {
                "format": "skcodex-model",
                "format_version": 2,
                "members": {"metadata.json": {"sha256": "0", "bytes": 3}},
            },
            "it is corrupted or truncated: the size of metadata.json does not match",
        ),
        (
            {
                "format": "skcodex-model",
                "format_version": 2,
                "members": {"metadata.json": {"sha256": "0", "bytes": 2}},
            },
            "it is corrupted or truncated: the checksum of metadata.json does not match",
        ),
        (
            {"format": "skcodex-model", "format_version": 2, "members": {}},
            "it is corrupted or was altered: unexpected metadata.json",
        ),
        (
            {
                "format": "skcodex-model",
                "format_version": 2,
                "members": {"metadata.json": {}, "arrays.npz": {}, "0_a.nc": {}},
            },
            "it is corrupted or was altered: missing 0_a.nc, arrays.npz",
        ),
    ],
)
def test_manifest_refusals(tmp_path, manifest, message):
    assert skcodex.__version__ == "0.1.0"
    path = _zip(
        tmp_path / "c.skcodex",
        {"manifest.json": json.dumps(manifest).encode(), "metadata.json": b"{}"},
        manifest=False,
    )
    _refused(path, message)


def test_a_listed_member_must_be_present_and_metadata_too(tmp_path):
    path = _zip(tmp_path / "c.skcodex", {"arrays.npz": b""})
    _refused(path, "it is not a saved skcodex estimator: it has no metadata.json")
    path = _zip(tmp_path / "c.skcodex", {"metadata.json": b"[1]"})
    _refused(path, "it is not a saved skcodex estimator (unknown format)")
    path = _zip(tmp_path / "c.skcodex", {"metadata.json": b"\xff"})
    assert _load_error(path).startswith(f"{path}: its metadata is not valid JSON (")


def test_signature_rules(elo, tmp_path):
    signed = elo.save(tmp_path / "s.skcodex", key=b"ours")
    plain = elo.save(tmp_path / "p.skcodex")
    assert type(load(signed, key=b"ours")) is EloClassifier
    assert type(load(signed)) is EloClassifier  # without a key the digests are still checked
    _refused(
        signed,
        (
            "its signature does not match the key: it was not written with this key, or it was "
            "altered since"
        ),
        key=b"theirs",
    )
    _refused(plain, "it is not signed, but a key was given to check its origin", key=b"ours")
    members = _members(signed)
    last = members["signature"][-1:]
    members["signature"] = members["signature"][:-1] + (b"1" if last == b"0" else b"0")
    with zipfile.ZipFile(tmp_path / "t.skcodex", "w") as zf:
        for name, blob in members.items():
            zf.writestr(name, blob)
    _refused(
        tmp_path / "t.skcodex",
        (
            "its signature does not match the key: it was not written with this key, or it was "
            "altered since"
        ),
        key=b"ours",
    )


# -- the file itself ----------------------------------------------------------------------


def test_load_arguments(saved, tmp_path):
    with pytest.raises(
        TypeError, match=r"^path must be a file name \(str or path-like\), got BytesIO$"
    ):
        load(io.BytesIO())
    for bad in (True, 0, -5, 1.5, "9"):
        with pytest.raises(TypeError) as info:
            load(saved, max_bytes=bad)
        assert str(info.value) == f"max_bytes must be a positive int, got {bad!r}"
    with pytest.raises(FileNotFoundError) as info:
        load(tmp_path / "none.skcodex")
    assert info.value.errno == 2 and info.value.filename == str(tmp_path / "none.skcodex")
    assert info.value.strerror == "no saved estimator at this path"

    class BytesPath:
        def __fspath__(self):
            return os.fsencode(tmp_path / "none.skcodex")

    with pytest.raises(FileNotFoundError) as info:
        load(BytesPath())
    assert info.value.filename == str(tmp_path / "none.skcodex")


@contextlib.contextmanager
def _no_longer_than(seconds: int):
    """Fail, rather than hang, when the block takes longer than ``seconds``."""

    def stop(signum, frame):
        raise TimeoutError(f"blocked for {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_only_regular_files_of_bounded_size(saved, tmp_path):
    with pytest.raises(PersistenceError) as info:
        load(tmp_path)
    assert str(info.value) == f"{tmp_path} is a folder, not a saved skcodex estimator"
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(PersistenceError) as info, _no_longer_than(20):
        load(fifo)  # opening a FIFO without O_NONBLOCK would wait for a writer forever
    assert str(info.value) == (
        f"{fifo} is not a regular file (a device, pipe or socket); a saved skcodex estimator "
        "is a regular file"
    )
    size = saved.stat().st_size
    assert type(load(saved, max_bytes=size)) is EloClassifier
    with pytest.raises(PersistenceError) as info:
        load(saved, max_bytes=size - 1)
    assert str(info.value) == (
        f"{saved} is {size} bytes, more than the {size - 1} bytes load reads; pass max_bytes= "
        "to read larger files"
    )
    locked = tmp_path / "locked.skcodex"
    locked.write_bytes(b"")
    locked.chmod(0)
    if os.access(locked, os.R_OK):  # root reads anything
        return
    with pytest.raises(
        PersistenceError, match=r"locked.skcodex cannot be opened: Permission denied$"
    ):
        load(locked)


def test_a_file_growing_while_read_is_cut_off(tmp_path, monkeypatch):
    """The size is checked before reading and again while reading, over several chunks."""
    path = tmp_path / "grows"
    size = 3 * 2**20
    path.write_bytes(b"x" * (size + 1))
    real = os.fstat

    def small(fd):
        info = real(fd)
        return os.stat_result((info.st_mode, *info[1:6], 5, *info[7:]))

    monkeypatch.setattr(os, "fstat", small)
    with pytest.raises(PersistenceError, match=rf"grows grew past {size} bytes while being read$"):
        safe_files.read_regular_file(path, str(path), size)
    assert safe_files.read_regular_file(path, "w", size + 1) == b"x" * (size + 1)


# -- JSON ---------------------------------------------------------------------------------


def test_json_depth():
    limit = safe_files.MAX_JSON_DEPTH
    assert limit == 64
    assert safe_files.parse_json(b"[" * 64 + b"]" * 64, "m") == json.loads("[" * 64 + "]" * 64)
    deep = b'{"a":' * 63 + b"[]" + b"}" * 63
    assert safe_files.parse_json(deep, "m") is not None
    for text in (
        b"[" * 65 + b"]" * 65,
        b'{"a":' * 64 + b"[]" + b"}" * 64,
        b'[1, {"a": ' * 33 + b"0" + b"}]" * 33,
    ):
        with pytest.raises(PersistenceError, match=r"^its m is nested more than 64 levels deep$"):
            safe_files.parse_json(text, "m")
    with pytest.raises(PersistenceError, match=r"^its m is nested too deeply$"):
        safe_files.parse_json(b"[" * 200000 + b"]" * 200000, "m")
    with pytest.raises(PersistenceError, match=r"^its m is not valid JSON \(Expecting value"):
        safe_files.parse_json(b"[", "m")
    with pytest.raises(PersistenceError, match=r"^its m is not valid JSON \('utf-8' codec"):
        safe_files.parse_json(b'"\xff"', "m")


# -- arrays -------------------------------------------------------------------------------


def _npz(members: dict[str, bytes], method=zipfile.ZIP_STORED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, blob in members.items():
            zf.writestr(name, blob, compress_type=method)
    return buffer.getvalue()


def _npy_bytes(array, version=None) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, version=version, allow_pickle=True)
    return buffer.getvalue()


def test_arrays_read_exactly():
    c = np.arange(6.0).reshape(2, 3)
    f = np.asfortranarray(np.arange(6, dtype=np.int16).reshape(3, 2))
    blob = _npz(
        {
            "a0.npy": _npy_bytes(c),
            "a1.npy": _npy_bytes(f, version=(2, 0)),
            "a2.npy": _npy_bytes(np.array(["x", "yz"]), version=(3, 0)),
            "a999999.npy": _npy_bytes(np.array(5, dtype="M8[s]")),
        }
    )
    out = safe_files.read_npz(blob, 10**6)
    assert list(out) == ["a0", "a1", "a2", "a999999"]
    np.testing.assert_array_equal(out["a0"], c)
    np.testing.assert_array_equal(out["a1"], f)
    assert out["a1"].dtype == np.int16 and out["a1"].shape == (3, 2)
    assert out["a2"].tolist() == ["x", "yz"] and out["a999999"].dtype == np.dtype("M8[s]")
    assert all(a.flags.writeable for a in out.values())
    assert safe_files.read_npz(_npz({"a0.npy": _npy_bytes(np.zeros(3))}), 24)["a0"].size == 3


@pytest.mark.parametrize(
    ("members", "message"),
    [
        ({"b0.npy": b""}, "arrays.npz holds an unexpected 'b0.npy'"),
        ({"a0.npy.x": b""}, "arrays.npz holds an unexpected 'a0.npy.x'"),
        ({"a1234567.npy": b""}, "arrays.npz holds an unexpected 'a1234567.npy'"),
        ({"../a0.npy": b""}, "arrays.npz holds an unexpected '../a0.npy'"),
        ({"a0.npy": _npy_bytes(np.array([None]))}, "arrays.npz: a0.npy has dtype object"),
        (
            {"a0.npy": _npy_bytes(np.zeros(2, dtype=[("a", "i4")]))},
            "arrays.npz: a0.npy has dtype [('a', '<i4')]",
        ),
        ({"a0.npy": _npy_bytes(np.zeros(2, dtype="V3"))}, "arrays.npz: a0.npy has dtype |V3"),
        ({"a0.npy": _npy_bytes(np.zeros(2, dtype="S3"))}, "arrays.npz: a0.npy has dtype |S3"),
        (
            {"a0.npy": _npy_bytes(np.zeros(3))[:-1]},
            "arrays.npz: the header of a0.npy claims 24 bytes of data but the member holds 23",
        ),
        (
            {"a0.npy": _npy_bytes(np.zeros(3)) + b"\0"},
            "arrays.npz: the header of a0.npy claims 24 bytes of data but the member holds 25",
        ),
        (
            {"a0.npy": _npy_bytes(np.zeros(13))},
            "arrays.npz: the header of a0.npy claims 104 bytes of data but the member holds 104",
        ),
        (
            {"a0.npy": b"\x93NUMPY\x04\x00" + b"\0" * 20},
            "arrays.npz: a0.npy has .npy version (4, 0)",
        ),
    ],
)
def test_array_refusals(members, message):
    with pytest.raises(PersistenceError) as info:
        safe_files.read_npz(_npz(members), 100)
    assert str(info.value) == message


def test_array_member_rules(monkeypatch):
    with pytest.raises(PersistenceError, match=r"^arrays.npz: a0.npy is compressed$"):
        safe_files.read_npz(_npz({"a0.npy": _npy_bytes(np.zeros(3))}, zipfile.ZIP_DEFLATED), 100)
    twice = io.BytesIO()
    with zipfile.ZipFile(twice, "w") as zf, pytest.warns(UserWarning, match="Duplicate"):
        zf.writestr("a0.npy", _npy_bytes(np.zeros(1)))
        zf.writestr("a0.npy", _npy_bytes(np.zeros(1)))
    with pytest.raises(PersistenceError, match=r"^arrays.npz holds an unexpected 'a0.npy'$"):
        safe_files.read_npz(twice.getvalue(), 100)
    monkeypatch.setattr(safe_files, "_MAX_ARRAYS", 2)
    two = {f"a{i}.npy": _npy_bytes(np.zeros(1)) for i in range(2)}
    assert len(safe_files.read_npz(_npz(two), 100)) == 2
    with pytest.raises(PersistenceError, match=r"^arrays.npz holds 3 arrays$"):
        safe_files.read_npz(_npz({**two, "a2.npy": two["a0.npy"]}), 100)


def test_stored_means_uncompressed_and_of_equal_size():
    info = zipfile.ZipInfo("a")
    info.compress_type, info.file_size, info.compress_size = zipfile.ZIP_STORED, 5, 5
    assert safe_files.stored(info)
    info.compress_size = 4
    assert not safe_files.stored(info)
    info.compress_size, info.compress_type = 5, zipfile.ZIP_DEFLATED
    assert not safe_files.stored(info)


def test_an_array_missing_from_the_file_is_named(saved, tmp_path):
    path = _with_meta(
        saved,
        tmp_path / "m.skcodex",
        lambda m: m["state"].update(classes_={"__skcodex__": "ndarray", "key": "a77"}),
    )
    _refused(path, "the array 'a77' named in the metadata is missing")


# -- the posterior ------------------------------------------------------------------------


def _h5(path, build) -> os.PathLike:
    import h5py

    with h5py.File(path, "w") as fh:
        build(fh)
    return path


def test_hdf5_bytes_are_counted_once_and_bounded(tmp_path):
    def build(fh):
        fh.create_dataset("a", data=np.zeros((3, 4)))
        fh["g/alias"] = fh["a"]  # a second hard link to the same dataset
        fh["g"].create_dataset("b", data=np.zeros(5, dtype="i2"))
        fh["g"].create_dataset("s", data=np.float32(1))
        fh["soft"] = __import__("h5py").SoftLink("/a")

    path = _h5(tmp_path / "ok.h5", build)
    assert safe_files.check_hdf5_self_contained(path) == 96 + 10 + 4
    assert safe_files.check_hdf5_self_contained(path, max_bytes=110) == 110
    with pytest.raises(PersistenceError) as info:
        safe_files.check_hdf5_self_contained(path, max_bytes=109)
    assert str(info.value) == (
        "the posterior's datasets would take more than 109 bytes once read; refused"
    )


def test_hdf5_reaching_outside_is_refused(tmp_path):
    import h5py

    secret = _h5(tmp_path / "secret.h5", lambda fh: fh.create_dataset("d", data=np.arange(4.0)))

    def external(fh):
        fh.create_group("g").create_dataset(
            "e", shape=(8,), dtype="u1", external=[(str(secret), 0, 8)]
        )

    def external_bytes(fh):  # a file name that is not UTF-8 is shown, not a decoding error
        fh.create_dataset("b", shape=(8,), dtype="u1", external=[(b"/tmp/\xffs", 0, 8)])

    def virtual(fh):
        layout = h5py.VirtualLayout(shape=(4,), dtype="f8")
        layout[:] = h5py.VirtualSource(str(secret), "d", shape=(4,))
        fh.create_virtual_dataset("v", layout)

    def link(fh):
        fh.create_group("g")["l"] = h5py.ExternalLink("x" * 70, "/d")

    cases = {
        external: f"the posterior's dataset '/g/e' keeps its data in the external file "
        f"{str(secret)[:60]!r}; refused",
        external_bytes: "the posterior's dataset '/b' keeps its data in the external file "
        "'/tmp/\ufffds'; refused",
        virtual: "the posterior's dataset '/v' is a virtual dataset (data from other files); "
        "refused",
        link: f"the posterior's '/g/l' is an external link to another file ({'x' * 60!r}); refused",
    }
    for build, message in cases.items():
        with pytest.raises(PersistenceError) as info:
            safe_files.check_hdf5_self_contained(_h5(tmp_path / "bad.h5", build))
        assert str(info.value) == message
    junk = tmp_path / "junk.h5"
    junk.write_bytes(b"\x89HDF\r\n\x1a\n" + b"\0" * 50)
    with pytest.raises(PersistenceError, match=r"^the posterior is not a readable HDF5 file \("):
        safe_files.check_hdf5_self_contained(junk)


def test_posterior_member_rules(drawn, tmp_path, monkeypatch):
    from skcodex._format import posterior_file

    blob = posterior_file.write_posterior(drawn.idata_)
    assert posterior_file.MAX_POSTERIOR_BYTES == 256 * 1024**2
    seen = []
    real = posterior_file.check_hdf5_self_contained

    def spy(path, max_bytes=None):
        seen.append(max_bytes)
        return real(path, max_bytes=max_bytes)

    monkeypatch.setattr(posterior_file, "check_hdf5_self_contained", spy)
    again = posterior_file.posterior_from_bytes(blob, "0_idata.nc", 10**12)
    assert posterior.group(again, "posterior").equals(posterior.group(drawn.idata_, "posterior"))
    posterior_file.posterior_from_bytes(blob, "m", 1000 * len(blob))
    monkeypatch.setattr(posterior_file, "MAX_POSTERIOR_BYTES", 10)
    posterior_file.posterior_from_bytes(blob, "m", 10**12)
    assert seen == [256 * 1024**2, 1000 * len(blob), 100 * len(blob)]
    with pytest.raises(PersistenceError, match=r"^the posterior's datasets would take more than 5"):
        posterior_file.posterior_from_bytes(blob, "m", 5)
    monkeypatch.setattr(posterior_file, "check_hdf5_self_contained", lambda p, max_bytes: 0)
    with pytest.raises(PersistenceError, match=r"^the posterior m cannot be read: "):
        posterior_file.posterior_from_bytes(b"\x89HDF\r\n\x1a\n", "m", 100)


def test_a_posterior_member_must_be_named_and_present(drawn, tmp_path):
    saved = drawn.save(tmp_path / "drawn.skcodex")
    for member in ("0_idata.nc", "arrays.npz"):
        path = _with_meta(
            saved,
            tmp_path / "m.skcodex",
            lambda m, member=member: m["state"].update(
                idata_={"__skcodex__": "posterior", "member": member}
            ),
        )
        _refused(path, f"the posterior {member!r} is missing")


def test_the_log_likelihood_is_left_out_and_restored(drawn, data, tmp_path):
    from skcodex._format import posterior_file

    idata = posterior.with_group(
        drawn.idata_, "log_likelihood", posterior.group(drawn.idata_, "posterior")[["sd"]]
    )
    blob = posterior_file.write_posterior(idata)
    path = tmp_path / "p.nc"
    path.write_bytes(blob)
    assert "log_likelihood" not in posterior.group_names(posterior_file.read_posterior(path))
    assert "posterior" in posterior.group_names(posterior_file.read_posterior(str(path)))


# -- values -------------------------------------------------------------------------------


def _round_trip(value):
    writer = Writer()
    doc = writer.encode(value, "v")
    members = writer.members({"v": doc}, "V")
    meta = json.loads(members.pop("metadata.json"))
    return Reader(members, 10**9).decode(meta["v"])


@value_class
@__import__("dataclasses").dataclass(frozen=True)
class _Point:
    x: int
    y: tuple


def test_values_round_trip_exactly():
    rs = np.random.RandomState(4)
    rs.standard_normal()
    frame = pd.DataFrame(
        {
            "s": pd.Series(["a", None], dtype=object),
            "c": pd.Categorical(["x", "y"]),
            "b": [True, False],
            "t": pd.to_datetime(["2020-01-01", "2021-06-01"]).tz_localize("Europe/Paris"),
            "n": pd.array(["p", "q"], dtype="string"),
        },
        index=pd.Index([10, 20], name="row"),
    )
    frame.attrs["note"] = "kept"
    values = [
        None,
        True,
        3,
        -2.5,
        float("nan"),
        float("inf"),
        -float("inf"),
        "é",
        [1, [2]],
        (1, (2, "x")),
        {"a": 1, 2: (3,)},
        np.float32(1.5),
        np.int8(-3),
        np.uint16(7),
        np.bool_(True),
        np.datetime64("2020-01-02T03:04", "m"),
        np.timedelta64(5, "h"),
        np.arange(6).reshape(2, 3),
        np.array([[1 + 2j]]),
        np.array(["a", "bc"]),
        np.array([("x", 1), None], dtype=object),
        pd.Timestamp("2020-01-01 10:00", tz="UTC").as_unit("s"),
        pd.Timestamp("2020-01-01 10:00:00.000000001"),
        pd.NaT,
        pd.Timedelta(3, unit="D").as_unit("ms"),
        pd.RangeIndex(2, 11, 3, name="r"),
        pd.Index(["a", "b"], name=("t", 1)),
        pd.Index([1.5, 2.5], dtype="float32"),
        pd.Series([1, 2], index=["a", "b"], name="s", dtype="int64"),
        frame,
        pd.DataFrame(index=pd.RangeIndex(3)),
        CODEX,
        Deck("Red", ("Anarchy", "Blood", "Fire")),
        PlainCatalogue(starters=("a", "b"), components=("x", "y", "z"), specs_per_deck=1),
        _Point(1, (2, 3)),
    ]
    for value in values:
        again = _round_trip(value)
        if isinstance(value, float) and np.isnan(value):
            assert np.isnan(again) and type(again) is float
        elif isinstance(value, (pd.DataFrame, pd.Series, pd.Index)):
            assert type(again) is type(value)
            assert again.equals(value) and getattr(again, "name", None) == getattr(
                value, "name", None
            )
            if isinstance(value, pd.DataFrame):
                pd.testing.assert_frame_equal(again, value)
                assert again.attrs == value.attrs
            elif isinstance(value, pd.Series):
                pd.testing.assert_series_equal(again, value)
            else:
                pd.testing.assert_index_equal(again, value, exact=True)
        elif isinstance(value, np.ndarray):
            assert again.dtype == value.dtype and again.shape == value.shape
            assert again.tolist() == value.tolist()
        elif value is pd.NaT:
            assert again is pd.NaT
        else:
            assert again == value and type(again) is type(value), value
            if isinstance(value, (pd.Timestamp, pd.Timedelta)):
                assert again.unit == value.unit and str(getattr(again, "tz", None)) == str(
                    getattr(value, "tz", None)
                )
            if isinstance(value, np.generic):
                assert again.dtype == value.dtype
    assert type(_round_trip(np.str_("s"))) is str  # a NumPy string is a str, written as one
    again = _round_trip(MappingProxyType({"k": (1,)}))
    assert again == {"k": (1,)} and type(again) is dict
    again = _round_trip(rs)
    assert again.get_state()[1].tolist() == rs.get_state()[1].tolist()
    assert again.standard_normal() == rs.standard_normal()


def test_encoding_tags_are_stable():
    """The tags written are the format: a file written today must read tomorrow."""
    writer = Writer()
    assert writer.encode((1,), "v") == {"__skcodex__": "tuple", "items": [1]}
    assert writer.encode({1: 2}, "v") == {"__skcodex__": "dict", "items": [[1, 2]]}
    assert writer.encode(float("-inf"), "v") == {"__skcodex__": "float", "value": "-inf"}
    assert writer.encode(np.float64(0.5), "v") == {
        "__skcodex__": "scalar",
        "dtype": "<f8",
        "value": 0.5,
    }
    assert writer.encode(np.arange(2), "v") == {"__skcodex__": "ndarray", "key": "a0"}
    assert writer.encode(np.arange(2), "v") == {"__skcodex__": "ndarray", "key": "a1"}
    assert list(writer.arrays) == ["a0", "a1"]
    assert writer.encode(Deck("Red", ("Anarchy", "Blood", "Fire")), "v") == {
        "__skcodex__": "Deck",
        "starter": "Red",
        "specs": ["Anarchy", "Blood", "Fire"],
    }
    assert writer.encode(pd.RangeIndex(3), "v") == {
        "__skcodex__": "range_index",
        "start": 0,
        "stop": 3,
        "step": 1,
        "name": None,
    }
    assert writer.encode(_Point(1, ()), "v") == {
        "__skcodex__": "dataclass",
        "class": "_Point",
        "fields": {"x": 1, "y": {"__skcodex__": "tuple", "items": []}},
    }
    assert writer.encode(pd.Timestamp(0, tz="UTC"), "v") == {
        "__skcodex__": "timestamp",
        "value": 0,
        "unit": "ns",
        "tz": "UTC",
    }
    encoded = writer.encode(np.array([1, "a"], dtype=object), "v")
    assert encoded == {"__skcodex__": "object_array", "shape": [2], "items": [1, "a"]}
    assert writer.encode(pd.NaT, "v") == {"__skcodex__": "NaT"}
    written = {  # a catalogue as files have always held it
        "__skcodex__": "Catalogue",
        "spec_colours": [["Anarchy", "Red"], ["Blood", "Red"], ["Fire", "Red"]],
        "starters": ["Red"],
        "nicknames": [["Burn", "Red", ["Anarchy", "Blood", "Fire"]]],
        "specs_per_deck": 3,
    }
    catalogue = Reader({}, 10**6).decode(written)
    assert catalogue.nicknames == {"Burn": Deck("Red", ("Anarchy", "Blood", "Fire"))}
    assert Writer().encode(catalogue, "v") == written


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            {1, 2},
            "cannot save v: values of type builtins.set are not supported by the skcodex "
            "file format",
        ),
        (np.zeros(2, dtype="V2"), "cannot save v: arrays of dtype |V2 are not supported"),
        (np.complex64(1j), "cannot save v: NumPy scalars of dtype complex64 are not supported"),
        (pd.DataFrame([[1, 2]], columns=["a", "a"]), "cannot save v: its columns are not unique"),
        (pd.MultiIndex.from_tuples([(1, 2)]), "cannot save v: a MultiIndex is not supported"),
        (pd.Series([1], dtype="Int64"), "cannot save v: pandas dtype 'Int64' is not supported"),
        (
            pd.Index([pd.Period("2020")]),
            "cannot save v: pandas dtype 'period[Y-DEC]' is not supported",
        ),
        (
            np.ma.masked_array([1]),
            f"cannot save v: values of type {np.ma.MaskedArray.__module__}.MaskedArray are not "
            "supported by the skcodex file format",
        ),
        (
            type("Fake", (), {})(),
            f"cannot save v: values of type {__name__}.Fake are not supported by the skcodex "
            "file format",
        ),
        (
            pd.DataFrame(index=[0]).pipe(lambda f: f.attrs.update(x={1}) or f),
            "cannot save v.attrs['x']: values of type builtins.set are not supported by the "
            "skcodex file format",
        ),
        (
            ({1, 2},),
            "cannot save v: values of type builtins.set are not supported by the skcodex "
            "file format",
        ),
        (
            [{1, 2}],
            "cannot save v[0]: values of type builtins.set are not supported by the skcodex "
            "file format",
        ),
        (
            {"k": {1}},
            "cannot save v['k']: values of type builtins.set are not supported by the skcodex "
            "file format",
        ),
    ],
)
def test_unsupported_values_are_named(value, message):
    with pytest.raises(PersistenceError) as info:
        Writer().encode(value, "v")
    assert str(info.value) == message


def test_subclasses_are_not_taken_for_their_base():
    class MyInt(int):
        pass

    class MyDict(dict):
        pass

    for value in (MyInt(1), MyDict(), [MyInt(2)]):
        with pytest.raises(PersistenceError, match="are not supported by the skcodex file format"):
            Writer().encode(value, "v")

    @__import__("dataclasses").dataclass(frozen=True)
    class _Point:  # same name as a registered value class, another class
        x: int
        y: tuple

    with pytest.raises(PersistenceError, match="are not supported by the skcodex file format"):
        Writer().encode(_Point(1, ()), "v")
    with pytest.raises(TypeError, match=r"^int is not a dataclass: register it with to_state"):
        value_class(int)


def test_registering_a_value_class():
    import dataclasses

    from skcodex._format import savable

    @dataclasses.dataclass(frozen=True)
    class Fresh:
        a: int

    try:
        assert value_class(Fresh) is Fresh
        assert _round_trip(Fresh(3)) == Fresh(3)
    finally:
        savable._values.pop("Fresh")


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ({"a": 1}, "unrecognised value in the metadata: {'a': 1}"),
        ({"__skcodex__": "_dtype"}, "unrecognised value type '_dtype' in the metadata"),
        ({"__skcodex__": "x" * 50}, f"unrecognised value type {'x' * 40!r} in the metadata"),
        ({"__skcodex__": "float", "value": "1e400"}, "malformed float '1e400' in the metadata"),
        (
            {"__skcodex__": "scalar", "dtype": "<c16", "value": 1},
            "unsupported scalar dtype complex128 in the metadata",
        ),
        (
            {"__skcodex__": "ndarray", "key": "a5"},
            "the array 'a5' named in the metadata is missing",
        ),
        (
            {"__skcodex__": "index", "dtype": "Int64", "values": [], "name": None},
            "unsupported dtype 'Int64' in the metadata",
        ),
        (
            {"__skcodex__": "index", "dtype": "nonsense", "values": [], "name": None},
            "unsupported dtype 'nonsense' in the metadata",
        ),
        (
            {
                "__skcodex__": "frame",
                "columns": {
                    "__skcodex__": "range_index",
                    "start": 0,
                    "stop": 2,
                    "step": 1,
                    "name": None,
                },
                "index": {
                    "__skcodex__": "range_index",
                    "start": 0,
                    "stop": 0,
                    "step": 1,
                    "name": None,
                },
                "data": [],
                "attrs": {"__skcodex__": "dict", "items": []},
            },
            "a table in the metadata has mismatched columns",
        ),
        (
            {"__skcodex__": "dataclass", "class": "Nope", "fields": {}},
            "unknown value class 'Nope' in the metadata",
        ),
        ({"__skcodex__": "posterior", "member": "0_x.nc"}, "the posterior '0_x.nc' is missing"),
    ],
)
def test_decoding_refusals(obj, message):
    with pytest.raises(PersistenceError) as info:
        Reader({}, 100).decode(obj)
    assert str(info.value) == message


def test_unexpected_errors_while_loading_are_refusals(saved, drawn, tmp_path):
    path = _with_meta(
        saved,
        tmp_path / "m.skcodex",
        lambda m: m["state"].update(classes_={"__skcodex__": "tuple"}),
    )
    _refused_prefix = f"{path} is corrupted or malformed and cannot be loaded (KeyError: 'items')"
    with pytest.raises(PersistenceError) as info:
        load(path)
    assert str(info.value) == _refused_prefix
    path = _with_meta(
        drawn.save(tmp_path / "drawn.skcodex"),
        tmp_path / "m.skcodex",
        lambda m: m["state"].update(
            vocabulary_={"__skcodex__": "dataclass", "class": "Vocabulary", "fields": {"nope": 1}}
        ),
    )
    with pytest.raises(PersistenceError) as info:
        load(path)
    assert str(info.value).startswith(
        f"{path} is corrupted or malformed and cannot be loaded (TypeError: "
    )


def test_a_message_already_naming_the_file_is_not_named_twice(tmp_path):
    with pytest.raises(PersistenceError) as info:
        load(tmp_path)
    assert str(info.value).count(str(tmp_path)) == 1


def test_only_registered_value_classes_are_built(saved, tmp_path):
    path = _with_meta(
        saved,
        tmp_path / "m.skcodex",
        lambda m: m["state"].update(
            classes_={"__skcodex__": "dataclass", "class": "Path", "fields": {}}
        ),
    )
    _refused(path, "unknown value class 'Path' in the metadata")


def test_saving_and_loading_leave_no_file_behind(drawn, tmp_path, monkeypatch):
    import tempfile

    work, scratch = tmp_path / "cwd", tmp_path / "tmp"
    work.mkdir()
    scratch.mkdir()
    monkeypatch.chdir(work)
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    path = drawn.save(tmp_path / "b.skcodex")
    load(path)
    assert list(work.iterdir()) == [] and list(scratch.iterdir()) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.skcodex", "cwd", "tmp"]


def test_long_names_in_refusals_are_cut(saved, tmp_path):
    long = "p" * 50
    path = _with_meta(saved, tmp_path / "m.skcodex", lambda m: m["params"].update({long: 1}))
    _refused(path, f"it sets parameters this skcodex's EloClassifier does not have ({long[:40]!r})")
    path = _with_meta(saved, tmp_path / "m.skcodex", lambda m: m["state"].update({long: 1}))
    _refused(path, f"it sets {long[:40]!r}, which is not a fitted attribute a EloClassifier saves")
    field = "x\n  " + "n" * 200
    fields = {"__skcodex__": "dataclass", "class": "Vocabulary", "fields": {field: 1}}
    enc = MatchupEncoder().fit(
        pd.DataFrame({"player1": ["a"], "player2": ["b"], "deck1": ["Ryu"], "deck2": ["Ken"]}).pipe(
            lambda X: X.assign(deck1="MonoRed", deck2="MonoBlue")
        )
    )
    path = _with_meta(
        enc.save(tmp_path / "enc.skcodex"),
        tmp_path / "m.skcodex",
        lambda m: m["state"].update(vocabulary_=fields),
    )
    with pytest.raises(PersistenceError) as info:
        load(path)
    start = "Vocabulary.__init__() got an unexpected keyword argument 'x "
    detail = start + "n" * (160 - len(start))
    assert str(info.value) == (
        f"{path} is corrupted or malformed and cannot be loaded (TypeError: {detail})"
    )


def test_the_file_format_sits_on_top_of_the_package():
    """Only the file format imports itself, except estimators taking `PersistenceMixin`."""
    import ast
    from pathlib import Path

    folder = Path(persistence.__file__).parent
    package = folder.parent
    file_format = {path.stem for path in folder.glob("*.py")} - {"__init__"}
    seen = []
    for path in sorted(package.rglob("*.py")):
        if path.parent == folder:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            for name in names:
                if name.startswith("skcodex._format."):
                    seen.append((path.relative_to(package).as_posix(), name))
    # the estimators' save method, and the command's quick forecast, which reads a few
    # fitted attributes of a file without building the estimator
    allowed = {
        "skcodex._format.persistence.PersistenceMixin",
        "skcodex._format.persistence.read_saved_state",
    }
    assert [s for s in seen if s[1] not in allowed] == []
    for name in file_format - {"persistence"}:  # only the front reads the package's root
        tree = ast.parse((folder / f"{name}.py").read_text())
        roots = [
            node
            for node in ast.walk(tree)
            if isinstance(node, ast.Import) and any(a.name == "skcodex" for a in node.names)
        ]
        assert roots == [], name
    assert {s[0] for s in seen} == {
        "_classifier.py",
        "preprocessing.py",
        "ratings/_base.py",
        "cli/_quick.py",
    }


def test_a_catalogue_of_many_names_loads_in_linear_time(tmp_path):
    """1 MB of catalogue names in a file load in a few seconds (quadratic: about 18 minutes)."""
    X = pd.DataFrame(
        {
            "player1": ["a", "b"],
            "player2": ["b", "c"],
            "deck1": ["Ryu", "Ken"],
            "deck2": ["Ken", "Ryu"],
        }
    )
    small = MatchupEncoder(catalogue=PlainCatalogue(starters=["Ryu", "Ken"], specs_per_deck=0))
    saved = small.fit(X).save(tmp_path / "small.skcodex")
    names = ["Ryu", "Ken", *(f"n{k:07d}" for k in range(110_000))]

    def many(meta):
        meta["params"]["catalogue"]["fields"]["starters"]["items"] = names

    path = _with_meta(saved, tmp_path / "many.skcodex", many)
    assert path.stat().st_size > 1_000_000
    with _no_longer_than(60):
        loaded = load(path)
    assert loaded.catalogue.starters == tuple(names)
    assert loaded.transform(X).shape[0] == 2


@dataclasses.dataclass(frozen=True)
class _Planted:
    """A registered value class whose construction leaves a mark."""

    note: str

    def __post_init__(self):
        _Planted.built.append(self.note)


_Planted.built = []


@pytest.mark.parametrize(
    ("where", "value", "message"),
    [
        (
            ("state", "n_periods_"),
            {"__skcodex__": "dataclass", "class": "_Planted", "fields": {"note": "x"}},
            "its fitted attribute 'n_periods_' holds a _Planted, which it cannot hold",
        ),
        (
            ("state", "ratings_"),
            {
                "__skcodex__": "tuple",
                "items": [{"__skcodex__": "Deck", "starter": "a", "specs": []}],
            },
            "its fitted attribute 'ratings_' holds a Deck, which it cannot hold",
        ),
        (
            ("state", "classes_"),
            {"__skcodex__": "posterior", "member": "0_idata_.nc"},
            "its fitted attribute 'classes_' holds a posterior, which it cannot hold",
        ),
        (
            ("params", "k_factor"),
            {"__skcodex__": "dataclass", "class": "Vocabulary", "fields": {}},
            "its parameter 'k_factor' holds a Vocabulary, which it cannot hold",
        ),
        (
            ("state", "n_periods_"),
            "abc",
            "its fitted attribute 'n_periods_' holds a str, where a EloClassifier keeps int",
        ),
        (
            ("state", "ratings_"),
            {"__skcodex__": "tuple", "items": [1]},
            "its fitted attribute 'ratings_' holds a tuple, where a EloClassifier keeps DataFrame",
        ),
        (
            ("state", "classes_"),
            3,
            "its fitted attribute 'classes_' holds a int, where a EloClassifier keeps ndarray",
        ),
    ],
)
def test_each_attribute_builds_only_the_classes_it_can_hold(saved, tmp_path, where, value, message):
    value_class(_Planted)
    _Planted.built.clear()
    part, key = where
    path = _with_meta(saved, tmp_path / "m.skcodex", lambda m: m[part].update({key: value}))
    _refused(path, message)
    assert _Planted.built == []  # refused before its constructor ran


def test_a_catalogue_parameter_may_hold_only_a_catalogue(tmp_path):
    X = pd.DataFrame({"player1": ["a"], "player2": ["b"], "deck1": ["Ryu"], "deck2": ["Ken"]})
    enc = MatchupEncoder(catalogue=PlainCatalogue(specs_per_deck=0)).fit(X)
    saved = enc.save(tmp_path / "enc.skcodex")
    assert load(saved).catalogue == enc.catalogue
    planted = {"__skcodex__": "dataclass", "class": "Layout", "fields": {}}
    path = _with_meta(
        saved, tmp_path / "m.skcodex", lambda m: m["params"].update(catalogue=planted)
    )
    _refused(path, "its parameter 'catalogue' holds a Layout, which it cannot hold")


def test_the_posterior_gets_only_the_budget_the_arrays_left(drawn, tmp_path):
    """max_bytes is one budget: 4 MB of arrays leave the posterior less than max_bytes.

    The posterior here holds an unwritten 4 MB dataset (nothing in the file, 4 MB once
    read) and the arrays 4 MB; with max_bytes 2 MB above the file's size each fits the
    budget alone, both together do not.
    """
    import h5py

    members = _members(drawn.save(tmp_path / "drawn.skcodex"))
    member = next(n for n in members if n.endswith(".nc"))
    nc = tmp_path / "posterior.nc"
    nc.write_bytes(members[member])
    with h5py.File(nc, "a") as fh:
        fh["posterior"].create_dataset("pad", shape=(500_000,), chunks=(50_000,), dtype="f8")
    members[member] = nc.read_bytes()
    with zipfile.ZipFile(io.BytesIO(members["arrays.npz"])) as npz:
        arrays = {i.filename: npz.read(i) for i in npz.infolist()}
    arrays["a999.npy"] = _npy_bytes(np.zeros(500_000))
    members["arrays.npz"] = _npz(arrays)
    members.pop("manifest.json")
    meta = json.loads(members.pop("metadata.json"))
    meta["state"]["n_features_in_"] = {"__skcodex__": "ndarray", "key": "a999"}
    path = _zip(tmp_path / "m.skcodex", {"metadata.json": json.dumps(meta).encode(), **members})
    budget = path.stat().st_size + 2 * 1024**2
    assert len(members[member]) < 1024**2 and budget > 4_000_000 + 2 * 1024**2
    with pytest.raises(PersistenceError, match="would take more than"):
        load(path, max_bytes=budget)


def test_the_codec_reads_exactly_the_tags_savable_reserves():
    """`savable.CODEC_TAGS` lists the codec's own readers, so no class can take their names."""
    from skcodex._format.savable import CODEC_TAGS
    from skcodex._format.state_codec import Reader

    readers = {name.removeprefix("_read_") for name in dir(Reader) if name.startswith("_read_")}
    assert readers == CODEC_TAGS
