"""Save and load fitted estimators without pickle.

A saved estimator is one zip archive (by convention with the extension
``.skcodex``; its members are described in `skcodex._format.archive`): the
estimator's class name, constructor parameters and fitted attributes as tagged
JSON (`skcodex._format.state_codec`), its numeric arrays as an uncompressed ``.npz``
and its posterior, if any, as NetCDF-4 (`skcodex._format.posterior_file`), all
covered by a manifest of digests and, optionally, a keyed signature.

What an estimator saves is what its class declares: every estimator class
that can be saved names its fitted attributes in the class attribute
``_persisted_state`` (checked by `PersistenceMixin`, which also gives it its
``save`` method). A file's state must name exactly those attributes, so
nothing in a file can set any other name, such as a method or ``__class__``.
Which classes a file may hold, estimators and the value classes among their
fitted attributes (frozen dataclasses such as `skcodex.data.Vocabulary`,
rebuilt from their fields), is listed in `skcodex._format.savable`, not read from
``skcodex.__all__``; `register_savable` adds a class of one's own. The file
format sits on top of the package: it imports the classes it saves, and the
only part of it any other module of skcodex imports is `PersistenceMixin`.

Loading executes no code from the file and reads it within fixed bounds: the
file (`skcodex._format.safe_files`), its members and their digests (`skcodex._format.archive`),
its arrays, JSON and posterior are each checked before they are parsed.

Every failure to load is a `PersistenceError` that says why (a missing file
is a `FileNotFoundError`). The digests detect damage (truncation, flipped
bytes, an edited member); they do not show who wrote a file, since anyone
can recompute them. Saving with ``key=`` adds a keyed signature that only a
holder of the key can make, and ``load(path, key=...)`` refuses a file whose
signature does not match (see [Reliability and scale](../reliability.md)).

Examples
--------
>>> import tempfile, pathlib
>>> import skcodex
>>> from skcodex import EloClassifier
>>> from skcodex.datasets import make_matches
>>> data = make_matches(n_players=10, n_matches=60, random_state=0)
>>> model = EloClassifier().fit(data.X, data.y)
>>> path = pathlib.Path(tempfile.mkdtemp()) / "elo.skcodex"
>>> _ = model.save(path, key=b"our team's secret")
>>> again = skcodex.load(path, key=b"our team's secret")
>>> bool((again.predict_proba(data.X) == model.predict_proba(data.X)).all())
True
"""

from __future__ import annotations

import os
import platform
from importlib import import_module
from pathlib import Path
from typing import Any, ClassVar

from skcodex._format.archive import (
    FORMAT_NAME,
    FORMAT_VERSION,
    MAX_JSON_BYTES,
    key_bytes,
    read_archive,
    write_archive,
)
from skcodex._format.posterior_file import MAX_POSTERIOR_BYTES, read_posterior, write_posterior
from skcodex._format.safe_files import (
    MAX_JSON_DEPTH,
    PersistenceError,
    check_hdf5_self_contained,
    read_regular_file,
)
from skcodex._format.savable import (
    KINDS,
    estimator_class,
    estimator_names,
    held_by,
    register_savable,
)
from skcodex._format.state_codec import Reader, Writer

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "MAX_FILE_BYTES",
    "MAX_JSON_BYTES",
    "MAX_JSON_DEPTH",
    "MAX_POSTERIOR_BYTES",
    "SUFFIX",
    "PersistenceError",
    "PersistenceMixin",
    "check_hdf5_self_contained",
    "load",
    "read_posterior",
    "register_savable",
    "save",
    "write_posterior",
]

#: The conventional file extension.
SUFFIX = ".skcodex"

#: The largest file `load` reads unless told otherwise (``max_bytes``); it also
#: bounds the memory the posterior's arrays may take once read.
MAX_FILE_BYTES = 2 * 1024**3


