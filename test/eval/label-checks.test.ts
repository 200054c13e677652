// The mechanical label checks on a tiny synthetic set: a paraphrase that reuses a word of its
// answering sentence, a "lexical" question that shares none, a phrase that is not in the document,
// and schema mistakes are all reported by id, so a broken label fails the run instead of scoring.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { checkLabels } from '../../bench/eval/label-checks.ts';
import { type EvalSet, type LabelledQuestion, parseEvalSet } from '../../bench/eval/labels.ts';
import { contentWords } from '../../bench/eval/text-match.ts';

const HANDBOOK = [
  'Billing',
  '',
  'Returns are reimbursed within 30 days. Refund requests go to the billing team.',
  '',
  'The office is closed on Sundays.',
].join('\n');

const ANLEITUNG = 'Die Version kann niemals überschrieben werden. Das Token ist ein Geheimnis.';

function set(questions: LabelledQuestion[]): EvalSet {
  return {
    name: 'tiny',
    documentsDir: '/nowhere',
    documents: [
      { file: 'handbook.md', language: 'en', genre: 'handbook' },
      { file: 'anleitung.md', language: 'de', genre: 'guide' },
    ],
    questions,
  };
}

const texts = new Map([
  ['handbook.md', HANDBOOK],
  ['anleitung.md', ANLEITUNG],
]);

const q = (
  id: string,
  kind: 'lexical' | 'paraphrase',
  question: string,
  answer: string | string[],
  file = 'handbook.md',
): LabelledQuestion => ({ id, kind, question, file, answer });

describe('label checks', () => {
  test('labels that hold report nothing', () => {
    const ok = set([
      q('para', 'paraphrase', 'How do I get my money back?', 'reimbursed within 30 days'),
      q('lex', 'lexical', 'When is the office closed?', 'closed on   SUNDAYS'),
      q(
        'de',
        'paraphrase',
        'Darf ich eine Ausgabe später ändern?',
        'niemals überschrieben',
        'anleitung.md',
      ),
      { id: 'none', kind: 'absent', question: 'What is the parking fee?' },
    ]);
    assert.deepEqual(checkLabels(ok, texts), []);
  });

  test('a paraphrase sharing a content word with its answering sentence is named with the word', () => {
    const problems = checkLabels(
      set([q('p', 'paraphrase', 'Are returns refunded?', 'reimbursed within 30 days')]),
      texts,
    );
    assert.deepEqual(problems, [
      { id: 'p', message: 'paraphrase shares "returns" with its answering sentence' },
    ]);
  });

  test('the comparison is lower-cased and stemming-free, and skips function words', () => {
    // "refunds" is not "refund"; "there", "should" are function words; "billing" is in the next
    // sentence, not the answering one.
    const problems = checkLabels(
      set([
        q('p', 'paraphrase', 'Should there be REFUNDS? Ask billing.', 'reimbursed within 30 days'),
      ]),
      texts,
    );
    assert.deepEqual(problems, []);
  });

  test('every answer phrase of a question is checked', () => {
    const problems = checkLabels(
      set([
        q('p', 'paraphrase', 'Who handles my money back?', [
          'reimbursed within 30 days',
          'go to the billing team',
          'handled by accounting',
        ]),
      ]),
      texts,
    );
    assert.deepEqual(
      problems.map((p) => p.message),
      ['"handled by accounting" does not occur in the extracted text of handbook.md'],
    );
  });

  test('a lexical question with no word in common with the passage is reported', () => {
    const problems = checkLabels(
      set([q('l', 'lexical', 'Can I get my cash back?', 'reimbursed within 30 days')]),
      texts,
    );
    assert.match(problems[0]?.message ?? '', /lexical shares no word/);
  });

  test('unknown files and reused ids are reported', () => {
    const problems = checkLabels(
      set([
        q('a', 'lexical', 'office closed', 'closed on Sundays'),
        q('a', 'lexical', 'office closed', 'closed on Sundays', 'missing.pdf'),
      ]),
      texts,
    );
    assert.deepEqual(
      problems.map((p) => p.message),
      ['the id is used twice', "missing.pdf is not one of the set's documents"],
    );
  });

  test('Hangul words are measured in jamo, so two-syllable Korean words are content words', () => {
    assert.deepEqual([...contentWords('러스트 설치 방법', 'ko')], ['러스트', '설치', '방법']);
    assert.deepEqual([...contentWords('What does the flag do?', 'en')], ['flag']);
  });
});

describe('label file schema', () => {
  test('a question of the wrong shape is refused with its path', () => {
    const yaml = [
      'set: tiny',
      'documents:',
      '  - { file: handbook.md, language: en, genre: handbook }',
      'questions:',
      '  - { id: a, kind: lexical, question: When?, file: handbook.md }',
      '  - { id: b, kind: absent, question: Where?, file: handbook.md }',
    ].join('\n');
    assert.throws(
      () => parseEvalSet(yaml, '/nowhere'),
      (err: Error) => /questions\.0\.answer/.test(err.message) && /questions\.1/.test(err.message),
    );
  });
});
