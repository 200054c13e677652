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
