// A confirmation's parts as every renderer shows them (Slack blocks, Discord components, the web
// page's card): its words, question first, and its two buttons, confirm first.
import type { ActionButton, Confirmation } from './interaction.ts';

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
