/**
 * A deliberately small well-formedness check for the markup the report writes: every element closed in order,
 * attribute values quoted, `&` only as an entity, no `<` or `>` loose in text. Enough to catch a missing escape
 * or an unbalanced tag without an XML parser dependency.
 */
export const xmlProblems = (markup: string): string[] => {
  const problems: string[] = [];
  const stack: string[] = [];
  const tag = /<(\/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>/y;
  let i = 0;
  let text = '';
  const checkText = (at: number): void => {
    if (/[<>]/.test(text))
      problems.push(`loose < or > in text before offset ${at}: ${JSON.stringify(text.slice(0, 60))}`);
    text = '';
  };
  while (i < markup.length) {
    const c = markup[i]!;
    if (c === '&') {
      const entity = /&(?:[a-z]+|#\d+|#x[0-9a-f]+);/iy;
      entity.lastIndex = i;
      const m = entity.exec(markup);
      if (!m) problems.push(`bare & at offset ${i}`);
      i += m ? m[0].length : 1;
      continue;
    }
    if (c !== '<') {
      text += c;
      i++;
      continue;
    }
    checkText(i);
    if (markup.startsWith('<!DOCTYPE', i)) {
      i = markup.indexOf('>', i) + 1;
      continue;
    }
    tag.lastIndex = i;
    const m = tag.exec(markup);
    if (!m) {
      problems.push(`malformed tag at offset ${i}: ${JSON.stringify(markup.slice(i, i + 60))}`);
      i++;
      continue;
    }
    const [whole, closing, name, , selfClosing] = m;
    if (closing) {
      const open = stack.pop();
      if (open !== name) problems.push(`</${name}> at offset ${i} closes <${open ?? 'nothing'}>`);
    } else if (!selfClosing && !VOID.has(name!.toLowerCase())) stack.push(name!);
    i += whole.length;
  }
  checkText(i);
  if (stack.length > 0) problems.push(`unclosed: ${stack.join(' > ')}`);
  return problems;
};

/** HTML elements that never have a closing tag. */
const VOID = new Set(['meta', 'link', 'br', 'img', 'input', 'hr']);

/** The `<svg>…</svg>` fragments of a page. */
export const svgFragments = (html: string): string[] => html.match(/<svg[\s\S]*?<\/svg>/g) ?? [];
