"""polyrank's airspeed velocity (asv) suite (``asv.conf.json`` at the repository root).

The suite is read from the working tree and run against any commit's build, so it
uses only APIs that exist at both 6ead872 and today (``polyrank.<paper>._warmup``,
the estimators' common parameters, ``polyrank.datasets``, ``polyrank.sopopo``).

- :mod:`benchmarks.fit`: every estimator's fit on bundled real data (``time_fit``,
  ``peakmem_fit``) with its peer beside it (``*_peer``), and the fit's quality as
  ``track_`` benchmarks (test error, iterations, relative duality gap). Every tracked
  number is lower-is-better, as asv assumes.
- :mod:`benchmarks.projection`: ``soft_project`` at k = 10, 100, 10,000 and Clarabel
  on the same reduced problem (Eq. 19).
- :mod:`benchmarks.startup`: each solver's kernels compiled on an empty numba cache,
  ``import polyrank`` (beside ``import sklearn.base``) and ``polyrank --version``.

See CONTRIBUTING.md ("Benchmarks: asv") for the habit: ``polyrank bench compare main``
before a change lands, its table in the commit body.
"""
