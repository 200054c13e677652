// The committed evaluation sets stay usable: their labels hold against the text the project's
// extractors read from the committed PDF, DOCX and Markdown files, the sets keep the size and mix
// the evaluation promises, and every document's source and licence is written down.
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { checkLabels } from '../../bench/eval/label-checks.ts';
import { type EvalSet, FIXTURES_DIR, loadEvalSet } from '../../bench/eval/labels.ts';
import { closeExtractWorkers, extractDocument } from '../../src/attachments/extract/index.ts';
import { joinSections } from '../../src/attachments/index/chunk.ts';
import { sniff } from '../../src/attachments/sniff.ts';
import { loadConfig } from '../../src/config/load-config.ts';

const limits = loadConfig({ env: {} }).attachments.extract;

async function extractedTexts(set: EvalSet): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const d of set.documents) {
    const bytes = new Uint8Array(await readFile(path.join(set.documentsDir, d.file)));
    const kind = sniff(bytes).kind;
    assert.ok(kind === 'pdf' || kind === 'docx' || kind === 'text', `${d.file} is ${kind}`);
    const doc = await extractDocument(bytes, kind, d.file, limits);
    texts.set(d.file, joinSections(doc.sections));
  }
  return texts;
}

const count = (set: EvalSet, kind: string) => set.questions.filter((q) => q.kind === kind).length;

describe('evaluation fixtures', () => {
  after(closeExtractWorkers);

  for (const name of ['dev', 'heldout']) {
    test(`${name}: every label holds against its extracted document`, async () => {
      const set = await loadEvalSet(name);
      assert.deepEqual(checkLabels(set, await extractedTexts(set)), []);
    });
  }

  test('dev has 60+ questions over 5+ documents, 6+ of them absent; held-out 30+ over 3+ others', async () => {
    const dev = await loadEvalSet('dev');
    const heldout = await loadEvalSet('heldout');
    assert.ok(dev.questions.length >= 60 && dev.documents.length >= 5);
    assert.ok(count(dev, 'absent') >= 6 && count(dev, 'paraphrase') >= 20);
    assert.ok(heldout.questions.length >= 30 && heldout.documents.length >= 3);
    assert.ok(count(heldout, 'absent') >= 3 && count(heldout, 'paraphrase') >= 10);
    const devFiles = new Set(dev.documents.map((d) => d.file));
    assert.deepEqual(
      heldout.documents.filter((d) => devFiles.has(d.file)),
      [],
      'held-out documents are other documents',
    );
    const all = [...dev.documents, ...heldout.documents];
    for (const ext of ['.pdf', '.docx', '.md']) {
      assert.ok(
        all.some((d) => d.file.endsWith(ext)),
        `a ${ext} document goes through extraction`,
      );
    }
    for (const lang of ['en', 'de', 'ko'])
      assert.ok(
        all.some((d) => d.language === lang),
        lang,
      );
  });

  test('every document is attributed, and the documents stay small', async () => {
    const attribution = await readFile(path.join(FIXTURES_DIR, 'ATTRIBUTION.md'), 'utf8');
    let bytes = 0;
    for (const name of ['dev', 'heldout']) {
      const set = await loadEvalSet(name);
      for (const d of set.documents) {
        assert.ok(attribution.includes(`\`${d.file}\``), `${d.file} is in ATTRIBUTION.md`);
        bytes += (await stat(path.join(set.documentsDir, d.file))).size;
      }
    }
    assert.ok(bytes < 2 * 1024 * 1024, `${bytes} bytes of documents`);
  });
});
