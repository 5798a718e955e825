"""The posterior's one home, on either ArviZ line.

A fitted `BayesianMatchupClassifier` keeps its posterior in one object,
``idata_``: an `arviz.InferenceData` under ArviZ 0.x, an `xarray.DataTree`
under ArviZ 1.x, with the same groups, variables and named coordinates, so
the user's own ArviZ calls (``summary``, ``ess``, ``rhat``, ``loo``,
``plot_forest``) work on it. The rest of skcodex never asks which line is
installed: it goes through the handful of functions here.

- `from_groups` builds the object from ``{group name: xarray.Dataset}``;
- `group` returns one group as an `xarray.Dataset` (or None), `group_names`
  lists them, `with_group` / `without_groups` return a new object with a
  group added or removed;
- `draws` gives a posterior variable's draws as a NumPy array with chains
  and draws flattened into one leading axis;
- `write_netcdf` / `read_netcdf` store the object as NetCDF-4 (one netCDF
  group per ArviZ group, through h5netcdf); a file written under one line
  reads under the other.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

if TYPE_CHECKING:
    import xarray as xr

__all__ = [
    "ARVIZ_1",
    "Groups",
    "draws",
    "from_groups",
    "group",
    "group_names",
    "import_arviz",
    "is_posterior",
    "plain_groups",
    "read_netcdf",
    "with_group",
    "without_groups",
    "write_netcdf",
]


def _arviz_major() -> int:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return int(version("arviz").split(".")[0])
    except (PackageNotFoundError, ValueError):  # pragma: no cover - arviz is a dependency
        return 0


#: True when the installed ArviZ is 1.x or newer (posteriors are DataTrees).
ARVIZ_1 = _arviz_major() >= 1

#: The groups in the order ArviZ writes them.
_GROUP_ORDER = (
    "posterior",
    "sample_stats",
    "log_likelihood",
    "observed_data",
    "constant_data",
)


def is_posterior(value: Any) -> bool:
    """Whether ``value`` is a posterior object of either line (InferenceData or DataTree)."""
    return type(value).__name__ in ("InferenceData", "DataTree")


def import_arviz() -> Any:
    """The `arviz` module, imported even where the user's cache folder cannot be written.

    ArviZ 0.x writes the date of a once-a-day notice into the user cache folder
    (``~/.cache/arviz``, or under ``XDG_CACHE_HOME``) while it is imported, and
    the import fails where that folder cannot be created or written (a read-only
    home). The import is then repeated with ``XDG_CACHE_HOME`` pointing, for its
    duration only, at a temporary folder removed afterwards.

    Raises
    ------
    OSError
        If neither the user cache folder nor a temporary folder can be written.
    """
    import contextlib
    import tempfile

    try:
        import arviz
    except OSError as err:
        previous = os.environ.get("XDG_CACHE_HOME")
        try:
            with tempfile.TemporaryDirectory() as folder:
                os.environ["XDG_CACHE_HOME"] = folder
                import arviz
        except OSError:
            raise OSError(
                f"ArviZ cannot be imported: it writes to the user cache folder ({err}) and "
                "no temporary folder is writable either; set XDG_CACHE_HOME to a writable folder"
            ) from None
        finally:
            with contextlib.suppress(KeyError):
                del os.environ["XDG_CACHE_HOME"]
            if previous is not None:
                os.environ["XDG_CACHE_HOME"] = previous
    return arviz


class PlainVariable:
    """A variable's values with the names of its dimensions: the little of xarray readers use."""

    def __init__(self, dims: tuple[str, ...], values: np.ndarray) -> None:
        self.dims, self.values = tuple(dims), values

    @property
    def nbytes(self) -> int:
        return int(self.values.nbytes)

    def transpose(self, *dims: Any) -> PlainVariable:
        """The values with their dimensions in this order (``...``: the others, in order)."""
        named = [d for d in dims if d is not Ellipsis]
        rest = [d for d in self.dims if d not in named]
        order = []
        for d in dims:
            order.extend(rest if d is Ellipsis else [d])
        if sorted(order) != sorted(self.dims):
            raise ValueError(f"cannot order dimensions {self.dims} as {dims}")
        axes = [self.dims.index(d) for d in order]
        return PlainVariable(tuple(order), np.transpose(self.values, axes))

    def to_numpy(self) -> np.ndarray:
        return np.asarray(self.values)


