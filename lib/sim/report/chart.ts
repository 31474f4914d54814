import { element, px, textElement } from './markup.ts';
import type { SeriesStyle } from './palette.ts';
import type { Tick } from './ticks.ts';

/** A small SVG line-chart helper: axes with given ticks, one path per series, and a legend underneath. */

export interface Axis {
  readonly label: string;
  readonly scale: 'linear' | 'log';
  readonly min: number;
  readonly max: number;
  readonly ticks: readonly Tick[];
}

export interface Point {
  readonly x: number;
  readonly y: number;
}

export interface Series {
  readonly name: string;
  readonly style: SeriesStyle;
  /** `step`: each y holds until the next point's x. `line`: straight segments between points. */
  readonly shape: 'step' | 'line';
  readonly points: readonly Point[];
  /** A thin, faint companion line in the same colour, such as the peak of each time bucket. */
  readonly companion?: readonly Point[];
}

export interface ChartSpec {
  /** Accessible name of the whole plot. */
  readonly title: string;
  readonly x: Axis;
  readonly y: Axis;
  readonly series: readonly Series[];
  /** Shown in the plot area when no series has a point. */
  readonly emptyMessage: string;
  readonly width?: number;
  readonly plotHeight?: number;
}

const MARGIN = { left: 72, right: 28, top: 14 } as const;
const TICK_FONT = 12;
const LABEL_FONT = 14;
const LEGEND_FONT = 13;
const LEGEND_ROW = 24;
const LEGEND_SWATCH = 28;
const LEGEND_NAME_CHARS = 40;
/** Average advance of a character at LEGEND_FONT in a sans-serif face; the legend only needs a rough width. */
const CHAR_WIDTH = 7.6;

type Mapper = (value: number) => number;

const mapper = (axis: Axis, from: number, to: number): Mapper => {
  const transform = axis.scale === 'log' ? (v: number) => Math.log10(v) : (v: number) => v;
  const lo = transform(axis.min);
  const span = transform(axis.max) - lo || 1;
  const [low, high] = from < to ? [from, to] : [to, from];
  return (value) => {
    if (axis.scale === 'log' && !(value > 0)) return from;
    const position = from + ((transform(value) - lo) / span) * (to - from);
    return Number.isFinite(position) ? Math.min(high, Math.max(low, position)) : from;
  };
};

/** SVG path data; points that round to the previous pixel position are dropped. */
const pathData = (points: readonly Point[], shape: Series['shape'], mapX: Mapper, mapY: Mapper): string => {
  let d = '';
  let lastX = '';
  let lastY = '';
  for (const point of points) {
    const x = px(mapX(point.x));
    const y = px(mapY(point.y));
    if (d === '') d = `M${x} ${y}`;
    else if (shape === 'step') {
      if (x !== lastX) d += `H${x}`;
      if (y !== lastY) d += `V${y}`;
    } else if (x !== lastX || y !== lastY) d += `L${x} ${y}`;
    lastX = x;
    lastY = y;
  }
  return d;
};

const shortName = (name: string): string =>
  name.length > LEGEND_NAME_CHARS ? `${name.slice(0, LEGEND_NAME_CHARS - 1)}…` : name;

interface LegendItem {
  readonly series: Series;
  readonly x: number;
  readonly row: number;
}

const layoutLegend = (series: readonly Series[], width: number): LegendItem[] => {
  const items: LegendItem[] = [];
  let x = MARGIN.left;
  let row = 0;
  for (const s of series) {
    const label = `${shortName(s.name)}${s.points.length === 0 ? ' (no data)' : ''}`;
    const itemWidth = LEGEND_SWATCH + 8 + label.length * CHAR_WIDTH + 24;
    if (x > MARGIN.left && x + itemWidth > width - MARGIN.right) {
      x = MARGIN.left;
      row++;
    }
    items.push({ series: s, x, row });
    x += itemWidth;
  }
  return items;
};

const strokeAttributes = (style: SeriesStyle) => ({
  fill: 'none',
  stroke: style.colour,
  'stroke-dasharray': style.dash || undefined,
  'stroke-linejoin': 'round',
});

