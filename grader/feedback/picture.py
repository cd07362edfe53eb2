"""A wrong gradient's heatmaps as small pictures: one PNG pixel per cell, coloured on the
lecture's scales, with the scales' ends as numbers. The app only lays them out (issue 39: a
Vega-Lite chart of the same cells took chromium 100 to 130 ms of a verdict's paint)."""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from grader.result import Heatmap

# Vega's palettes (vega-scale's `greys` and `redBlue`, the chart's before), low end first:
# reversed as the chart drew them, the smallest value dark and the difference's -m blue.
GREYS = "1e1e1e3535354d4d4d6262627575758888889d9d9db1b1b1c4c4c4d4d4d4e2e2e2"
REDBLUE = "134b852f78b35da2cb9dcae1d2e5eff2efeefbdbc9f4ae91df745ebf363a8c0d25"


def _colours(packed: str) -> tuple[str, ...]:
    """Return the colours of a palette packed as Vega packs it: six hex digits each."""
    return tuple(packed[i : i + 6] for i in range(0, len(packed), 6))


@dataclass(frozen=True)
class Panel:
    """One panel: its grid's name, its picture (a PNG, a pixel per cell, row 0 on top; a value
    that is not a number is left transparent), its scale's ends and the colours from low to high
    (a colour bar: equally spaced stops)."""

    grid: str  # "yours", "autograd" or "diff"
    png: bytes
    low: float
    high: float
    stops: tuple[str, ...]


def heatmap_panels(heatmap: Heatmap) -> tuple[Panel, Panel, Panel]:
    """Return the panels of yours, autograd's and the difference, like the lecture's dlogits
    image: yours and autograd's on one grey scale, from the smallest to the largest value of
    both; the difference on a red-blue scale from -m to m (m its largest absolute value, 1 if
    every value is 0)."""
    yours, autograd, diff = (
        np.asarray(grid, dtype=np.float64)
        for grid in (heatmap.learner, heatmap.reference, heatmap.diff)
    )
    low, high = _ends(yours, autograd)
    top = float(np.max(np.abs(diff[np.isfinite(diff)]), initial=0.0)) or 1.0
    greys, redblue = _colours(GREYS), _colours(REDBLUE)
    return (
        Panel("yours", _png(yours, low, high, greys), low, high, greys),
        Panel("autograd", _png(autograd, low, high, greys), low, high, greys),
        Panel("diff", _png(diff, -top, top, redblue), -top, top, redblue),
    )


def _ends(*grids: np.ndarray) -> tuple[float, float]:
    """Return the smallest and largest finite value of the grids (0, 0 if there is none)."""
    finite = np.concatenate([grid[np.isfinite(grid)] for grid in grids])
    if finite.size == 0:
        return 0.0, 0.0
    return float(finite.min()), float(finite.max())


def _png(grid: np.ndarray, low: float, high: float, stops: tuple[str, ...]) -> bytes:
    """Return the grid as a PNG: each value's colour one of LEVELS steps between the stops,
    interpolated in RGB as Vega's continuous schemes are (the middle one when low == high)."""
    span = high - low
    with np.errstate(invalid="ignore"):
        where = (grid - low) / span if span else np.full(grid.shape, 0.5)
    steps = np.rint(np.clip(np.nan_to_num(where), 0.0, 1.0) * (LEVELS - 1)).astype(np.uint8)
    steps[~np.isfinite(grid)] = LEVELS  # the palette's last entry: transparent
    return _indexed_png(steps, _palette(stops))


# A value's colour is one of 255 steps along its scale (the 256th is "not a number"); Vega drew
# each cell's exact colour, at most half a step, 0.2% of the scale, from these.
LEVELS = 255


@lru_cache(maxsize=4)
def _palette(stops: tuple[str, ...]) -> bytes:
    """Return the PNG palette: LEVELS colours from the first stop to the last, then black."""
    rgb = np.array([[int(stop[i : i + 2], 16) for i in (0, 2, 4)] for stop in stops], float)
    at, points = np.linspace(0.0, 1.0, LEVELS), np.linspace(0.0, 1.0, len(stops))
    colours = np.stack([np.interp(at, points, rgb[:, c]) for c in range(3)], axis=-1)
    return np.rint(colours).astype(np.uint8).tobytes() + bytes(3)


# Written here with zlib: a panel's PNG took Pillow 0.4 ms of the server's CPU, 0.06 ms so.
SIGNATURE = b"\x89PNG\r\n\x1a\n"
OPAQUE = bytes([255] * LEVELS + [0])  # tRNS: every step opaque, "not a number" transparent


def _indexed_png(steps: np.ndarray, palette: bytes) -> bytes:
    """Return an 8-bit palette PNG of these palette indices, row 0 on top."""
    height, width = steps.shape
    lines = np.hstack([np.zeros((height, 1), np.uint8), steps])  # each line's filter: none
    header = struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0)
    chunks = ((b"IHDR", header), (b"PLTE", palette), (b"tRNS", OPAQUE))
    data = zlib.compress(lines.tobytes(), 6)
    return SIGNATURE + b"".join(_chunk(*c) for c in (*chunks, (b"IDAT", data), (b"IEND", b"")))


def _chunk(kind: bytes, data: bytes) -> bytes:
    """Return one PNG chunk: its length, kind, data and checksum."""
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
