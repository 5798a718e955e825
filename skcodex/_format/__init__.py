"""The saved-file format: fitted estimators written to one file and read back without pickle.

Its modules, from the bottom: ``safe_files`` (reading bytes someone else wrote
within fixed bounds), ``archive`` (the zip container, its manifest and
signature), ``posterior_file`` (a posterior as one NetCDF-4 file),
``state_codec`` (fitted attribute values as tagged JSON), ``savable`` (the
classes a file may hold) and ``persistence`` (``save`` and ``load``).

Import rule: the format sits on top of the package. It imports the classes it
saves only by name, when a file first needs them (``savable.ESTIMATORS`` and
``VALUES``), and otherwise only the compatibility shims, the game's classes
and the package's version (``skcodex.__version__``, from the root module
alone); nothing but the estimators' ``save`` method and the command's quick
forecast imports it.

May import: skcodex, skcodex._compat, skcodex.codex
"""
