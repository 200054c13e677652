// PDF and DOCX extraction through the worker: sections, pages, headings, limits, and every
// refusal with its code and user message.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { PDFParse } from 'pdf-parse';
import { closeExtractWorkers, extractDocument } from '../../src/attachments/extract/index.ts';
import {
  AttachmentError,
  type AttachmentErrorCode,
  type ExtractLimits,
} from '../../src/attachments/types.ts';
import {
  buildBlankTextPdf,
  buildDamagedPagePdf,
  buildDocx,
  buildDocxZipBomb,
  buildEncryptedOfficeFile,
  buildEncryptedPdf,
  buildHeadingsDocx,
  buildLegacyDoc,
  buildManyPagesPdf,
  buildScannedPdf,
  buildTextPdf,
  buildTruncatedPdf,
  buildZeroPagePdf,
  manyPagesText,
} from '../fixtures/documents/index.ts';
import { deflatedEntry, writeZip } from '../fixtures/documents/zip-writer.ts';

const LIMITS: ExtractLimits = {
  timeoutMs: 20_000,
  maxMemoryMb: 256,
  maxPages: 500,
  maxChars: 2_000_000,
  maxUnzippedBytes: 100 * 1024 * 1024,
};

after(() => closeExtractWorkers());

async function refusal(
  promise: Promise<unknown>,
  code: AttachmentErrorCode,
  name: string,
  detail = '',
): Promise<AttachmentError> {
  const err = await promise.then(
    () => assert.fail(`expected AttachmentError(${code})`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof AttachmentError, `not an AttachmentError: ${String(err)}`);
  assert.equal(err.code, code, err.message);
  assert.equal(err.filename, name);
  if (detail) assert.equal(err.userMessage, new AttachmentError(code, name, detail).userMessage);
  return err;
}

describe('PDF', () => {
  test('a text PDF gives one section per page, with 1-based page numbers', async () => {
    const pdf = await buildTextPdf([
      'Alpha page one',
      'Beta page two\nsecond line',
      'Gamma page three',
    ]);
    const doc = await extractDocument(pdf, 'pdf', 'report.pdf', LIMITS);
    assert.equal(doc.kind, 'pdf');
    assert.equal(doc.pages, 3);
    assert.equal(doc.partial, undefined);
    assert.deepEqual(doc.sections, [
      { text: 'Alpha page one', page: 1 },
      { text: 'Beta page two\nsecond line', page: 2 },
      { text: 'Gamma page three', page: 3 },
    ]);
  });

  test('a 2,000-page PDF stops at maxPages and says so', async () => {
    const doc = await extractDocument(buildManyPagesPdf(2000), 'pdf', 'huge.pdf', LIMITS);
    assert.equal(doc.pages, 2000);
    assert.equal(doc.sections.length, 500);
    assert.deepEqual(doc.sections[499], { text: manyPagesText(500), page: 500 });
    assert.equal(doc.partial, 'only the first 500 of 2,000 pages were read');
  });

  test('maxChars cuts the text mid-document and says up to which page', async () => {
    const doc = await extractDocument(buildManyPagesPdf(50), 'pdf', 'long.pdf', {
      ...LIMITS,
      maxChars: 1000,
    });
    const chars = doc.sections.reduce((n, s) => n + s.text.length, 0);
    assert.equal(chars, 1000);
    const last = doc.sections.at(-1)?.page;
    assert.equal(
      doc.partial,
      `only the first 1,000 characters were read (up to page ${last} of 50)`,
    );
  });

  test('a password-protected PDF is refused as encrypted', async () => {
    const pdf = buildEncryptedPdf({ userPassword: 'secret' });
    // The fixture is real encryption, not noise: with the password it opens.
    const parser = new PDFParse({ data: new Uint8Array(pdf), password: 'secret' });
    assert.equal((await parser.getText()).pages[0]?.text, 'Secret page 1');
    await parser.destroy();
    const err = await refusal(
      extractDocument(pdf, 'pdf', 'locked.pdf', LIMITS),
      'encrypted',
      'locked.pdf',
    );
    assert.equal(
      err.userMessage,
      "locked.pdf is password-protected, so I can't read it. Share a copy without a password.",
    );
  });

  test('a PDF encrypted with only an owner password opens without one', async () => {
    const doc = await extractDocument(
      buildEncryptedPdf({ userPassword: '' }),
      'pdf',
      'owner.pdf',
      LIMITS,
    );
    assert.deepEqual(doc.sections, [
      { text: 'Secret page 1', page: 1 },
      { text: 'Secret page 2', page: 2 },
    ]);
  });

  test('a truncated PDF is corrupt', async () => {
    await refusal(
      extractDocument(await buildTruncatedPdf(), 'pdf', 'cut.pdf', LIMITS),
      'corrupt',
      'cut.pdf',
      '',
    );
  });

  test('a PDF with a broken page keeps the readable pages and says some were lost', async () => {
    const doc = await extractDocument(buildDamagedPagePdf(), 'pdf', 'torn.pdf', LIMITS);
    assert.deepEqual(doc.sections[0], { text: 'Readable first page', page: 1 });
    assert.ok(!doc.sections.some((s) => s.text.includes('Lost second page')));
    assert.match(doc.partial ?? '', /could not be read because/);
  });

  test('bytes that are no PDF at all are corrupt', async () => {
    await refusal(
      extractDocument(Buffer.from('%PDF-1.7 and then nothing'), 'pdf', 'fake.pdf', LIMITS),
      'corrupt',
      'fake.pdf',
    );
  });

  test('a scan (images, no text) has no text layer', async () => {
    const err = await refusal(
      extractDocument(buildScannedPdf(3), 'pdf', 'scan.pdf', LIMITS),
      'no_text_layer',
      'scan.pdf',
    );
    assert.match(err.userMessage, /^scan\.pdf has no text layer \(it looks like a scan\)/);
  });

  test('pages with whitespace-only text also count as no text layer', async () => {
    await refusal(
      extractDocument(buildBlankTextPdf(2), 'pdf', 'blank.pdf', LIMITS),
      'no_text_layer',
      'blank.pdf',
    );
  });

  test('a PDF with zero pages is empty', async () => {
    await refusal(
      extractDocument(buildZeroPagePdf(), 'pdf', 'none.pdf', LIMITS),
      'empty',
      'none.pdf',
    );
  });
});

describe('DOCX', () => {
  test('sections split at Heading 1/2 with the heading text', async () => {
    const doc = await extractDocument(await buildHeadingsDocx(), 'docx', 'plan.docx', LIMITS);
    assert.equal(doc.kind, 'docx');
    assert.equal(doc.partial, undefined);
    assert.deepEqual(
      doc.sections.map((s) => s.heading),
      [undefined, 'Project Plan', 'Risks', '예산 계획'],
    );
    assert.deepEqual(doc.sections[0], { text: 'Intro paragraph before any heading.' });
    assert.equal(
      doc.sections[1]?.text,
      'Project Plan\n\nWe ship the search feature in May & June.',
    );
    assert.equal(
      doc.sections[2]?.text,
      'Risks\n\nThe index may grow <large>.\nOwner\tTask\nMina\tIndexing',
    );
    assert.equal(doc.sections[3]?.text, '예산 계획\n\n예산은 3월에 확정됩니다.');
  });

  test('maxChars applies to DOCX too', async () => {
    const blocks = Array.from({ length: 200 }, (_, i) => ({
      text: `Paragraph ${i} of a long memo.`,
    }));
    const doc = await extractDocument(await buildDocx(blocks), 'docx', 'memo.docx', {
      ...LIMITS,
      maxChars: 500,
    });
    assert.equal(
      doc.sections.reduce((n, s) => n + s.text.length, 0),
      500,
    );
    assert.match(doc.partial ?? '', /^only the first 500 of [\d,]+ characters were read$/);
  });

  test('a DOCX without any text is empty', async () => {
    await refusal(
      extractDocument(await buildDocx([]), 'docx', 'blank.docx', LIMITS),
      'empty',
      'blank.docx',
    );
  });

  test('a zip bomb is refused from its central directory, before anything is inflated', async () => {
    const err = await refusal(
      extractDocument(buildDocxZipBomb(), 'docx', 'bomb.docx', LIMITS),
      'too_complex',
      'bomb.docx',
    );
    assert.match(
      err.userMessage,
      /^bomb\.docx is too large or complex to unpack safely \(it unpacks to 301 MB; the limit is 100 MB\)/,
    );
  });

  test('a part with an absurd compression ratio is refused even under the size limit', async () => {
    const bomb = buildDocxZipBomb({ unpackedMb: 20 });
    const err = await refusal(
      extractDocument(bomb, 'docx', 'dense.docx', LIMITS),
      'too_complex',
      'dense.docx',
    );
    assert.match(err.userMessage, /a part of it expands [\d,]+ times when unpacked/);
  });

  test('a central directory that understates sizes is caught when the part is inflated', async () => {
    const bomb = buildDocxZipBomb({ unpackedMb: 300, lie: true });
    const err = await refusal(
      extractDocument(bomb, 'docx', 'liar.docx', LIMITS),
      'too_complex',
      'liar.docx',
    );
    assert.match(err.userMessage, /its parts are larger than the file says/);
  });

  test('a password-protected Office file (OLE with EncryptedPackage) is encrypted', async () => {
    await refusal(
      extractDocument(buildEncryptedOfficeFile(), 'docx', 'secret.docx', LIMITS),
      'encrypted',
      'secret.docx',
    );
  });

  test('a legacy .doc container is an unsupported type', async () => {
    await refusal(
      extractDocument(buildLegacyDoc(), 'docx', 'old.doc', LIMITS),
      'unsupported_type',
      'old.doc',
      'it is in an old Office format (.doc, .xls or .ppt); save it as .docx or PDF',
    );
  });

  test('bytes that are not a ZIP are corrupt', async () => {
    await refusal(
      extractDocument(Buffer.from('not a zip at all'), 'docx', 'x.docx', LIMITS),
      'corrupt',
      'x.docx',
      'it is not a valid Word document',
    );
  });

  test('a ZIP without a document part is corrupt', async () => {
    const zip = writeZip([deflatedEntry('hello.txt', 'hello')]);
    await refusal(
      extractDocument(zip, 'docx', 'y.docx', LIMITS),
      'corrupt',
      'y.docx',
      'it has no document text part',
    );
  });

  test('a DOCX with broken XML is corrupt', async () => {
    const zip = writeZip([
      deflatedEntry('[Content_Types].xml', '<Types/>'),
      deflatedEntry('word/document.xml', '<w:document><w:body><w:p>unclosed'),
    ]);
    await refusal(
      extractDocument(zip, 'docx', 'z.docx', LIMITS),
      'corrupt',
      'z.docx',
      'it is not a valid Word document',
    );
  });
});
