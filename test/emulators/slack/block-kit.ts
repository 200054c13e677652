// Block Kit's documented limits, checked the way Slack checks them: a message or modal that breaks
// one is refused whole (`invalid_blocks`, or `invalid_arguments` for a view), with a pointer to the
// offending field. Only the blocks and elements the bot uses are known; anything else passes.
// `markdown` blocks are for messages only, and hold 12,000 characters together per payload.

const MAX = {
  messageBlocks: 50,
  modalBlocks: 100,
  blockId: 255,
  actionId: 255,
  sectionText: 3000,
  sectionFields: 10,
  fieldText: 2000,
  headerText: 150,
  contextElements: 10,
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2000,
  inputLabel: 2000,
  inputHint: 2000,
  plainTextInput: 3000,
  placeholder: 150,
  selectOptions: 100,
  checkboxOptions: 10,
  optionText: 75,
  optionValue: 150,
  markdownTotal: 12_000,
} as const;

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const length = (s: unknown) => (typeof s === 'string' ? [...s].length : 0);

/** Problems with a text object: its type, and its text's length. */
function text(v: unknown, at: string, max: number, plainOnly: boolean): string[] {
  if (!isObj(v) || typeof v.text !== 'string') return [`missing required field: text [${at}]`];
  if (v.type !== 'plain_text' && (plainOnly || v.type !== 'mrkdwn'))
    return [`must be a ${plainOnly ? 'plain_text' : 'text'} object [${at}/type]`];
  if (v.text.length === 0) return [`must be at least 1 character [${at}/text]`];
  return length(v.text) > max ? [`must be at most ${max} characters [${at}/text]`] : [];
}

function option(o: unknown, at: string): string[] {
  if (!isObj(o)) return [`must be an option object [${at}]`];
  return [
    ...text(o.text, `${at}/text`, MAX.optionText, false),
    ...(length(o.value) > MAX.optionValue || typeof o.value !== 'string'
      ? [`must be at most ${MAX.optionValue} characters [${at}/value]`]
      : []),
  ];
}

function element(e: unknown, at: string): string[] {
  if (!isObj(e)) return [`must be an element [${at}]`];
  const out: string[] = [];
  if (e.action_id !== undefined && length(e.action_id) > MAX.actionId)
    out.push(`must be at most ${MAX.actionId} characters [${at}/action_id]`);
  if (e.placeholder !== undefined)
    out.push(...text(e.placeholder, `${at}/placeholder`, MAX.placeholder, true));
  switch (e.type) {
    case 'button':
      out.push(...text(e.text, `${at}/text`, MAX.buttonText, true));
      if (length(e.value) > MAX.buttonValue)
        out.push(`must be at most ${MAX.buttonValue} characters [${at}/value]`);
      if (e.style !== undefined && e.style !== 'primary' && e.style !== 'danger')
        out.push(`must be one of primary, danger [${at}/style]`);
      break;
    case 'plain_text_input':
      if (
        typeof e.max_length === 'number' &&
        (e.max_length < 1 || e.max_length > MAX.plainTextInput)
      )
        out.push(`must be between 1 and ${MAX.plainTextInput} [${at}/max_length]`);
      if (
        length(e.initial_value) >
        (typeof e.max_length === 'number' ? e.max_length : MAX.plainTextInput)
      )
        out.push(`initial_value longer than max_length [${at}/initial_value]`);
      break;
    case 'static_select':
    case 'multi_static_select':
    case 'checkboxes': {
      const max = e.type === 'checkboxes' ? MAX.checkboxOptions : MAX.selectOptions;
      const options = Array.isArray(e.options) ? e.options : [];
      if (options.length === 0 || options.length > max)
        out.push(`must have between 1 and ${max} items [${at}/options]`);
      options.forEach((o, i) => {
        out.push(...option(o, `${at}/options/${i}`));
      });
      break;
    }
    case 'number_input':
      if (typeof e.is_decimal_allowed !== 'boolean')
        out.push(`missing required field: is_decimal_allowed [${at}]`);
      break;
  }
  return out;
}