export const renderChart = (spec: ChartSpec): string => {
  const width = spec.width ?? 960;
  const plotHeight = spec.plotHeight ?? 300;
  const left = MARGIN.left;
  const right = width - MARGIN.right;
  const top = MARGIN.top;
  const bottom = top + plotHeight;
  const legend = layoutLegend(spec.series, width);
  const legendTop = bottom + 62;
  const rows = legend.length === 0 ? 0 : Math.max(...legend.map((i) => i.row)) + 1;
  const height = legendTop + rows * LEGEND_ROW + 6;
  const mapX = mapper(spec.x, left, right);
  const mapY = mapper(spec.y, bottom, top);
  const parts: string[] = [textElement('title', {}, spec.title)];

  const grid = spec.x.ticks
    .map((t) => element('line', { x1: mapX(t.value), x2: mapX(t.value), y1: top, y2: bottom }))
    .concat(
      spec.y.ticks.map((t) => element('line', { x1: left, x2: right, y1: mapY(t.value), y2: mapY(t.value) })),
    )
    .join('');
  parts.push(element('g', { class: 'grid', stroke: '#d9d9d9', 'stroke-width': 1 }, grid));

  const xLabels = spec.x.ticks
    .map((t) => textElement('text', { x: mapX(t.value), y: bottom + 18, 'text-anchor': 'middle' }, t.label))
    .join('');
  const yLabels = spec.y.ticks
    .map((t) => textElement('text', { x: left - 8, y: mapY(t.value) + 4, 'text-anchor': 'end' }, t.label))
    .join('');
  parts.push(element('g', { class: 'ticks', 'font-size': TICK_FONT, fill: '#333' }, xLabels, yLabels));
  parts.push(
    element('path', {
      class: 'axes',
      d: `M${px(left)} ${px(top)}V${px(bottom)}H${px(right)}`,
      fill: 'none',
      stroke: '#333',
      'stroke-width': 1,
    }),
  );
  parts.push(
    textElement(
      'text',
      { x: (left + right) / 2, y: bottom + 42, 'text-anchor': 'middle', 'font-size': LABEL_FONT },
      spec.x.label,
    ),
    textElement(
      'text',
      {
        transform: `translate(18 ${px((top + bottom) / 2)}) rotate(-90)`,
        'text-anchor': 'middle',
        'font-size': LABEL_FONT,
      },
      spec.y.label,
    ),
  );

  const drawn = spec.series.filter((s) => s.points.length > 0);
  if (drawn.length === 0) {
    parts.push(
      textElement(
        'text',
        {
          x: (left + right) / 2,
          y: (top + bottom) / 2,
          'text-anchor': 'middle',
          'font-size': LABEL_FONT,
          fill: '#555',
        },
        spec.emptyMessage,
      ),
    );
  }
  for (const s of drawn) {
    const lines = [
      element('path', {
        ...strokeAttributes(s.style),
        d: pathData(s.points, s.shape, mapX, mapY),
        'stroke-width': 2,
      }),
    ];
    if (s.companion && s.companion.length > 0) {
      lines.unshift(
        element('path', {
          ...strokeAttributes(s.style),
          class: 'companion',
          d: pathData(s.companion, s.shape, mapX, mapY),
          'stroke-width': 1,
          'stroke-opacity': 0.45,
        }),
      );
    }
    parts.push(
      element('g', { class: 'series', 'data-series': s.name }, textElement('title', {}, s.name), ...lines),
    );
  }

  const legendItems = legend.map(({ series: s, x, row }) => {
    const y = legendTop + row * LEGEND_ROW;
    const label = `${shortName(s.name)}${s.points.length === 0 ? ' (no data)' : ''}`;
    return element(
      'g',
      { class: 'legend-item' },
      textElement('title', {}, s.name),
      element('line', {
        ...strokeAttributes(s.style),
        x1: x,
        x2: x + LEGEND_SWATCH,
        y1: y,
        y2: y,
        'stroke-width': 3,
      }),
      textElement('text', { x: x + LEGEND_SWATCH + 8, y: y + 4.5 }, label),
    );
  });
  parts.push(element('g', { class: 'legend', 'font-size': LEGEND_FONT, fill: '#222' }, ...legendItems));

  return element(
    'svg',
    {
      xmlns: 'http://www.w3.org/2000/svg',
      viewBox: `0 0 ${width} ${px(height)}`,
      width,
      height,
      role: 'img',
      'aria-label': spec.title,
      'font-family': 'system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif',
    },
    ...parts,
  );
};
