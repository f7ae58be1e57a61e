"""``polyrank warmup``: compile the numba kernels once (cached on disk)."""

from __future__ import annotations

__all__ = ["add_warmup"]


def _cmd_warmup(args) -> int:
    from .._warmup_all import warmup

    # load=False: what the workers compile is not loaded into this process, which ends here
    done = warmup(verbose=True, n_jobs=args.jobs, load=False, rare=args.all)
    if done == {"compiled_in_workers": {}}:
        print(f"every numba kernel of polyrank{'' if args.all else ' used by default'} is "
              "in the cache already: nothing compiled")
    return 0


def add_warmup(sub) -> None:
    """Add ``polyrank warmup [--jobs N] [--all]`` (:func:`_cmd_warmup`) to ``sub``."""
    p = sub.add_parser("warmup", help="compile the numba kernels once (cached on disk)")
    p.add_argument("--jobs", type=int, default=None,
                   help="worker processes that compile on an empty cache (default: up to "
                        "two, one per core; 1: compile in this process)")
    p.add_argument("--all", action="store_true",
                   help="also the rare variants' kernels (non-default options, compiled on "
                        "first use otherwise)")
    p.set_defaults(func=_cmd_warmup)
