#!/usr/bin/env python3
"""Times the simulator legs of kcc-difftest (docs/simulator.md, "Speed").

Sums the per-case milliseconds of each leg over the bundled kernels' case
files (kernels/*.kc with tests/e2e/difftest/*.toml) and, with --real, the
4096 x 14336 GEMV of bench/sim/gemv_llm.toml, and the wall times of the
interpreter's runs, of the sim legs and of both (kcc-difftest --time-legs:
with several host threads the cases and legs run side by side). Each file's
best of --runs runs. KCC_SIM_THREADS sets the host threads (default: one per
core).

  bench/sim/speed.py [--bin build/bin] [--real] [--runs 3]
"""
import argparse
import collections
import glob
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def leg_times(binary, kc, toml, legs):
    out = subprocess.run([os.path.join(binary, 'kcc-difftest'), kc, toml,
                          '--legs=' + legs, '--time-legs'],
                         capture_output=True, text=True,
                         check=True).stdout.splitlines()
    header = out[0].split()
    names = [header[i - 1] for i, h in enumerate(header) if h == 'ms']
    per = collections.Counter()
    for line in out[1:]:
        fields = line.split()
        if line.startswith('wall time:'):
            per['interp wall'] = float(fields[fields.index('interp') + 1])
            per['sim legs wall'] = float(fields[fields.index('legs') + 1])
            per['CPU legs wall'] = per['interp wall'] + per['sim legs wall']
            continue
        if len(fields) < 3 + 2 * len(names):
            continue
        for name, value in zip(names, fields[-len(names):]):
            per[name] += float(value) / 1000
    return per


def best_times(binary, kc, toml, legs, runs):
    """Each measure's minimum over `runs` runs (this machine is noisy)."""
    best = None
    for _ in range(runs):
        per = leg_times(binary, kc, toml, legs)
        best = per if best is None else collections.Counter(
            {k: min(v, best[k]) for k, v in per.items()})
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bin', default=os.path.join(ROOT, 'build', 'bin'))
    ap.add_argument('--real', action='store_true')
    ap.add_argument('--runs', type=int, default=3)
    args = ap.parse_args()
    os.chdir(ROOT)
    runs = [(f'kernels/{os.path.basename(t)[:-5]}.kc', t,
             'interp,sim-sm_90a,sim-gfx942')
            for t in sorted(glob.glob('tests/e2e/difftest/*.toml'))]
    if args.real:
        runs.append(('tests/e2e/difftest/Inputs/streaming_ptr.kc',
                     'bench/sim/gemv_llm.toml', 'interp,sim-sm_90a,sim-gfx942'))
    total = collections.Counter()
    for kc, toml, legs in runs:
        per = best_times(args.bin, kc, toml, legs, args.runs)
        if toml.startswith('tests/'):
            total += per
        print(f'{kc:48s}', '  '.join(f'{n} {v:6.2f} s' for n, v in per.items()))
    print(f'{"bundled total":48s}',
          '  '.join(f'{n} {v:6.2f} s' for n, v in total.items()))


if __name__ == '__main__':
    main()