class PersistenceMixin:
    """Gives an estimator a ``save(path)`` method; `skcodex.load` reads the file back.

    A subclass declares ``_persisted_state``, the names of the fitted
    attributes a saved file holds; they must be plain instance-attribute
    names: no dunder, nothing the class itself defines (a method, property or
    class attribute). A class can be saved and loaded once it is listed in
    `skcodex._format.savable` (skcodex's own estimators) or registered with
    `register_savable`.
    """

    _persisted_state: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "_persisted_state" not in cls.__dict__:
            return
        names = tuple(cls._persisted_state)
        for attr in names:
            if (
                not isinstance(attr, str)
                or not attr.isidentifier()
                or attr.startswith("__")
                or hasattr(cls, attr)
            ):
                raise TypeError(
                    f"{cls.__name__}._persisted_state names {attr!r}, which is not a plain "
                    "instance attribute (a dunder, or a name the class defines)"
                )
        if len(set(names)) != len(names):
            raise TypeError(f"{cls.__name__}._persisted_state names an attribute twice")

    def save(self, path: str | os.PathLike, *, key: bytes | str | None = None) -> Path:
        """Write the fitted estimator to one file, without pickle (see `save`).

        Parameters
        ----------
        path : str or path-like
            Where to write; ``.skcodex`` is the conventional extension.
        key : bytes or str, optional
            Sign the file with HMAC-SHA256 under this secret key.

        Returns
        -------
        pathlib.Path
            The file written. Read it back with `skcodex.load`.
        """
        return save(self, path, key=key)


# -- saving ---------------------------------------------------------------------------


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in ("numpy", "pandas", "sklearn", "arviz", "xarray", "h5netcdf", "pymc"):
        try:
            out[name.replace("sklearn", "scikit-learn")] = import_module(name).__version__
        except ImportError:
            pass
    return out


def _estimator_class(estimator: Any) -> type:
    cls = type(estimator)
    if estimator_class(cls.__name__) is not cls:
        raise PersistenceError(
            f"cannot save a {cls.__module__}.{cls.__name__}: the skcodex file format holds "
            f"{', '.join(estimator_names())} and the classes given to register_savable; "
            "use joblib or pickle for other objects"
        )
    return cls


def _check_params(estimator: Any, name: str) -> None:
    """Refuse parameters ``fit`` would refuse (as ``load`` does), so that every saved file loads.

    ``set_params`` after ``fit`` can leave values ``fit`` never accepted.
    """
    validate = getattr(estimator, "_validate_params", None)
    if validate is None:
        return
    try:
        validate()
    except Exception as err:  # scikit-learn's InvalidParameterError names the parameter
        raise PersistenceError(
            f"cannot save this {name}: {err} Set a value fit accepts before saving."
        ) from None


def save(estimator: Any, path: str | os.PathLike, *, key: bytes | str | None = None) -> Path:
    """Write a fitted skcodex estimator to one file, without pickle.

    Parameters
    ----------
    estimator : BayesianMatchupClassifier, Glicko2Classifier, EloClassifier or MatchupEncoder
        A fitted estimator.
    path : str or path-like
        Where to write (``.skcodex`` is the conventional extension). An
        existing file is replaced atomically; concurrent saves to one path all
        succeed, and the last one to finish wins.
    key : bytes or str, optional, default None
        Sign the file with HMAC-SHA256 under this secret key, so that
        ``load(path, key=key)`` can check that it was written by a holder of
        the key and not altered since.

    Returns
    -------
    pathlib.Path
        The file written.

    Raises
    ------
    sklearn.exceptions.NotFittedError
        If the estimator has not been fitted.
    PersistenceError
        If the estimator is not one of the supported classes, has a parameter
        ``fit`` would refuse (set with ``set_params`` after fitting), or holds
        a value the format cannot represent, such as metadata (names and
        parameters) of more than `MAX_JSON_BYTES` (64 MiB), which ``load``
        would refuse.
    """
    from sklearn.exceptions import NotFittedError

    import skcodex

    cls = _estimator_class(estimator)
    name = cls.__name__
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file name (str or path-like), got {type(path).__name__}")
    secret = key_bytes(key)
    _check_params(estimator, name)
    params = estimator.get_params(deep=False)
    declared = cls._persisted_state
    optional = set(getattr(cls, "_optional_state", ()))
    missing = [a for a in declared if a not in vars(estimator) and a not in optional]
    if missing:
        raise NotFittedError(
            f"this {name} is not fitted (it has no {', '.join(missing)}); fit it before saving"
        )
    extra = sorted(k for k in vars(estimator) if k not in params and k not in declared)
    if extra:
        raise PersistenceError(
            f"cannot save {name}.{extra[0]}: it is not among the fitted attributes a {name} "
            "saves; such values are not supported by the skcodex file format"
        )
    writer = Writer()
    meta: dict[str, Any] = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "skcodex_version": skcodex.__version__,
        "library_versions": _versions(),
        "estimator": name,
        "params": {k: writer.encode(v, f"{name}.{k}") for k, v in params.items()},
        "state": {k: writer.encode(getattr(estimator, k, None), f"{name}.{k}") for k in declared},
    }
    members = writer.members(meta, name)
    return write_archive(path, members, secret)


