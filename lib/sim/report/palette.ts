/**
 * Okabe & Ito's colour-blind-safe palette, ordered for contrast on white (its yellow is too pale for thin lines
 * and comes last). Beyond eight policies the colours repeat with a dash pattern so every series stays distinct.
 */
export const PALETTE = [
  '#0072B2',
  '#D55E00',
  '#009E73',
  '#CC79A7',
  '#E69F00',
  '#56B4E9',
  '#000000',
  '#F0E442',
];

const DASHES = ['', '8 4', '2 3', '8 3 2 3'];

export interface SeriesStyle {
  readonly colour: string;
  /** SVG stroke-dasharray, empty for a solid line. */
  readonly dash: string;
}

export const seriesStyle = (index: number): SeriesStyle => {
  const i = Math.max(0, Math.floor(index));
  return {
    colour: PALETTE[i % PALETTE.length]!,
    dash: DASHES[Math.floor(i / PALETTE.length) % DASHES.length]!,
  };
};
