// A worker's ports record, per job, the messages a reply has put in the thread and their latest
// text. When the worker dies mid-answer, the job's next run finds them: the message that was cut
// off is told it continues (a stream is finished), and the answer is written again in full.
import type { Redis } from 'ioredis';
import { sourcesMarkdown } from '../core/answer-sources.ts';
import type {
  AnswerFooter,
  Destination,
  NativeStream,
  PlatformPort,
  Reaction,
  StatusKind,
  StatusShown,
  ThreadMessage,
} from '../model/platform-port.ts';
import { RenderedText } from '../model/rendered-text.ts';
import type { RunFences } from './run-fence.ts';
import { JOB_CONTEXT } from './wire.ts';

export interface PostedRecord {
  /** The platform text the message holds (a stream: all appended so far). */
  text: string;
  stream: boolean;
  /** Order of posting. */
  at: number;
}

/** Records kept a day: far longer than any retry, short enough to clean themselves up. */
const RECORD_TTL_S = 86_400;
/** The field counting posts begun and not yet recorded (message ids are never this). */
const PENDING = '_pending';
/** The field holding the answer's footer while it is due (`footerDue` until `finishAnswer`). */
const FOOTER = '_footer';

/** A due footer as recorded: its sources line is rendered again where it is placed. */
type DueFooter = Pick<AnswerFooter, 'votes' | 'sources'>;

/** Where a job's posts are recorded, under the queue's records prefix. */
export function postedKey(prefix: string, jobId: string): string {
  return `${prefix}:posted:${jobId}`;
}

export class PostRecords {
  private readonly redis: Redis;
  private readonly prefix: string;

  constructor(redis: Redis, prefix: string) {
    this.redis = redis;
    this.prefix = prefix;
  }

  private key(jobId: string): string {
    return postedKey(this.prefix, jobId);
  }

  async put(jobId: string, messageId: string, r: PostedRecord): Promise<void> {
    const key = this.key(jobId);
    await this.redis
      .multi()
      .hset(key, messageId, JSON.stringify(r))
      .expire(key, RECORD_TTL_S)
      .exec();
  }

  async drop(jobId: string, messageId: string): Promise<void> {
    await this.redis.hdel(this.key(jobId), messageId);
  }

  /** A post is about to be made: if the process dies before it is recorded, `list` says so. */
  async begin(jobId: string): Promise<void> {
    const key = this.key(jobId);
    await this.redis.multi().hincrby(key, PENDING, 1).expire(key, RECORD_TTL_S).exec();
  }

  async end(jobId: string): Promise<void> {
    await this.redis.hincrby(this.key(jobId), PENDING, -1);
  }

  /** What an earlier run of the job posted, oldest first, and whether a post was cut short. */
  async list(
    jobId: string,
  ): Promise<{ posted: Array<{ messageId: string } & PostedRecord>; unrecorded: boolean }> {
    const all = await this.redis.hgetall(this.key(jobId));
    const { [PENDING]: pending, [FOOTER]: _footer, ...rest } = all;
    const posted = Object.entries(rest)
      .map(([messageId, v]) => ({ messageId, ...(JSON.parse(v) as PostedRecord) }))
      .sort((a, b) => a.at - b.at);
    return { posted, unrecorded: Number(pending ?? 0) > 0 };
  }

  async putFooter(jobId: string, footer: DueFooter): Promise<void> {
    const key = this.key(jobId);
    await this.redis
      .multi()
      .hset(key, FOOTER, JSON.stringify(footer))
      .expire(key, RECORD_TTL_S)
      .exec();
  }

  async dropFooter(jobId: string): Promise<void> {
    await this.redis.hdel(this.key(jobId), FOOTER);
  }

  async footer(jobId: string): Promise<DueFooter | undefined> {
    const v = await this.redis.hget(this.key(jobId), FOOTER);
    return v ? (JSON.parse(v) as DueFooter) : undefined;
  }

  async clear(jobId: string): Promise<void> {
    await this.redis.del(this.key(jobId));
  }
}

function jobOf(to: Destination): string | undefined {
  const v = to.context[JOB_CONTEXT];
  return typeof v === 'string' ? v : undefined;
}

