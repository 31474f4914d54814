import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type ChartSpec, renderChart, type Series } from '../../../../lib/sim/report/chart.ts';
import { PALETTE, seriesStyle } from '../../../../lib/sim/report/palette.ts';
import { linearTicks, logTicks } from '../../../../lib/sim/report/ticks.ts';
import { xmlProblems } from './xml-check.ts';

const series = (
  name: string,
  index: number,
  points: Series['points'],
  shape: Series['shape'] = 'line',
): Series => ({
  name,
  style: seriesStyle(index),
  shape,
  points,
});

const spec = (overrides: Partial<ChartSpec> = {}): ChartSpec => ({
  title: 'A test plot',
  x: { label: 'x (h)', scale: 'linear', ...linearTicks(0, 10) },
  y: { label: 'y (%)', scale: 'linear', ...linearTicks(0, 100) },
  series: [],
  emptyMessage: 'Nothing here',
  ...overrides,
});

const pathsOf = (svg: string): string[] =>
  [...svg.matchAll(/<g class="series"[^>]*>.*?<\/g>/g)].map(
    (g) => [...g[0].matchAll(/ d="([^"]*)"/g)].pop()![1]!,
  );

describe('renderChart', () => {
  test('maps data to the plot area: y grows upwards, ends land on the axis ends', () => {
    const svg = renderChart(
      spec({
        series: [
          series('a', 0, [
            { x: 0, y: 0 },
            { x: 10, y: 100 },
          ]),
        ],
      }),
    );
    assert.deepEqual(xmlProblems(svg), []);
    // Plot area: x 72..932, y 14..314 for the default 960 × 300.
    assert.deepEqual(pathsOf(svg), ['M72 314L932 14']);
  });

  test('step series use H and V; repeated pixels are dropped', () => {
    const points = [
      { x: 0, y: 0 },
      { x: 5, y: 0 },
      { x: 5, y: 50 },
      { x: 10, y: 50 },
    ];
    assert.deepEqual(pathsOf(renderChart(spec({ series: [series('s', 0, points, 'step')] }))), [
      'M72 314H502V164H932',
    ]);
  });

  test('a log axis puts decades at equal distances and clamps non-positive values to its start', () => {
    const x = { label: 'JCT (hours, log scale)', scale: 'log' as const, ...logTicks(0.01, 100) };
    const svg = renderChart(
      spec({
        x,
        series: [
          series('a', 0, [
            { x: 0, y: 0 },
            { x: 0.1, y: 0 },
            { x: 1, y: 0 },
            { x: 10, y: 0 },
            { x: 1e6, y: 0 },
          ]),
        ],
      }),
    );
    assert.deepEqual(pathsOf(svg), ['M72 314L287 314L502 314L717 314L932 314']);
    for (const label of ['0.01', '0.1', '1', '10', '100']) assert.ok(svg.includes(`>${label}</text>`));
  });

  test('each series is a group with a title, its colour and, past the palette, a dash pattern', () => {
    const many = Array.from({ length: 10 }, (_, i) =>
      series(`p${i}`, i, [
        { x: 1, y: 1 },
        { x: 2, y: 2 },
      ]),
    );
    const svg = renderChart(spec({ series: many }));
    assert.equal(svg.match(/<g class="series"/g)?.length, 10);
    assert.ok(svg.includes('<title>p9</title>'));
    assert.ok(svg.includes(`stroke="${PALETTE[0]}"`));
    assert.ok(svg.includes('stroke-dasharray="8 4"'), 'ninth series is dashed');
    assert.equal(svg.match(/<g class="legend-item">/g)?.length, 10);
  });

  test('the legend wraps onto more rows and the SVG grows to fit', () => {
    const names = Array.from({ length: 8 }, (_, i) => `a-rather-long-policy-name-${i}`);
    const one = renderChart(spec({ series: [series(names[0]!, 0, [{ x: 1, y: 1 }])] }));
    const eight = renderChart(spec({ series: names.map((n, i) => series(n, i, [{ x: 1, y: 1 }])) }));
    const height = (svg: string) => Number(/ height="([\d.]+)"/.exec(svg)![1]);
    assert.ok(height(eight) > height(one) + 40);
  });

  test('very long names are shortened in the legend but kept whole in the title', () => {
    const name = 'x'.repeat(100);
    const svg = renderChart(spec({ series: [series(name, 0, [{ x: 1, y: 1 }])] }));
    assert.ok(svg.includes(`<title>${name}</title>`));
    assert.ok(svg.includes(`>${'x'.repeat(39)}…</text>`));
  });

  test('no data: the message instead of paths, series marked in the legend', () => {
    const svg = renderChart(spec({ series: [series('idle', 0, [])] }));
    assert.deepEqual(xmlProblems(svg), []);
    assert.deepEqual(pathsOf(svg), []);
    assert.ok(svg.includes('>Nothing here</text>'));
    assert.ok(svg.includes('>idle (no data)</text>'));
  });

  test('values outside the axis are clamped to the plot area', () => {
    const svg = renderChart(
      spec({
        series: [
          series('wild', 0, [
            { x: -5, y: 1e9 },
            { x: 50, y: Number.NaN },
          ]),
        ],
      }),
    );
    assert.deepEqual(pathsOf(svg), ['M72 14L932 314']);
  });
});