function block(b: unknown, at: string): string[] {
  if (!isObj(b) || typeof b.type !== 'string') return [`missing required field: type [${at}]`];
  const out: string[] = [];
  if (b.block_id !== undefined && length(b.block_id) > MAX.blockId)
    out.push(`must be at most ${MAX.blockId} characters [${at}/block_id]`);
  switch (b.type) {
    case 'section': {
      if (b.text === undefined && b.fields === undefined)
        out.push(`must provide text or fields [${at}]`);
      if (b.text !== undefined) out.push(...text(b.text, `${at}/text`, MAX.sectionText, false));
      const fields = Array.isArray(b.fields) ? b.fields : [];
      if (fields.length > MAX.sectionFields)
        out.push(`no more than ${MAX.sectionFields} items allowed [${at}/fields]`);
      fields.forEach((f, i) => {
        out.push(...text(f, `${at}/fields/${i}`, MAX.fieldText, false));
      });
      if (b.accessory !== undefined) out.push(...element(b.accessory, `${at}/accessory`));
      break;
    }
    case 'header':
      out.push(...text(b.text, `${at}/text`, MAX.headerText, true));
      break;
    case 'context': {
      const elements = Array.isArray(b.elements) ? b.elements : [];
      if (elements.length === 0 || elements.length > MAX.contextElements)
        out.push(`must have between 1 and ${MAX.contextElements} items [${at}/elements]`);
      break;
    }
    case 'actions': {
      const elements = Array.isArray(b.elements) ? b.elements : [];
      if (elements.length === 0 || elements.length > MAX.actionsElements)
        out.push(`must have between 1 and ${MAX.actionsElements} items [${at}/elements]`);
      const ids = elements
        .map((e) => (isObj(e) ? e.action_id : undefined))
        .filter((id) => id !== undefined);
      if (new Set(ids).size !== ids.length)
        out.push(`action_id values must be unique [${at}/elements]`);
      elements.forEach((e, i) => {
        out.push(...element(e, `${at}/elements/${i}`));
      });
      break;
    }
    case 'markdown':
      if (typeof b.text !== 'string') out.push(`missing required field: text [${at}]`);
      else if (b.text.length === 0) out.push(`must be at least 1 character [${at}/text]`);
      break;
    case 'input':
      out.push(...text(b.label, `${at}/label`, MAX.inputLabel, true));
      if (b.hint !== undefined) out.push(...text(b.hint, `${at}/hint`, MAX.inputHint, true));
      out.push(...element(b.element, `${at}/element`));
      break;
  }
  return out;
}

/**
 * Slack's complaints about blocks on a surface (`message`, `modal`, or a message through a
 * `response_url`), empty when it would accept them. Slack documents the `markdown` block for
 * messages sent through the Web API, not for a response_url's payload, so the emulator refuses it
 * there: the bot must not rely on it.
 */
export function blockProblems(
  blocks: readonly unknown[],
  surface: 'message' | 'modal' | 'response_url',
  at = '',
): string[] {
  const max = surface === 'modal' ? MAX.modalBlocks : MAX.messageBlocks;
  const out: string[] = [];
  if (blocks.length > max)
    out.push(`no more than ${max} items allowed [json-pointer:${at}/blocks]`);
  blocks.forEach((b, i) => {
    out.push(...block(b, `json-pointer:${at}/blocks/${i}`));
  });
  if (surface !== 'modal' && blocks.some((b) => isObj(b) && b.type === 'input'))
    out.push(`input blocks are not allowed in messages [json-pointer:${at}/blocks]`);
  const markdown = blocks.filter((b) => isObj(b) && b.type === 'markdown') as Obj[];
  if (surface === 'modal' && markdown.length > 0)
    out.push(`markdown blocks are only allowed in messages [json-pointer:${at}/blocks]`);
  if (surface === 'response_url' && markdown.length > 0)
    out.push(`markdown blocks are not taken by a response_url [json-pointer:${at}/blocks]`);
  const total = markdown.reduce((n, b) => n + length(b.text), 0);
  if (total > MAX.markdownTotal)
    out.push(
      `markdown blocks must hold at most ${MAX.markdownTotal} characters together [json-pointer:${at}/blocks]`,
    );
  return out;
}

/**
 * What a person sees in a message, as the source Slack renders: the Markdown of its `markdown`
 * blocks, else a stream's `markdown_text`, else its `text` (mrkdwn).
 */
export function shownText(m: { text: string; blocks?: unknown[]; markdown_text?: string }): string {
  const markdown = (m.blocks ?? []).filter(
    (b): b is { type: 'markdown'; text: string } =>
      isObj(b) && b.type === 'markdown' && typeof b.text === 'string',
  );
  if (markdown.length > 0) return markdown.map((b) => b.text).join('\n');
  return m.markdown_text ?? m.text;
}
