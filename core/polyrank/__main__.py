"""``python -m polyrank``: the ``polyrank`` command (:func:`polyrank.cli.main`)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
