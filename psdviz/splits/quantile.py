"""Private quantiles on the public grid, for many nodes at once: the split operator behind the
exponential-mechanism medians (ICDE'12 section 6.1, Definition 5) and the h-tree's recursive slicing
(private h-tree paper, Algorithm 1).

A node owns the integer positions lo..hi of the public grid and holds integer keys in [lo, hi); a split
at j sends keys < j left. Candidates are the interior positions lo + 1 .. hi - 1 (no part narrower
than one step). Reading of Definition 5: a cell's w points are spread evenly across it, so the rank
r(x) = R + w (x - k) on cell [k, k + 1) is piecewise linear; x is drawn on [p0 - 1/2, p1 + 1/2) with
density proportional to exp(-a |r(x) - f n|) and the released split is the nearest candidate
(post-processing).

Privacy: one point moves |r(x) - f n| by at most max(f, 1 - f) (1/2 for the median) at every x, so
a = epsilon / (2 max(f, 1 - f)) makes the density ratio at most e^epsilon pointwise, hence for every
output's mass. ``sensitivity=1`` gives Definition 5's constant (used to reproduce Figure 4).

Sampling, in half steps (position j owns half steps 2j - 1 and 2j): per node, runs of half steps in
empty cells and the two halves of each occupied cell (closed-form masses,
:func:`half_cell_log_mass`); a block by Gumbel-max in log space (:mod:`psdviz.core.expmech`), then an
item by its mass, then a uniform half step: the same law. Why this reading and calibration, with
measurements: docs/decisions/continuous-medians.md.

Far keys, weighed only when they may win. A key more than WINDOW / a ranks from its node's target has
items of mass at most e^{-WINDOW} per half step, so the keys outside that window weigh at most
e^{-WINDOW} (half steps of the node + 2 keys) together: a bound U. The block is drawn by Gumbel-max over
the window (value M) and compared with the far keys' Gumbel-max value, which is Gumbel(log of their
total) and independent of which far key wins: draw G; if U + G < M the far keys lose whatever their
total, else their total L is computed and they win when L + G > M, their winner then drawn by a fresh
Gumbel-max among them. Exactly the mechanism's law; only the work changes (deep nodes, smaller than the
window, are weighed whole as before).
"""
from __future__ import annotations

import numpy as np

from ..core.expmech import gumbel, segment_gumbel_argmax

WINDOW = 20.0   # score units: keys more than WINDOW / a ranks from a target are weighed only if they may win
FULL_SHARE = 0.8  # windows holding this share of all keys: every key is weighed (no gather)
REJECT_SCALE = 4.0  # nodes whose density stays above e^-REJECT_SCALE are sampled by rejection


