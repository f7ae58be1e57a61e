"""Reproductions of Sec. 6 of ``sign-constrained-sdca-pegasos.txt`` and the
SC-SDCA benchmark.

T. Kato, M. Kobayashi, D. Sano, "Sign-Constrained Regularized Loss
Minimization".

* :func:`sign_convergence` -- Fig. 2 (c): primal objective gap P(w) - P(w*)
  against epochs for SC-Pega (mini-batch 10 and 100) and SC-SDCA on the
  phishing data, smoothed hinge gamma = 0.01, lam = 1/n; P(w*) from an
  independent Clarabel QP (cross-checked by L-BFGS-B with bounds).
* :func:`sign_small_sample` -- the protocol of the E. coli experiment
  (Sec. 6.1, Fig. 1) on the Wisconsin breast-cancer data: train SC-SVM and
  SVM on 10 random examples, test on the rest, many trials; ROC AUC and
  PRBEP, and the per-trial differences.
* :func:`bench_sign` -- ``polyrank bench sign``: SC-SDCA time to a duality
  gap of 1e-6 on phishing against L-BFGS-B with bounds to the same primal
  value.

Each returns an :class:`~polyrank.experiments.registry.ExperimentResult`;
plotly is imported lazily when a figure is built.
"""

from __future__ import annotations

import statistics
import sys
import time

import numpy as np
from threadpoolctl import threadpool_limits

from .registry import ExperimentResult, register, register_bench, speed_phrase

__all__ = ["sign_convergence", "sign_fig2", "sign_small_sample", "bench_sign", "FIG2_DATA",
           "breast_cancer_signs", "BREAST_CANCER_POSITIVE"]

_PAPER = "Kato, Kobayashi & Sano, sign-constrained SDCA/Pegasos"
_COLORS = {"SC-SDCA": "#d62728", "SC-Pega (k=10)": "#1f77b4",
           "SC-Pega (k=100)": "#2ca02c", "SC-SVM": "#d62728", "SVM": "#1f77b4"}


def _progress_bar(total: int, desc: str, enabled: bool):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, disable=not enabled, file=sys.stderr,
                leave=True, dynamic_ncols=True)


def _check_count(value, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name}: expected an int >= {minimum}, got {value!r}")
    return int(value)


def correlation_signs(X, y) -> np.ndarray:
    """c_h = sign of the empirical covariance of feature h with y (0 where it
    is 0).  Used as the sign vector of the convergence experiment, whose
    subject is the optimiser, not generalisation (the paper does not state
    the signs of Fig. 2)."""
    yc = np.asarray(y, dtype=float) - np.mean(y)
    return np.sign(np.asarray(X.T @ yc).ravel())


#: the data sets of Fig. 2 at hand (Covtype, panel a, is not bundled)
FIG2_DATA = {"w8a": "b", "phishing": "c"}
#: the paper's reading of each panel of Fig. 2 (Sec. 6.2)
FIG2_PAPER_ORDER = {"w8a": "SC-SDCA faster than SC-Pega",
                    "phishing": "SC-Pega faster than SC-SDCA (the exception)"}


def _fig2_data(dataset: str, quick: bool, n_sub: int | None, seed: int):
    from polyrank.datasets import load_phishing, load_w8a

    if dataset not in FIG2_DATA:
        raise ValueError(f"dataset: expected one of {sorted(FIG2_DATA)}, got {dataset!r}")
    X, y = load_phishing() if dataset == "phishing" else load_w8a()
    n = X.shape[0]
    if n_sub is None and quick:
        n_sub = 2000
    if n_sub is not None and n_sub < n:
        idx = np.sort(np.random.default_rng(seed).choice(n, size=n_sub, replace=False))
        X, y = X[idx], y[idx]
    return X, y


# ----------------------------------------------------------- Fig. 2 (c)

@register("sign-convergence", "SC-Pega (k=10, 100) vs SC-SDCA: primal gap P(w) - P(w*) "
          "vs epochs on phishing, smoothed hinge (Sec. 6.2, Fig. 2c)")