/**
 * The port, with every message a queued job's reply posts recorded under the job, and every write
 * of a run that lost its job refused (`RunFences`).
 */
export class RecordingPort implements PlatformPort {
  private readonly inner: PlatformPort;
  private readonly records: PostRecords;
  private readonly fences: RunFences | undefined;
  private seq = 0;
  readChannel?: NonNullable<PlatformPort['readChannel']>;
  displayName?: NonNullable<PlatformPort['displayName']>;
  rehydrate?: NonNullable<PlatformPort['rehydrate']>;
  resumeStream?: NonNullable<PlatformPort['resumeStream']>;
  finishAnswer?: NonNullable<PlatformPort['finishAnswer']>;
  audience?: NonNullable<PlatformPort['audience']>;
  reach?: NonNullable<PlatformPort['reach']>;
  postPrivate?: NonNullable<PlatformPort['postPrivate']>;

  constructor(inner: PlatformPort, records: PostRecords, fences?: RunFences) {
    this.inner = inner;
    this.records = records;
    this.fences = fences;
    // What posts no answer text of its own (or only a footer) is not recorded, only fenced.
    const finish = inner.finishAnswer?.bind(inner);
    if (finish)
      this.finishAnswer = async (to, id, text, footer) => {
        await this.fences?.check(to, 'footer');
        await finish(to, id, text, footer);
        const job = jobOf(to);
        if (job) await this.records.dropFooter(job);
      };
    const postPrivate = inner.postPrivate?.bind(inner);
    if (postPrivate)
      this.postPrivate = async (to, user, text) => {
        await this.fences?.check(to, 'private');
        await postPrivate(to, user, text);
      };
    if (inner.audience) this.audience = inner.audience.bind(inner);
    if (inner.reach) this.reach = inner.reach.bind(inner);
    if (inner.readChannel) this.readChannel = inner.readChannel.bind(inner);
    if (inner.displayName) this.displayName = inner.displayName.bind(inner);
    if (inner.rehydrate) this.rehydrate = inner.rehydrate.bind(inner);
    if (inner.resumeStream) this.resumeStream = inner.resumeStream.bind(inner);
  }

  get platform() {
    return this.inner.platform;
  }
  get limits() {
    return this.inner.limits;
  }
  get format() {
    return this.inner.format;
  }
  get statusRenewMs() {
    return this.inner.statusRenewMs;
  }

  private at(): number {
    return Date.now() * 1000 + (this.seq++ % 1000);
  }

  async post(to: Destination, text: RenderedText): Promise<string> {
    await this.fences?.check(to, 'post');
    const job = jobOf(to);
    if (!job) return this.inner.post(to, text);
    await this.records.begin(job);
    const id = await this.inner.post(to, text);
    await this.records.put(job, id, { text: text.text, stream: false, at: this.at() });
    await this.records.end(job);
    return id;
  }

  async edit(to: Destination, messageId: string, text: RenderedText): Promise<void> {
    await this.fences?.check(to, 'edit');
    await this.inner.edit(to, messageId, text);
    const job = jobOf(to);
    if (job)
      await this.records.put(job, messageId, { text: text.text, stream: false, at: this.at() });
  }

  async delete(to: Destination, messageId: string): Promise<void> {
    await this.fences?.check(to, 'delete');
    await this.inner.delete(to, messageId);
    const job = jobOf(to);
    if (job) await this.records.drop(job, messageId);
  }

  async footerDue(to: Destination, footer: AnswerFooter): Promise<void> {
    const job = jobOf(to);
    if (!job) return;
    const { votes, sources } = footer;
    await this.records.putFooter(job, { ...(votes ? { votes } : {}), sources });
  }

