"""The core of the site: rows, reads, whose turn, seat views, the do_* writes, the hooks through
which it tells the features what happened, and the background work's path. Below the features
and the web layer; its own layers are the import contract in pyproject.toml (docs/architecture.md).
"""
