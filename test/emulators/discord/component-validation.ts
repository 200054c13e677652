// Discord's documented limits on message components and modals: at most 5 action rows of at most
// 5 buttons (or one select), button labels of 80 characters, custom ids of 1–100 characters and
// unique in the message, select menus of 25 options, modal titles of 45 characters and 1–5 top-level
// components, labels of 45, text inputs of 4,000. A payload that breaks one is refused whole with
// Discord's "Invalid Form Body" shape, naming the field.
import { type Answer, formError } from './api-errors.ts';

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const chars = (v: unknown) => (typeof v === 'string' ? [...v].length : 0);

const ACTION_ROW = 1;
const BUTTON = 2;
const STRING_SELECT = 3;
const TEXT_INPUT = 4;
const TEXT_DISPLAY = 10;
const LABEL = 18;
const LINK = 5;
const PREMIUM = 6;

type Check = Answer | undefined;

function tooLong(path: string[], max: number): Answer {
  return formError(path, 'BASE_TYPE_MAX_LENGTH', `Must be ${max} or fewer in length.`);
}

function customId(c: Obj, path: string[], seen: Set<string>): Check {
  const id = c.custom_id;
  if (typeof id !== 'string' || id.length < 1 || id.length > 100)
    return formError(
      [...path, 'custom_id'],
      'BASE_TYPE_BAD_LENGTH',
      'Must be between 1 and 100 in length.',
    );
  if (seen.has(id))
    return formError(
      [...path, 'custom_id'],
      'COMPONENT_CUSTOM_ID_DUPLICATED',
      'Component custom id cannot be duplicated',
    );
  seen.add(id);
  return undefined;
}

function button(c: Obj, path: string[], seen: Set<string>): Check {
  const style = c.style;
  if (typeof style !== 'number' || style < 1 || style > PREMIUM)
    return formError(
      [...path, 'style'],
      'BASE_TYPE_CHOICES',
      'Value must be one of (1, 2, 3, 4, 5, 6).',
    );
  if (chars(c.label) > 80) return tooLong([...path, 'label'], 80);
  if (style === LINK || style === PREMIUM) return undefined;
  return customId(c, path, seen);
}

function select(c: Obj, path: string[], seen: Set<string>): Check {
  const options = Array.isArray(c.options) ? c.options : [];
  if (options.length < 1 || options.length > 25)
    return formError(
      [...path, 'options'],
      'BASE_TYPE_BAD_LENGTH',
      'Must be between 1 and 25 in length.',
    );
  for (const [i, o] of options.entries()) {
    if (!isObj(o))
      return formError(
        [...path, 'options', String(i)],
        'MODEL_TYPE_CONVERT',
        'Only dictionaries may be used in a ModelType',
      );
    for (const key of ['label', 'value', 'description'] as const)
      if (chars(o[key]) > 100) return tooLong([...path, 'options', String(i), key], 100);
  }
  if (chars(c.placeholder) > 150) return tooLong([...path, 'placeholder'], 150);
  return customId(c, path, seen);
}

function textInput(c: Obj, path: string[], seen: Set<string>): Check {
  if (c.label !== undefined && chars(c.label) > 45) return tooLong([...path, 'label'], 45);
  if (chars(c.placeholder) > 100) return tooLong([...path, 'placeholder'], 100);
  if (chars(c.value) > 4000) return tooLong([...path, 'value'], 4000);
  for (const key of ['min_length', 'max_length'] as const) {
    const v = c[key];
    if (v !== undefined && (typeof v !== 'number' || v < 0 || v > 4000))
      return formError(
        [...path, key],
        'NUMBER_TYPE_MAX',
        'int value should be less than or equal to 4000.',
      );
  }
  return customId(c, path, seen);
}

/** Components of a message: action rows of buttons, or of one select menu. */
export function messageComponentsProblem(components: unknown): Check {
  if (components === undefined || components === null) return undefined;
  if (!Array.isArray(components) || components.length > 5) return tooLong(['components'], 5);
  const seen = new Set<string>();
  for (const [r, row] of components.entries()) {
    const path = ['components', String(r)];
    if (!isObj(row) || row.type !== ACTION_ROW) continue;
    const inner = Array.isArray(row.components) ? row.components : [];
    if (inner.length < 1 || inner.length > 5)
      return formError(
        [...path, 'components'],
        'BASE_TYPE_BAD_LENGTH',
        'Must be between 1 and 5 in length.',
      );
    const selects = inner.filter((c) => isObj(c) && c.type === STRING_SELECT).length;
    if (selects > 0 && inner.length > 1)
      return formError(
        [...path, 'components'],
        'COMPONENT_LAYOUT_WIDTH_EXCEEDED',
        'The specified component exceeds the maximum width',
      );
    for (const [i, c] of inner.entries()) {
      const at = [...path, 'components', String(i)];
      if (!isObj(c)) continue;
      const problem =
        c.type === BUTTON
          ? button(c, at, seen)
          : c.type === STRING_SELECT
            ? select(c, at, seen)
            : undefined;
      if (problem) return problem;
    }
  }
  return undefined;
}

/** A modal's top-level components (text displays, labels, legacy rows of one text input). */
export function modalComponentsProblem(components: readonly unknown[]): Check {
  const seen = new Set<string>();
  for (const [i, c] of components.entries()) {
    const path = ['data', 'components', String(i)];
    if (!isObj(c)) continue;
    if (c.type === TEXT_DISPLAY && chars(c.content) > 4000)
      return tooLong([...path, 'content'], 4000);
    if (c.type === LABEL) {
      if (chars(c.label) < 1 || chars(c.label) > 45) return tooLong([...path, 'label'], 45);
      if (chars(c.description) > 100) return tooLong([...path, 'description'], 100);
      const inner = isObj(c.component) ? c.component : undefined;
      if (!inner)
        return formError([...path, 'component'], 'BASE_TYPE_REQUIRED', 'This field is required');
      const at = [...path, 'component'];
      const problem =
        inner.type === TEXT_INPUT
          ? textInput(inner, at, seen)
          : inner.type === STRING_SELECT
            ? select(inner, at, seen)
            : undefined;
      if (problem) return problem;
    }
    if (c.type === ACTION_ROW) {
      const inner = Array.isArray(c.components) ? c.components : [];
      for (const [j, x] of inner.entries())
        if (isObj(x) && x.type === TEXT_INPUT) {
          const problem = textInput(x, [...path, 'components', String(j)], seen);
          if (problem) return problem;
        }
    }
  }
  return undefined;
}
