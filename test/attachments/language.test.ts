// Words read in their own language: Snowball stems and stop words for English and German, Korean
// by bigrams with its stop words, and a query read in the languages of the files it searches.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { AttachmentIndex, tokenize } from '../../src/attachments/index/index.ts';
import { detectLanguage } from '../../src/attachments/index/language.ts';
import { createStore } from '../../src/compose/create-store.ts';
import type { Owner } from '../../src/scope/scope.ts';
import type { Store } from '../../src/store/store.ts';
import { textFile } from './index-fixtures.ts';

let store: Store;
before(async () => {
  store = await createStore('sqlite://:memory:');
});
after(() => store.close());

const channel = (): Owner => ({ kind: 'channel', key: `slack:T${randomUUID().slice(0, 8)}:C1` });
const file = textFile;

const GERMAN =
  'Der Mieter kann das Mietverhältnis mit einer Frist von drei Monaten schriftlich kündigen. ' +
  'Die Kündigungsfristen gelten für beide Seiten. Hunde sind im Treppenhaus an der Leine zu führen.';
const ENGLISH =
  'The die casting process is described here. Refund policies apply to annual plans only.';

describe('languages', () => {
  test('chunks and queries are detected as English, German or Korean', () => {
    assert.equal(detectLanguage(GERMAN).lang, 'de');
    assert.equal(detectLanguage(ENGLISH).lang, 'en');
    assert.equal(detectLanguage('연차휴가 규정은 다음과 같다.').lang, 'ko');
    assert.equal(detectLanguage('12345 67').lang, '');
  });

  test('German: Snowball stems fold inflections, and German stop words are not terms', () => {
    assert.deepEqual(tokenize('Hunde', 'de'), tokenize('Hund', 'de'));
    assert.deepEqual(tokenize('Monaten', 'de'), tokenize('Monate', 'de'));
    assert.deepEqual(tokenize('für ich einen die und der', 'de'), []);
    assert.ok(tokenize('die Kündigung', 'de').length === 1);
  });

  test('English: plurals and inflections fold; stop words go, content words the list held stay', () => {
    assert.deepEqual(tokenize('policies', 'en'), tokenize('policy', 'en'));
    assert.deepEqual(tokenize('running runs', 'en'), tokenize('run run', 'en'));
    assert.deepEqual(tokenize('the of and which would', 'en'), []);
    assert.equal(tokenize('information system security', 'en').length, 3);
  });
});

describe('searching by words in several languages', () => {
  test('a German document is found by German inflections, not by German stop words', async () => {
    const ix = new AttachmentIndex(store);
    const o = channel();
    await ix.addFile(o, file('haus'), [{ text: GERMAN }]);
    assert.equal((await ix.search([o], 'Muss der Hund an die Leine?', 5))[0]?.fileId, 'haus');
    assert.equal((await ix.search([o], 'Kündigungsfrist Monat', 5))[0]?.fileId, 'haus');
    assert.deepEqual(await ix.search([o], 'für ich einen die', 5), []);
  });

  test('asked in English words, a German document still matches by its own stems', async () => {
    const ix = new AttachmentIndex(store);
    const o = channel();
    await ix.addFile(o, file('haus'), [{ text: GERMAN }]);
    // "Kündigungsfrist" read as English stays itself; read as German it meets "Kündigungsfristen".
    assert.notDeepEqual(tokenize('Kündigungsfrist', 'en'), tokenize('Kündigungsfristen', 'de'));
    const hits = await ix.search([o], 'What is the Kündigungsfrist?', 5);
    assert.equal(hits[0]?.fileId, 'haus');
  });

  test('a German question’s stop words do not match an English document that uses them', async () => {
    const ix = new AttachmentIndex(store);
    const o = channel();
    await ix.addFile(o, file('en'), [{ text: ENGLISH }]);
    await ix.addFile(o, file('haus'), [{ text: GERMAN }]);
    const hits = await ix.search([o], 'Wie lange ist die Kündigungsfrist?', 5);
    assert.deepEqual(
      hits.map((h) => h.fileId),
      ['haus'],
    );
    assert.equal((await ix.search([o], 'die casting', 5))[0]?.fileId, 'en');
  });

  test('Korean is still found inside longer words and with particles; Korean stop words are not', async () => {
    const ix = new AttachmentIndex(store);
    const o = channel();
    await ix.addFile(o, file('hr'), [
      { text: '연차휴가 규정은 다음과 같다. 직원은 매년 15일의 휴가를 쓴다.' },
    ]);
    await ix.addFile(o, file('menu'), [{ text: '오늘 점심 메뉴는 김치찌개와 된장국이다.' }]);
    for (const q of ['휴가 규정', '휴가는', '연차휴가는 며칠인가요?']) {
      assert.equal((await ix.search([o], q, 5))[0]?.fileId, 'hr', q);
    }
    assert.deepEqual(await ix.search([o], '그리고 또한', 5), []);
  });
});
