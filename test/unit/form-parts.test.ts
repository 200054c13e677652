// What every modal (Slack, Discord) and the web page's form show for a form or a confirmation:
// the confirmation's question and consequences as its words, its typed word as the one field,
// confirm as the submit.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formParts } from '../../src/model/confirmation-parts.ts';
import { type Confirmation, TYPED_WORD_FIELD } from '../../src/model/interaction.ts';
import { RenderedText } from '../../src/model/rendered-text.ts';

const plain = {
  neutralize: (s: string) => s,
};
const text = (s: string) => RenderedText.one(plain, s);

const erase: Confirmation = {
  title: 'Erase',
  question: text('Erase everything?'),
  consequences: text('It cannot be undone.'),
  confirm: { label: 'Erase', ref: 'ok-ref', style: 'danger' },
  cancel: { label: 'Cancel', ref: 'no-ref' },
  expiresAt: 0,
  typedWord: { word: 'ERASE', label: 'Type ERASE' },
};

test('a confirmation with a word: its words, the word’s field, confirm as submit', () => {
  const f = formParts(erase);
  assert.deepEqual(
    f.intro.map((t) => t.text),
    ['Erase everything?', 'It cannot be undone.'],
  );
  assert.deepEqual(f.fields, [
    { kind: 'short', id: TYPED_WORD_FIELD, label: 'Type ERASE', maxLength: 20 },
  ]);
  assert.deepEqual(f.submit, { label: 'Erase', ref: 'ok-ref' });
  assert.deepEqual(f.cancel, { label: 'Cancel', ref: 'no-ref' });
});

test('a word longer than the field’s usual length still fits', () => {
  const word = 'W'.repeat(30);
  const { consequences: _none, ...bare } = erase;
  const f = formParts({ ...bare, typedWord: { word, label: 'Type it' } });
  assert.equal(f.intro.length, 1);
  assert.equal(f.fields[0]?.kind === 'short' && f.fields[0].maxLength, 30);
});

test('a form is shown as it is', () => {
  const form = {
    title: 'Settings',
    fields: [{ kind: 'toggle' as const, id: 'on', label: 'On' }],
    submit: { label: 'Save', ref: 's' },
    cancel: { label: 'Cancel', ref: 'c' },
  };
  const f = formParts(form);
  assert.deepEqual(f.intro, []);
  assert.equal(f.fields, form.fields);
  assert.equal(f.submit, form.submit);
});
