// What a person filled in, read by the form's own fields: each platform hands values its way (Slack
// typed from the block, Discord a text input's words or a select's picks, the web page typed), and
// a flow gets them typed once, with a field error (data, never words to match) for each problem.
import type { FieldErrors, FormField, FormValue, FormValues } from '../../model/interaction.ts';
import { messages } from '../messages.ts';

export type ReadValue = string | number | boolean | readonly string[] | undefined;

function first(v: FormValue | undefined): string | undefined {
  if (Array.isArray(v)) return v[0];
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
}

/** One field's value, or the problem with it. */
function read(f: FormField, v: FormValue | undefined): { value: ReadValue } | { error: string } {
  switch (f.kind) {
    case 'short':
    case 'long': {
      const s = (first(v) ?? '').trim();
      if (s === '') return f.optional ? { value: undefined } : { error: messages.fieldRequired };
      if (f.maxLength !== undefined && [...s].length > f.maxLength)
        return { error: messages.fieldTooLong(f.maxLength) };
      return { value: s };
    }
    case 'number': {
      const s = first(v)?.trim() ?? '';
      if (s === '') return f.optional ? { value: undefined } : { error: messages.fieldRequired };
      const n = Number(s);
      if (!Number.isInteger(n) || n < f.min || n > f.max)
        return { error: messages.fieldOutOfRange(f.min, f.max) };
      return { value: n };
    }
    case 'toggle':
      return { value: v === true || first(v) === 'on' || first(v) === 'true' };
    case 'select': {
      const picked = first(v);
      if (picked === undefined || picked === '')
        return f.optional ? { value: undefined } : { error: messages.fieldRequired };
      return f.choices.some((c) => c.value === picked)
        ? { value: picked }
        : { error: messages.fieldNotAChoice };
    }
    case 'multi': {
      const picked = Array.isArray(v) ? v : typeof v === 'string' && v !== '' ? [v] : [];
      return picked.every((p) => f.choices.some((c) => c.value === p))
        ? { value: picked }
        : { error: messages.fieldNotAChoice };
    }
  }
}

/** The values of `fields`, typed, and an error for each field that cannot be read. */
export function readForm(
  fields: readonly FormField[],
  values: FormValues,
): { values: Record<string, ReadValue>; errors: FieldErrors | undefined } {
  const out: Record<string, ReadValue> = {};
  const errors: Record<string, string> = {};
  for (const f of fields) {
    const r = read(f, values[f.id]);
    if ('error' in r) errors[f.id] = r.error;
    else out[f.id] = r.value;
  }
  return { values: out, errors: Object.keys(errors).length > 0 ? errors : undefined };
}

/** The longest text a posted value may hold (a long field's limit is far below). */
const MAX_POSTED_TEXT = 20_000;

/**
 * Values posted as JSON (the web page's form), checked before any form reads them: undefined
 * unless an object whose every value is a text (of bounded length), a number, a boolean or a list
 * of texts.
 */
export function postedValues(v: unknown): FormValues | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const values: Record<string, FormValue> = {};
  for (const [k, x] of Object.entries(v)) {
    const ok =
      (typeof x === 'string' && x.length <= MAX_POSTED_TEXT) ||
      typeof x === 'number' ||
      typeof x === 'boolean' ||
      (Array.isArray(x) && x.every((y) => typeof y === 'string'));
    if (!ok) return undefined;
    values[k] = x as FormValue;
  }
  return values;
}
