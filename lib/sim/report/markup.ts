import { escapeXml } from './escape.ts';

export type Attributes = Readonly<Record<string, string | number | undefined>>;

/** Attribute numbers at 0.1 px: finer precision only makes the file bigger. */
export const px = (value: number): string => String(Math.round(value * 10) / 10);

const attributeList = (attributes: Attributes): string =>
  Object.entries(attributes)
    .filter(([, value]) => value !== undefined && value !== '')
    .map(([name, value]) => ` ${name}="${escapeXml(typeof value === 'number' ? px(value) : value!)}"`)
    .join('');

/**
 * One HTML/SVG element. Attribute values are escaped here; `children` are markup already (build text with
 * `escapeXml`). Always closed explicitly: `<div/>` would not be closed by the HTML parser outside <svg>.
 */
export const element = (name: string, attributes: Attributes = {}, ...children: string[]): string =>
  `<${name}${attributeList(attributes)}>${children.join('')}</${name}>`;

/** An element whose only child is escaped text. */
export const textElement = (name: string, attributes: Attributes, text: string): string =>
  `<${name}${attributeList(attributes)}>${escapeXml(text)}</${name}>`;
