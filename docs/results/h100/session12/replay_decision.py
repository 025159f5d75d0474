#!/usr/bin/env python3
"""Replays the robust-winner decision of tuner/decide.hpp on a plan's export, both rules.

For each problem the candidates are the configurations the run measured on all four
distributions (its search medians; the tuner decides on pooled re-timings, so the stored winner
can differ from the replayed leximax choice). The rules, without noise bands beyond 0.5%:
  leximax:  the smallest worst ratio to each distribution's best, then the next worst, ...
  pairwise: the least regret, regret(X) = max over Y of how much worse X's worst case is than Y's
            when the two are compared alone (histtune stability's worst_case_difference_percent).
Usage: replay_decision.py NAME=plan-X.json.gz ...   (prints problems where a choice has >= 1.4%)
"""
import gzip
import json
import sys

DISTS = ("uniform", "skewed", "constant", "runs")


def load(path):
    out = {}
    for r in json.load(gzip.open(path))["results"]:
        p = r["problem"]
        key = f"{p['sample_type']}:{p['binning']}:{p['num_bins']}:{p['n']}:{p['channels']}"
        m = {}
        for x in r["measurements"]:
            if x["verified"]:
                m.setdefault(x["config_label"], {})[x["distribution"]] = x["median_ms"]
        full = {k: [v[d] for d in DISTS] for k, v in m.items() if all(d in v for d in DISTS)}
        out[key] = (r["winner"]["config_label"] if r["winner"] else None, full)
    return out


def worse_by(x, y):  # how much worse X's worst case is than Y's, side by side (fraction)
    m = [min(a, b) for a, b in zip(x, y)]
    wx = max(a / b for a, b in zip(x, m))
    wy = max(a / b for a, b in zip(y, m))
    return (wx - wy) / min(wx, wy)


def leximax(c, tol=0.005):
    best = [min(v[i] for v in c.values()) for i in range(len(DISTS))]
    ratios = {k: sorted((v[i] / best[i] for i in range(len(DISTS))), reverse=True) for k, v in c.items()}
    tied = list(c)
    for level in range(len(DISTS)):
        b = min(ratios[k][level] for k in tied)
        tied = [k for k in tied if ratios[k][level] <= b * (1 + tol)]
    return min(tied, key=lambda k: ratios[k])


def regrets(c):
    return {k: max(worse_by(v, u) for u in c.values()) for k, v in c.items()}


def main():
    for arg in sys.argv[1:]:
        name, path = arg.split("=", 1)
        differ = 0
        runs = load(path)
        for key, (stored, c) in runs.items():
            if len(c) < 2:
                continue
            reg = regrets(c)
            lx = leximax(c)
            pw = min(reg, key=reg.get)
            differ += lx != pw
            worst = max(reg[lx], reg.get(stored, 0.0))
            if worst >= 0.014:
                print(f"{name} {key:34s} regret: stored {100 * reg.get(stored, float('nan')):5.2f}%"
                      f"  leximax {100 * reg[lx]:5.2f}%  pairwise {100 * reg[pw]:5.2f}%")
        print(f"{name}: the rules choose differently on {differ} of {len(runs)} problems")


if __name__ == "__main__":
    main()
