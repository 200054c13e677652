// The core's interaction vocabulary as Block Kit: a card or a confirmation as message blocks
// (buttons carry the action reference in `value`), a form or a confirmation with a typed word as a
// modal, and a modal's state back as the core's values. Every text is kept to Slack's documented
// limits here, so a long label or many choices never makes Slack refuse the whole payload.
// Everything interactive is named `tm…` (action ids, the modal's callback id): the dispatcher
// (slack-interactions.ts) listens for those and reads the reference from the value or metadata.
import { messages } from '../../src/core/messages.ts';
import { confirmButtons, formParts } from '../../src/model/confirmation-parts.ts';
import type {
  ActionButton,
  Card,
  Confirmation,
  FieldErrors,
  Form,
  FormField,
  FormValues,
  InteractionReply,
  SharedFile,
} from '../../src/model/interaction.ts';
import type { RenderedText } from '../../src/model/rendered-text.ts';
import { clip } from '../../src/text/clip.ts';
import { markdownToMrkdwn } from './mrkdwn.ts';
import { escapeText } from './mrkdwn-inline.ts';
import { MARKDOWN_LIMIT, markdownBlocks, mrkdwnSections } from './slack-markdown.ts';

/** Block Kit's limits (docs.slack.dev, Block Kit reference). */
export const LIMITS = {
  messageBlocks: 50,
  sectionText: 3000,
  sectionFields: 10,
  fieldText: 2000,
  headerText: 150,
  actionsElements: 25,
  buttonText: 75,
  modalTitle: 24,
  modalButton: 24,
  modalBlocks: 100,
  inputLabel: 2000,
  inputHint: 2000,
  plainTextInput: 3000,
  placeholder: 150,
  selectOptions: 100,
  optionText: 75,
  optionValue: 150,
  /** A message's text is cut at 40,000 characters; an inline file stays well under. */
  inlineFile: 36_000,
  /** Slack shows at most this many characters of a field error. */
  errorText: 150,
} as const;

const plain = (text: string, max: number) => ({
  type: 'plain_text' as const,
  text: clip(text, max),
  emoji: true,
});

/** The modal callback id and the prefix of every action id the dispatcher answers. */
export const INTERACTION_ID = 'tm';

/** A button named `tm:<name>`, its reference in the value. */
export function button(b: ActionButton, name: string): Record<string, unknown> {
  return {
    type: 'button',
    action_id: `${INTERACTION_ID}:${name}`,
    text: plain(b.label, LIMITS.buttonText),
    value: b.ref,
    ...(b.style ? { style: b.style } : {}),
  };
}

/** Buttons named by their place (`tm:0`, `tm:1`), or as a confirmation's (`tm:confirm`, `tm:cancel`). */
function actions(
  buttons: readonly ActionButton[],
  names?: readonly string[],
): Record<string, unknown>[] {
  if (buttons.length === 0) return [];
  const elements = buttons
    .slice(0, LIMITS.actionsElements)
    .map((b, i) => button(b, names?.[i] ?? String(i)));
  return [{ type: 'actions', elements }];
}

/** A card as message blocks: its text in a `markdown` block, which Slack renders. */
export function cardBlocks(card: Card, names?: readonly string[]): Record<string, unknown>[] {
  const blocks: Record<string, unknown>[] = [];
  if (card.title) blocks.push({ type: 'header', text: plain(card.title, LIMITS.headerText) });
  blocks.push(...markdownBlocks(clip(card.text.text, MARKDOWN_LIMIT)));
  const fields = (card.fields ?? []).slice(0, LIMITS.sectionFields);
  if (fields.length > 0)
    blocks.push({
      type: 'section',
      fields: fields.map((f) => ({
        type: 'mrkdwn',
        text: clip(`*${escapeText(f.label)}*\n${markdownToMrkdwn(f.value.text)}`, LIMITS.fieldText),
      })),
    });
  for (const line of [card.context, card.sources])
    if (line)
      blocks.push({
        type: 'context',
        elements: [{ type: 'mrkdwn', text: clip(markdownToMrkdwn(line.text), LIMITS.sectionText) }],
      });
  blocks.push(...actions(card.actions ?? [], names));
  return blocks.slice(0, LIMITS.messageBlocks);
}

/** A confirmation without a typed word, as message blocks with its two buttons. */
export function confirmationBlocks(c: Confirmation): Record<string, unknown>[] {
  return cardBlocks(
    {
      text: c.question,
      ...(c.consequences ? { context: c.consequences } : {}),
      actions: confirmButtons(c),
    },
    ['confirm', 'cancel'],
  );
}

/**
 * What a modal carries back: the references of its submit (`s`) and of its close (`c`), and the
 * channel it was opened from (`w`), where a refusal is told (a submission names no channel).
 */
export interface ModalRefs {
  s: string;
  c: string;
  w?: string;
}

export function parseModalRefs(metadata: string): ModalRefs | undefined {
  try {
    const v = JSON.parse(metadata) as Partial<ModalRefs>;
    if (typeof v.s !== 'string' || typeof v.c !== 'string') return undefined;
    return { s: v.s, c: v.c, ...(typeof v.w === 'string' ? { w: v.w } : {}) };
  } catch {
    return undefined;
  }
}

const option = (c: { value: string; label: string }) => ({
  text: plain(c.label, LIMITS.optionText),
  value: clip(c.value, LIMITS.optionValue),
});

