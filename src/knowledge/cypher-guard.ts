// The Text2Cypher guard (ARCHITECTURE.md, "Knowledge (Neo4j)"): generated Cypher runs only if it
// is a single bounded read.
// Keyword checks alone prove nothing (the seed says so), so this is one layer of three: the guard,
// a READ session + read transaction the server enforces, and the ACL re-check of every row.
// The query that runs is rebuilt from the tokens the guard checked, so a comment or odd spacing
// cannot make the server see something the guard did not.
import { checkPatterns } from './cypher-patterns.ts';
import { CypherLexError, render, type Token, tokenize } from './cypher-tokens.ts';

export interface GuardOptions {
  /** LIMIT every accepted query ends with (appended, or lowered to this). */
  maxRows: number;
  maxHops: number;
  maxRange?: number;
  maxLength?: number;
}

export type GuardVerdict =
  | { ok: true; cypher: string; limit: number }
  | { ok: false; reason: string };

/** The only procedures a generated query may CALL (lower-case, as compared). */
export const ALLOWED_PROCEDURES: ReadonlySet<string> = new Set([
  'db.index.fulltext.querynodes',
  'db.index.vector.querynodes',
]);

// Writes, schema and admin commands, file and cross-database access, and things that need them.
const FORBIDDEN = new Set([
  'create',
  'merge',
  'set',
  'delete',
  'detach',
  'nodetach',
  'remove',
  'drop',
  'load',
  'csv',
  'foreach',
  'use',
  'insert',
  'alter',
  'grant',
  'deny',
  'revoke',
  'rename',
  'show',
  'start',
  'stop',
  'terminate',
  'enable',
  'periodic',
  'commit',
  'transactions',
  'explain',
  'profile',
  'union',
  'apoc',
  'dbms',
  'gds',
]);

const refuse = (reason: string): GuardVerdict => ({ ok: false, reason });
const isName = (t: Token | undefined) => t?.kind === 'word' || t?.kind === 'quoted';

/** A dotted name starting at tokens[i]; returns it lower-cased and the index after it. */
function dottedName(tokens: readonly Token[], i: number): { name: string; next: number } {
  const parts: string[] = [];
  let k = i;
  while (isName(tokens[k])) {
    parts.push((tokens[k] as Token).value);
    if (tokens[k + 1]?.value !== '.' || !isName(tokens[k + 2])) {
      k++;
      break;
    }
    k += 2;
  }
  return { name: parts.join('.'), next: k };
}

function checkCalls(tokens: readonly Token[]): string | undefined {
  const allowedParens = new Set<number>();
  for (const [i, t] of tokens.entries()) {
    if (t.kind !== 'word' || t.value !== 'call') continue;
    const next = tokens[i + 1]?.value;
    if (next === '{' || next === '(') continue; // a subquery: its body is checked like the rest
    const { name, next: after } = dottedName(tokens, i + 1);
    if (!ALLOWED_PROCEDURES.has(name)) return `procedure "${name || '?'}" is not allowed`;
    allowedParens.add(after);
  }
  // A call of a namespaced function (`x.y(`): none are needed, several can run writes.
  for (const [i, t] of tokens.entries()) {
    if (t.value !== '(' || allowedParens.has(i) || !isName(tokens[i - 1])) continue;
    if (tokens[i - 2]?.value === '.') return 'namespaced function calls are not allowed';
  }
  return undefined;
}

/** Appends `LIMIT max` to the final RETURN, or lowers a larger literal LIMIT. */
function enforceLimit(tokens: Token[], maxRows: number): string | { limit: number } {
  let depth = 0;
  let lastReturn = -1;
  let limitAt = -1;
  for (const [i, t] of tokens.entries()) {
    if (t.value === '(' || t.value === '[' || t.value === '{') depth++;
    else if (t.value === ')' || t.value === ']' || t.value === '}') depth--;
    else if (depth === 0 && t.value === 'return' && t.kind === 'word') {
      lastReturn = i;
      limitAt = -1;
    } else if (depth === 0 && t.value === 'limit' && t.kind === 'word') limitAt = i;
  }
  if (lastReturn === -1) return 'a read query must end with RETURN';
  if (limitAt === -1) {
    tokens.push(
      { kind: 'word', raw: 'LIMIT', value: 'limit', spaced: true },
      { kind: 'number', raw: String(maxRows), value: String(maxRows), spaced: true },
    );
    return { limit: maxRows };
  }
  const n = tokens[limitAt + 1];
  if (n?.kind !== 'number' || !/^\d+$/.test(n.raw) || limitAt + 2 !== tokens.length) {
    return 'LIMIT must be a whole-number literal at the end of the query';
  }
  const limit = Math.min(Number(n.raw), maxRows);
  tokens[limitAt + 1] = { ...n, raw: String(limit), value: String(limit) };
  return { limit };
}

/** Accepts a single bounded read query (rewritten with its LIMIT) or says why it is refused. */
export function guardCypher(query: string, opts: GuardOptions): GuardVerdict {
  if (query.length > (opts.maxLength ?? 4000)) return refuse('query too long');
  let tokens: Token[];
  try {
    tokens = tokenize(query);
  } catch (err) {
    return refuse(err instanceof CypherLexError ? err.message : 'query could not be read');
  }
  if (tokens.at(-1)?.value === ';') tokens.pop();
  if (tokens.length === 0) return refuse('empty query');
  if (tokens.some((t) => t.value === ';')) return refuse('more than one statement');
  if (tokens[0]?.value === ':') return refuse('client commands are not allowed');
  for (const t of tokens) {
    if ((t.kind === 'word' || t.kind === 'quoted') && FORBIDDEN.has(t.value)) {
      return refuse(`"${t.raw}" is not allowed in a read-only query`);
    }
  }
  const why =
    checkCalls(tokens) ??
    checkPatterns(tokens, { maxHops: opts.maxHops, maxRange: opts.maxRange ?? 10_000 });
  if (why) return refuse(why);
  const limited = enforceLimit(tokens, opts.maxRows);
  if (typeof limited === 'string') return refuse(limited);
  return { ok: true, cypher: render(tokens), limit: limited.limit };
}
