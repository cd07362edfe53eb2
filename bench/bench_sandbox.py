"""Benchmark the sandbox: first run after start, warm runs, and 20 concurrent submissions.

python bench/bench_sandbox.py [--runs 200]
As an ordinary user (the checkout readable by it):
setpriv --reuid=USER --regid=USER --clear-groups -- .venv/bin/python bench/bench_sandbox.py
"""

from __future__ import annotations

import argparse
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

import torch

from grader.sandbox import Case, Sandbox

CODE = "dlogprobs = torch.zeros_like(logprobs)\ndlogprobs[range(n), Yb] = -1.0 / n\n"


def cases() -> list[Case]:
    """Return a tiny three-case submission like dlogprobs's: lecture, random, other sizes."""
    g = torch.Generator().manual_seed(0)
    out = []
    for name, n, vocab in (("lecture", 32, 27), ("random", 32, 27), ("alt", 17, 11)):
        logprobs = torch.randn(n, vocab, generator=g).log_softmax(1)
        yb = torch.randint(0, vocab, (n,), generator=g)
        out.append(Case(name, {"logprobs": logprobs, "Yb": yb}, {"n": n}, ("dlogprobs",)))
    return out


def timed(sandbox: Sandbox, jobs: list[Case]) -> float:
    """Run one submission and return its latency in seconds (it must succeed)."""
    started = time.perf_counter()
    outcome = sandbox.run(CODE, jobs)
    assert outcome.status == "ok", outcome
    return time.perf_counter() - started


def percentiles(samples: list[float]) -> str:
    """Format p50 and p95 of samples in milliseconds."""
    q = statistics.quantiles(samples, n=20)
    return f"p50 {statistics.median(samples) * 1e3:7.1f} ms   p95 {q[18] * 1e3:7.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    jobs = cases()
    started = time.perf_counter()
    sandbox = Sandbox(slots=2)
    first = timed(sandbox, jobs)
    print(f"first run after start      {(time.perf_counter() - started) * 1e3:7.1f} ms"
          f"  (the run itself {first * 1e3:.1f} ms)")  # fmt: skip
    for _ in range(10):
        timed(sandbox, jobs)
    warm = [timed(sandbox, jobs) for _ in range(args.runs)]
    print(f"warm, back to back         {percentiles(warm)}")
    spaced = [timed(sandbox, jobs) for _ in range(args.runs) if time.sleep(0.02) is None]
    print(f"warm, 20 ms apart          {percentiles(spaced)}")
    burst = []
    for _ in range(5):
        with ThreadPoolExecutor(20) as pool:
            burst += list(pool.map(lambda _: timed(sandbox, jobs), range(20)))
    print(f"20 concurrent, 2 slots x5  {percentiles(burst)}   max {max(burst) * 1e3:.1f} ms")
    print("layers:", sandbox.layers())
    sandbox.close()


if __name__ == "__main__":
    main()