# -- loading --------------------------------------------------------------------------


def _version() -> str:
    import skcodex

    return skcodex.__version__


def _estimator_for(name: Any) -> type:
    """The estimator class a file names, among those `skcodex._format.savable` knows."""
    cls = estimator_class(name) if isinstance(name, str) else None
    if cls is None:
        raise PersistenceError(f"it holds an unknown estimator class {str(name)[:60]!r}")
    return cls


def _build(meta: dict, blobs: dict[str, bytes], limit: int) -> Any:
    cls = _estimator_for(meta.get("estimator"))
    name = cls.__name__
    reader = Reader(blobs, limit)
    params_in, state_in = meta.get("params"), meta.get("state")
    if not isinstance(params_in, dict) or not isinstance(state_in, dict):
        raise PersistenceError("its metadata holds no parameters or no fitted state")
    allowed = set(cls._get_param_names())
    unknown = sorted(set(params_in) - allowed)
    if unknown:
        raise PersistenceError(
            f"it sets parameters this skcodex's {name} does not have ({unknown[0][:40]!r})"
        )
    declared = set(cls._persisted_state)
    unknown = sorted(set(state_in) - declared)
    if unknown:
        raise PersistenceError(
            f"it sets {unknown[0][:40]!r}, which is not a fitted attribute a {name} saves"
        )
    # attributes a file of an earlier version may lack: None when absent
    optional = set(getattr(cls, "_optional_state", ()))
    lost = [k for k in cls._persisted_state if k not in state_in and k not in optional]
    if lost:
        raise PersistenceError(f"it lacks the fitted attribute(s) {', '.join(lost)}")
    # Each parameter and attribute builds only the value classes it can hold.
    params = {
        k: reader.decode_held(v, held_by(name, k), f"parameter {k!r}") for k, v in params_in.items()
    }
    state = {
        k: reader.decode_held(state_in[k], held_by(name, k), f"fitted attribute {k!r}")
        if k in state_in
        else None
        for k in cls._persisted_state
    }
    for key in cls._persisted_state:
        if key in state_in:
            _check_kind(name, key, state[key])
    estimator = cls(**params)
    if hasattr(estimator, "_validate_params"):
        try:
            estimator._validate_params()
        except Exception as err:
            raise PersistenceError(f"it holds an invalid parameter ({err})") from None
    for key in cls._persisted_state:  # names checked against the class's own declaration
        setattr(estimator, key, state[key])
    # What the file leaves out because it is derived (the pointwise log-likelihood).
    restore = getattr(estimator, "_restore_derived", None)
    if restore is not None:
        restore()
    return estimator


def _check_kind(estimator: str, key: str, value: Any) -> None:
    """Refuse a fitted attribute of skcodex's estimators that is not the kind it is."""
    kind = KINDS.get(estimator, {}).get(key)
    if kind is None or kind == "posterior":  # the posterior: checked as it is read
        return
    import numpy as np
    import pandas as pd

    if kind == "ndarray":
        ok = isinstance(value, np.ndarray)
    elif kind == "int":
        ok = isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
    elif kind == "number":
        ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(
            value, (bool, np.bool_)
        )
    elif kind == "DataFrame":
        ok = isinstance(value, pd.DataFrame)
    elif kind == "Index":
        ok = isinstance(value, pd.Index)
    elif kind == "list":
        ok = isinstance(value, (list, tuple))
    else:  # value classes, by name
        ok = type(value).__name__ in kind.split()
    if not ok:
        raise PersistenceError(
            f"its fitted attribute {key!r} holds a {type(value).__name__[:40]}, where a "
            f"{estimator} keeps {' or '.join(kind.split())}"
        )


