// A small Cypher lexer for the Text2Cypher guard. Comments disappear, string literals become
// opaque tokens (their words can never read as keywords), and anything the lexer is unsure of is
// an error rather than a guess: a guard that misreads a query is worse than one that refuses it.

export type TokenKind = 'word' | 'quoted' | 'string' | 'number' | 'param' | 'punct';

export interface Token {
  kind: TokenKind;
  /** Source text exactly as written (strings with their quotes). */
  raw: string;
  /** Lower-cased word, the identifier inside backticks, or the punctuation itself. */
  value: string;
  /** Whitespace or a comment came before it (kept when the query is rendered again). */
  spaced: boolean;
}

export class CypherLexError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CypherLexError';
  }
}

const PUNCT = ['..', '->', '<-', '<=', '>=', '<>', '=~', '+=', '!=', '||'];
const SINGLE = '()[]{},.:;=<>+-*/%^|$!';
const WORD_START = /[A-Za-z_]/;
const WORD_CHAR = /[A-Za-z0-9_]/;
const NUMBER = /^(?:0x[0-9a-fA-F]+|0o[0-7]+|\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/;
// Backtick names may hold letters, digits, underscores and spaces only: no dots that could
// re-assemble `apoc.cypher.run`, no escapes, no look-alikes.
const QUOTED_NAME = /^[A-Za-z0-9_ ]+$/;

/** Printable ASCII and ordinary whitespace: outside string literals nothing else is accepted. */
function isPlainAscii(ch: string): boolean {
  const c = ch.charCodeAt(0);
  return (c >= 0x20 && c < 0x7f) || ch === '\n' || ch === '\r' || ch === '\t';
}

function readString(src: string, start: number): number {
  const quote = src[start];
  let i = start + 1;
  while (i < src.length) {
    const ch = src[i];
    if (ch === '\\') {
      i += 2;
      continue;
    }
    if (ch === quote) return i + 1;
    i++;
  }
  throw new CypherLexError('unterminated string literal');
}

export function tokenize(src: string): Token[] {
  const tokens: Token[] = [];
  let spaced = false;
  const push = (kind: TokenKind, raw: string, value: string) => {
    tokens.push({ kind, raw, value, spaced });
    spaced = false;
  };
  let i = 0;
  while (i < src.length) {
    const ch = src[i] as string;
    const two = src.slice(i, i + 2);
    if (ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t') {
      spaced = true;
      i++;
    } else if (two === '//') {
      const end = src.indexOf('\n', i);
      spaced = true;
      i = end === -1 ? src.length : end + 1;
    } else if (two === '/*') {
      const end = src.indexOf('*/', i + 2);
      if (end === -1) throw new CypherLexError('unterminated comment');
      spaced = true;
      i = end + 2;
    } else if (ch === "'" || ch === '"') {
      const end = readString(src, i);
      push('string', src.slice(i, end), src.slice(i + 1, end - 1));
      i = end;
    } else if (ch === '`') {
      const end = src.indexOf('`', i + 1);
      if (end === -1) throw new CypherLexError('unterminated backtick name');
      const name = src.slice(i + 1, end);
      if (!QUOTED_NAME.test(name)) {
        throw new CypherLexError(
          `backtick name with unexpected characters: ${JSON.stringify(name)}`,
        );
      }
      push('quoted', src.slice(i, end + 1), name.toLowerCase());
      i = end + 1;
    } else if (!isPlainAscii(ch)) {
      const code = ch.codePointAt(0)?.toString(16).padStart(4, '0') ?? '?';
      throw new CypherLexError(`character U+${code} outside a string literal`);
    } else if (WORD_START.test(ch)) {
      let end = i + 1;
      while (end < src.length && WORD_CHAR.test(src[end] as string)) end++;
      const raw = src.slice(i, end);
      push('word', raw, raw.toLowerCase());
      i = end;
    } else if (/\d/.test(ch)) {
      const m = NUMBER.exec(src.slice(i));
      const raw = m?.[0] ?? ch;
      if (WORD_CHAR.test(src[i + raw.length] ?? '')) {
        throw new CypherLexError(`malformed number near "${src.slice(i, i + 12)}"`);
      }
      push('number', raw, raw.toLowerCase());
      i += raw.length;
    } else if (ch === '$') {
      const m = /^\$[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i));
      if (!m) throw new CypherLexError('malformed parameter');
      push('param', m[0], m[0].toLowerCase());
      i += m[0].length;
    } else if (PUNCT.includes(two)) {
      push('punct', two, two);
      i += 2;
    } else if (SINGLE.includes(ch)) {
      push('punct', ch, ch);
      i++;
    } else {
      throw new CypherLexError(`unexpected character "${ch}"`);
    }
  }
  return tokens;
}

/** The query as the guard saw it: comments and runs of whitespace become one space. */
export function render(tokens: readonly Token[]): string {
  return tokens.map((t, i) => (i > 0 && t.spaced ? ` ${t.raw}` : t.raw)).join('');
}