  /**
   * An earlier run kept the turn and died before its footer was placed: the footer goes on the
   * answer's last recorded message now (the same edit again where it was placed after all). True
   * when one was due.
   */
  async placeDueFooter(to: Destination, jobId: string): Promise<boolean> {
    const due = await this.records.footer(jobId);
    if (!due) return false;
    const md = sourcesMarkdown(due.sources);
    const sourcesText = md ? RenderedText.one(this.format, md) : undefined;
    const footer: AnswerFooter = { ...due, ...(sourcesText ? { sourcesText } : {}) };
    const last = (await this.records.list(jobId)).posted.at(-1);
    if (this.inner.finishAnswer) {
      // The recorded text is already the platform's (see markInterrupted).
      const [text] = last ? RenderedText.render(this.format, last.text, 'message') : [];
      await this.inner.finishAnswer(to, text && last?.messageId, text, footer);
    } else if (sourcesText) {
      await this.inner.post(to, sourcesText);
    }
    await this.records.dropFooter(jobId);
    return true;
  }

  showStatus(to: Destination, kind: StatusKind, text: RenderedText): Promise<StatusShown> {
    return this.inner.showStatus(to, kind, text);
  }

  async react(to: Destination, messageId: string, reaction: Reaction): Promise<void> {
    await this.fences?.check(to, 'react');
    await this.inner.react(to, messageId, reaction);
  }

  async startStream(to: Destination, first: RenderedText): Promise<NativeStream | null> {
    if (!this.inner.startStream) return null;
    await this.fences?.check(to, 'post');
    const job = jobOf(to);
    if (!job) return this.inner.startStream(to, first);
    await this.records.begin(job);
    const stream = await this.inner.startStream(to, first);
    if (!stream) {
      await this.records.end(job);
      return null;
    }
    const at = this.at();
    let text = first.text;
    await this.records.put(job, stream.messageId, { text, stream: true, at });
    await this.records.end(job);
    return {
      messageId: stream.messageId,
      append: async (more) => {
        await this.fences?.check(to, 'stream');
        const ok = await stream.append(more);
        if (ok) {
          text += more.text;
          await this.records.put(job, stream.messageId, { text, stream: true, at });
        }
        return ok;
      },
      stop: async (footer) => {
        await this.fences?.check(to, 'stream');
        await stream.stop(footer);
        await this.records.put(job, stream.messageId, { text, stream: false, at });
      },
    };
  }

  readThread(
    to: Destination,
    opts?: { after?: string; limit?: number },
  ): AsyncIterable<ThreadMessage> {
    return this.inner.readThread(to, opts);
  }

  isBefore(a: string, b: string): boolean {
    return this.inner.isBefore(a, b);
  }

  /**
   * Tells the thread that an earlier, interrupted run of the job was cut off and the answer
   * continues below: its last message gets the note (an open stream is finished with it, a message
   * is edited). A post the dead process made but could not record is found by reading the thread
   * after the question (`after`): the bot's messages there that no record names.
   */
  async markInterrupted(
    to: Destination,
    jobId: string,
    note: string,
    after: string,
  ): Promise<number> {
    const { posted, unrecorded } = await this.records.list(jobId);
    const left: Array<{ messageId: string; text: string; stream: boolean }> = [...posted];
    if (unrecorded) {
      const known = new Set(posted.map((p) => p.messageId));
      for await (const m of this.inner.readThread(to, { after })) {
        if (m.fromSelf && !known.has(m.id))
          left.push({ messageId: m.id, text: m.text, stream: true });
      }
      left.sort((a, b) => (this.inner.isBefore(a.messageId, b.messageId) ? -1 : 1));
    }
    const last = left.at(-1);
    for (const m of left) {
      const tail = m === last ? `\n\n${note}` : '';
      if (m.stream && this.inner.resumeStream) {
        const stream = this.inner.resumeStream(to, m.messageId);
        const [text] = tail ? RenderedText.render(this.format, tail, 'stream') : [];
        // false: the platform had closed it already; then it is edited like a message.
        const open = text ? await stream.append(text) : true;
        await stream.stop();
        if (open) continue;
      }
      if (!tail) continue;
      // The recorded text is already the platform's; rendering it again is harmless for the
      // neutralising step and keeps every post a RenderedText.
      const [text] = RenderedText.render(this.format, `${m.text}${tail}`, 'message');
      if (text) await this.inner.edit(to, m.messageId, text);
    }
    await this.records.clear(jobId);
    return left.length;
  }
}
