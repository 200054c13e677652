// A confirmation's parts as every renderer shows them (Slack blocks, Discord components, the web
// page's card): its words, question first, and its two buttons, confirm first; and a form, or a
// confirmation whose word must be typed, as the one thing a modal (or the page's form) shows.
import type { ActionButton, Confirmation, Form, FormField, Label } from './interaction.ts';
import { TYPED_WORD_FIELD } from './interaction.ts';
import type { RenderedText } from './rendered-text.ts';

/** The question, then what follows from it, a blank line between. */
export function confirmText(c: Confirmation): string {
  return [c.question.text, c.consequences?.text].filter(Boolean).join('\n\n');
}

/** Confirm (in its style), then cancel. */
export function confirmButtons(c: Confirmation): ActionButton[] {
  return [
    { label: c.confirm.label, ref: c.confirm.ref, style: c.confirm.style },
    { label: c.cancel.label, ref: c.cancel.ref },
  ];
}

/** What a modal shows: its words (each its own paragraph), its fields, submit and cancel. */
export interface FormParts {
  title: Label;
  intro: readonly RenderedText[];
  fields: readonly FormField[];
  submit: { label: Label; ref: string };
  cancel: { label: Label; ref: string };
}

/**
 * A form as it is, or a confirmation as a form: its question and consequences the words, the
 * typed word (if any) the one field, confirm the submit.
 */
export function formParts(shown: Form | Confirmation): FormParts {
  const { title, cancel } = shown;
  if ('fields' in shown) {
    const intro = shown.intro ? [shown.intro] : [];
    return { title, intro, fields: shown.fields, submit: shown.submit, cancel };
  }
  const word = shown.typedWord;
  return {
    title,
    intro: shown.consequences ? [shown.question, shown.consequences] : [shown.question],
    fields: word
      ? [
          {
            kind: 'short',
            id: TYPED_WORD_FIELD,
            label: word.label,
            maxLength: Math.max(20, word.word.length),
          },
        ]
      : [],
    submit: { label: shown.confirm.label, ref: shown.confirm.ref },
    cancel,
  };
}
