"""Every pair's worst-case difference per problem, from `histtune stability --json` files:
session 14 (g, h, i: 125d799) beside session 13 (d, e, f: 9b503c6). Prints a Markdown table."""
import json, os
here = os.path.dirname(os.path.abspath(__file__))
pairs = [('session14', 'g-h'), ('session14', 'g-i'), ('session14', 'h-i'),
         ('session13', 'd-e'), ('session13', 'd-f'), ('session13', 'e-f')]
table, order = {}, []
for s, p in pairs:
    rows = json.load(open(os.path.join(here, '..', s, f'stability-{p}.json')))['rows']
    for r in rows:
        k = r['problem']['spec']
        if k not in order: order.append(k)
        cell = f"{r['worst_case_difference_percent']:+.1f}"
        if r['same_configuration']: cell = 'same'
        elif not r['worst_case_within_tolerance']: cell = f"**{cell}**"
        table.setdefault(k, {})[p] = cell
print('| problem | ' + ' | '.join(p.replace('-', '/') for _, p in pairs) + ' |')
print('|---|' + '---|' * len(pairs))
for k in order:
    print(f'| {k} | ' + ' | '.join(table[k].get(p, '') for _, p in pairs) + ' |')
miss = {p: sum('**' in table[k].get(p, '') for k in order) for _, p in pairs}
print('| misses (of 34) | ' + ' | '.join(str(miss[p]) for _, p in pairs) + ' |')
