// Bad input gets a clear message to the person who sent it, and nothing else is lost: each hostile
// file is answered in its own thread while another conversation keeps being answered.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  binaryFile,
  buildDocxZipBomb,
  buildHeadingsDocx,
  buildManyPagesPdf,
  buildScannedPdf,
  buildTruncatedPdf,
  emptyFile,
} from '../fixtures/documents/index.ts';
import { pngClaimingSize, svgWithExternalEntity } from '../fixtures/images/index.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { waitForReply } from '../support/slack-helpers.ts';

describe('hostile files', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.close();
  });

  test('each bad file gets the right message in its thread; other conversations carry on', async () => {
    const cases: { name: string; bytes: () => Buffer | Promise<Buffer>; expect: RegExp }[] = [
      {
        name: 'broken.pdf',
        bytes: buildTruncatedPdf,
        expect: /broken\.pdf looks damaged or incomplete/,
      },
      { name: 'scan.pdf', bytes: () => buildScannedPdf(2), expect: /scan\.pdf has no text layer/ },
      {
        name: 'huge.pdf',
        bytes: () => buildManyPagesPdf(2000),
        expect: /only the first 500 of 2,000 pages/,
      },
      {
        name: 'bomb.docx',
        bytes: () => buildDocxZipBomb(),
        expect: /bomb\.docx is too large or complex to unpack safely/,
      },
      {
        name: 'minutes.pdf',
        bytes: buildHeadingsDocx,
        expect: /minutes\.pdf is not really a PDF \(it is a Word document\)/,
      },
      {
        name: 'giant.png',
        bytes: () => pngClaimingSize(50_000, 50_000),
        expect: /giant\.png is too large for me to read \(the image is 50,000 × 50,000 pixels\)/,
      },
      {
        name: 'logo.svg',
        bytes: svgWithExternalEntity,
        expect: /logo\.svg: SVG images are not accepted/,
      },
      { name: 'empty.txt', bytes: emptyFile, expect: /empty\.txt is empty/ },
      {
        name: 'data.txt',
        bytes: () => binaryFile(),
        expect: /data\.txt: it looks like a binary file/,
      },
    ];
    const posted = [];
    for (const [i, c] of cases.entries()) {
      const file = h.slack.uploadFile({ name: c.name, bytes: await c.bytes() });
      const channel = `C9${i}`;
      posted.push({
        c,
        channel,
        post: await h.slack.postUserMessage({ channel, user: 'U1', text: '', files: [file] }),
      });
    }
    // Meanwhile another conversation is answered.
    const other = await h.slack.postUserMessage({
      channel: 'C99',
      user: 'U2',
      text: `<@${h.slack.botUserId}> are you still with me?`,
    });
    await waitForReply(h.slack, 'C99', other.ts, 'are you still with me?', 15_000);
    for (const { c, channel, post } of posted) {
      const replies = await waitForReply(h.slack, channel, post.ts, c.expect, 30_000);
      assert.ok(replies.length >= 1, c.name);
    }
    // And the process is still serving afterwards.
    const after = await h.slack.postUserMessage({
      channel: 'C98',
      user: 'U2',
      text: `<@${h.slack.botUserId}> still there?`,
    });
    await waitForReply(h.slack, 'C98', after.ts, 'still there?');
  });

  test('a file over the size limit is refused before it is downloaded', async () => {
    const file = h.slack.uploadFile({ name: 'video-dump.txt', bytes: Buffer.alloc(10, 'a') });
    const big = { ...file, size: 300 * 1024 * 1024 };
    const post = await h.slack.postUserMessage({
      channel: 'C97',
      user: 'U1',
      text: '',
      files: [big],
    });
    await waitForReply(
      h.slack,
      'C97',
      post.ts,
      /video-dump\.txt is too large for me to read \(300 MB; the limit is 25 MB\)/,
    );
    assert.equal(h.slack.fileDownloads().filter((d) => d.fileId === file.id).length, 0);
  });
});
