import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { levelOf } from '../../../../../lib/core/framework/free-gpus.ts';
import { relabelWithinRacks } from '../../../../../lib/core/plugins/tessera/relabel-within-racks.ts';
import { relabelMigration } from '../../../../../lib/core/plugins/tesserae/relabel.ts';
import { cluster, freeAfter, on, running, stageContext } from '../../../../support/fixtures.ts';

describe('tessera relabels within racks', () => {
  // Two racks of two 4-GPU hosts. G runs on h0 and grows to 8 GPUs; the consolidated placement put it on rack 1
  // (h2 + h3) because Y holds h1. Tesserae's renaming keeps one of G's hosts on h0 and the other in rack 1.
  const c = cluster([{ gpuType: 'A100', hosts: 4, gpusPerHost: 4, hostsPerRack: 2 }]);
  const [h0, h1, h2, h3] = c.hosts.map((h) => h.id) as [string, string, string, string];
  const g = running({ id: 'G', gpus: 8 }, on('A100', [h0, [0, 1, 2, 3]]));
  const y = running({ id: 'Y', gpus: 4 }, on('A100', [h1, [0, 1, 2, 3]]));
  const jobs = [g, y];
  const plan = () =>
    new Map([
      ['G', on('A100', [h2, [0, 1, 2, 3]], [h3, [0, 1, 2, 3]])],
      ['Y', on('A100', [h1, [0, 1, 2, 3]])],
    ]);
  const ctx = stageContext(c, jobs);
  const hostOf = (id: string) => c.hosts.find((h) => h.id === id);

  test("Tesserae's renaming (hosts of a type interchangeable) moves a one-rack job across racks", () => {
    const p = plan();
    const out = relabelMigration.relabel(jobs, p, freeAfter(c, p), ctx);
    assert.equal(levelOf(out.get('G')!, hostOf), 'network');
  });

  test('renaming within racks keeps the level the placement chose, and Y in place', () => {
    const p = plan();
    const free = freeAfter(c, p);
    const out = relabelWithinRacks.relabel(jobs, p, free, ctx);
    assert.equal(levelOf(out.get('G')!, hostOf), 'rack');
    assert.deepEqual(out.get('Y')!.slices, [{ hostId: h1, gpus: [0, 1, 2, 3] }]);
    assert.equal(free.freeOf('A100'), 4);
  });
});
