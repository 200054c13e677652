// Components' numeric `id`s, as Discord gives them: each component of a message without one gets
// the next free number, in order (a row before its children), and a component interaction names
// the clicked component by it in `data.id` beside its `custom_id`.

type Component = Record<string, unknown>;

function children(c: Component): Component[] {
  const nested = [
    ...(Array.isArray(c.components) ? c.components : []),
    ...(c.component !== undefined ? [c.component] : []),
    ...(c.accessory !== undefined ? [c.accessory] : []),
  ];
  return nested.filter((x): x is Component => x !== null && typeof x === 'object');
}

function walk(list: readonly Component[], visit: (c: Component) => void): void {
  for (const c of list) {
    visit(c);
    walk(children(c), visit);
  }
}

/** A copy of the components with every missing (or zero) `id` numbered. */
export function numberComponents(components: readonly unknown[]): Component[] {
  const copy = structuredClone(components) as Component[];
  const used = new Set<number>();
  walk(copy, (c) => {
    if (typeof c.id === 'number' && c.id !== 0) used.add(c.id);
  });
  let next = 1;
  walk(copy, (c) => {
    if (typeof c.id === 'number' && c.id !== 0) return;
    while (used.has(next)) next += 1;
    c.id = next;
    used.add(next);
  });
  return copy;
}

/** The component with this custom_id, if the message has it (the first, in order). */
export function componentOf(
  components: readonly unknown[],
  customId: string,
): Component | undefined {
  let found: Component | undefined;
  walk(components as Component[], (c) => {
    if (found === undefined && c.custom_id === customId) found = c;
  });
  return found;
}
