// The core's interaction vocabulary as Discord components: a notice, card or confirmation as a
// message (content and rows of buttons whose custom_id is the action reference), a form or a
// confirmation with a typed word as a modal (a text display, then labelled inputs), and a submitted
// modal back as the core's values. Every text is kept to Discord's documented limits here.
import {
  type APIActionRowComponent,
  type APIButtonComponentWithCustomId,
  type APIModalInteractionResponseCallbackData,
  ButtonStyle,
  ComponentType as Type,
} from 'discord.js';
import { surfaceTexts } from '../../src/core/surface-texts.ts';
import { confirmButtons, confirmText, formParts } from '../../src/model/confirmation-parts.ts';
import type {
  ActionButton,
  Card,
  Confirmation,
  FieldErrors,
  Form,
  FormField,
  Shown,
} from '../../src/model/interaction.ts';
import { clip } from '../../src/text/clip.ts';

/** Discord's limits (developer docs, "Components" and "Message"). */
export const LIMITS = {
  content: 2000,
  rows: 5,
  buttonsPerRow: 5,
  buttonLabel: 80,
  customId: 100,
  modalTitle: 45,
  modalComponents: 5,
  textDisplay: 4000,
  label: 45,
  labelDescription: 100,
  textInputValue: 4000,
  placeholder: 100,
  selectOptions: 25,
  optionLabel: 100,
  optionValue: 100,
} as const;

const STYLE = {
  primary: ButtonStyle.Primary,
  secondary: ButtonStyle.Secondary,
  danger: ButtonStyle.Danger,
} as const;

type ButtonRow = APIActionRowComponent<APIButtonComponentWithCustomId>;

export interface DiscordMessage {
  content: string;
  components: ButtonRow[];
}

/** Buttons as rows of up to five (an answer's 👍/👎 are one row). */
export function rows(buttons: readonly ActionButton[]): ButtonRow[] {
  const out: ButtonRow[] = [];
  const usable = buttons.filter((b) => b.ref.length <= LIMITS.customId);
  for (let i = 0; i < usable.length && out.length < LIMITS.rows; i += LIMITS.buttonsPerRow)
    out.push({
      type: Type.ActionRow,
      components: usable.slice(i, i + LIMITS.buttonsPerRow).map((b) => ({
        type: Type.Button,
        style: STYLE[b.style ?? 'secondary'],
        label: clip(b.label, LIMITS.buttonLabel),
        custom_id: b.ref,
      })),
    });
  return out;
}

function cardText(card: Card): string {
  return [
    card.title ? `**${card.title}**` : undefined,
    card.text.text,
    ...(card.fields ?? []).map((f) => `**${f.label}:** ${f.value.text}`),
    card.context ? `-# ${card.context.text}` : undefined,
    card.sources?.text,
  ]
    .filter((t) => t !== undefined && t !== '')
    .join('\n');
}

/** A notice, card or confirmation (without a typed word) as a message. */
export function messageOf(s: Shown): DiscordMessage {
  switch (s.kind) {
    case 'notice':
      return { content: clip(s.text.text, LIMITS.content), components: [] };
    case 'card':
      return {
        content: clip(cardText(s.card), LIMITS.content),
        components: rows(s.card.actions ?? []),
      };
    case 'confirm':
      return {
        content: clip(confirmText(s.confirmation), LIMITS.content),
        components: rows(confirmButtons(s.confirmation)),
      };
    case 'form':
      return { content: clip(s.form.intro?.text ?? s.form.title, LIMITS.content), components: [] };
    case 'file':
      return { content: clip(s.text.text, LIMITS.content), components: [] };
  }
}

/** Field errors as words, for a modal Discord cannot show again. */
export function errorText(errors: FieldErrors): string {
  return clip(Object.values(errors).join('\n'), LIMITS.content);
}

function labelled(f: FormField, component: Record<string, unknown>): Record<string, unknown> {
  return {
    type: Type.Label,
    label: clip(f.label, LIMITS.label),
    ...(f.help ? { description: clip(f.help, LIMITS.labelDescription) } : {}),
    component,
  };
}

function field(f: FormField): Record<string, unknown> {
  const required = f.optional !== true;
  const choices = (
    list: readonly { value: string; label: string }[],
    picked: (v: string) => boolean,
  ) =>
    list.slice(0, LIMITS.selectOptions).map((c) => ({
      label: clip(c.label, LIMITS.optionLabel),
      value: clip(c.value, LIMITS.optionValue),
      ...(picked(c.value) ? { default: true } : {}),
    }));
  switch (f.kind) {
    case 'short':
    case 'long':
    case 'number': {
      const max =
        f.kind === 'number'
          ? String(f.max).length + 1
          : Math.min(f.maxLength ?? LIMITS.textInputValue, LIMITS.textInputValue);
      const initial =
        f.kind === 'number' ? (f.initial === undefined ? undefined : String(f.initial)) : f.initial;
      return labelled(f, {
        type: Type.TextInput,
        custom_id: f.id,
        style: f.kind === 'long' ? 2 : 1,
        required,
        max_length: max,
        ...(initial ? { value: clip(initial, max) } : {}),
        ...(f.kind !== 'number' && f.placeholder
          ? { placeholder: clip(f.placeholder, LIMITS.placeholder) }
          : {}),
        ...(f.kind === 'number' ? { placeholder: `${f.min}–${f.max}` } : {}),
      });
    }
    case 'select':
    case 'multi':
    case 'toggle': {
      const options =
        f.kind === 'toggle'
          ? choices(
              [
                { value: 'on', label: surfaceTexts.toggle.on },
                { value: 'off', label: surfaceTexts.toggle.off },
              ],
              (v) => (f.initial ? v === 'on' : v === 'off'),
            )
          : choices(f.choices, (v) =>
              f.kind === 'multi' ? (f.initial ?? []).includes(v) : f.initial === v,
            );
      return labelled(f, {
        type: Type.StringSelect,
        custom_id: f.id,
        options,
        required: f.kind === 'multi' ? false : required,
        min_values: f.kind === 'multi' ? 0 : 1,
        max_values: f.kind === 'multi' ? options.length : 1,
      });
    }
  }
}

/** A form, or a confirmation whose word must be typed, as a modal; its custom_id is the submit reference. */
export function modalOf(shown: Form | Confirmation): APIModalInteractionResponseCallbackData {
  const f = formParts(shown);
  const intro = f.intro.map((t) => t.text).join('\n\n');
  // A modal holds five components: the fields come first, the intro only where there is room.
  const roomForIntro = intro && f.fields.length < LIMITS.modalComponents;
  const components = [
    ...(roomForIntro ? [{ type: Type.TextDisplay, content: clip(intro, LIMITS.textDisplay) }] : []),
    ...f.fields.map(field),
  ].slice(0, LIMITS.modalComponents);
  return {
    custom_id: f.submit.ref,
    title: clip(f.title, LIMITS.modalTitle),
    components: components as unknown as APIModalInteractionResponseCallbackData['components'],
  };
}
