/**
 * Just enough XML writing for query-protocol responses: elements, text escaping and
 * EC2-style `<item>` lists. Absent (undefined) children are omitted, as AWS omits them.
 */
export type XmlContent = string | number | boolean | undefined | XmlElement | XmlContent[];

export interface XmlElement {
  readonly tag: string;
  readonly content: XmlContent;
}

export function el(tag: string, content: XmlContent = ''): XmlElement {
  return { tag, content };
}

/** An EC2 list: `<tag><item>…</item><item>…</item></tag>`. */
export function itemList<T>(tag: string, items: readonly T[], render: (item: T) => XmlContent): XmlElement {
  return el(
    tag,
    items.map((item) => el('item', render(item))),
  );
}

/** Escapes text content (we never write attribute values from data, so quotes stay as they are). */
export function escapeXml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function isElement(content: XmlContent): content is XmlElement {
  return typeof content === 'object' && content !== null && !Array.isArray(content);
}

export function renderXml(content: XmlContent): string {
  if (content === undefined) return '';
  if (Array.isArray(content)) return content.map(renderXml).join('');
  if (isElement(content)) {
    if (content.content === undefined) return '';
    return `<${content.tag}>${renderXml(content.content)}</${content.tag}>`;
  }
  return escapeXml(String(content));
}

export function xmlDocument(root: XmlElement, namespace?: string): string {
  const body = renderXml(root.content);
  const attrs = namespace ? ` xmlns="${namespace}"` : '';
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${root.tag}${attrs}>${body}</${root.tag}>`;
}
