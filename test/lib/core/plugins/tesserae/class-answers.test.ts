import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import type { Host } from '../../../../../lib/core/model/cluster.ts';
import type { Allocation } from '../../../../../lib/core/model/plan.ts';
import { ClassAnswers, type Signature } from '../../../../../lib/core/plugins/tesserae/class-answers.ts';
import { hostClasses, relabelPlan } from '../../../../../lib/core/plugins/tesserae/relabel-plan.ts';
import { cluster, on } from '../../../../support/fixtures.ts';
import { roundArb } from '../../../../support/relabel-rounds.ts';

/** Counts the classes answered from memory. */
class CountingAnswers extends ClassAnswers {
  hits = 0;
  override get(cls: object, signature: Signature): Int32Array | undefined {
    const known = super.get(cls, signature);
    if (known) this.hits++;
    return known;
  }
}

const byRack = (h: Host) => h.rack;

/** The relabelling answered from `answers` gives the very plan (and cost) of solving every class. */
const assertSameAsSolving = (
  hosts: readonly Host[],
  classes: ReturnType<typeof hostClasses>,
  answers: ClassAnswers,
  current: ReadonlyMap<string, Allocation>,
  logical: ReadonlyMap<string, Allocation>,
): void => {
  const solved = relabelPlan({ hosts, current, plan: logical, classOf: byRack, skipUnchangedClasses: false });
  const answered = relabelPlan({ hosts, current, plan: logical, classOf: byRack, classes, answers });
  assert.deepEqual([...answered.plan], [...solved.plan]);
  for (const [id, a] of solved.plan)
    assert.equal(answered.plan.get(id) === logical.get(id), a === logical.get(id), id);
  assert.equal(answered.cost, solved.cost);
};

/** The plan with every job renamed (its partner too): the same GPUs, other jobs. */
const renamed = (plan: ReadonlyMap<string, Allocation>, suffix: string): Map<string, Allocation> =>
  new Map(
    [...plan].map(([id, a]) => [
      `${id}${suffix}`,
      a.packedWith === undefined ? a : { ...a, packedWith: `${a.packedWith}${suffix}` },
    ]),
  );

describe('relabelling: a class solved before is answered from memory', () => {
  test('property: same plan and cost as solving every class, round after round', () => {
    let hits = 0;
    fc.assert(
      fc.property(roundArb, ({ c, current, logical }) => {
        const classes = hostClasses(c.hosts, byRack);
        const answers = new CountingAnswers();
        // The round, the same round again (answered from memory), the plans in another order (jobs numbered
        // otherwise: still answered), and every job renamed (other contents: solved again).
        assertSameAsSolving(c.hosts, classes, answers, current, logical);
        assertSameAsSolving(c.hosts, classes, answers, current, logical);
        const reversed = (p: ReadonlyMap<string, Allocation>) => new Map([...p].reverse());
        assertSameAsSolving(c.hosts, classes, answers, reversed(current), reversed(logical));
        const before = answers.hits;
        assertSameAsSolving(c.hosts, classes, answers, renamed(current, "'"), renamed(logical, "'"));
        assert.equal(answers.hits, before, 'renamed jobs are another problem');
        hits += answers.hits;
      }),
      { numRuns: 300, seed: 43 },
    );
    // The generator must exercise the memory: racks with a job spread evenly over two machines.
    assert.ok(hits > 100, `only ${hits} classes answered from memory`);
  });

  test('a twin rack is answered from memory until its contents change', () => {
    // Rack r0: job A spread evenly over h0 and h1 (twin nodes: the rack must be solved). Rack r1: B moves.
    const c = cluster([{ gpuType: 'A100', hosts: 4, gpusPerHost: 2, hostsPerRack: 2 }]);
    const [h0, h1, h2, h3] = c.hosts.map((h) => h.id) as [string, string, string, string];
    const classes = hostClasses(c.hosts, byRack);
    const answers = new CountingAnswers();
    const a = on('A100', [h0, [0, 1]], [h1, [0, 1]]);
    const current = new Map([
      ['A', a],
      ['B', on('A100', [h2, [0]])],
    ]);
    const logical = new Map([
      ['A', a],
      ['B', on('A100', [h3, [1]])],
    ]);
    assertSameAsSolving(c.hosts, classes, answers, current, logical);
    assert.equal(answers.hits, 0);
    assertSameAsSolving(c.hosts, classes, answers, current, logical);
    assert.equal(answers.hits, 1);
    // Another job on A's GPUs (A ended, C started there last round): other contents, solved again.
    const c2 = on('A100', [h0, [0, 1]], [h1, [0, 1]]);
    const current2 = new Map([
      ['C', c2],
      ['B', on('A100', [h2, [0]])],
    ]);
    const logical2 = new Map([
      ['C', c2],
      ['B', on('A100', [h3, [0]])],
    ]);
    assertSameAsSolving(c.hosts, classes, answers, current2, logical2);
    assert.equal(answers.hits, 1);
    // A's rack again, while B moves elsewhere in its rack: the memory holds C's answer (one per class), so A's rack
    // is solved, then answered from memory in the next round.
    const logical4 = new Map([
      ['A', a],
      ['B', on('A100', [h3, [0]])],
    ]);
    assertSameAsSolving(c.hosts, classes, answers, current, logical4);
    assert.equal(answers.hits, 1);
    assertSameAsSolving(c.hosts, classes, answers, current, logical4);
    assert.equal(answers.hits, 2);
  });
});
