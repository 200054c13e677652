// Typed builders for view.state.values entries, for tests that want to spell a value out instead
// of letting submitView shape a plain value from the view's element.
import type { SlackOption, ViewStateValue } from './types.ts';

function opt(value: string, text = value): SlackOption {
  return { text: { type: 'plain_text', text, emoji: true }, value };
}

export const viewState = {
  text: (value: string | null): ViewStateValue => ({ type: 'plain_text_input', value }),
  number: (value: number | null): ViewStateValue => ({
    type: 'number_input',
    value: value === null ? null : String(value),
  }),
  select: (value: string | null, text?: string): ViewStateValue => ({
    type: 'static_select',
    selected_option: value === null ? null : opt(value, text),
  }),
  radio: (value: string | null, text?: string): ViewStateValue => ({
    type: 'radio_buttons',
    selected_option: value === null ? null : opt(value, text),
  }),
  checkboxes: (values: string[]): ViewStateValue => ({
    type: 'checkboxes',
    selected_options: values.map((v) => opt(v)),
  }),
  multiSelect: (values: string[]): ViewStateValue => ({
    type: 'multi_static_select',
    selected_options: values.map((v) => opt(v)),
  }),
  user: (id: string | null): ViewStateValue => ({ type: 'users_select', selected_user: id }),
  conversation: (id: string | null): ViewStateValue => ({
    type: 'conversations_select',
    selected_conversation: id,
  }),
};
