import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sniff } from '../../src/attachments/sniff.ts';
import {
  binaryFile,
  buildHeadingsDocx,
  buildTextPdf,
  KOREAN_TEXT,
  koreanEucKr,
  utf16le,
} from '../fixtures/documents/index.ts';
import { pngClaimingSize, svgWithExternalEntity } from '../fixtures/images/index.ts';

test('types come from the bytes, not the name', async () => {
  assert.equal(sniff(await buildTextPdf(['x'])).kind, 'pdf');
  assert.equal(sniff(await buildHeadingsDocx()).kind, 'docx');
  assert.equal(sniff(pngClaimingSize(10, 10)).mime, 'image/png');
  assert.equal(sniff(svgWithExternalEntity()).kind, 'svg');
  assert.equal(sniff(Buffer.from('<!DOCTYPE html><html><body>Sign in</body></html>')).kind, 'html');
  assert.equal(sniff(binaryFile()).kind, 'binary');
  assert.equal(sniff(Buffer.from('PK\u0003\u0004 just a zip')).kind, 'zip');
});

test('Korean text is text in UTF-8, EUC-KR and UTF-16 even without a BOM', () => {
  assert.equal(sniff(Buffer.from(KOREAN_TEXT, 'utf8')).kind, 'text');
  assert.equal(sniff(koreanEucKr()).kind, 'text');
  assert.equal(sniff(utf16le(KOREAN_TEXT, true)).kind, 'text');
  assert.equal(
    sniff(utf16le(KOREAN_TEXT.replace(/[ \n.,]/g, ''), false).subarray(0, 4000)).kind === 'binary',
    false,
  );
  assert.equal(sniff(utf16le(`${KOREAN_TEXT} plain words too`, false)).kind, 'text');
});
