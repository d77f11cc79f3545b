"""``python -m games.engine score|legal|match|bench|arena|bench-bots ...`` (see cli.py)."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