def read_saved_state(
    path: str | os.PathLike, estimator: str, names: tuple[str, ...], *, key: Any = None
) -> dict[str, Any]:
    """Some fitted attributes and every parameter of a saved estimator, without building it.

    The file is read and checked as `load` reads it (its size, its members'
    digests, the signature with ``key``); only the named attributes are
    decoded, and the estimator's class is not imported (nor is
    scikit-learn), so a reader that needs a few attributes starts fast.
    Posteriors are read as `skcodex._compat.posterior.Groups` (no ArviZ).

    Returns
    -------
    dict
        The decoded parameters under ``"params"``, and each name of ``names``.

    Raises
    ------
    PersistenceError
        If the file holds another estimator than ``estimator``, lacks one of
        ``names``, or cannot be read as `load` would say.
    """
    from skcodex._compat import posterior

    raw = read_regular_file(path, os.fspath(path), MAX_FILE_BYTES)
    meta, blobs = read_archive(raw, key_bytes(key), reader=_version())
    del raw
    if meta.get("estimator") != estimator:
        raise PersistenceError(f"it does not hold a {estimator}")
    params_in, state_in = meta.get("params"), meta.get("state")
    if not isinstance(params_in, dict) or not isinstance(state_in, dict):
        raise PersistenceError("its metadata holds no parameters or no fitted state")
    lost = [k for k in names if k not in state_in]
    if lost:
        raise PersistenceError(f"it lacks the fitted attribute(s) {', '.join(lost)}")
    reader = Reader(blobs, MAX_FILE_BYTES)
    with posterior.plain_groups():
        # each attribute builds only the value classes it can hold, as `load` does
        out = {
            k: reader.decode_held(state_in[k], held_by(estimator, k), f"fitted attribute {k!r}")
            for k in names
        }
        out["params"] = {
            k: reader.decode_held(v, held_by(estimator, k), f"parameter {k!r}")
            for k, v in params_in.items()
        }
    return out


def load(
    path: str | os.PathLike,
    *,
    key: bytes | str | None = None,
    max_bytes: int = MAX_FILE_BYTES,
) -> Any:
    """Read an estimator written by ``estimator.save(path)`` (or `save`).

    Loading executes no code from the file: the estimator class is chosen
    among skcodex's own, the fitted attributes set are those its class
    declares, arrays are read without pickle, and the posterior is plain
    NetCDF checked to read nothing outside the file. The file and every
    member are read within fixed size bounds.

    Parameters
    ----------
    path : str or path-like
        The file written by ``save``; it must be a regular file.
    key : bytes, str or None, default None
        The secret key the file was signed with (``save(path, key=...)``).
        When given, a file that is unsigned, signed with another key, or
        altered after signing is refused.
    max_bytes : int, default 2147483648
        The largest file read, and the most memory its arrays may take
        (`MAX_FILE_BYTES`, 2 GiB).

    Returns
    -------
    estimator
        The fitted estimator; its ``predict_proba`` gives bit-for-bit the
        probabilities of the one that was saved.

    Raises
    ------
    FileNotFoundError
        If there is no such file.
    PersistenceError
        For every other file that cannot be loaded: not a regular file, too
        large, not a saved skcodex estimator, of another format version,
        corrupted, truncated, altered, or not signed with ``key``.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file name (str or path-like), got {type(path).__name__}")
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
        raise TypeError(f"max_bytes must be a positive int, got {max_bytes!r}")
    secret = key_bytes(key)
    where = os.fspath(path)
    if isinstance(where, bytes):
        where = os.fsdecode(where)
    name = where
    if not where.isprintable():  # errors show control characters and surrogates escaped
        where = repr(where)[1:-1]
    try:
        if "\0" in name:
            raise PersistenceError(f"{where}: a file name cannot hold a NUL character")
        raw = read_regular_file(path, where, max_bytes)
        meta, blobs = read_archive(raw, secret, reader=_version())
        del raw
        return _build(meta, blobs, max_bytes)
    except PersistenceError as err:
        message = str(err)
        raise PersistenceError(
            message if message.startswith(where) else f"{where}: {message}"
        ) from None
    except FileNotFoundError:
        raise FileNotFoundError(2, "no saved estimator at this path", name) from None
    except Exception as err:  # anything else a hostile file provokes is still a refusal
        detail = " ".join(str(err).split())[:160]
        raise PersistenceError(
            f"{where} is corrupted or malformed and cannot be loaded "
            f"({type(err).__name__}: {detail})"
        ) from None