/** A field's input element (its value is read back from action id `value`). */
function element(f: FormField): Record<string, unknown> {
  switch (f.kind) {
    case 'short':
    case 'long': {
      const max = Math.min(f.maxLength ?? LIMITS.plainTextInput, LIMITS.plainTextInput);
      return {
        type: 'plain_text_input',
        multiline: f.kind === 'long',
        max_length: max,
        ...(f.initial ? { initial_value: clip(f.initial, max) } : {}),
        ...(f.placeholder ? { placeholder: plain(f.placeholder, LIMITS.placeholder) } : {}),
      };
    }
    case 'select':
    case 'multi': {
      const options = f.choices.slice(0, LIMITS.selectOptions).map(option);
      if (f.kind === 'multi') {
        const initial = options.filter((o) => f.initial?.includes(o.value));
        return {
          type: 'multi_static_select',
          options,
          ...(initial.length > 0 ? { initial_options: initial } : {}),
        };
      }
      const initial = options.find((o) => o.value === f.initial);
      return { type: 'static_select', options, ...(initial ? { initial_option: initial } : {}) };
    }
    case 'number':
      return {
        type: 'number_input',
        is_decimal_allowed: false,
        min_value: String(f.min),
        max_value: String(f.max),
        ...(f.initial === undefined ? {} : { initial_value: String(f.initial) }),
      };
    case 'toggle': {
      const on = option({ value: 'on', label: f.label });
      return { type: 'checkboxes', options: [on], ...(f.initial ? { initial_options: [on] } : {}) };
    }
  }
}

function input(f: FormField): Record<string, unknown> {
  return {
    type: 'input',
    block_id: f.id,
    label: plain(f.label, LIMITS.inputLabel),
    optional: f.optional === true || f.kind === 'toggle' || f.kind === 'multi',
    ...(f.help ? { hint: plain(f.help, LIMITS.inputHint) } : {}),
    element: { ...element(f), action_id: 'value' },
  };
}

/** A modal: a form, or a confirmation whose word must be typed. `callback_id` names the flow. */
export function modalView(shown: Form | Confirmation, channel?: string): Record<string, unknown> {
  const f = formParts(shown);
  const refs: ModalRefs = { s: f.submit.ref, c: f.cancel.ref, ...(channel ? { w: channel } : {}) };
  // A modal takes no `markdown` block: its text is mrkdwn sections.
  const blocks = [...f.intro.flatMap((t) => mrkdwnSections(t.text)), ...f.fields.map(input)];
  return {
    type: 'modal',
    callback_id: INTERACTION_ID,
    private_metadata: JSON.stringify(refs),
    // Slack sends view_closed only when asked: closing then answers the cancel reference.
    notify_on_close: true,
    title: plain(f.title, LIMITS.modalTitle),
    submit: plain(f.submit.label, LIMITS.modalButton),
    close: plain(f.cancel.label, LIMITS.modalButton),
    blocks: blocks.slice(0, LIMITS.modalBlocks),
  };
}

type StateValue = {
  type?: string;
  value?: string | null;
  selected_option?: { value: string } | null;
  selected_options?: { value: string }[];
};

/** A submitted modal's state as the core's values (by block id: the field's id). */
export function valuesOf(state: Record<string, Record<string, StateValue>>): FormValues {
  const values: Record<string, string | number | boolean | string[]> = {};
  for (const [id, actions] of Object.entries(state)) {
    const v = actions.value;
    if (!v) continue;
    if (v.type === 'checkboxes') values[id] = (v.selected_options ?? []).length > 0;
    else if (v.type === 'multi_static_select')
      values[id] = (v.selected_options ?? []).map((o) => o.value);
    else if (v.type === 'static_select') {
      if (v.selected_option) values[id] = v.selected_option.value;
    } else if (v.type === 'number_input') {
      if (v.value) values[id] = Number(v.value);
    } else if (v.type === 'plain_text_input') {
      // Left empty: sent as '' (cleared), not left out (unchanged).
      values[id] = v.value ?? '';
    } else if (typeof v.value === 'string') values[id] = v.value;
  }
  return values;
}

/**
 * A file shown inline, privately (Slack has no private file): its words, then the file as a code
 * block, cut to what a message holds with a note saying so. Longer than a `markdown` block holds,
 * so it is the message's mrkdwn `text`.
 */
export function fileText(s: { text: RenderedText; file: SharedFile }): string {
  const body = escapeText(s.file.body);
  const room = LIMITS.inlineFile - s.text.text.length;
  // Never half an entity (`&am`) at the cut.
  const shown = body.length > room ? body.slice(0, room).replace(/&[a-z]*$/, '') : body;
  const note =
    shown.length < body.length ? `\n${messages.exportCut(shown.length, body.length)}` : '';
  return `${markdownToMrkdwn(s.text.text)} \`${escapeText(s.file.name)}\`\n\`\`\`\n${shown}\`\`\`${note}`;
}

/** The first field errors a reply carries, kept to what Slack shows. */
export function errorsOf(reply: InteractionReply): FieldErrors | undefined {
  for (const s of reply.show)
    if ((s.kind === 'form' || s.kind === 'confirm') && s.errors)
      return Object.fromEntries(
        Object.entries(s.errors).map(([k, v]) => [k, clip(v, LIMITS.errorText)]),
      );
  return undefined;
}
