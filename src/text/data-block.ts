// Quoted material (files, tool results, other people's messages) reaches the model inside
// <data> … </data> blocks that the system prompt says are never instructions.

/** Keeps quoted text from closing (or opening) the data block it sits in. */
export function escapeData(text: string): string {
  return text.replace(/<\/?data\b/gi, (m) => m.replace('<', '‹'));
}

/** An attribute value: no quote or newline can end the tag early. */
export function dataAttr(value: string): string {
  return value.replace(/["\r\n<>]/g, ' ').trim();
}

/**
 * Quoted material as the model sees it: `<data source="…" …>` with the text escaped, so nothing
 * inside (a page, a search result, a tool server's answer) can close the block or pass for
 * instructions. Every tool that returns outside text returns it through this.
 */
export function dataBlock(
  source: string,
  content: string,
  attrs: Readonly<Record<string, string>> = {},
): string {
  const extra = Object.entries(attrs)
    .map(([k, v]) => ` ${k.replace(/[^a-z_-]/gi, '')}="${dataAttr(v)}"`)
    .join('');
  return `<data source="${dataAttr(source)}"${extra}>\n${escapeData(content)}\n</data>`;
}
