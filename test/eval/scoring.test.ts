// The evaluation's scoring on hand-made passages: a hit counts only in the labelled file and only if
// the text the model receives shows an answer phrase; recall@k, MRR and the "nothing returned"
// share per kind come out as a reader of the table would compute them.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LabelledQuestion } from '../../bench/eval/labels.ts';
import {
  type QuestionOutcome,
  type ScoredPassage,
  scoreByKind,
  scoreQuestion,
} from '../../bench/eval/scoring.ts';

const timing = { searchMs: 1, embedMs: 0 };

const refund: LabelledQuestion = {
  id: 'refund',
  kind: 'paraphrase',
  question: 'How do I get my money back?',
  file: 'handbook.pdf',
  answer: ['reimbursed within 30 days', 'refund requests go to billing'],
};

const filler = (file = 'handbook.pdf'): ScoredPassage => ({
  file,
  passage: 'The office is closed on Sundays.',
});

describe('scoring one question', () => {
  test('the rank is that of the first passage showing an answer phrase in the labelled file', () => {
    const passages = [
      filler(),
      { file: 'other.pdf', passage: 'Returns are reimbursed within 30 days.' },
      { file: 'handbook.pdf', passage: 'Returns are\n  REIMBURSED   within 30 days.' },
    ];
    const o = scoreQuestion(refund, passages, timing);
    assert.equal(o.rank, 3, 'case and whitespace do not matter; the other file does not count');
    assert.equal(o.returned, 3);
  });

  test('any one of several answer phrases counts', () => {
    const o = scoreQuestion(
      refund,
      [{ file: 'handbook.pdf', passage: 'Refund requests go to billing.' }],
      timing,
    );
    assert.equal(o.rank, 1);
  });

  test('an answer beyond the fifth passage is a miss', () => {
    const passages = [...Array(5)].map(() => filler());
    passages.push({ file: 'handbook.pdf', passage: 'reimbursed within 30 days' });
    assert.equal(scoreQuestion(refund, passages, timing).rank, undefined);
  });

  test('an answer only in the chunk behind a passage counts for chunk@5, not for recall', () => {
    const passages = [
      { ...filler(), chunk: 'Sundays. Returns are reimbursed within 30 days of purchase.' },
    ];
    const o = scoreQuestion(refund, passages, timing);
    assert.equal(o.rank, undefined);
    assert.equal(o.chunkRank, 1);
  });

  test('curly quotes in the passage match straight quotes in the label', () => {
    const q: LabelledQuestion = {
      id: 'v',
      kind: 'lexical',
      question: 'Is "v1.2.3" a semantic version?',
      file: 'semver.md',
      answer: '"v1.2.3" is not a semantic version',
    };
    const o = scoreQuestion(
      q,
      [{ file: 'semver.md', passage: 'No, “v1.2.3” is not a semantic version.' }],
      timing,
    );
    assert.equal(o.rank, 1);
  });

  test('passage characters add up what the model would read', () => {
    const o = scoreQuestion(refund, [filler(), filler()], timing);
    assert.equal(o.passageChars, 2 * 'The office is closed on Sundays.'.length);
  });
});

describe('scores per kind', () => {
  const outcome = (
    kind: QuestionOutcome['kind'],
    rank?: number,
    returned = 5,
  ): QuestionOutcome => ({
    id: `${kind}-${rank}`,
    kind,
    ...(rank === undefined ? {} : { rank, chunkRank: rank }),
    returned,
    passageChars: 0,
    ...timing,
  });

  test('recall@1/3/5 and MRR over the questions of each kind', () => {
    const scores = scoreByKind([
      outcome('lexical', 1),
      outcome('lexical', 2),
      outcome('lexical', 4),
      outcome('lexical'),
      outcome('paraphrase', 3),
      outcome('paraphrase', undefined, 0),
    ]);
    const lexical = scores.find((s) => s.kind === 'lexical');
    assert.deepEqual(lexical?.recall, { 1: 0.25, 3: 0.5, 5: 0.75 });
    assert.equal(lexical?.mrr, (1 + 1 / 2 + 1 / 4 + 0) / 4);
    assert.equal(lexical?.none, 0);
    const paraphrase = scores.find((s) => s.kind === 'paraphrase');
    assert.deepEqual(paraphrase?.recall, { 1: 0, 3: 0.5, 5: 0.5 });
    assert.equal(paraphrase?.none, 0.5, 'a search that returned nothing is a miss, and shown');
    assert.equal(
      scores.find((s) => s.kind === 'absent'),
      undefined,
      'a kind without questions has no row',
    );
  });

  test('absent questions score the share of searches that returned nothing', () => {
    const [absent] = scoreByKind([
      outcome('absent', undefined, 0),
      outcome('absent', undefined, 6),
      outcome('absent', undefined, 0),
      outcome('absent', undefined, 0),
    ]);
    assert.equal(absent?.kind, 'absent');
    assert.equal(absent?.none, 0.75);
    assert.equal(absent?.recall, undefined);
    assert.equal(absent?.mrr, undefined);
  });
});
