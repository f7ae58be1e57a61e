"""Independent reference solutions of the sign-constrained problem Eq. 5.

Not the paper's algorithms: general-purpose solvers given the same problem,
used by the tests and the experiments to check SC-SDCA and SC-Pegasos.

* :func:`reference_qp`: the hinge, smoothed hinge, square, absolute,
  max-hinge and top-k hinge problems written as convex QPs and solved by
  Clarabel through :func:`polyrank.qp.solve_qp` (accurate to ~1e-9).
* :func:`reference_lbfgsb`: the smooth losses (smoothed hinge, logistic,
  square, soft-max) by scipy's L-BFGS-B with the sign constraints as bounds.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..qp import solve_qp
from ..result import SolverResult
from . import _kernels as K
from .data import _csr, prepare_data

__all__ = ["reference_qp", "reference_lbfgsb", "primal_objective"]


def primal_objective(X, y, loss: str, lam: float, w, *, smoothing: float = 0.01,
                     top_k: int = 1, sample_weight=None) -> float:
    """P(w) of Eq. 1 (Eq. 23 for a multiclass loss, w of shape (d, m)),
    with the loss term ``1/sum(s) sum_i s_i phi_i`` when ``sample_weight``
    s (n,) is given.

    Raises
    ------
    ValueError, TypeError
        As :func:`polyrank.sign.sc_sdca`.
    """
    data = prepare_data(X, y, loss, None, top_k, sample_weight)
    w = np.ascontiguousarray(w, dtype=np.float64)
    Xc = data["X"]
    if data["multiclass"]:
        A = np.zeros((Xc.shape[0], data["m"]))
        A[np.arange(Xc.shape[0]), data["y"]] = 0.0
        P, _ = K.mc_objectives(*_csr(Xc), data["y"], data["sw"], data["code"], top_k, lam,
                               w, A, np.zeros_like(w))
    else:
        P, _ = K.objectives(*_csr(Xc), data["y"], data["sw"], data["code"], smoothing, lam, w,
                            np.zeros(Xc.shape[0]), np.zeros_like(w))
    return float(P)


def _sign_rows(c_flat, nvar):
    """G rows encoding c_h w_h >= 0 as -c_h w_h <= 0 for the non-zero c_h."""
    idx = np.flatnonzero(c_flat)
    G = sp.csc_matrix((-c_flat[idx], (np.arange(idx.size), idx)), shape=(idx.size, nvar))
    return G, np.zeros(idx.size)


def reference_qp(X, y, loss: str, lam: float, signs=None, *, smoothing: float = 0.01,
                 top_k: int = 1, tol: float = 1e-10) -> SolverResult:
    """Solve Eq. 5 (or Eq. 23 + 27) as a QP with Clarabel.

    Variables are w (d, or d*m column-major by class) and, per loss:

    * hinge: xi >= 0, xi_i >= 1 - y_i <w, x_i>; objective lam/2 ||w||^2 + 1/n sum xi.
    * smoothed hinge: u, xi >= 0, xi_i >= 1 - y_i <w, x_i> - u_i; loss
      u^2/(2 smoothing) + xi (the Huber form of Table 1's definition).
    * square: no extra variable; 1/(2n) ||X w - y||^2.
    * absolute: xi_i >= |<w, x_i> - y_i|.
    * max_hinge: xi_i >= s_j - s_yi + 1 (j != yi), xi_i >= 0.
    * top_k_hinge: (1/k) sum_top-k(v) = min_tau tau + 1/k sum_j (v_j - tau)_+
      with xi_ij >= 0, xi_ij >= v_ij - tau_i.

    Parameters
    ----------
    X, y, loss, lam, signs, smoothing, top_k
        As in :func:`polyrank.sign.sc_sdca` (X dense or sparse, small).
    tol : float
        Clarabel's tolerances.

    Returns
    -------
    SolverResult
        Clarabel's result with ``x`` replaced by w ((d,) or (d, m)),
        ``primal_objective`` = P(w) recomputed by :func:`primal_objective`.

    Raises
    ------
    ValueError
        For the logistic and soft-max losses (not QPs: use
        :func:`reference_lbfgsb`), and on invalid input.
    """
    data = prepare_data(X, y, loss, signs, top_k)
    if loss in ("logistic", "softmax"):
        raise ValueError(f"loss: {loss!r} is not a QP; use reference_lbfgsb")
    Xc = sp.csr_matrix(data["X"])
    n, d = Xc.shape
    yv = data["y"]
    c = data["c"]
    if data["multiclass"]:
        return _reference_qp_multiclass(Xc, yv, data["m"], loss, lam, c, top_k, tol, smoothing)
    Yx = sp.diags(yv) @ Xc                         # rows y_i x_i
    I_n = sp.identity(n, format="csc")
    Z = lambda r, q: sp.csc_matrix((r, q))          # noqa: E731
    if loss == "square":
        P = lam * sp.identity(d) + (Xc.T @ Xc) / n
        q = -(Xc.T @ yv) / n
        G, h = _sign_rows(c, d)
        res = solve_qp(sp.csc_matrix(P), q, G=G, h=h, tol=tol)
        w = res.x
    elif loss == "hinge":
        P = sp.block_diag([lam * sp.identity(d), Z(n, n)], format="csc")
        q = np.concatenate([np.zeros(d), np.full(n, 1.0 / n)])
        Gs, hs = _sign_rows(c, d)
        G = sp.vstack([sp.hstack([-Yx, -I_n]), sp.hstack([Z(n, d), -I_n]),
                       sp.hstack([Gs, Z(Gs.shape[0], n)])], format="csc")
        h = np.concatenate([-np.ones(n), np.zeros(n), hs])
        res = solve_qp(P, q, G=G, h=h, tol=tol)
        w = res.x[:d]
    elif loss == "smoothed_hinge":
        # variables w, u, xi
        P = sp.block_diag([lam * sp.identity(d), sp.identity(n) / (smoothing * n), Z(n, n)],
                          format="csc")
        q = np.concatenate([np.zeros(d + n), np.full(n, 1.0 / n)])
        Gs, hs = _sign_rows(c, d)
        G = sp.vstack([sp.hstack([-Yx, -I_n, -I_n]),
                       sp.hstack([Z(n, d), Z(n, n), -I_n]),
                       sp.hstack([Z(n, d), -I_n, Z(n, n)]),
                       sp.hstack([Gs, Z(Gs.shape[0], 2 * n)])], format="csc")
        h = np.concatenate([-np.ones(n), np.zeros(2 * n), hs])
        res = solve_qp(P, q, G=G, h=h, tol=tol)
        w = res.x[:d]
    else:  # absolute
        P = sp.block_diag([lam * sp.identity(d), Z(n, n)], format="csc")
        q = np.concatenate([np.zeros(d), np.full(n, 1.0 / n)])
        Gs, hs = _sign_rows(c, d)
        G = sp.vstack([sp.hstack([Xc, -I_n]), sp.hstack([-Xc, -I_n]),
                       sp.hstack([Gs, Z(Gs.shape[0], n)])], format="csc")
        h = np.concatenate([yv, -yv, hs])
        res = solve_qp(P, q, G=G, h=h, tol=tol)
        w = res.x[:d]
    w = np.where(c * w < 0, 0.0, w)              # interior-point rounding (~1e-12)
    res.x = w
    res.primal_objective = primal_objective(Xc, yv, loss, lam, w, smoothing=smoothing)
    return res


def _reference_qp_multiclass(Xc, yv, m, loss, lam, C, top_k, tol, smoothing):
    n, d = Xc.shape
    nw = d * m                                   # w vectorised: W[h, j] at j * d + h
    # S = X W : s_ij = <x_i, W[:, j]> = (kron(e_j', X)) vec(W)
    blocks = [sp.kron(sp.csc_matrix(np.eye(m)[j:j + 1]), Xc, format="csr") for j in range(m)]
    Gs, hs = _sign_rows(C.T.ravel(), nw)         # column-major order of W
    if loss == "max_hinge":
        P = sp.block_diag([lam * sp.identity(nw), sp.csc_matrix((n, n))], format="csc")
        q = np.concatenate([np.zeros(nw), np.full(n, 1.0 / n)])
        G_rows, h_rows = [], []
        for j in range(m):
            mask = yv != j
            idx = np.flatnonzero(mask)
            # s_ij - s_{i yi} + 1 <= xi_i
            Sj = blocks[j][idx]
            Syi = sp.vstack([blocks[yv[i]][i] for i in idx])
            E = sp.csr_matrix((np.full(idx.size, -1.0), (np.arange(idx.size), idx)),
                              shape=(idx.size, n))
            G_rows.append(sp.hstack([Sj - Syi, E]))
            h_rows.append(-np.ones(idx.size))
        G_rows.append(sp.hstack([sp.csr_matrix((n, nw)), -sp.identity(n)]))
        h_rows.append(np.zeros(n))
        G_rows.append(sp.hstack([Gs, sp.csr_matrix((Gs.shape[0], n))]))
        h_rows.append(hs)
        res = solve_qp(P, q, G=sp.vstack(G_rows, format="csc"), h=np.concatenate(h_rows),
                       tol=tol)
    else:  # top-k hinge: variables vec(W), tau (n), xi (n*m)
        P = sp.block_diag([lam * sp.identity(nw), sp.csc_matrix((n + n * m, n + n * m))],
                          format="csc")
        q = np.concatenate([np.zeros(nw), np.full(n, 1.0 / n),
                            np.full(n * m, 1.0 / (n * top_k))])
        G_rows, h_rows = [], []
        Syi = sp.vstack([blocks[yv[i]][i] for i in range(n)])
        for j in range(m):
            # v_ij = s_ij - s_yi + 1[j != yi];  v_ij - tau_i - xi_ij <= 0
            Sj = blocks[j]
            T = -sp.identity(n)
            Xi = sp.csr_matrix((-np.ones(n), (np.arange(n), np.arange(n) * m + j)),
                               shape=(n, n * m))
            G_rows.append(sp.hstack([Sj - Syi, T, Xi]))
            h_rows.append(-(yv != j).astype(float))
        G_rows.append(sp.hstack([sp.csr_matrix((n * m, nw + n)), -sp.identity(n * m)]))
        h_rows.append(np.zeros(n * m))
        G_rows.append(sp.hstack([Gs, sp.csr_matrix((Gs.shape[0], n + n * m))]))
        h_rows.append(hs)
        res = solve_qp(P, q, G=sp.vstack(G_rows, format="csc"), h=np.concatenate(h_rows),
                       tol=tol)
    W = res.x[:nw].reshape(m, d).T.copy()
    W = np.where(C * W < 0, 0.0, W)
    res.x = W
    res.primal_objective = primal_objective(Xc, yv, loss, lam, W, top_k=top_k)
    return res


def reference_lbfgsb(X, y, loss: str, lam: float, signs=None, *, smoothing: float = 0.01,
                     top_k: int = 1, ftol: float = 1e-15, gtol: float = 1e-11,
                     maxiter: int = 100000, target: float | None = None) -> SolverResult:
    """Solve Eq. 5 for a smooth loss with scipy's L-BFGS-B, the sign
    constraints given as bounds (0 <= w_h for c_h = +1, w_h <= 0 for
    c_h = -1).

    Parameters
    ----------
    X, y, loss, lam, signs, smoothing
        As in :func:`polyrank.sign.sc_sdca`; ``loss`` one of
        ``"smoothed_hinge"``, ``"logistic"``, ``"square"``, ``"softmax"``.
    ftol, gtol, maxiter
        L-BFGS-B's options (defaults: as tight as float64 allows).
    target : float, optional
        Stop (through the callback) as soon as P(w) <= target; used by the
        benchmark to time L-BFGS-B to a given primal value.

    Returns
    -------
    SolverResult
        ``x`` (w, (d,) or (d, m)), ``primal_objective``, ``nit``,
        ``nfev``, ``success``, ``message``, ``solver="L-BFGS-B"``.

    Raises
    ------
    ValueError
        For a non-smooth loss, or on invalid input.
    """
    from scipy.optimize import minimize

    if loss not in ("smoothed_hinge", "logistic", "square", "softmax"):
        raise ValueError(f"loss: L-BFGS-B needs a smooth loss, got {loss!r}")
    data = prepare_data(X, y, loss, signs, top_k)
    Xc = sp.csr_matrix(data["X"])
    n, d = Xc.shape
    yv = data["y"]
    code = data["code"]
    c = data["c"]
    XT = Xc.T.tocsr()

    if data["multiclass"]:
        m = data["m"]
        Y1 = np.zeros((n, m))
        Y1[np.arange(n), yv] = 1.0

        def fg(v):
            W = v.reshape(d, m)
            S = Xc @ W
            mx = S.max(axis=1, keepdims=True)
            E = np.exp(S - mx)
            Z = E.sum(axis=1, keepdims=True)
            f = float(np.sum(mx.ravel() + np.log(Z.ravel()) - S[np.arange(n), yv])) / n
            G = XT @ (E / Z - Y1) / n
            return 0.5 * lam * v @ v + f, (lam * W + G).ravel()
        shape = (d, m)
    else:
        def fg(w):
            z = Xc @ w
            if code == K.LOGISTIC:
                t = -yv * z
                f = np.logaddexp(0.0, t)
                dphi = -yv * np.exp(t - np.logaddexp(0.0, t))
            elif code == K.SQUARE:
                f = 0.5 * (z - yv) ** 2
                dphi = z - yv
            else:
                mrg = yv * z
                g = smoothing
                f = np.where(mrg >= 1, 0.0, np.where(mrg <= 1 - g, 1 - mrg - 0.5 * g,
                                                     (1 - mrg) ** 2 / (2 * g)))
                dphi = np.where(mrg >= 1, 0.0, np.where(mrg <= 1 - g, -yv,
                                                        -yv * (1 - mrg) / g))
            return 0.5 * lam * w @ w + f.sum() / n, lam * w + XT @ dphi / n
        shape = (d,)
    cf = c.ravel()
    bounds = [(0.0, None) if s > 0 else (None, 0.0) if s < 0 else (None, None) for s in cf]
    state = {"hit": False}

    def cb(intermediate_result):
        if target is not None and intermediate_result.fun <= target:
            state["hit"] = True
            raise StopIteration

    r = minimize(fg, np.zeros(cf.size), jac=True, method="L-BFGS-B", bounds=bounds,
                 callback=cb if target is not None else None,
                 options={"ftol": ftol, "gtol": gtol, "maxiter": maxiter,
                          "maxfun": 10 * maxiter, "maxcor": 20})
    w = r.x.reshape(shape)
    P = fg(r.x)[0]
    return SolverResult(x=w, primal_objective=float(P), nit=int(r.nit), nfev=int(r.nfev),
                        success=bool(r.success) or state["hit"], reached_target=state["hit"],
                        status=str(r.status), message=str(r.message), solver="L-BFGS-B")
