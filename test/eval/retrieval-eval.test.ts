// The runner end to end on a tiny synthetic set in a temp dir: Markdown files go through the real
// ingest (extraction worker, chunking, SQLite store) and lexical search, each kind gets its row, a
// mode the index lacks is reported as not available, and a label that does not hold stops the run.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadEvalSet } from '../../bench/eval/labels.ts';
import { formatSetRun } from '../../bench/eval/report.ts';
import { evaluateSet, LabelError, type SetRun } from '../../bench/eval/retrieval-eval.ts';
import { isSupported, SEARCH_MODES } from '../../bench/eval/search-adapter.ts';
import { closeExtractWorkers } from '../../src/attachments/extract/index.ts';
import { loadConfig } from '../../src/config/load-config.ts';
import { HashingEmbedder } from '../support/hashing-embedder.ts';

const HANDBOOK = `# Travel handbook

## Expenses

Returns are reimbursed within 30 days of the trip. Keep every receipt.

## Office

The office is closed on Sundays and public holidays.
`;

const GUIDE = `# Printer guide

Load paper in tray two. The printer prints double-sided by default.
`;

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
    question: Which tray takes paper?
    file: printer-guide.md
    answer: Load paper in tray two
  - id: money
    kind: paraphrase
    question: How do I get my money back?
    file: handbook.md
    answer: reimbursed within 30 days
  - id: parking
    kind: absent
    question: What does parking cost?
`;

const limits = loadConfig({ env: {} }).attachments;

describe('retrieval evaluation runner', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'tm-eval-'));
    await writeFile(path.join(dir, 'tiny.yaml'), SET);
    await writeFile(path.join(dir, 'broken.yaml'), SET.replace('tray two', 'tray three'));
    const docs = path.join(dir, 'documents');
    await mkdir(docs);
    await writeFile(path.join(docs, 'handbook.md'), HANDBOOK);
    await writeFile(path.join(docs, 'printer-guide.md'), GUIDE);
  });
  after(async () => {
    await closeExtractWorkers();
    await rm(dir, { recursive: true, force: true });
  });

  const run = async (name: string): Promise<SetRun> =>
    evaluateSet(await loadEvalSet(name, dir), {
      extract: limits.extract,
      limit: limits.search.maxHits,
      embedder: new HashingEmbedder(),
    });

  test('lexical search scores each kind; modes the index lacks say so', async () => {
    const result = await run('tiny');
    assert.deepEqual(
      result.documents.map((d) => [d.file, d.kind]),
      [
        ['handbook.md', 'text'],
        ['printer-guide.md', 'text'],
      ],
    );
    const lexical = result.modes.find((m) => m.mode === 'lexical');
    assert.ok(lexical?.available);
    const row = (kind: string) => lexical.scores.find((s) => s.kind === kind);
    assert.deepEqual(row('lexical')?.recall, { 1: 1, 3: 1, 5: 1 });
    assert.equal(row('lexical')?.mrr, 1);
    assert.equal(row('paraphrase')?.n, 1);
    assert.equal(row('absent')?.n, 1);
    assert.equal(lexical.outcomes.length, 4, 'one outcome per question');
    for (const mode of SEARCH_MODES) {
      const m = result.modes.find((x) => x.mode === mode);
      // The reranked row needs a reranker model, which this run does not give.
      const expected = isSupported(mode) && mode !== 'reranked';
      assert.equal(m?.available, expected, `${mode} runs exactly when it can`);
    }
    const reranked = result.modes.find((m) => m.mode === 'reranked');
    assert.match(reranked && !reranked.available ? reranked.reason : '', /no reranker model/);
    const table = formatSetRun(result).join('\n');
    assert.match(table, /^tiny: 2 documents \(2 markdown; \d+ chunks\), 4 questions$/m);
    assert.match(table, /^lexical\s+lexical\s+2\s+1\.00\s+1\.00\s+1\.00\s+1\.00/m);
  });

  test('a label whose phrase is not in its document stops the run, naming it', async () => {
    await assert.rejects(
      run('broken'),
      (err: unknown) =>
        err instanceof LabelError &&
        err.problems.length === 1 &&
        err.problems[0]?.id === 'paper' &&
        /does not occur in the extracted text of printer-guide\.md/.test(err.message),
    );
  });
});
