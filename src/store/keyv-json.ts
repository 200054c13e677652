// keyv's stored format, written and read with the engine's own JSON: keyv's default serializer
// walks every value in JavaScript and builds the text by concatenation, about twice the time of
// JSON.stringify on a session's history, which is written on every turn (ARCHITECTURE.md, "Turn
// cost"). The text is the same byte for byte (test/store/keyv-json.test.ts): a Buffer is
// ":base64:<bytes>" and a string value that starts with ":" gets one more, so stored data reads the
// same either way.
import { Buffer } from 'node:buffer';

function replacer(this: unknown, key: string, value: unknown): unknown {
  // `this[key]` is the value before its toJSON: a Buffer's would be {type, data}.
  const raw = (this as Record<string, unknown>)[key];
  if (Buffer.isBuffer(raw)) return `:base64:${raw.toString('base64')}`;
  if (typeof value === 'string' && value.startsWith(':')) return `:${value}`;
  return value;
}

export function serializeKeyv(data: unknown): string {
  return JSON.stringify(data, replacer) ?? 'null';
}

function reviver(_key: string, value: unknown): unknown {
  if (typeof value !== 'string' || !value.startsWith(':')) return value;
  return value.startsWith(':base64:') ? Buffer.from(value.slice(8), 'base64') : value.slice(1);
}

/**
 * Every stored string value that starts with ":" starts with `"::` or `":base64:` in the text, so a
 * text with neither needs no reviver (a match inside a string only costs the slower path).
 */
export function deserializeKeyv<T>(text: string): T {
  const marked = text.includes('"::') || text.includes('":base64:');
  return (marked ? JSON.parse(text, reviver) : JSON.parse(text)) as T;
}