def distinct_keys(keys: np.ndarray, offsets: np.ndarray, weights: np.ndarray | None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per segment, the distinct sorted keys, their offsets and multiplicities (``weights`` given:
    the keys are already distinct within each segment)."""
    if weights is not None:
        return keys, offsets, np.asarray(weights, np.int64)
    return merge_keys(keys, offsets)


def merge_keys(keys: np.ndarray, offsets: np.ndarray, weights: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per segment (keys sorted within each), equal consecutive keys merged: the distinct keys, their
    offsets and multiplicities (the sum of their ``weights``; one each if None)."""
    seg = np.repeat(np.arange(offsets.size - 1), np.diff(offsets))
    new = np.ones(keys.size, bool)
    new[1:] = (keys[1:] != keys[:-1]) | (seg[1:] != seg[:-1])
    starts = np.flatnonzero(new)
    if weights is None:
        counts = np.diff(np.r_[starts, keys.size]).astype(np.int64)
    else:
        counts = np.add.reduceat(np.asarray(weights, np.int64), starts) if starts.size else np.zeros(0, np.int64)
    return keys[starts], np.searchsorted(starts, offsets), counts


def half_cell_log_mass(a: float, below, w, target) -> tuple[np.ndarray, np.ndarray]:
    """log of the integrals over the lower half (u in [0, 1/2)) and the upper half ([1/2, 1)) of a
    cell of exp(-a |below + w u - target|) du, for cells holding w > 0 points; closed form, in log space.

    A half whose rank range [z0, z1] (relative to the target) lies on one side of it integrates to
    e^{-a min(|z0|, |z1|)} (1 - e^{-a w / 2}) / (a w); the at most one half per node that holds the
    target integrates to (2 - e^{-a |z0|} - e^{-a |z1|}) / (a w)."""
    w = np.asarray(w)
    z = np.asarray(below, float) - target                   # z at u = 0; z + w / 2 at u = 1/2; z + w at 1
    common = _log_half_factor(a, w)
    w = w.astype(float)
    aw = a * w
    out = []
    for z0 in (z, z + 0.5 * w):
        z1 = z0 + 0.5 * w
        log_mass = common - a * np.minimum(np.abs(z0), np.abs(z1))
        across = np.flatnonzero((z0 < 0) & (z1 > 0))
        if across.size:
            e = np.exp(-a * np.abs(z0[across])) + np.exp(-a * np.abs(z1[across]))
            log_mass[across] = np.log(2.0 - e) - np.log(aw[across])
        out.append(log_mass)
    return out[0], out[1]


def _log_half_factor(a: float, w: np.ndarray) -> np.ndarray:
    """log((1 - e^{-a w / 2}) / (a w)) per cell."""
    return _per_weight((lambda v: np.log(-np.expm1(-0.5 * a * v)) - np.log(a * v),), w)[0]


def rate(epsilon: float, frac, sensitivity: float | None = None) -> float:
    """a in exp(-a |r - f n|): epsilon / (2 sensitivity), the sensitivity max(f, 1 - f) of the score
    (the largest over ``frac``) unless given; it may not be set below that."""
    return epsilon / (2.0 * score_sensitivity(frac, sensitivity))


def score_sensitivity(frac, sensitivity: float | None = None) -> float:
    """The score's sensitivity :func:`rate` calibrates for."""
    tight = float(np.max(np.maximum(frac, 1.0 - np.asarray(frac, float)), initial=0.5))
    if sensitivity is not None and sensitivity < tight:
        raise ValueError(f"sensitivity must be at least max(f, 1 - f) = {tight:g} (got {sensitivity!r})")
    return tight if sensitivity is None else float(sensitivity)


def private_quantiles(rng: np.random.Generator, keys: np.ndarray, offsets: np.ndarray, lo, hi, frac,
                      epsilon: float, weights: np.ndarray | None = None,
                      sensitivity: float | None = None, with_index: bool = False) -> tuple[np.ndarray, ...]:
    """Per segment ``keys[offsets[s]:offsets[s+1]]`` (sorted ints in [lo_s, hi_s)), a private split
    position in [lo_s, hi_s] near rank ``frac_s * n_s``. Returns (positions, ranks): the rank is the
    number of the segment's keys below the position (the left part's size); ``with_index`` adds the
    index in ``keys`` of each segment's first key at or above its position (the segment's end if none;
    meaningful with ``weights``, the keys being then distinct).

    ``weights``: the keys are *distinct* within each segment and key i stands for ``weights[i]`` equal
    keys (the grouped counts a pass over a data source returns); the law is the same as for the keys
    themselves. Memory is the number of distinct keys, not of points. ``sensitivity``: the score's
    sensitivity the weights are calibrated for (None: the tight max(f, 1 - f) over the segments).

    Only the keys within ``WINDOW / a`` ranks of a segment's target are weighed on every call; the rest
    (the far part) only when a bound on their total says they might win (module docstring: the law is
    unchanged)."""
    keys, offsets, w = distinct_keys(np.asarray(keys, np.int64), np.asarray(offsets, np.int64), weights)
    n_seg = offsets.size - 1
    lo = np.broadcast_to(np.asarray(lo, np.int64), (n_seg,))
    hi = np.broadcast_to(np.asarray(hi, np.int64), (n_seg,))
    frac = np.broadcast_to(np.asarray(frac, float), (n_seg,))
    cw = np.zeros(w.size + 1, np.int64)
    np.cumsum(w, out=cw[1:])
    m = np.diff(offsets)
    base = cw[offsets[:-1]]
    total = cw[offsets[1:]] - base
    interior = hi - lo >= 2
    h0 = 2 * np.where(interior, lo + 1, lo) - 1            # half steps [h0, h1) of the candidates
    h1 = 2 * np.where(interior, hi - 1, hi) + 1
    a = rate(epsilon, frac, sensitivity)
    k = _Segments(keys, w, cw, offsets, base, frac * total, h0, h1, a)
    easy = a * total * np.maximum(frac, 1.0 - frac) <= REJECT_SCALE     # the density is >= e^-REJECT_SCALE
    if easy.all() or m[easy].sum() >= keys.size / 2:      # else gathering the rest costs what it saves
        out = _split_by_rejection(rng, k, easy, lo, hi, frac, score_sensitivity(frac, sensitivity),
                                  epsilon)
        return out if with_index else out[:2]
    # the run after each segment's last key
    after = np.where(m > 0, 2 * keys[np.maximum(offsets[1:] - 1, 0)] + 2, h0) if keys.size else h0
    after = np.maximum(after, h0)
    after_size = np.maximum(h1 - after, 0)
    with np.errstate(divide="ignore"):
        after_lw = np.log(after_size) - a * np.abs(total - k.target)
    near_lo, near_hi = k.window(WINDOW / a)
    chosen, best, near_lo, near_hi = _near_choice(rng, k, near_lo, near_hi, after_lw)
    far = np.flatnonzero((near_hi - near_lo < m) & (_far_bound(h0, h1, m) + gumbel(rng, n_seg) >= best))
    if far.size:
        _far_choice(rng, k, far, near_lo, near_hi, best, chosen)
    # stage 2: inside a chosen key, one of its items with probability e^{item_lw - key_lw}
    is_key = chosen >= 0
    start, size, rank = after, after_size, total          # the run after the last key: every key is below
    index = offsets[1:]
    if keys.size:
        c = np.where(is_key, chosen, 0)
        below = cw[c] - base
        item_start, item_size = k.items(c, lambda v: v)
        key_start, key_size, upper = _pick_item(rng, a, keys[c], below, w[c], k.target, item_start, item_size)
        start, size = np.where(is_key, key_start, after), np.where(is_key, key_size, after_size)
        # key c's run and lower half give positions <= c (keys below: below); its upper half gives c + 1
        rank = np.where(is_key, below + upper * w[c], total)
        index = np.where(is_key, c + upper, index)
    pos = (start + rng.integers(0, np.maximum(size, 1)) + 1) // 2
    return (pos, rank, index) if with_index else (pos, rank)


def _split_by_rejection(rng, k: _Segments, easy: np.ndarray, lo, hi, frac, sensitivity: float, epsilon: float):
    """(positions, ranks, indices): segments ``easy`` (a mask) by rejection (:func:`_rejection`), the others by the
    weighing path on their keys alone, with the same rate a."""
    n_seg = k.offsets.size - 1
    pos, rank, index = (np.zeros(n_seg, np.int64) for _ in range(3))
    hard = np.flatnonzero(~easy)
    easy = np.flatnonzero(easy)
    pos[easy], rank[easy], index[easy] = _rejection(rng, k, easy)
    if hard.size:
        m = np.diff(k.offsets)[hard]
        idx = index_ranges(k.offsets[hard], k.offsets[hard + 1])[0]
        sub_off = np.r_[0, np.cumsum(m)]
        pos[hard], rank[hard], sub = private_quantiles(rng, k.keys[idx], sub_off, lo[hard], hi[hard], frac[hard],
                                                       epsilon, k.w[idx], sensitivity, with_index=True)
        index[hard] = sub - sub_off[:-1] + k.offsets[hard]
    return pos, rank, index


def _rejection(rng, k: _Segments, segs: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Definition 5's density sampled by rejection, for segments where it stays above e^{-REJECT_SCALE}
    (|r(x) - t| <= max(t, n - t) = n max(f, 1 - f)): x uniform on [p0 - 1/2, p1 + 1/2), kept with
    probability exp(-a |r(x) - t|) (at most 1, at least e^{-REJECT_SCALE}: a few rounds, at worst some
    tens), the released position the nearest candidate. Exactly the law of the weighing path, in work per
    segment (a binary search a round) instead of per key."""
    start, stop, base = k.offsets[segs], k.offsets[segs + 1], k.base[segs]
    x_lo, width = k.h0[segs] / 2.0, (k.h1[segs] - k.h0[segs]) / 2.0
    x = np.empty(segs.size)
    todo = np.arange(segs.size)
    while todo.size:
        prop = x_lo[todo] + rng.random(todo.size) * width[todo]
        cell = np.floor(prop).astype(np.int64)
        i = _first_at_or_above(k.keys, start[todo], stop[todo], cell)
        r = (k.cw[i] - base[todo]).astype(float)          # points in cells below x's cell
        if k.keys.size:                                   # plus x's share of its own cell's points
            j = np.minimum(i, k.keys.size - 1)
            inside = (i < stop[todo]) & (k.keys[j] == cell)
            r += np.where(inside, k.w[j] * (prop - cell), 0.0)
        keep = rng.random(todo.size) < np.exp(-k.a * np.abs(r - k.target[segs[todo]]))
        x[todo[keep]] = prop[keep]
        todo = todo[~keep]
    pos = np.floor(x + 0.5).astype(np.int64)
    index = _first_at_or_above(k.keys, start, stop, pos)
    return pos, k.cw[index] - base, index


def _first_at_or_above(keys: np.ndarray, start: np.ndarray, stop: np.ndarray, value: np.ndarray) -> np.ndarray:
    """Per query, the index of the first key >= value in the sorted keys[start:stop] (stop if none): a
    vectorised binary search."""
    lo, hi = start.copy(), stop.copy()
    while True:
        open_ = lo < hi
        if not open_.any():
            return lo
        mid = (lo + hi) // 2                              # some range is open: keys is not empty
        below = open_ & (keys[np.minimum(mid, keys.size - 1)] < value)
        lo = np.where(below, mid + 1, lo)
        hi = np.where(open_ & ~below, mid, hi)


class _Segments:
    """The keys of every segment with what weighing a subset of them needs."""

    def __init__(self, keys, w, cw, offsets, base, target, h0, h1, a):
        self.keys, self.w, self.cw, self.offsets, self.base = keys, w, cw, offsets, base
        self.target, self.h0, self.h1, self.a = target, h0, h1, a

    def window(self, reach: float) -> tuple[np.ndarray, np.ndarray]:
        """Per segment, the keys [lo, hi) whose rank distance to the target is at most ``reach``: a key
        below the target ends within reach (below + w >= target - reach), one above starts within it."""
        start, stop = self.offsets[:-1], self.offsets[1:]
        lo = np.searchsorted(self.cw, self.base + self.target - reach, side="left") - 1
        hi = np.searchsorted(self.cw, self.base + self.target + reach, side="right")
        lo = np.clip(lo, start, stop)
        return lo, np.clip(hi, lo, stop)

    def items(self, idx: np.ndarray | None, per):
        """Per key ``idx`` (None: every key; ``per`` spreads a per-segment array over those keys): the
        first half step of the empty run before it and the sizes of its three items (the run's half
        steps; whether the lower half 2k and the upper half 2k + 1 are candidates' half steps). A key's
        lower half is below h1 and its upper half at or above h0 by construction."""
        if idx is None and self._plain():
            return self._plain_items()
        lo_h, hi_h = per(self.h0), per(self.h1)
        k2 = 2 * (self.keys if idx is None else self.keys[idx])     # a key's lower half step
        if idx is None:
            run_start = np.empty_like(k2)
            run_start[1:] = k2[:-1]                              # the previous key's lower half
            run_start[0] = 0
            first = self.offsets[:-1][np.diff(self.offsets) > 0]
        else:
            run_start = 2 * self.keys[np.maximum(idx - 1, 0)]
            first = np.flatnonzero(idx == per(self.offsets[:-1]))
        run_start += 2                                          # just past the previous key
        run_start[first] = lo_h[first]                          # a segment's first key: its region's start
        np.maximum(run_start, lo_h, out=run_start)
        run_size = np.minimum(k2, hi_h)
        run_size -= run_start
        np.maximum(run_size, 0, out=run_size)
        return run_start, (run_size, k2 >= lo_h, k2 < hi_h - 1)

    def _plain(self) -> bool:
        """Whether every segment's keys are distinct and inside its half steps (the callers' contract: keys in
        the region [lo, hi)): its first key's run starts at most at h0, its last key is below h1; checked on
        those keys and one comparison of neighbours."""
        keys, start, stop = self.keys, self.offsets[:-1], self.offsets[1:]
        some = stop > start
        if not some.any():
            return False
        if (2 * keys[start[some]] + 2 < self.h0[some]).any() or (2 * keys[stop[some] - 1] > self.h1[some]).any():
            return False
        rising = keys[1:] > keys[:-1]
        ends = stop[some] - 1
        rising[ends[ends < rising.size]] = True        # a segment's last key against the next one's first
        return bool(rising.all())

    def _plain_items(self) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """:meth:`items` of every key where :meth:`_plain` holds: the clamps to the half steps and to empty
        runs can then change only a segment's first key (its run starts at h0; only its lower half can be
        below h0) or last key (only its upper half can reach h1 - 1), so they are applied there alone,
        without spreading the half steps over the keys."""
        keys, start, stop = self.keys, self.offsets[:-1], self.offsets[1:]
        some = stop > start
        first, last, h0, h1 = start[some], stop[some] - 1, self.h0[some], self.h1[some]
        k2 = 2 * keys
        run_start = np.empty_like(k2)
        run_start[1:] = k2[:-1]
        run_start += 2                                          # just past the previous key
        run_start[first] = h0                                   # a segment's first key: its region's start
        run_size = k2 - run_start
        run_size[first] = np.maximum(run_size[first], 0)
        lower = np.ones(keys.size, bool)
        lower[first] = k2[first] >= h0
        upper = np.ones(keys.size, bool)
        upper[last] = k2[last] < h1 - 1
        return run_start, (run_size, lower, upper)

    def log_weights(self, idx: np.ndarray | None, per) -> np.ndarray:
        """log of the summed mass of the items of keys ``idx`` (None: every key)."""
        below = (self.cw[:-1] if idx is None else self.cw[idx]) - per(self.base)
        w = self.w if idx is None else self.w[idx]
        return _key_log_weights(self.a, below, w, per(self.target), self.items(idx, per)[1])


def index_ranges(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The concatenated index ranges [lo_s, hi_s) and the segment of each index."""
    n = hi - lo
    seg = np.repeat(np.arange(n.size), n)
    return np.arange(seg.size) - np.repeat(np.cumsum(n) - n, n) + lo[seg], seg


def _near_choice(rng, k: _Segments, near_lo, near_hi, after_lw) -> tuple[np.ndarray, ...]:
    """Gumbel-max over each segment's window and its last run: the key chosen (-1: the run), the
    winning value and the windows used."""
    n_seg = near_lo.size
    count = near_hi - near_lo
    # None: every key (also when the windows hold most of them: weighing more keys than the windows is
    # exact too, the far part then being smaller, and a copy-free pass is cheaper than a gather)
    full = (count == np.diff(k.offsets)).all() or count.sum() >= FULL_SHARE * k.keys.size
    if full:
        near_lo, near_hi, count = k.offsets[:-1], k.offsets[1:], np.diff(k.offsets)
    idx = None if full else index_ranges(near_lo, near_hi)[0]
    starts = np.cumsum(count + 1) - (count + 1)
    n_near = int(count.sum())
    block_lw = np.empty(n_near + n_seg)
    is_run = np.zeros(block_lw.size, bool)
    is_run[starts + count] = True
    block_lw[~is_run] = k.log_weights(idx, lambda v: np.repeat(v, count))
    block_lw[is_run] = after_lw
    block, best = segment_gumbel_argmax(rng, block_lw, starts)
    if not n_near:
        return np.full(n_seg, -1, np.int64), best, near_lo, near_hi
    near = np.minimum(block - np.arange(n_seg), n_near - 1)      # position among the near keys
    return np.where(block - starts < count, near if idx is None else idx[near], -1), best, near_lo, near_hi


def _far_bound(h0, h1, m) -> np.ndarray:
    """An upper bound on the log of the total mass of the keys outside a segment's window: each such key
    is more than WINDOW / a ranks from the target, so each of its items weighs at most e^{-WINDOW} per
    half step (a run of r half steps: r e^{-WINDOW}; a half cell: e^{-WINDOW}), and runs do not overlap."""
    return -WINDOW + 1e-9 + np.log((h1 - h0) + 2.0 * m)


def _far_choice(rng, k: _Segments, far, near_lo, near_hi, best, chosen) -> None:
    """Segments whose far keys might win: weigh them, and where their Gumbel-max value, drawn as
    log(total) + Gumbel, beats the window's, choose among them (the far winner is independent of the far
    maximum's value, so a fresh Gumbel-max picks it)."""
    start, stop = k.offsets[:-1][far], k.offsets[1:][far]
    lo_part, lo_seg = index_ranges(start, near_lo[far])
    hi_part, hi_seg = index_ranges(near_hi[far], stop)
    idx = np.concatenate([lo_part, hi_part])
    which = np.concatenate([lo_seg, hi_seg])
    order = np.argsort(which, kind="stable")
    idx, which = idx[order], which[order]
    lw = k.log_weights(idx, lambda v: v[far[which]])
    starts = np.searchsorted(which, np.arange(far.size))
    log_total = _segment_log_sum(lw, starts)
    wins = np.flatnonzero(log_total + gumbel(rng, far.size) > best[far])
    if wins.size:
        keep = np.isin(which, wins)
        sub = np.searchsorted(which[keep], wins)
        pick = segment_gumbel_argmax(rng, lw[keep], sub)[0]
        chosen[far[wins]] = idx[keep][pick]


def _segment_log_sum(lw: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """log of the sum of exp(lw) over each segment (non-empty segments)."""
    top = np.maximum.reduceat(lw, starts)
    safe = np.where(np.isfinite(top), top, 0.0)
    lengths = np.diff(np.r_[starts, lw.size])
    with np.errstate(divide="ignore"):
        return safe + np.log(np.add.reduceat(np.exp(lw - np.repeat(safe, lengths)), starts))


def _pick_item(rng, a, keys, below, w, target, run_start, size) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One item per chosen key (its run, lower half or upper half) in proportion to the items' masses:
    the item's first half step, its number of half steps, and whether it is the upper half."""
    lw3 = _item_log_weights(a, below, w, target, size)
    p = np.exp(lw3 - _log_sum(lw3))
    u = rng.random(keys.size)
    which = (u >= p[0]).astype(np.int64) + (u >= p[0] + p[1])
    cols = np.arange(keys.size)
    return (np.stack([run_start, 2 * keys, 2 * keys + 1])[which, cols],
            np.stack([np.asarray(v, np.int64) for v in size])[which, cols], which == 2)


def _item_log_weights(a: float, below, w, target, size) -> np.ndarray:
    """(3, k) log-weights of the run before each key and of its two halves (grouped-choice convention:
    log(number of half steps) + score, a half step of an empty cell having mass e^{score} / 2)."""
    lower, upper = half_cell_log_mass(a, below, w, target)
    with np.errstate(divide="ignore"):
        return np.stack([np.log(size[0]) - a * np.abs(below - target),
                         np.where(size[1] > 0, np.log(2.0) + lower, -np.inf),
                         np.where(size[2] > 0, np.log(2.0) + upper, -np.inf)])


def _log_sum(lw: np.ndarray) -> np.ndarray:
    """log of the sum over axis 0 of exp(lw), -inf where every term is -inf."""
    top = lw.max(axis=0)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.exp(lw - safe).sum(axis=0))


def _key_log_weights(a: float, below, w, target, size) -> np.ndarray:
    """log of the summed mass of each key's three items. For a cell wholly on one side of the target
    (all but at most one per node) the three share the factor e^{-a d}, d the distance from the target to
    the cell's nearer rank, and sum in closed form: e^{-a d} (r e^{-a w} + G) below the target and
    e^{-a d} (r + G) above it, r the run's half steps and G = 2 (1 - e^{-a w}) / (a w) both halves; one
    logarithm per key instead of the items' exponentials. The rest (the cell holding the target, a half
    outside the candidates) go through :func:`_item_log_weights`."""
    d = np.subtract(below, target)                 # below - target; its sign is the comparison's
    above = d >= 0
    far = np.negative(d)                           # target - below (a float difference negates exactly)
    far -= w
    np.copyto(d, far, where=~above)
    del far
    regular = (d >= 0) & size[1] & size[2]
    damp, both = _per_weight((lambda v: np.exp(-a * v), lambda v: -2.0 * np.expm1(-a * v) / (a * v)), w)
    with np.errstate(divide="ignore"):
        out = np.log(size[0] * np.where(above, 1.0, damp) + both)
    out -= a * d
    odd = np.flatnonzero(~regular)
    if odd.size:
        out[odd] = _log_sum(_item_log_weights(a, below[odd], w[odd], target[odd], [v[odd] for v in size]))
    return out


def _per_weight(fs, w: np.ndarray) -> tuple[np.ndarray, ...]:
    """Each f of ``fs`` of w per cell, through a table of w = 1..max(w) when that is short (grouped counts are
    mostly small), which saves a transcendental pass over the keys; the table's index is made once for all."""
    top = int(w.max(initial=0))
    if top == 1:                                # every cell holds one point (fine grids): one value
        return tuple(f(np.ones(1)) for f in fs)
    if 0 < top <= max(w.size // 4, 1024) and np.issubdtype(w.dtype, np.integer):
        at = w - 1
        return tuple(f(np.arange(1, top + 1, dtype=float))[at] for f in fs)
    return tuple(f(np.asarray(w, float)) for f in fs)
