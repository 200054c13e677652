// The Slack and Discord renderers keep every card, confirmation and form within the platforms'
// documented limits, whatever the core hands them (long words, many choices, many buttons): the
// emulators' checks, which refuse what Slack and Discord refuse, accept every payload.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { messageOf, modalOf } from '../../adapters/discord/discord-cards.ts';
import {
  cardBlocks,
  confirmationBlocks,
  modalView,
  valuesOf,
} from '../../adapters/slack/slack-cards.ts';
import type { Card, Confirmation, Form } from '../../src/model/interaction.ts';
import { RenderedText } from '../../src/model/rendered-text.ts';
import {
  messageComponentsProblem,
  modalComponentsProblem,
} from '../emulators/discord/component-validation.ts';
import { blockProblems } from '../emulators/slack/block-kit.ts';
import { viewProblems } from '../emulators/slack/methods/views.ts';

const plain = {
  neutralize: (s: string) => s,
};
const text = (s: string) => RenderedText.one(plain, s);
const long = (n: number) => 'word '.repeat(n).trim();
const ref = (i: number) =>
  `t1.share.ok.Abcd.abcdefghijkl.${(1_900_000_000 + i).toString(36)}.AAAAAAAAAAAAAAAA`;

const card: Card = {
  title: long(60),
  text: text(long(1000)),
  fields: Array.from({ length: 14 }, (_, i) => ({ label: `field ${i}`, value: text(long(500)) })),
  context: text(long(40)),
  sources: text('a.pdf · b.docx'),
  actions: Array.from({ length: 30 }, (_, i) => ({
    label: long(40),
    ref: ref(i),
    ...(i === 0 ? { style: 'primary' as const } : {}),
  })),
};

const confirmation: Confirmation = {
  title: 'Erase everything this workspace holds, for good',
  question: text(long(900)),
  consequences: text(long(100)),
  confirm: { label: long(30), ref: ref(1), style: 'danger' },
  cancel: { label: 'Cancel', ref: ref(2) },
  expiresAt: Date.now() + 600_000,
  typedWord: { word: 'ERASE', label: `Type ERASE to confirm ${long(30)}` },
};

const choices = Array.from({ length: 150 }, (_, i) => ({
  value: `value-${i}-${'x'.repeat(200)}`,
  label: long(30),
}));
const form: Form = {
  title: 'How I behave in this channel, and with whom',
  intro: text(long(50)),
  fields: [
    { kind: 'short', id: 'name', label: long(60), initial: long(10), maxLength: 5000 },
    {
      kind: 'long',
      id: 'instructions',
      label: 'Instructions',
      maxLength: 1500,
      help: long(600),
      placeholder: long(60),
    },
    { kind: 'select', id: 'model', label: 'Model', choices, initial: choices[3]?.value ?? '' },
    {
      kind: 'multi',
      id: 'tools',
      label: 'Tools',
      choices: choices.slice(0, 4),
      initial: [choices[1]?.value ?? ''],
    },
    { kind: 'number', id: 'context', label: 'Channel context', min: 0, max: 50, initial: 20 },
    { kind: 'toggle', id: 'knowledge', label: 'Knowledge', initial: true },
  ],
  submit: { label: 'Save these settings now please', ref: ref(3) },
  cancel: { label: 'Cancel', ref: ref(4) },
};

test('Slack: cards, confirmations and modals stay within Block Kit limits', () => {
  assert.deepEqual(blockProblems(cardBlocks(card), 'message'), []);
  assert.deepEqual(blockProblems(confirmationBlocks(confirmation), 'message'), []);
  assert.deepEqual(viewProblems(modalView(form, 'C1')), []);
  assert.deepEqual(viewProblems(modalView(confirmation, 'C1')), []);
});

test('Slack: a submitted modal reads back as the form’s values', () => {
  const values = valuesOf({
    name: { value: { type: 'plain_text_input', value: 'Ada' } },
    model: { value: { type: 'static_select', selected_option: { value: 'm2' } } },
    tools: { value: { type: 'multi_static_select', selected_options: [{ value: 'files' }] } },
    context: { value: { type: 'number_input', value: '12' } },
    knowledge: { value: { type: 'checkboxes', selected_options: [] } },
  });
  assert.deepEqual(values, {
    name: 'Ada',
    model: 'm2',
    tools: ['files'],
    context: 12,
    knowledge: false,
  });
});

test('Discord: messages and modals stay within the component limits', () => {
  for (const shown of [
    { kind: 'card' as const, card, audience: 'private' as const },
    { kind: 'confirm' as const, confirmation, audience: 'private' as const },
  ]) {
    const m = messageOf(shown);
    assert.ok([...m.content].length <= 2000);
    assert.equal(messageComponentsProblem(m.components), undefined);
  }
  for (const modal of [modalOf(form), modalOf(confirmation)]) {
    assert.ok(String(modal.title).length <= 45);
    assert.ok(modal.components.length >= 1 && modal.components.length <= 5);
    assert.equal(modalComponentsProblem(modal.components), undefined);
  }
});

test('the emulators refuse what the platforms refuse', () => {
  const button = (label: string) => ({
    type: 'button',
    action_id: label,
    text: { type: 'plain_text', text: label },
  });
  assert.notDeepEqual(
    blockProblems([{ type: 'actions', elements: [button('x'.repeat(76))] }], 'message'),
    [],
  );
  assert.notDeepEqual(
    blockProblems(
      [{ type: 'header', text: { type: 'plain_text', text: 'x'.repeat(151) } }],
      'message',
    ),
    [],
  );
  const row = (n: number) => ({
    type: 1,
    components: Array.from({ length: n }, (_, i) => ({
      type: 2,
      style: 2,
      label: 'b',
      custom_id: `c${i}`,
    })),
  });
  assert.notEqual(messageComponentsProblem([row(6)]), undefined);
  assert.notEqual(messageComponentsProblem([row(1), row(1)]), undefined, 'custom ids are unique');
  assert.notEqual(
    modalComponentsProblem([
      { type: 18, label: 'x'.repeat(46), component: { type: 4, custom_id: 'w', style: 1 } },
    ]),
    undefined,
  );
});
