// Text files: encoding detection (Korean in UTF-8, EUC-KR/CP949 and UTF-16; Western legacy text),
// binary refusal, Markdown sections and limits.
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import {
  closeExtractWorkers,
  decodeText,
  extractDocument,
} from '../../src/attachments/extract/index.ts';
import { AttachmentError, type ExtractLimits } from '../../src/attachments/types.ts';
import {
  binaryFile,
  controlCharFile,
  emptyFile,
  encodeEucKr,
  KOREAN_TEXT,
  koreanEucKr,
  koreanUtf8,
  MARKDOWN_TEXT,
  utf16be,
  utf16le,
  WESTERN_TEXT,
  whitespaceFile,
  windows1252,
} from '../fixtures/documents/index.ts';

const LIMITS: ExtractLimits = {
  timeoutMs: 20_000,
  maxMemoryMb: 128,
  maxPages: 500,
  maxChars: 2_000_000,
  maxUnzippedBytes: 100 * 1024 * 1024,
};
const BINARY = "I can't read blob.bin: it looks like a binary file, not text.";

after(() => closeExtractWorkers());

describe('decodeText', () => {
  const cases: [string, Buffer, string][] = [
    ['UTF-8', koreanUtf8(), 'utf-8'],
    ['UTF-8 with BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), koreanUtf8()]), 'utf-8'],
    ['EUC-KR / CP949', koreanEucKr(), 'euc-kr'],
    ['UTF-16LE with BOM', utf16le(KOREAN_TEXT), 'utf-16le'],
    ['UTF-16BE with BOM', utf16be(KOREAN_TEXT), 'utf-16be'],
    ['UTF-16LE without BOM', utf16le(KOREAN_TEXT, false), 'utf-16le'],
    ['UTF-16BE without BOM', utf16be(KOREAN_TEXT, false), 'utf-16be'],
  ];
  for (const [name, bytes, encoding] of cases) {
    test(`Korean in ${name}`, () => {
      assert.deepEqual(decodeText(bytes), { text: KOREAN_TEXT, encoding });
    });
  }

  test('CP949 extension syllables survive (Node drops them in TextDecoder("euc-kr"))', () => {
    // 똠 is 8C 63: outside KS X 1001, so only a CP949 decoder knows it.
    assert.equal(decodeText(encodeEucKr('똠방각하')).text, '똠방각하');
    assert.notEqual(new TextDecoder('euc-kr').decode(encodeEucKr('똠')), '똠');
  });

  test('windows-1252 text is not mistaken for Korean, even where it is valid CP949', () => {
    assert.deepEqual(decodeText(windows1252(WESTERN_TEXT)), {
      text: WESTERN_TEXT,
      encoding: 'windows-1252',
    });
  });

  test('a UTF-8 file cut mid-character is still UTF-8', () => {
    const bytes = Buffer.from('로그 파일', 'utf8');
    assert.deepEqual(decodeText(bytes.subarray(0, bytes.length - 1)), {
      text: '로그 파',
      encoding: 'utf-8',
    });
  });

  test('binary data is refused with a user message', () => {
    for (const bytes of [binaryFile(), controlCharFile()]) {
      assert.throws(
        () => decodeText(bytes, 'blob.bin'),
        (err: unknown) =>
          err instanceof AttachmentError &&
          err.code === 'unsupported_type' &&
          err.userMessage.startsWith(BINARY),
      );
    }
  });

  test('empty input decodes to empty text', () => {
    assert.deepEqual(decodeText(emptyFile()), { text: '', encoding: 'utf-8' });
  });
});

describe('text extraction', () => {
  test('Korean files in every encoding give the same text and report the encoding', async () => {
    for (const [bytes, encoding] of [
      [koreanUtf8(), 'utf-8'],
      [koreanEucKr(), 'euc-kr'],
      [utf16le(KOREAN_TEXT), 'utf-16le'],
    ] as const) {
      const doc = await extractDocument(bytes, 'text', 'notes.txt', LIMITS);
      assert.deepEqual(doc, { kind: 'text', sections: [{ text: KOREAN_TEXT }], encoding });
    }
  });

  test('Markdown splits at headings (ATX and setext), not at # lines inside code fences', async () => {
    const doc = await extractDocument(Buffer.from(MARKDOWN_TEXT), 'text', 'README.md', LIMITS);
    assert.deepEqual(
      doc.sections.map((s) => s.heading),
      [undefined, 'Install', 'Configure', 'Troubleshooting'],
    );
    assert.match(doc.sections[0]?.text ?? '', /^---\ntitle: Release notes\n---\nIntro line/);
    assert.match(
      doc.sections[1]?.text ?? '',
      /^# Install\n[\s\S]*# not a heading: a shell comment\nnpm install/,
    );
    assert.equal(doc.sections[2]?.text, '## Configure ##\n\nSet the token.\n');
    assert.equal(doc.sections[3]?.text, 'Troubleshooting\n---------------\n\nRestart it.\n');
  });

  test('other text is one section, with CRLF turned into LF', async () => {
    const doc = await extractDocument(
      Buffer.from('a,b\r\n# not markdown,2\r\n'),
      'text',
      'data.csv',
      LIMITS,
    );
    assert.deepEqual(doc.sections, [{ text: 'a,b\n# not markdown,2\n' }]);
  });

  test('maxChars cuts the text and says how much was read', async () => {
    const doc = await extractDocument(Buffer.from('x'.repeat(12_345)), 'text', 'big.txt', {
      ...LIMITS,
      maxChars: 1000,
    });
    assert.equal(doc.sections[0]?.text.length, 1000);
    assert.equal(doc.partial, 'only the first 1,000 of 12,345 characters were read');
  });

  test('empty and whitespace-only files are empty', async () => {
    for (const bytes of [emptyFile(), whitespaceFile()]) {
      const err = await extractDocument(bytes, 'text', 'blank.txt', LIMITS).catch(
        (e: unknown) => e,
      );
      assert.ok(err instanceof AttachmentError);
      assert.equal(err.code, 'empty');
      assert.equal(err.userMessage, 'blank.txt is empty: there is no text in it to read.');
    }
  });

  test('a binary file is refused', async () => {
    const err = await extractDocument(binaryFile(), 'text', 'blob.bin', LIMITS).catch(
      (e: unknown) => e,
    );
    assert.ok(err instanceof AttachmentError);
    assert.equal(err.code, 'unsupported_type');
    assert.ok(err.userMessage.startsWith(BINARY), err.userMessage);
  });
});
