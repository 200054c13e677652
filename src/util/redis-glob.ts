/** A Redis SCAN MATCH pattern for keys starting with `prefix`: glob characters in it match themselves. */
export function globPrefix(prefix: string): string {
  return `${prefix.replace(/[\\*?[\]^]/g, (c) => `\\${c}`)}*`;
}
