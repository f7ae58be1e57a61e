"""``polyrank datasets [list | copy NAME [DEST]]``: the bundled data sets."""

from __future__ import annotations

from ._errors import user_errors

__all__ = ["add_datasets"]


def _cmd_datasets(args) -> int:
    """``polyrank datasets [list]``: the bundled sets with their files and
    sources; ``polyrank datasets copy NAME [DEST] [--force]``: copy one's files
    (:func:`polyrank.datasets.copy_dataset`)."""
    from ..datasets import DATASETS, copy_dataset, data_path

    if getattr(args, "action", None) == "copy":
        with user_errors(f"copy {args.name}"):
            written = copy_dataset(args.name, args.dest, overwrite=args.force)
        for path in written:
            print(path)
        return 0
    for d in DATASETS.values():
        print(f"{d.name}: {d.description}\n  files:  {' '.join(d.files)}\n"
              f"  read:   {d.read}\n  source: {d.source}")
    print(f"copy one where you are: polyrank datasets copy NAME [DEST]; full provenance "
          f"(commits, checksums, licences): {data_path().parent / 'PROVENANCE.md'}")
    return 0


def add_datasets(sub) -> None:
    """Add ``polyrank datasets [list | copy NAME [DEST] [--force]]`` to ``sub``."""
    p = sub.add_parser(
        "datasets", help="list the bundled data sets, or copy one's files where you are",
        description="The real data sets bundled with polyrank (LETOR MQ2008, MULAN yeast, "
                    "UCI red wine, LIBSVM phishing and w8a, AwA class attributes): without "
                    "an action (or with 'list') each one's files, format, reader and "
                    "source; 'copy NAME [DEST]' copies the files of NAME into DEST (default "
                    "the current folder), atomically, and refuses to replace an existing "
                    "file unless --force.")
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    actions.add_parser("list", help="the bundled data sets (the default action)")
    c = actions.add_parser("copy", help="copy the files of a data set into a folder",
                           description="Copy the files of the bundled data set NAME into "
                                       "DEST, byte for byte; nothing is copied when one of "
                                       "them exists there already, unless --force.")
    c.add_argument("name", metavar="NAME", help="the data set (polyrank datasets lists them)")
    c.add_argument("dest", nargs="?", default=".", metavar="DEST",
                   help="the folder (default: the current one; created if missing)")
    c.add_argument("--force", action="store_true", help="replace files of the same names")
    p.set_defaults(func=_cmd_datasets)

