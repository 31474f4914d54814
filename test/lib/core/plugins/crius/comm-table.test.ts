import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  alphaBetaSeconds,
  CommTables,
  interpolate,
  linkOf,
} from '../../../../../lib/core/plugins/crius/comm-table.ts';

describe('communication tables', () => {
  test('piecewise-linear interpolation between points, linear extrapolation past the ends', () => {
    const points = [
      { bytes: 100, seconds: 1 },
      { bytes: 200, seconds: 3 },
      { bytes: 400, seconds: 4 },
    ];
    assert.equal(interpolate(points, 150), 2);
    assert.equal(interpolate(points, 300), 3.5);
    assert.equal(interpolate(points, 200), 3);
    assert.equal(interpolate(points, 800), 6); // slope of the last segment
    assert.equal(interpolate(points, 50), 0); // first segment extended (clamped at 0)
    assert.equal(interpolate(points, 0), 0);
  });

  test('defaults reproduce the α-β model of the link', () => {
    const tables = new CommTables();
    const link = linkOf('A100-40GB', 'intra');
    for (const bytes of [3e3, 7e6, 5e8]) {
      const expected = alphaBetaSeconds('all-reduce', 4, bytes, link);
      const got = tables.seconds('all-reduce', 'A100-40GB', 'intra', 4, bytes);
      assert.ok(Math.abs(got - expected) <= 1e-9 * expected, `${bytes} bytes: ${got} vs ${expected}`);
    }
    // A ring all-reduce moves 2(n−1)/n of the bytes: 4 ranks, 1.5 × bytes / β + 6α.
    assert.equal(alphaBetaSeconds('all-reduce', 4, 3e9, { bandwidth: 1e9, latency: 1e-3 }), 4.5 + 6e-3);
    assert.equal(alphaBetaSeconds('send-recv', 2, 1e9, { bandwidth: 1e9, latency: 1e-3 }), 1.001);
    assert.equal(tables.seconds('all-reduce', 'A100-40GB', 'intra', 1, 1e9), 0);
  });

  test('the network tier is slower than the intra-node link', () => {
    const tables = new CommTables();
    assert.ok(
      tables.seconds('all-reduce', 'A40', 'network', 4, 1e8) >
        tables.seconds('all-reduce', 'A40', 'intra', 4, 1e8),
    );
  });

  test('measurements replace the defaults of their table only', () => {
    const tables = new CommTables(undefined, [
      {
        collective: 'all-gather',
        gpuType: 'a10',
        tier: 'rack',
        ranks: 2,
        points: [
          { bytes: 2e6, seconds: 0.2 },
          { bytes: 1e6, seconds: 0.1 },
        ],
      },
    ]);
    assert.ok(Math.abs(tables.seconds('all-gather', 'A10', 'rack', 2, 1.5e6) - 0.15) < 1e-12);
    const untouched = alphaBetaSeconds('all-gather', 4, 1.5e6, linkOf('A10', 'rack'));
    assert.ok(Math.abs(tables.seconds('all-gather', 'A10', 'rack', 4, 1.5e6) - untouched) < 1e-12);
  });

  test('bad measurements are rejected with the table named', () => {
    const bad =
      (points: { bytes: number; seconds: number }[], ranks = 2) =>
      () =>
        new CommTables(undefined, [
          { collective: 'all-reduce', gpuType: 'A40', tier: 'intra', ranks, points },
        ]);
    assert.throws(bad([{ bytes: 1, seconds: 1 }]), /all-reduce, A40, intra, 2 ranks.*at least 2 points/);
    assert.throws(
      bad([
        { bytes: 1, seconds: 1 },
        { bytes: -1, seconds: 1 },
      ]),
      /points\[0\] needs bytes > 0/,
    );
    assert.throws(
      bad([
        { bytes: 1, seconds: 1 },
        { bytes: 1, seconds: 2 },
      ]),
      /two points at 1 bytes/,
    );
    assert.throws(
      bad(
        [
          { bytes: 1, seconds: 1 },
          { bytes: 2, seconds: 2 },
        ],
        1,
      ),
      /ranks must be an integer ≥ 2/,
    );
  });
});
