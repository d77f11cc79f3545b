"""``python -m games.engine bench``: random complete deals per second on one core.

Each deal is dealt at random, bid at random (uniform over the legal calls), named and
discarded at random where the rules have it, played out with random legal cards and scored,
all in the fast kernel. Thrown-in deals count as deals (they are dealt, bid and scored).

The run is cut into windows of about half a second. Other processes on the machine can only
slow a window down, so, as ``timeit`` does, the figure on the last line (``N deals/s``) is the
best window's; the line before it gives the average over the whole run, the rate per second of
CPU time this process got, and the machine's load.
"""

from __future__ import annotations

import os
import random
import time
from typing import Any

from .fast import Kernel, kernel_for, random_deal
from .rules import Rules

WINDOW_SECONDS = 0.5


def play_deals(kernel: Kernel, count: int, rng: random.Random, dealer: int = 0) -> int:
    """Play ``count`` random complete deals; returns how many were thrown in."""
    n = kernel.n
    play = random_deal
    thrown_in = 0
    for _ in range(count):
        if play(kernel, rng, dealer) is None:
            thrown_in += 1
        dealer += 1
        if dealer == n:
            dealer = 0
    return thrown_in


def measure(kernel: Kernel, seconds: float = 3.0, seed: int | None = None) -> dict[str, Any]:
    """Play random deals for about ``seconds``, in windows: rates per window and overall."""
    rng = random.Random(seed)
    play_deals(kernel, 2000, rng)  # warm up
    chunk = 2000
    rates = []
    deals = thrown_in = 0
    start = time.perf_counter()
    cpu_start = time.process_time()
    deadline = start + seconds
    while True:
        window_start = time.perf_counter()
        window_deals = 0
        while True:
            thrown_in += play_deals(kernel, chunk, rng, deals % kernel.n)
            deals += chunk
            window_deals += chunk
            now = time.perf_counter()
            if now - window_start >= WINDOW_SECONDS or now >= deadline:
                break
        rates.append(window_deals / (now - window_start))
        if now >= deadline:
            break
    elapsed = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    return {
        "deals": deals,
        "seconds": elapsed,
        "thrown_in": thrown_in,
        "rates": rates,
        "average": deals / elapsed,
        "per_cpu_second": deals / cpu if cpu else float("nan"),
    }


def run_bench(rules: Rules, seconds: float = 3.0, seed: int | None = None) -> int:
    kernel = kernel_for(rules)
    result = measure(kernel, seconds=seconds, seed=seed)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    rates = sorted(result["rates"])
    print(f"rules: {rules.describe()}")
    print(
        f"{result['deals']} random complete deals in {result['seconds']:.2f} s on one core "
        f"({result['thrown_in']} thrown in), {len(rates)} windows: "
        f"worst {rates[0]:.0f}, median {rates[len(rates) // 2]:.0f}, best {rates[-1]:.0f} deals/s"
    )
    print(
        f"average {result['average']:.0f} deals/s over the run ({result['per_cpu_second']:.0f} per second of "
        f"CPU time); load average {load:.2f} on {os.cpu_count()} cores"
    )
    print(f"{rates[-1]:.0f} deals/s")
    return 0