def sign_convergence(*, epochs: int | None = None, n_sub: int | None = None,
                     gamma: float = 0.01, batch_sizes=(10, 100), seed: int = 0,
                     quick: bool = False, progress: bool = False,
                     figure: bool = True, dataset: str = "phishing",
                     signs: str = "correlation") -> ExperimentResult:
    """Fig. 2 (c) (or (b) with ``dataset="w8a"``): convergence of SC-Pega
    and SC-SDCA on phishing (W8a).

    Minimises Eq. 5 with the smoothed hinge loss (gamma = 0.01) and
    lam = 1/n on the bundled phishing (W8a) data, with the sign vector
    :func:`correlation_signs` (the paper does not state its signs).  Runs
    SC-Pega (Alg. 1) with mini-batches of 10 and 100 and SC-SDCA (Alg. 2)
    for the same number of epochs (an epoch = n examples visited) and
    records P(w) after every epoch (Pegasos: of the averaged iterate, the
    algorithm's output).  P(w*) comes from an independent solve: the QP of
    the smoothed hinge (Huber form) by Clarabel, cross-checked by scipy's
    L-BFGS-B with the signs as bounds.

    Parameters
    ----------
    epochs : int, optional
        Epochs per solver (default 100; quick: 30).
    n_sub : int, optional
        Use a random subset of this many examples (default: all 11,055;
        quick: 2,000).
    gamma : float
        Smoothing of the hinge (Table 1).
    batch_sizes : sequence of int
        Mini-batch sizes of SC-Pega.
    seed : int
        Seed of the subset and the solvers' random orders.
    quick, progress, figure : bool
        Quick defaults; tqdm progress on stderr; build the plotly figure.
    dataset : {"phishing", "w8a"}
        The data: Fig. 2 (c) or Fig. 2 (b).
    signs : {"correlation", "none"}
        The sign vector: :func:`correlation_signs`, or no constraint (c = 0,
        plain Pegasos / SDCA) to see what the constraints change.

    Returns
    -------
    ExperimentResult
        ``rows``: one per (solver, epoch) with ``solver``, ``epoch``,
        ``primal``, ``primal_gap`` (P - P*), ``duality_gap`` (SDCA's P - D;
        for Pegasos the certified gap of alpha(w~)).  ``summary``: ``n``,
        ``d``, ``lam``, ``p_star`` (Clarabel), ``p_star_lbfgsb``,
        ``p_star_sdca`` (SDCA's last primal), ``final_primal_gap`` per
        solver, ``epochs_to_1e-6`` per solver (None if not reached),
        ``sdca_final_duality_gap``, ``n_signs_active`` (coordinates at 0
        forced by the signs), settings.

    Raises
    ------
    ValueError
        On invalid counts, gamma or dataset.

    Notes
    -----
    Source: ``sign-constrained-sdca-pegasos.txt``, Sec. 6.2, Fig. 2 (b, c).
    """
    from polyrank.sign import sc_pegasos, sc_sdca
    from polyrank.sign.reference import reference_lbfgsb, reference_qp

    epochs = _check_count(30 if quick and epochs is None else (epochs or 100), "epochs")
    batch_sizes = [_check_count(k, "batch_sizes") for k in batch_sizes]
    if not 0 < gamma <= 1:
        raise ValueError(f"gamma: expected 0 < gamma <= 1, got {gamma!r}")
    t0 = time.perf_counter()
    X, y = _fig2_data(dataset, quick, n_sub, seed)
    panel = FIG2_DATA[dataset]
    n, d = X.shape
    lam = 1.0 / n
    if signs not in ("correlation", "none"):
        raise ValueError(f"signs: expected 'correlation' or 'none', got {signs!r}")
    c = correlation_signs(X, y) if signs == "correlation" else np.zeros(d)
    bar = _progress_bar(len(batch_sizes) + 3, "sign-convergence", progress)
    rows = []
    try:
        with threadpool_limits(limits=1):
            ref = reference_qp(X, y, "smoothed_hinge", lam, c, smoothing=gamma)
            bar.update(1)
            lb = reference_lbfgsb(X, y, "smoothed_hinge", lam, c, smoothing=gamma)
            bar.update(1)
            p_star = ref.primal_objective
            runs = {}
            for k in batch_sizes:
                res = sc_pegasos(X, y, "smoothed_hinge", lam, c, batch_size=k,
                                 max_iter=epochs * max(1, n // k), smoothing=gamma,
                                 random_state=seed)
                runs[f"SC-Pega (k={k})"] = res
                bar.update(1)
            res = sc_sdca(X, y, "smoothed_hinge", lam, c, smoothing=gamma, tol=0.0,
                          max_iter=epochs, random_state=seed)
            runs["SC-SDCA"] = res
            bar.update(1)
    finally:
        bar.close()
    summary_final, reach = {}, {}
    for name, res in runs.items():
        tr = res.trace
        for e, P, g in zip(tr.iteration, tr.primal, tr.gap):
            rows.append({"solver": name, "epoch": int(e), "primal": float(P),
                         "primal_gap": float(P - p_star), "duality_gap": float(g)})
        pg = tr.primal - p_star
        summary_final[name] = float(pg[-1])
        hit = np.flatnonzero(pg <= 1e-6)
        reach[name] = int(tr.iteration[hit[0]]) if hit.size else None
    sd = runs["SC-SDCA"]
    summary = {
        "experiment": "sign-convergence", "source": f"{_PAPER}, Sec. 6.2, Fig. 2 ({panel})",
        "data": dataset, "signs": signs, "n": n, "d": d, "lam": lam, "gamma": gamma, "epochs": epochs,
        "batch_sizes": batch_sizes, "seed": seed, "quick": quick,
        "n_signs_positive": int((c > 0).sum()), "n_signs_negative": int((c < 0).sum()),
        "n_signs_active": int(np.sum((sd.x == 0) & (c != 0))),
        "p_star": p_star, "p_star_lbfgsb": lb.primal_objective,
        "p_star_sdca": float(sd.primal_objective),
        "reference_agreement": abs(lb.primal_objective - p_star) / p_star,
        "final_primal_gap": summary_final, "epochs_to_1e-6": reach,
        "sdca_final_duality_gap": float(sd.gap),
        "elapsed_s": time.perf_counter() - t0,
    }
    columns = [("solver", "solver", None), ("epoch", "epoch", str),
               ("primal", "P(w)", lambda v: f"{v:.10f}"),
               ("primal_gap", "P(w) - P(w*)", lambda v: f"{v:.3e}"),
               ("duality_gap", "duality gap", lambda v: f"{v:.3e}")]
    show = {1, 2, 5, 10, 20, 50, 100, 200, epochs}
    table_rows = [r for r in rows if r["epoch"] in show]
    notes = [f"P(w*) = {p_star:.12f} (Clarabel QP); L-BFGS-B with bounds: "
             f"{lb.primal_objective:.12f} (relative difference "
             f"{summary['reference_agreement']:.1e})",
             "final P(w) - P(w*) after %d epochs: " % epochs + ", ".join(
                 f"{k} {v:.2e}" for k, v in summary_final.items()),
             "epochs to P(w) - P(w*) <= 1e-6: " + ", ".join(
                 f"{k} {v if v is not None else 'not reached'}" for k, v in reach.items()),
             f"SC-SDCA final duality gap {sd.gap:.2e}; {summary['n_signs_active']} of "
             f"{int((c != 0).sum())} sign-constrained weights are held at 0"]
    summary["paper"] = [{
        "item": f"Fig. 2 ({panel}): epochs to P(w) - P(w*) <= 1e-6, "
                + ", ".join(reach),
        "paper": FIG2_PAPER_ORDER.get(dataset, "-"),
        "ours": ", ".join(str(v) if v is not None else f"> {epochs}" for v in reach.values()),
        "data": f"{dataset} n = {n}, signs: {signs}"}]
    fig = _convergence_figure(rows, summary) if figure else None
    return ExperimentResult(
        name="sign-convergence",
        title=(f"Fig. 2 ({panel}) ({_PAPER}, Sec. 6.2): {dataset}, n = {n}, d = {d}, smoothed "
               f"hinge gamma = {gamma:g}, lam = 1/n"),
        rows=rows, summary=summary, figure=fig, columns=columns, table_rows=table_rows,
        notes=notes)


def _convergence_figure(rows, summary):
    import plotly.graph_objects as go

    fig = go.Figure()
    floor = 1e-14
    for name in summary["final_primal_gap"]:
        rs = [r for r in rows if r["solver"] == name]
        fig.add_trace(go.Scatter(
            x=[r["epoch"] for r in rs], y=[max(r["primal_gap"], floor) for r in rs],
            mode="lines+markers", name=name, marker={"size": 4},
            line={"color": _COLORS.get(name)},
            hovertemplate="epoch %{x}<br>P - P* %{y:.3e}<extra>" + name + "</extra>"))
    fig.update_yaxes(type="log", exponentformat="power",
                     title_text="primal objective gap P(w) - P(w*) (log scale)")
    fig.update_xaxes(title_text="epochs")
    fig.update_layout(
        title={"text": (f"Fig. 2 ({FIG2_DATA[summary['data']]}) reproduced: {summary['data']} "
                        f"(n = {summary['n']}), smoothed hinge γ = {summary['gamma']:g}, λ = 1/n"),
               "x": 0.5},
        template="plotly_white", width=800, height=480,
        legend={"x": 0.98, "xanchor": "right", "y": 0.98})
    return fig


@register("sign-fig2", "Fig. 2 (b, c): SC-Pega (k=10, 100) vs SC-SDCA on W8a and phishing: "
          "P(w) - P(w*) vs epochs, smoothed hinge, lam = 1/n (Sec. 6.2)")
def sign_fig2(*, epochs: int | None = None, n_sub: int | None = None, gamma: float = 0.01,
              batch_sizes=(10, 100), seed: int = 0, quick: bool = False,
              progress: bool = False, figure: bool = True) -> ExperimentResult:
    """Fig. 2 (b) and (c) of ``sign-constrained-sdca-pegasos.txt`` (Sec. 6.2):
    :func:`sign_convergence` on W8a and on phishing with the paper's
    settings (smoothed hinge gamma = 0.01, lam = 1/n, SC-Pega mini-batches
    of 10 and 100, SC-SDCA), plus two measurements that test the paper's
    statements ("SC-SDCA converged faster than SC-Pega except on Phishing";
    "no significant difference between mini-batch sizes"):

    * per update: SC-Pega's gap compared at the same number of updates t of
      w (k = 10 after e epochs has made as many updates, e n / 10, as k =
      100 after 10 e epochs), against the same number of examples seen;
    * phishing without sign constraints (c = 0: plain Pegasos and SDCA),
      to see whether the (unstated) sign vector explains the ordering.

    Parameters
    ----------
    epochs, n_sub, gamma, batch_sizes, seed, quick, progress, figure
        As :func:`sign_convergence` (``n_sub`` applies to both data sets).

    Returns
    -------
    ExperimentResult
        rows: those of :func:`sign_convergence` with a ``data`` column
        (``"w8a"``, ``"phishing"``, ``"phishing, c = 0"``); summary: each
        run's summary under ``runs``, ``per_update`` (gap of k = 10 and of
        k = 100 after the same number of updates) and ``sdca_faster`` (per
        run: SC-SDCA reached 1e-6 first, or has the smaller final gap).

    Raises
    ------
    ValueError
        As :func:`sign_convergence`.
    """
    runs = {"w8a": dict(dataset="w8a"), "phishing": dict(dataset="phishing"),
            "phishing, c = 0": dict(dataset="phishing", signs="none")}
    results, rows = {}, []
    for name, kw in runs.items():
        res = sign_convergence(epochs=epochs, n_sub=n_sub, gamma=gamma,
                               batch_sizes=batch_sizes, seed=seed, quick=quick,
                               progress=progress, figure=False, **kw)
        results[name] = res
        rows += [{"data": name, **r} for r in res.rows]
    k_small, k_big = min(batch_sizes), max(batch_sizes)
    per_update, sdca_faster, notes = {}, {}, []
    for name, res in results.items():
        s = res.summary
        gaps = {(r["solver"], r["epoch"]): r["primal_gap"] for r in res.rows}
        e_big = s["epochs"]
        e_small = e_big * k_small // k_big          # as many updates as k_big after e_big
        a = gaps.get((f"SC-Pega (k={k_small})", e_small))
        b = gaps.get((f"SC-Pega (k={k_big})", e_big))
        per_update[name] = {"updates": e_big * s["n"] // k_big, "epochs_small": e_small,
                            "gap_small": a, "gap_big": b}
        reach, final = s["epochs_to_1e-6"], s["final_primal_gap"]
        pega = [k for k in final if k.startswith("SC-Pega")]
        if reach["SC-SDCA"] is not None:
            faster = all(reach[k] is None or reach[k] > reach["SC-SDCA"] for k in pega)
        else:
            faster = all(final["SC-SDCA"] < final[k] for k in pega)
        sdca_faster[name] = bool(faster)
        notes.append(f"{name} (n = {s['n']}): epochs to P - P* <= 1e-6: " + ", ".join(
            f"{k} {v if v is not None else 'not reached'}" for k, v in reach.items())
            + "; final gaps " + ", ".join(f"{k} {v:.1e}" for k, v in final.items()))
        if a is not None and b is not None:
            notes.append(f"  {name}: after {per_update[name]['updates']:,} updates of w, "
                         f"SC-Pega k={k_small} (epoch {e_small}) gap {a:.1e}, k={k_big} "
                         f"(epoch {e_big}) gap {b:.1e}")
    notes.append("paper: SC-SDCA faster than SC-Pega except on phishing; here SC-SDCA is "
                 "faster on " + ", ".join(k for k, v in sdca_faster.items() if v)
                 + (" and not on " + ", ".join(k for k, v in sdca_faster.items() if not v)
                    if not all(sdca_faster.values()) else "")
                 + "; the paper's sign vector is not stated: dropping the signs (c = 0) "
                 + ("leaves the ordering on phishing unchanged"
                    if sdca_faster["phishing"] == sdca_faster["phishing, c = 0"]
                    else "changes the ordering on phishing"))
    ex = [results[n].summary["final_primal_gap"][f"SC-Pega (k={k_big})"]
          / results[n].summary["final_primal_gap"][f"SC-Pega (k={k_small})"] for n in results]
    up = [v["gap_small"] / v["gap_big"] for v in per_update.values()
          if v["gap_small"] is not None and v["gap_big"] is not None]
    notes.append(f"mini-batch size (paper: no significant difference): after the same number "
                 f"of examples (the epochs axis) k={k_big} ends {min(ex):.1f}-{max(ex):.1f}x "
                 f"above k={k_small} (it makes {k_big // k_small}x fewer updates)"
                 + (f"; after the same number of updates k={k_small} is {min(up):.1f}-"
                    f"{max(up):.1f}x above k={k_big} (noisier steps)" if up else "")
                 + ": the step size 1/(lam t) is the paper's, so the difference is a property "
                 "of the method at these sizes, not of a tuned step")
    summary = {"experiment": "sign-fig2", "quick": quick, "source": f"{_PAPER}, Sec. 6.2, Fig. 2",
               "runs": {k: v.summary for k, v in results.items()},
               "per_update": per_update, "sdca_faster": sdca_faster}
    sizes = ", ".join(f"{k} n = {v.summary['n']}" for k, v in results.items())
    summary["paper"] = [
        {"item": "Fig. 2: where SC-SDCA converges faster than SC-Pega",
         "paper": "Covtype, W8a; not phishing",
         "ours": ", ".join(k for k, v in sdca_faster.items() if v) or "none",
         "data": sizes + " (Covtype not bundled)"},
        {"item": f"Fig. 2: mini-batch {k_small} vs {k_big} (gap after the same epochs)",
         "paper": "no significant difference",
         "ours": f"k={k_big} ends {min(ex):.1f}-{max(ex):.1f}x above k={k_small}",
         "data": sizes}]
    columns = [("data", "data", None)] + results["phishing"].columns
    show = {1, 2, 5, 10, 20, 50, 100, 200}
    table_rows = [r for r in rows if r["epoch"] in show or r["epoch"] ==
                  results[r["data"]].summary["epochs"]]
    fig = _fig2_figure(rows, results) if figure else None
    return ExperimentResult("sign-fig2", f"Fig. 2 (b, c) ({_PAPER}, Sec. 6.2): W8a and "
                            f"phishing, smoothed hinge gamma = {gamma:g}, lam = 1/n", rows,
                            summary, fig, columns, table_rows, notes)


def _fig2_figure(rows, results):
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    names = list(results)
    fig = make_subplots(rows=1, cols=len(names), horizontal_spacing=0.07, subplot_titles=[
        f"({FIG2_DATA[results[n].summary['data']]}) {n}, n = {results[n].summary['n']}"
        for n in names])
    for c, name in enumerate(names, 1):
        for solver in results[name].summary["final_primal_gap"]:
            rs = [r for r in rows if r["data"] == name and r["solver"] == solver]
            fig.add_trace(go.Scatter(
                x=[r["epoch"] for r in rs], y=[max(r["primal_gap"], 1e-14) for r in rs],
                mode="lines", name=solver, legendgroup=solver, showlegend=c == 1,
                line={"color": _COLORS.get(solver)}), row=1, col=c)
        fig.update_xaxes(title_text="epochs", row=1, col=c)
        fig.update_yaxes(type="log", exponentformat="power", row=1, col=c)
    fig.update_yaxes(title_text="P(w) - P(w*)", row=1, col=1)
    fig.update_layout(title="Fig. 2 reproduced: primal objective gap against epochs "
                      "(smoothed hinge γ = 0.01, λ = 1/n)", template="plotly_white",
                      width=1200, height=430, legend={"orientation": "h", "y": -0.2})
    return fig


# ------------------------------------------------ the small-sample protocol

#: breast-cancer features whose larger values indicate malignancy
#: (size, irregular contour, coarse texture of the nuclei; see
#: :func:`breast_cancer_signs`), for the "mean" and "worst" summaries
BREAST_CANCER_POSITIVE = ("radius", "texture", "perimeter", "area", "compactness",
                          "concavity", "concave points")


def breast_cancer_signs(feature_names) -> np.ndarray:
    """Sign vector for scikit-learn's Wisconsin breast-cancer features, with
    malignant as the positive class, from domain knowledge alone.

    +1 for the "mean" and "worst" values of radius, texture, perimeter,
    area, compactness, concavity and concave points: malignant nuclei are
    larger, more irregular in contour (concavities) and coarser in texture
    (Street, Wolberg and Mangasarian, "Nuclear feature extraction for breast
    tumor diagnosis", SPIE 1905, 1993, the data set's source, and standard
    cytopathology); 0 (unconstrained) for smoothness, symmetry, fractal
    dimension and all "error" (standard error) features, whose direction is
    not established a priori.  Never computed from data.

    Parameters
    ----------
    feature_names : sequence of str
        ``load_breast_cancer().feature_names``.

    Returns
    -------
    ndarray of float, shape (30,)

    Examples
    --------
    >>> int(breast_cancer_signs(["mean radius", "radius error",
    ...                          "worst concave points"]).sum())
    2
    """
    c = np.zeros(len(feature_names))
    for j, name in enumerate(feature_names):
        name = str(name)
        for f in BREAST_CANCER_POSITIVE:
            if name in (f"mean {f}", f"worst {f}"):
                c[j] = 1.0
    return c


def _small_sample_trials(X, y, c, trial_seeds, n_train, lam):
    """Run trials (one seed each) in this process; returns a list of dicts."""
    from sklearn.metrics import roc_auc_score
    from sklearn.preprocessing import StandardScaler

    from polyrank.metrics import prbep
    from polyrank.sign import sc_sdca

    out = []
    n = X.shape[0]
    for s in trial_seeds:
        rng = np.random.default_rng(s)
        while True:                       # both classes among the training examples
            train = rng.choice(n, size=n_train, replace=False)
            if 0 < (y[train] > 0).sum() < n_train:
                break
        test = np.setdiff1d(np.arange(n), train)
        sc = StandardScaler().fit(X[train])         # training examples only
        Xtr = np.hstack([sc.transform(X[train]), np.ones((n_train, 1))])
        Xte = np.hstack([sc.transform(X[test]), np.ones((test.size, 1))])
        row = {"seed": int(s)}
        for name, signs in (("SC-SVM", np.append(c, 0.0)), ("SVM", None)):
            res = sc_sdca(Xtr, y[train], "hinge", lam, signs, tol=1e-6, max_iter=100000,
                          random_state=s)
            score = Xte @ res.x
            key = "sc" if name == "SC-SVM" else "svm"
            row[f"roc_{key}"] = float(roc_auc_score(y[test] > 0, score))
            row[f"prbep_{key}"] = prbep(y[test], score)
            row[f"gap_{key}"] = float(res.gap)
        out.append(row)
    return out


@register("sign-small-sample", "SC-SVM vs SVM trained on 10 random examples of the "
          "breast-cancer data, signs from domain knowledge: ROC AUC and PRBEP over "
          "many trials (Sec. 6.1, Fig. 1 protocol)")
def sign_small_sample(*, trials: int | None = None, n_train: int = 10, lam: float = 0.1,
                      n_jobs: int = 2, seed: int = 0, quick: bool = False,
                      progress: bool = False, figure: bool = True) -> ExperimentResult:
    """The E. coli protocol of Sec. 6.1 (Fig. 1) on the breast-cancer data.

    Each trial draws ``n_train`` training examples at random (redrawn until
    both classes occur), standardises the features with the training
    examples' means and deviations, appends an unconstrained constant
    feature (the bias), and trains by SC-SDCA to a duality gap of 1e-6 the
    hinge-loss SVM with the signs of :func:`breast_cancer_signs` (SC-SVM)
    and without (SVM); both are tested on all remaining examples by ROC AUC
    (scikit-learn) and PRBEP (:func:`polyrank.metrics.prbep`).  Trials run
    in parallel with joblib.  Malignant is the positive class.

    Parameters
    ----------
    trials : int, optional
        Number of trials (default 1000, the paper used 10,000; quick: 100).
    n_train : int
        Training examples per trial (10 in the paper).
    lam : float
        Regularisation, fixed a priori (not tuned on test data).
    n_jobs : int
        joblib workers.
    seed : int
        Trial t uses the seed ``seed * 1_000_003 + t``.
    quick, progress, figure : bool

    Returns
    -------
    ExperimentResult
        ``rows``: one per trial with ``roc_sc``, ``roc_svm``, ``prbep_sc``,
        ``prbep_svm``, the duality gaps and the differences ``roc_diff``,
        ``prbep_diff`` (SC-SVM minus SVM).  ``summary``: mean scores, mean
        differences, and how many trials improved / deteriorated / tied
        (the paper's counts), ``signs`` (feature -> +1), settings.

    Raises
    ------
    ValueError
        On invalid counts or lam <= 0.

    Notes
    -----
    Source: ``sign-constrained-sdca-pegasos.txt``, Sec. 6.1 (E. coli
    prediction, Fig. 1: 10 training examples, 10,000 trials, PRBEP and ROC
    score).  The E. coli data are not public; the Wisconsin diagnostic
    breast-cancer data (569 examples, 30 features) shipped with scikit-learn
    replaces them.
    """
    from joblib import Parallel, delayed
    from sklearn.datasets import load_breast_cancer

    trials = _check_count(100 if quick and trials is None else (trials or 1000), "trials")
    n_train = _check_count(n_train, "n_train", 2)
    n_jobs = _check_count(n_jobs, "n_jobs")
    if not (np.isfinite(lam) and lam > 0):
        raise ValueError(f"lam: expected a finite number > 0, got {lam!r}")
    t0 = time.perf_counter()
    data = load_breast_cancer()
    X = data.data
    y = np.where(data.target == 0, 1.0, -1.0)            # malignant = +1
    names = [str(f) for f in data.feature_names]
    c = breast_cancer_signs(names)
    seeds = [seed * 1_000_003 + t for t in range(trials)]
    n_chunks = min(trials, max(4 * n_jobs, trials // 25))
    chunks = [list(a) for a in np.array_split(np.array(seeds), n_chunks)]
    bar = _progress_bar(trials, "sign-small-sample", progress)
    rows = []
    try:
        with threadpool_limits(limits=1):
            jobs = Parallel(n_jobs=n_jobs, return_as="generator")(
                delayed(_small_sample_trials)(X, y, c, ch, n_train, lam) for ch in chunks)
            for part in jobs:
                rows.extend(part)
                bar.update(len(part))
    finally:
        bar.close()
    for r in rows:
        r["roc_diff"] = r["roc_sc"] - r["roc_svm"]
        r["prbep_diff"] = r["prbep_sc"] - r["prbep_svm"]

    def counts(key):
        v = np.array([r[key] for r in rows])
        return {"improved": int((v > 1e-12).sum()), "deteriorated": int((v < -1e-12).sum()),
                "tied": int((np.abs(v) <= 1e-12).sum())}

    mean = {k: float(np.mean([r[k] for r in rows]))
            for k in ("roc_sc", "roc_svm", "prbep_sc", "prbep_svm", "roc_diff", "prbep_diff")}
    summary = {
        "experiment": "sign-small-sample", "source": f"{_PAPER}, Sec. 6.1, Fig. 1 protocol",
        "data": "Wisconsin diagnostic breast cancer (scikit-learn), malignant = positive",
        "n": int(X.shape[0]), "d": int(X.shape[1]), "n_train": n_train, "trials": trials,
        "lam": float(lam), "seed": seed, "quick": quick,
        "signs": {nm: 1 for nm, s in zip(names, c) if s > 0},
        "mean": mean, "roc_counts": counts("roc_diff"), "prbep_counts": counts("prbep_diff"),
        "max_duality_gap": float(max(max(r["gap_sc"], r["gap_svm"]) for r in rows)),
        "elapsed_s": time.perf_counter() - t0,
    }
    columns = [("method", "method", None), ("roc", "mean ROC AUC", lambda v: f"{v:.4f}"),
               ("prbep", "mean PRBEP", lambda v: f"{v:.4f}")]
    table_rows = [{"method": "SC-SVM", "roc": mean["roc_sc"], "prbep": mean["prbep_sc"]},
                  {"method": "SVM", "roc": mean["roc_svm"], "prbep": mean["prbep_svm"]},
                  {"method": "difference", "roc": mean["roc_diff"],
                   "prbep": mean["prbep_diff"]}]
    rc, pc = summary["roc_counts"], summary["prbep_counts"]
    data = f"breast cancer (E. coli data not public), {trials} trials"
    summary["paper"] = [
        {"item": "Sec. 6.1: mean PRBEP, SC-SVM vs SVM", "paper": "0.808 vs 0.757",
         "ours": f"{mean['prbep_sc']:.3f} vs {mean['prbep_svm']:.3f}", "data": data},
        {"item": "Sec. 6.1: mean ROC score, SC-SVM vs SVM", "paper": "0.863 vs 0.810",
         "ours": f"{mean['roc_sc']:.3f} vs {mean['roc_svm']:.3f}", "data": data},
        {"item": "Sec. 6.1: trials with ROC improved / decreased",
         "paper": "89.3 % / 8.0 %",
         "ours": f"{100 * rc['improved'] / trials:.1f} % / {100 * rc['deteriorated'] / trials:.1f} %",
         "data": data}]
    notes = [f"{trials} trials, {n_train} training examples each, lam = {lam:g}; "
             f"{int((c > 0).sum())} features constrained >= 0 by domain knowledge",
             f"ROC AUC improved in {rc['improved']} trials, decreased in "
             f"{rc['deteriorated']}, tied in {rc['tied']} (paper, E. coli: 8,932 / 796 of "
             "10,000)",
             f"PRBEP improved in {pc['improved']} trials, decreased in {pc['deteriorated']}, "
             f"tied in {pc['tied']} (paper: 7,349 / 1,069)"]
    fig = _small_sample_figure(rows, summary) if figure else None
    return ExperimentResult(
        name="sign-small-sample",
        title=(f"Sec. 6.1 protocol ({_PAPER}): SC-SVM vs SVM on {n_train} random "
               "breast-cancer examples"),
        rows=rows, summary=summary, figure=fig, columns=columns, table_rows=table_rows,
        notes=notes)


def _small_sample_figure(rows, summary):
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=2, subplot_titles=(
        "(a) PRBEP: SC-SVM minus SVM", "(b) ROC score: SC-SVM minus SVM"))
    for col, key in ((1, "prbep_diff"), (2, "roc_diff")):
        v = [r[key] for r in rows]
        fig.add_trace(go.Histogram(x=v, nbinsx=40, marker={"color": "#1f77b4"},
                                   name=key, showlegend=False), row=1, col=col)
        fig.add_vline(x=0, line={"color": "grey", "dash": "dot"}, row=1, col=col)
        fig.update_xaxes(title_text="improvement per trial", row=1, col=col)
        fig.update_yaxes(title_text="trials", row=1, col=col)
    m = summary["mean"]
    fig.update_layout(
        title={"text": (f"Sign constraints from domain knowledge, {summary['n_train']} "
                        f"training examples, {summary['trials']} trials: mean ROC "
                        f"{m['roc_sc']:.3f} vs {m['roc_svm']:.3f}, PRBEP "
                        f"{m['prbep_sc']:.3f} vs {m['prbep_svm']:.3f}"), "x": 0.5,
               "font": {"size": 14}},
        template="plotly_white", width=1000, height=420, bargap=0.05)
    return fig


# ------------------------------------------------------------- benchmark

@register_bench("sign", "SC-SDCA time to duality gap 1e-6 on phishing vs scipy L-BFGS-B "
                "with bounds to the same primal value")
def bench_sign(*, repeats: int | None = None, tol: float = 1e-6, gamma: float = 0.01,
               seed: int = 0, quick: bool = False, progress: bool = False,
               figure: bool = False) -> ExperimentResult:
    """SC-SDCA against L-BFGS-B on phishing (smoothed hinge, lam = 1/n).

    Times (single-threaded, in this process, after a warm-up) SC-SDCA
    (:func:`polyrank.sign.sc_sdca`, duality gap of every epoch) until its
    duality gap is <= ``tol``, once as Alg. 2 of the paper and once with
    ``shrinking=True`` (LIBLINEAR's shrinking, not in the paper), each
    followed by scipy's L-BFGS-B with the sign constraints as bounds
    (:func:`polyrank.sign.reference.reference_lbfgsb` with ``target``)
    until its primal value is <= that SC-SDCA run's final primal value.
    Reports the medians of ``repeats`` runs and, for each variant, the ratio
    t(L-BFGS-B) / t(SC-SDCA); the target is a ratio > 1 (SC-SDCA faster).

    Parameters
    ----------
    repeats : int, optional
        Timed runs of each (default 5; quick: 1).
    tol : float
        SC-SDCA's duality-gap tolerance.
    gamma, seed, quick, progress, figure
        As the experiments (no figure).

    Returns
    -------
    ExperimentResult
        ``rows``: one per solver with ``time_s`` (median), ``primal``,
        ``iterations``; ``summary``: ``ratio`` (Alg. 2), ``ratio_shrinking``,
        ``target_met`` (either ratio > 1), ``target_met_alg2``.
    """
    from polyrank.datasets import load_phishing
    from polyrank.sign import sc_sdca
    from polyrank.sign.reference import reference_lbfgsb

    repeats = _check_count(1 if quick and repeats is None else (repeats or 5), "repeats")
    X, y = load_phishing()
    n = X.shape[0]
    lam = 1.0 / n
    c = correlation_signs(X, y)
    variants = (("SC-SDCA (Alg. 2)", False), ("SC-SDCA + shrinking", True))
    times = {v: ([], []) for v, _ in variants}
    runs = {}
    bar = _progress_bar(4 * repeats + 1, "bench sign", progress)
    with threadpool_limits(limits=1):
        for _, shrink in variants:
            sc_sdca(X[:200], y[:200], "smoothed_hinge", lam, c, smoothing=gamma, max_iter=2,
                    shrinking=shrink)
        bar.update(1)
        for r in range(repeats):
            for name, shrink in variants:
                t = time.perf_counter()
                sd = sc_sdca(X, y, "smoothed_hinge", lam, c, smoothing=gamma, tol=tol,
                             max_iter=10000, shrinking=shrink, random_state=seed + r)
                times[name][0].append(time.perf_counter() - t)
                bar.update(1)
                t = time.perf_counter()
                lb = reference_lbfgsb(X, y, "smoothed_hinge", lam, c, smoothing=gamma,
                                      target=sd.primal_objective)
                times[name][1].append(time.perf_counter() - t)
                bar.update(1)
                runs[name] = (sd, lb)
    bar.close()
    rows = []
    med = {}
    for name, _ in variants:
        sd, lb = runs[name]
        ts, tl = statistics.median(times[name][0]), statistics.median(times[name][1])
        med[name] = (ts, tl, tl / ts)
        rows.append({"solver": name, "time_s": ts, "primal": sd.primal_objective,
                     "iterations": int(sd.nit), "unit": "epochs" if name.endswith("2)")
                     else "rounds", "steps_per_n": float(sd.trace.steps[-1]) / n,
                     "gap": float(sd.gap), "ratio": None})
        rows.append({"solver": "  L-BFGS-B to its P", "time_s": tl,
                     "primal": lb.primal_objective, "iterations": int(lb.nit),
                     "unit": "iterations", "steps_per_n": None, "gap": None,
                     "ratio": tl / ts, "reached": bool(lb.reached_target)})
    (ts, tl, ratio), (ts2, tl2, ratio2) = med[variants[0][0]], med[variants[1][0]]
    sd, lb = runs[variants[0][0]]
    sd2, lb2 = runs[variants[1][0]]
    summary = {"bench": "sign", "data": "phishing", "n": n, "d": int(X.shape[1]),
               "lam": lam, "gamma": gamma, "tol": tol, "repeats": repeats,
               "layout": sd.layout,
               "sdca_time_s": ts, "lbfgsb_time_s": tl, "ratio": ratio,
               "sdca_primal": float(sd.primal_objective), "sdca_gap": float(sd.gap),
               "sdca_epochs": int(sd.nit), "lbfgsb_primal": float(lb.primal_objective),
               "lbfgsb_reached_target": bool(lb.reached_target and lb2.reached_target),
               "shrinking_time_s": ts2, "shrinking_lbfgsb_time_s": tl2,
               "ratio_shrinking": ratio2, "shrinking_rounds": int(sd2.nit),
               "shrinking_steps_per_n": float(sd2.trace.steps[-1]) / n,
               "shrinking_gap": float(sd2.gap),
               "target": "ratio t(L-BFGS-B) / t(SC-SDCA) > 1",
               "target_met_alg2": bool(ratio > 1), "target_met": bool(max(ratio, ratio2) > 1)}
    columns = [("solver", "solver", None), ("time_s", "time [s]", lambda v: f"{v:.3f}"),
               ("primal", "P(w)", lambda v: f"{v:.10f}"), ("iterations", "iters", str),
               ("unit", "of", None),
               ("steps_per_n", "steps / n", lambda v: "-" if v is None else f"{v:.1f}"),
               ("gap", "duality gap", lambda v: "-" if v is None else f"{v:.1e}"),
               ("ratio", "t(L-BFGS-B)/t(SC-SDCA)",
                lambda v: "-" if v is None else f"{v:.2f}")]
    notes = [f"median of {repeats} run(s), single-threaded, X stored as {sd.layout}; SC-SDCA "
             f"to duality gap <= {tol:g}, L-BFGS-B until P(w) <= that run's P "
             f"({'reached' if summary['lbfgsb_reached_target'] else 'not reached'})",
             speed_phrase(ratio, "SC-SDCA (Alg. 2 as in the paper)", "L-BFGS-B") + "; "
             + speed_phrase(ratio2, "with shrinking (LIBLINEAR's, not in the paper; same "
                            "steps and gap certificate) it", "L-BFGS-B")]
    return ExperimentResult(name="sign", title=(
        f"SC-SDCA vs L-BFGS-B on phishing (n = {n}), smoothed hinge gamma = {gamma:g}, "
        "lam = 1/n"), rows=rows, summary=summary, columns=columns, notes=notes)
