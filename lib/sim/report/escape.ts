const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/**
 * Escape text for HTML/SVG element content and double- or single-quoted attribute values. Control characters that
 * XML 1.0 forbids are dropped, so a stray byte in a trace name cannot make the inline SVG ill-formed.
 */
export const escapeXml = (text: string): string =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
  text.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '').replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
