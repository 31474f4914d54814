import { assignSuite } from './assign.ts';
import { criusSuite } from './crius.ts';
import { dallySuite } from './dally.ts';
import { dallyCalibrationSuite } from './dally-calibration.ts';
import { easyscaleSuite } from './easyscale.ts';
import { flagshipSuite } from './flagship.ts';
import { roundSuite } from './round.ts';
import { simSuite } from './sim.ts';
import { tesseraeSuite } from './tesserae.ts';
import type { BenchSuite } from './types.ts';
import { waitEstimateSuite } from './wait-estimate.ts';

export const BENCH_SUITES: ReadonlyMap<string, BenchSuite> = new Map(
  [
    roundSuite,
    simSuite,
    dallySuite,
    dallyCalibrationSuite,
    tesseraeSuite,
    assignSuite,
    easyscaleSuite,
    criusSuite,
    flagshipSuite,
    waitEstimateSuite,
  ].map((s) => [s.name, s]),
);

export const getSuite = (name: string): BenchSuite => {
  const suite = BENCH_SUITES.get(name);
  if (!suite) throw new Error(`unknown benchmark "${name}"; known: ${[...BENCH_SUITES.keys()].join(', ')}`);
  return suite;
};
