// The bot evaluation on a tiny synthetic set (2 Markdown files, 3 questions) through the whole
// bot: Slack emulator, the scripted relay model, the HTTP embedder against the OpenAI emulator's
// hashing embeddings (it knows no meaning; the real model is the evaluation's, not this test's).
// Also the scoring alone: a wrong answer of each kind is counted as wrong.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runBotSet } from '../../bench/eval/bot-eval.ts';
import { formatBotRun } from '../../bench/eval/bot-report.ts';
import { scoreBotAnswer, scoreBotRun } from '../../bench/eval/bot-scoring.ts';
import { type LabelledQuestion, loadEvalSet } from '../../bench/eval/labels.ts';
import { type OpenAIEmulator, startOpenAIEmulator } from '../emulators/openai/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';

// Each file is longer than the search budget below, so neither is handed over whole.
const filler = (topic: string) =>
  Array.from({ length: 8 }, (_, i) => `${topic} note ${i + 1}: nothing else of interest here.`);
const HANDBOOK = [
  '# Travel handbook',
  '## Office',
  'The office is closed on Sundays and public holidays.',
  ...filler('Handbook'),
].join('\n\n');
const GUIDE = [
  '# Printer guide',
  'Load paper in tray two. The printer prints double-sided by default.',
  ...filler('Guide'),
].join('\n\n');

const SET = `set: tiny
documents:
  - { file: handbook.md, language: en, genre: handbook }
  - { file: printer-guide.md, language: en, genre: user guide }
questions:
  - id: office
    kind: lexical
    question: When is the office closed?
    file: handbook.md
    answer: closed on Sundays
  - id: paper
    kind: lexical
    question: Which tray takes the paper?
    file: printer-guide.md
    answer: Load paper in tray two
  - id: parking
    kind: absent
    question: What does parking cost?
`;

describe('bot evaluation through the whole bot', () => {
  let dir: string;
  let embed: OpenAIEmulator;
  let h: Harness;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tm-bot-eval-'));
    await mkdir(path.join(dir, 'documents'));
    await writeFile(path.join(dir, 'tiny.yaml'), SET);
    await writeFile(path.join(dir, 'documents', 'handbook.md'), HANDBOOK);
    await writeFile(path.join(dir, 'documents', 'printer-guide.md'), GUIDE);
    embed = await startOpenAIEmulator({
      models: [],
      embeddingModels: [{ id: 'BAAI/bge-m3', dimensions: 64, max_model_len: 8192 }],
    });
    h = await startHarness({
      env: { LLM_EMBED_BASE_URL: embed.baseURL },
      overrides: { attachments: { search: { maxChars: 500 } } },
    });
  });
  after(async () => {
    await h?.close();
    await embed?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('the absent question is told "not in the files"; the answered ones reach the model', async () => {
    const set = await loadEvalSet('tiny', dir);
    const run = await runBotSet(h, set, 'CBOT1', { fileTimeoutMs: 20_000, turnTimeoutMs: 20_000 });
    assert.deepEqual(run.scores.absentNotInFiles, { k: 1, n: 1 });
    assert.deepEqual(run.scores.answeredNotInFiles, { k: 0, n: 2 });
    assert.deepEqual(run.scores.answeredReached, { k: 2, n: 2 });
    assert.deepEqual(
      run.outcomes.map((o) => o.id),
      ['office', 'paper', 'parking'],
    );
    const printed = formatBotRun(run).join('\n');
    assert.match(printed, /absent questions answered "not in the files": +1 of 1/);
    assert.match(printed, /reached the model: 2 of 2/);
    assert.match(printed, /questions no turn answered \(scored as misses\): 0/);
    // The model was handed the tool's text and said exactly that in the thread.
    const said = h.slack
      .messages('CBOT1')
      .flatMap((root) => h.slack.messages('CBOT1', root.ts))
      .map((m) => m.text)
      .join('\n');
    assert.match(said, /NOT IN THE FILES: no passage of .* answers "What does parking cost\?"/);
  });
});

describe('bot evaluation scoring', () => {
  const office: LabelledQuestion = {
    id: 'office',
    kind: 'lexical',
    question: 'When is the office closed?',
    file: 'handbook.md',
    answer: 'closed on Sundays',
  };
  const parking: LabelledQuestion = { id: 'parking', kind: 'absent', question: 'Parking?' };
  const passage = (file: string, text: string) => `[1] ${file} (posted in this thread)\n${text}`;

  test('each outcome is counted where it belongs, wrong answers as wrong', () => {
    const answered = { ms: 1, handled: 'answered' };
    const outcomes = [
      // Right: the phrase from the labelled file.
      scoreBotAnswer(office, passage('handbook.md', 'The office is Closed on\nSundays.'), answered),
      // Wrong: the phrase, but only from another file.
      scoreBotAnswer(office, passage('guide.md', 'closed on Sundays'), answered),
      // Wrong: an answered question told the files do not cover it.
      scoreBotAnswer(office, 'NOT IN THE FILES: no passage of handbook.md answers it', answered),
      // Wrong: an absent question given passages.
      scoreBotAnswer(parking, passage('handbook.md', 'The office is closed on Sundays.'), answered),
      // Right.
      scoreBotAnswer(parking, 'NOT IN THE FILES: no passage of handbook.md answers it', answered),
      // Wrong: no turn answered the mention (the bot took it for a share request).
      scoreBotAnswer(parking, '', { ms: 1, handled: 'ignored, shared' }),
    ];
    const s = scoreBotRun(outcomes);
    assert.deepEqual(s.absentNotInFiles, { k: 1, n: 3 });
    assert.deepEqual(s.answeredNotInFiles, { k: 1, n: 3 });
    assert.deepEqual(s.answeredReached, { k: 1, n: 3 });
    assert.deepEqual(s.unanswered, [{ id: 'parking', handled: 'ignored, shared' }]);
    assert.deepEqual(s.byKind, [{ kind: 'lexical', n: 3, notInFiles: 1, reached: 1 }]);
  });
});