class PlainGroup(dict):
    """A group's variables as `PlainVariable` values by name, with ``sizes`` and ``nbytes``."""

    @property
    def sizes(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for var in self.values():
            out.update(zip(var.dims, var.values.shape))
        return out

    @property
    def nbytes(self) -> int:
        return sum(var.nbytes for var in self.values())


def _plain_group(source: Any, name: str) -> PlainGroup:
    """One group of a NetCDF-4 file as a `PlainGroup` (read by h5netcdf, without xarray)."""
    import h5netcdf

    with h5netcdf.File(source, "r") as fh:
        group = fh.groups[name]
        return PlainGroup(
            {key: PlainVariable(var.dimensions, var[...]) for key, var in group.variables.items()}
        )


class Groups(dict):
    """A posterior's groups as `PlainGroup` values, for readers that need neither ArviZ nor xarray.

    What `read_netcdf` gives inside `plain_groups` (the quick forecast of
    ``skcodex predict``); `group`, `group_names` and `draws` read it as they
    read ArviZ's objects. It never leaves the code that asked for it.
    """


_PLAIN = [False]


@contextlib.contextmanager
def plain_groups() -> Iterator[None]:
    """Within this block, posteriors are read as `Groups`, without ArviZ or xarray."""
    before = _PLAIN[0]
    _PLAIN[0] = True
    try:
        yield
    finally:
        _PLAIN[0] = before


def from_groups(groups: Mapping[str, xr.Dataset]) -> Any:
    """The installed ArviZ's posterior object holding ``groups``.

    Parameters
    ----------
    groups : mapping of str to xarray.Dataset
        Group name (``posterior``, ``sample_stats``, ...) to its data.

    Returns
    -------
    arviz.InferenceData or xarray.DataTree
    """
    ordered = sorted(groups, key=lambda g: ((*_GROUP_ORDER, g)).index(g))
    if ARVIZ_1:
        import xarray as xr

        return xr.DataTree.from_dict({name: groups[name] for name in ordered})
    import warnings

    az = import_arviz()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return az.InferenceData(**{name: groups[name] for name in ordered})


def group_names(idata: Any) -> list[str]:
    """The names of the groups ``idata`` holds."""
    if isinstance(idata, Groups):
        return list(idata)
    if type(idata).__name__ == "DataTree":
        return list(idata.children)
    return list(idata.groups())


def group(idata: Any, name: str) -> xr.Dataset | None:
    """One group of ``idata`` as an `xarray.Dataset`, or None when it has none of that name."""
    if name not in group_names(idata):
        return None
    if isinstance(idata, Groups):
        return idata[name]
    if type(idata).__name__ == "DataTree":
        return idata[name].to_dataset()
    return getattr(idata, name)


def with_group(idata: Any, name: str, data: xr.Dataset) -> Any:
    """A new posterior object: ``idata``'s groups with ``name`` set to ``data``."""
    groups = {g: group(idata, g) for g in group_names(idata)}
    groups[name] = data
    return from_groups(groups)


def without_groups(idata: Any, names: Iterable[str]) -> Any:
    """A new posterior object without the groups ``names`` (absent ones are ignored)."""
    drop = set(names)
    return from_groups({g: group(idata, g) for g in group_names(idata) if g not in drop})


def draws(idata: Any, var: str) -> np.ndarray:
    """A posterior variable's draws, shape ``(n_chains * n_draws, *variable shape)``."""
    post = group(idata, "posterior")
    if post is None or var not in post:
        raise KeyError(f"the posterior has no variable {var!r}")
    values = post[var].transpose("chain", "draw", ...).to_numpy()
    return values.reshape(-1, *values.shape[2:])


def write_netcdf(idata: Any, path: str | os.PathLike) -> None:
    """Write every group of ``idata`` to one NetCDF-4 file (netCDF groups), via h5netcdf."""
    mode = "w"
    for name in group_names(idata):
        data = group(idata, name)
        data.to_netcdf(path, mode=mode, group=name, engine="h5netcdf")
        mode = "a"


def read_netcdf(path: str | os.PathLike | bytes, names: Iterable[str] | None = None) -> Any:
    """Read a file written by `write_netcdf` (or by ArviZ) into memory.

    Parameters
    ----------
    path : str, path-like or bytes
        The file, or its bytes (read in memory, with no temporary file).
    names : iterable of str, optional
        The groups to read; by default every group in the file.

    Returns
    -------
    arviz.InferenceData or xarray.DataTree
    """
    import h5py

    def source() -> Any:
        return io.BytesIO(path) if isinstance(path, bytes) else path

    with h5py.File(source(), "r") as fh:
        present = [k for k in fh if isinstance(fh[k], h5py.Group)]
    wanted = present if names is None else [n for n in names if n in present]
    if _PLAIN[0]:
        return Groups({name: _plain_group(source(), name) for name in wanted})
    import xarray as xr

    groups = {}
    for name in wanted:
        with xr.open_dataset(source(), group=name, engine="h5netcdf") as ds:
            groups[name] = _text_labels_as_objects(ds.load())
    return from_groups(groups)


def _text_labels_as_objects(ds: xr.Dataset) -> xr.Dataset:
    """``ds`` with its text coordinates as object arrays, which hold each name once.

    xarray reads text as a fixed-width array, every entry as wide as the longest
    (one 50,000-character player name among 3,000 would take 600 MB); a fit
    labels its posterior with object arrays, and so does a loaded one.
    """
    text = {
        name: index.to_numpy(dtype=object)
        for name, index in ds.indexes.items()
        if not isinstance(index, pd.MultiIndex) and pd.api.types.is_string_dtype(index.dtype)
    }
    return ds.assign_coords(text) if text else ds
