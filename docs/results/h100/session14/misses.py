"""Session 14's misses, read off the three plans' exports and `histtune stability --json`:
for each pair's miss, which run stored the slower winner, how many parameters its winner is
from the better one, where each run had timed the other's, and, replaying the plan's order,
how near the starts of the missing run's search came to the better winner, under the rule it
ran with (same sample type and binning) and the wider one written after them (any type and binning, further).
"""
import gzip, json, math, os, re
here = os.path.dirname(os.path.abspath(__file__))

def key(p):
    if p['family'] == 'hist1d':
        return (p['sample_type'], p['binning'], p['num_bins'], p['n'], '')
    return (p['sample_type'], p['binning'], p['num_bins'], p['n'],
            f"{p['active_channels']}/{p['channels']}")

def load(x):
    out = {}
    for r in json.load(gzip.open(os.path.join(here, f'plan-{x}.json.gz')))['results']:
        out[key(r['problem'])] = dict(
            winner=r['winner']['config_label'],
            others=[w['config_label'] for w in r['winners_by_distribution']])
    return out

def params(label):
    return {re.match(r'[a-z]+', p).group(0): p for p in label.split('.') if p != 'mc'}

def apart(a, b):
    pa, pb = params(a), params(b)
    return sorted(k for k in pa if pa[k] != pb.get(k))

plans = {x: load(x) for x in 'ghi'}
# The plan's order, from the cold log (problems are tuned, and start one another, in this order).
order = []
for line in gzip.open(os.path.join(here, 'plan-cold-g.log.gz'), 'rt'):
    m = re.match(r'\[\d+/\d+\] (\w+) (\w+) (\w+) bins=(\d+) n=(\S+)(?:.*channels=(\d+/\d+))?', line)
    if m:
        fam, t, b, bins, n, ch = m.groups()
        n = 2 ** int(n[2:]) if n.startswith('2^') else int(n)
        order.append((t, b, int(bins), n, ch or ''))

BITS = {'u8': 8, 'u16': 16, 'u32': 32, 'i32': 32, 'f32': 32}
def starts(plan, k, wide, most=6):
    near = []
    for q in order[:order.index(k)]:
        if q[4] != k[4]: continue
        d = abs(math.log2(q[3]) - math.log2(k[3])) + abs(math.log2(q[2]) - math.log2(k[2]))
        if not wide and (q[0] != k[0] or q[1] != k[1]): continue
        if q[0] != k[0]: d += 2 if BITS[q[0]] == BITS[k[0]] else 4
        if q[1] != k[1]: d += 4
        near += [(d, c) for c in [plan[q]['winner']] + plan[q]['others']]
    out = []
    for _, c in sorted(near, key=lambda e: e[0]):
        if len(out) < most and c not in out: out.append(c)
    return out

print('| pair | problem | worst | slower run | its winner apart from the better in | '
      'it timed the better | nearest start, same type (params apart) | nearest start, wider rule |')
print('|---|---|---|---|---|---|---|---|')
for a, b in [('g', 'h'), ('g', 'i'), ('h', 'i')]:
    for r in json.load(open(os.path.join(here, f'stability-{a}-{b}.json')))['rows']:
        if r['worst_case_within_tolerance'] or r['same_configuration']: continue
        slow, fast = (a, b) if r['worst_case_difference_percent'] < 0 else (b, a)
        k = key(r['problem'])
        better = plans[fast][k]['winner']
        timed = r['a_timed_b'] if slow == a else r['b_timed_a']
        def nearest(wide):
            s = starts(plans[slow], k, wide)
            return f"{min(len(apart(better, c)) for c in s)} ({len(s)} starts)" if s else "no starts"
        print(f"| {a}/{b} | {r['problem']['spec']} | {r['worst_case_difference_percent']:+.1f}% "
              f"| {slow} | {', '.join(apart(plans[slow][k]['winner'], better))} "
              f"| {', '.join(timed) or 'never'} | {nearest(False)} | {nearest(True)} |")
