"""How the site is measured, kept out of the site's own packages: the benchmarks
(`manage.py bench_*`), the load test (`make loadtest`), the soak (`make soak`) and the server
started as `make run` starts it, which the soak and the browser journeys drive (made_run.py).
Their extra libraries (aiohttp, psutil) come with the test extras; the site never imports this.
"""
