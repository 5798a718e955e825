"""Small shims over other libraries, at the bottom of the package.

``scikit_learn`` holds the private scikit-learn names the estimators rely on,
``posterior`` hides ArviZ 0.x (``InferenceData``) against 1.x (``DataTree``),
and ``lazy`` gives the namespaces their lazily imported names.

Import rule: a shim imports other libraries only, never skcodex.

May import: nothing
"""
