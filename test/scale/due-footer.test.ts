// A queued answer's footer (👍/👎, sources) goes on after the turn's history is kept. A worker that
// died between the two left the turn kept and the answer without its footer; the job's next run
// finds the turn kept and places the footer from what the first run recorded, once. Real Redis
// (the records' store), the in-memory port as the platform, the real answer writer.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import { ThreadOutput } from '../../src/core/thread-output.ts';
import { silentLogger } from '../../src/log/logger.ts';
import type { AnswerFooter } from '../../src/model/answer-extras.ts';
import type { Destination } from '../../src/model/incoming.ts';
import type { RenderedText } from '../../src/model/rendered-text.ts';
import { PostRecords, RecordingPort } from '../../src/queue/recording-port.ts';
import { JOB_CONTEXT } from '../../src/queue/wire.ts';
import { MockPort, REF } from '../support/mock-port.ts';
import { startTestRedis, type TestRedis } from '../support/redis-server.ts';

/** The platform, with footers: what a person sees under each message. */
class FooterPort extends MockPort {
  readonly footers: Array<{
    id: string | undefined;
    votes: string[];
    sources: string | undefined;
  }> = [];
  async finishAnswer(
    _to: Destination,
    id: string | undefined,
    _text: RenderedText | undefined,
    footer: AnswerFooter,
  ): Promise<void> {
    this.footers.push({
      id,
      votes: (footer.votes ?? []).map((v) => v.label),
      sources: footer.sourcesText?.text,
    });
  }
}

const FOOTER = {
  votes: [
    { label: '👍', ref: 't1.feedback.up.x' },
    { label: '👎', ref: 't1.feedback.down.x' },
  ],
  sources: [{ kind: 'web' as const, title: 'The rota', link: 'https://example.org/rota' }],
};

describe('a due footer', () => {
  let redisServer: TestRedis;
  let redis: Redis;
  let records: PostRecords;
  const prefix = `due-footer-test-${process.pid}`;

  before(async () => {
    redisServer = await startTestRedis();
    redis = new Redis(redisServer.url);
    records = new PostRecords(redis, prefix);
  });

  after(async () => {
    redis?.disconnect();
    await redisServer?.stop();
  });

  /** One run of job `job`: its answer in edit mode, the footer placed only if it lives on. */
  async function run(platform: FooterPort, job: string, livesOn: boolean) {
    const to: Destination = { ref: REF, context: { [JOB_CONTEXT]: job } };
    const out = new ThreadOutput({
      port: new RecordingPort(platform, records),
      to,
      log: silentLogger(),
      thinkingText: 'is thinking…',
      updateIntervalMs: 0,
      nativeStreaming: false,
    });
    const writer = out.beginAnswer();
    writer.append('Ada is on call on Mondays.');
    await writer.finish('Ada is on call on Mondays.', FOOTER);
    // Here the history is kept; a worker killed now never places the footer.
    if (livesOn) await writer.placeFooter();
    return to;
  }

  test('a run that died after keeping the turn: the next one places its footer, once', async () => {
    const platform = new FooterPort();
    const to = await run(platform, 'job-died', false);
    assert.equal(platform.footers.length, 0, 'the answer has no footer yet');
    const answerId = [...platform.messages.keys()].at(-1);

    // The job's next run, on another worker (a port of its own over the same records).
    const next = new RecordingPort(platform, records);
    assert.equal(await next.placeDueFooter(to, 'job-died'), true);
    assert.deepEqual(platform.footers, [
      { id: answerId, votes: ['👍', '👎'], sources: platform.footers[0]?.sources },
    ]);
    assert.match(platform.footers[0]?.sources ?? '', /The rota/);
    assert.equal(platform.messages.get(answerId ?? ''), 'Ada is on call on Mondays.');
    // Run again (that run died too before marking the job done): nothing more.
    assert.equal(await next.placeDueFooter(to, 'job-died'), false);
    assert.equal(platform.footers.length, 1);
  });

  test('a run that placed its footer leaves none due', async () => {
    const platform = new FooterPort();
    const to = await run(platform, 'job-lived', true);
    assert.equal(platform.footers.length, 1);
    assert.equal(await new RecordingPort(platform, records).placeDueFooter(to, 'job-lived'), false);
    assert.equal(platform.footers.length, 1);
  });
});
