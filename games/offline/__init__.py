"""Play on without a network: the offline page, its runtime and engine wheel, and the deals that
come home. See docs/offline.md. ``worker.py`` also runs in the browser (in the engine's wheel)."""
