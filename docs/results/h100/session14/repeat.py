"""How reproducible is `histtune stability` itself? Where two of plans g, h, i stored the same
configuration for a problem, the third plan's winner was timed against that one configuration in
two separate stability runs (two processes, same inputs): the two figures should agree."""
import json, os
here = os.path.dirname(os.path.abspath(__file__))
runs = {p: {r['problem']['spec']: r for r in json.load(open(os.path.join(here, f'stability-{p}.json')))['rows']}
        for p in ('g-h', 'g-i', 'h-i')}
print('| problem | same winner in | figures of the same pair (third plan against it) | spread |')
print('|---|---|---|---|')
spreads = []
for k in runs['g-h']:
    # (pair holding the duplicate, the two runs timing the same two kernels, sign of each)
    for same, x, y, sx, sy in (('g-h', 'g-i', 'h-i', 1, 1), ('g-i', 'g-h', 'h-i', 1, -1),
                               ('h-i', 'g-h', 'g-i', 1, 1)):
        if not runs[same][k]['same_configuration'] or runs[x][k]['same_configuration']: continue
        a = sx * runs[x][k]['worst_case_difference_percent']
        b = sy * runs[y][k]['worst_case_difference_percent']
        spreads.append(abs(a - b))
        print(f"| {k} | {same.replace('-', ', ')} | {x.replace('-', '/')} {a:+.1f}%, "
              f"{y.replace('-', '/')} {b:+.1f}% | {abs(a - b):.1f} |")
spreads.sort()
print(f"\n{len(spreads)} repeats; spread median {spreads[len(spreads) // 2]:.1f}, "
      f"largest {spreads[-1]:.1f} percentage points")
