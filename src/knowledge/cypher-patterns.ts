// Shape checks of the Text2Cypher guard: work a generated query may cause before LIMIT can help.
// Unbounded variable-length paths, unlabelled node scans, cartesian products and big range()s are
// refused; the read transaction's timeout is the backstop for whatever slips through.
import type { Token } from './cypher-tokens.ts';

export interface PatternLimits {
  maxHops: number;
  /** Widest `range(a, b)` allowed. */
  maxRange: number;
}

const OPEN = new Set(['(', '[', '{']);
/** Tokens a path quantifier can follow. */
const QUANTIFIABLE = new Set([')', ']', '->', '-', '>']);
const CLOSE = new Set([')', ']', '}']);
/** Words that end a MATCH clause's pattern. */
const CLAUSE_END = new Set([
  'where',
  'return',
  'with',
  'match',
  'optional',
  'unwind',
  'call',
  'order',
  'skip',
  'limit',
  'yield',
]);

const isWord = (t: Token | undefined): t is Token => t?.kind === 'word' || t?.kind === 'quoted';
const at = (tokens: readonly Token[], i: number): string => tokens[i]?.value ?? '';

function intValue(t: Token | undefined): number | undefined {
  return t?.kind === 'number' && /^\d+$/.test(t.raw) ? Number(t.raw) : undefined;
}

/** Upper bound of `*`, `*n`, `*n..`, `*..m`, `*n..m` starting at tokens[i] (the star). */
function starUpperBound(tokens: readonly Token[], i: number): number | undefined {
  const first = intValue(tokens[i + 1]);
  const dots = at(tokens, first === undefined ? i + 1 : i + 2) === '..';
  if (!dots) return first;
  return intValue(tokens[first === undefined ? i + 2 : i + 3]);
}

function checkVariableLength(tokens: readonly Token[], lim: PatternLimits): string | undefined {
  const stack: number[] = [];
  for (const [i, t] of tokens.entries()) {
    if (OPEN.has(t.value)) stack.push(i);
    else if (CLOSE.has(t.value)) stack.pop();
    const opener = stack.at(-1);
    const inRel =
      opener !== undefined &&
      at(tokens, opener) === '[' &&
      ['-', '<-', '<'].includes(at(tokens, opener - 1));
    if (t.value === '*' && inRel) {
      const upper = starUpperBound(tokens, i);
      if (upper === undefined) return 'variable-length relationship without an upper bound';
      if (upper > lim.maxHops) return `variable-length relationship longer than ${lim.maxHops}`;
    }
    // A quantifier `{n,m}` after a node group or a relationship: `(…){1,3}`, `-[:R]->{1,3}`.
    if (QUANTIFIABLE.has(t.value) && at(tokens, i + 1) === '{') {
      const lo = tokens[i + 2];
      if (intValue(lo) !== undefined || lo?.value === ',') {
        const close = tokens.findIndex((x, k) => k > i && x.value === '}');
        const upper = intValue(tokens[close - 1]);
        if (upper === undefined) return 'quantified path pattern without an upper bound';
        if (upper > lim.maxHops) return `quantified path pattern longer than ${lim.maxHops}`;
      }
    }
  }
  return undefined;
}

function checkRanges(tokens: readonly Token[], lim: PatternLimits): string | undefined {
  for (const [i, t] of tokens.entries()) {
    if (t.kind !== 'word' || t.value !== 'range' || at(tokens, i + 1) !== '(') continue;
    const args: number[] = [];
    let k = i + 2;
    while (k < tokens.length && at(tokens, k) !== ')') {
      const neg = at(tokens, k) === '-';
      const n = intValue(tokens[neg ? k + 1 : k]);
      if (n === undefined) return 'range() with bounds that are not whole-number literals';
      args.push(neg ? -n : n);
      k += neg ? 2 : 1;
      if (at(tokens, k) === ',') k++;
    }
    const [lo, hi] = args;
    if (lo === undefined || hi === undefined || Math.abs(hi - lo) > lim.maxRange) {
      return `range() wider than ${lim.maxRange}`;
    }
  }
  return undefined;
}

interface Part {
  vars: string[];
  labelled: boolean;
}

/** Pattern parts of the MATCH clause whose keyword is at `start`, and where the clause ends. */
function matchParts(tokens: readonly Token[], start: number): { parts: Part[]; end: number } {
  const parts: Part[] = [{ vars: [], labelled: false }];
  let depth = 0;
  let k = start + 1;
  for (; k < tokens.length; k++) {
    const t = tokens[k] as Token;
    if (depth === 0 && (CLAUSE_END.has(t.value) || CLOSE.has(t.value))) break;
    if (OPEN.has(t.value)) depth++;
    else if (CLOSE.has(t.value)) depth--;
    const part = parts.at(-1) as Part;
    if (depth === 0 && t.value === ',') parts.push({ vars: [], labelled: false });
    else if (isWord(t) && at(tokens, k + 1) === '=' && depth === 0) part.vars.push(t.value);
    else if (t.value === '(' || t.value === '[') {
      const next = tokens[k + 1];
      const after = at(tokens, k + 2);
      if (isWord(next) && [':', ')', '{', ']', '*', 'where'].includes(after)) {
        part.vars.push(next.value);
      }
      if (t.value === '(' && (next?.value === ':' || (isWord(next) && after === ':'))) {
        part.labelled = true;
      }
    }
  }
  return { parts, end: k };
}

/** Refuses node scans without a label and pattern parts that share nothing with what is bound. */
function checkScans(tokens: readonly Token[]): string | undefined {
  const bound = new Set<string>();
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as Token;
    if (t.kind !== 'word') continue;
    if (t.value === 'as' && isWord(tokens[i + 1])) bound.add((tokens[i + 1] as Token).value);
    if (t.value === 'yield') {
      for (let k = i + 1; isWord(tokens[k]); k += 2) {
        bound.add((tokens[k] as Token).value);
        if (at(tokens, k + 1) !== ',') break;
      }
    }
    if (t.value !== 'match') continue;
    const { parts, end } = matchParts(tokens, i);
    for (const part of parts) {
      const joins = part.vars.some((v) => bound.has(v));
      if (!joins && !part.labelled) return 'node pattern without a label scans the whole graph';
      if (!joins && bound.size > 0)
        return 'pattern shares no variable with the rest (cartesian product)';
      for (const v of part.vars) bound.add(v);
    }
    i = end - 1;
  }
  return undefined;
}

/** Quantified paths `(…)+`, `-[:R]->*` inside a MATCH pattern. */
function checkQuantifiers(tokens: readonly Token[]): string | undefined {
  let inMatch = false;
  for (const [i, t] of tokens.entries()) {
    if (t.kind === 'word' && CLAUSE_END.has(t.value)) inMatch = t.value === 'match';
    if (inMatch && QUANTIFIABLE.has(t.value) && ['+', '*'].includes(at(tokens, i + 1))) {
      return 'quantified path pattern without an upper bound';
    }
  }
  return undefined;
}

/** The first reason the query's shape could scan without bound, or undefined. */
export function checkPatterns(tokens: readonly Token[], lim: PatternLimits): string | undefined {
  return (
    checkVariableLength(tokens, lim) ??
    checkQuantifiers(tokens) ??
    checkRanges(tokens, lim) ??
    checkScans(tokens)
  );
}
