// HTML character references as CommonMark decodes them in text: the named ones a model writes
// (`&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`, `&nbsp;`) and numeric ones, so a renderer that must
// escape its own control characters escapes the decoded character, not the reference.

/** A reference: its name (or `#123`, `#x1F600`) is the first group. */
export const ENTITY = /&(amp|lt|gt|quot|apos|nbsp|#\d{1,7}|#[xX][0-9a-fA-F]{1,6});/g;

const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
};

/** The character a reference's name stands for; an impossible code point is U+FFFD. */
export function decodeEntity(name: string): string {
  const named = NAMED[name];
  if (named !== undefined) return named;
  const hex = name[1] === 'x' || name[1] === 'X';
  const code = Number.parseInt(name.slice(hex ? 2 : 1), hex ? 16 : 10);
  return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
}

/** Every reference in `text` decoded. */
export function decodeEntities(text: string): string {
  return text.replace(ENTITY, (_m, name: string) => decodeEntity(name));
}
