// The settings' layers: YAML files read and merged one over another, paths set and found in them,
// keys that look like secrets (which YAML may not hold), and the environment's values.
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

export type Env = Record<string, string | undefined>;

const SECRET_WORDS = /token|secret|password|api_?key/i;

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function deepMerge(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] = isRecord(b) && isRecord(v) ? deepMerge(b, v) : v;
  }
  return out;
}

export function setPath(target: Record<string, unknown>, keys: string[], value: unknown): void {
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    if (!isRecord(next)) node[key] = {};
    node = node[key] as Record<string, unknown>;
  }
  const last = keys.at(-1);
  if (last !== undefined) node[last] = value;
}

export function hasPath(obj: unknown, keys: readonly string[]): boolean {
  let node = obj;
  for (const key of keys) {
    if (!isRecord(node) || !(key in node)) return false;
    node = node[key];
  }
  return true;
}

export function findSecretKeys(obj: unknown, prefix: string, found: string[]): void {
  if (!isRecord(obj)) return;
  for (const [k, v] of Object.entries(obj)) {
    const where = prefix ? `${prefix}.${k}` : k;
    if (SECRET_WORDS.test(k)) found.push(where);
    findSecretKeys(v, where, found);
  }
}

export function readYaml(file: string, problems: string[]): Record<string, unknown> {
  try {
    const parsed: unknown = parseYaml(readFileSync(file, 'utf8'));
    if (parsed === null || parsed === undefined) return {};
    if (!isRecord(parsed)) {
      problems.push(`${file}: expected a mapping of settings at the top level`);
      return {};
    }
    return parsed;
  } catch (err) {
    problems.push(`${file}: ${err instanceof Error ? err.message : String(err)}`);
    return {};
  }
}

export function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}
