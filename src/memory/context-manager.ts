// Keeps a thread inside the model's context window (ARCHITECTURE.md, "Keeping a thread inside the
// window"): counts the prompt, summarises old turns past the threshold (posting the summary into
// the thread), archives what it replaces, cleans up bulky tool output after each turn, and guards
// the window on every request.

import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { Logger } from '../log/logger.ts';
import type { Fence } from '../store/lease-backend.ts';
import type { SessionHistory } from '../store/session-history.ts';
import type { Store } from '../store/store.ts';
import type { CountHint, PromptCount, PromptCounter } from './prompt-count.ts';
import { estimatePromptTokens } from './prompt-counter.ts';
import { summarizeMessages } from './summarizer.ts';
import { isSummaryMessage, summaryMessages } from './summary-message.ts';
import { compressionThreshold } from './threshold.ts';
import { cleanUpToolOutput } from './tool-output-cleanup.ts';
import { splitTurns } from './turns.ts';

export type { CountHint, PromptCount, PromptCounter } from './prompt-count.ts';

export interface ContextManagerOptions {
  history: SessionHistory;
  store: Store;
  count: PromptCounter;
  compressAtTokens: number;
  keepRecentTurns: number;
  maxModelLenFallback: number;
  maxReplyTokens: number;
  toolOutputMaxChars: number;
  postSummaries: boolean;
  summaryTimeoutMs: number;
  onCompressed?: (how: 'summary' | 'dropped') => void;
}

interface SessionMeta extends CountHint {
  summaries?: number;
  /** A message the summary covered was edited or deleted: the summary is made again first. */
  staleSummary?: boolean;
}

export interface PrepareInput {
  key: string;
  history: BaseMessage[];
  system: BaseMessage;
  human: BaseMessage;
  tools: StructuredToolInterface[];
  maxModelLen: number | undefined;
  summarizer: () => Promise<BaseChatModel>;
  /** Where the thread hears about a compression: the status before, the summary after. */
  notify: CompressionNotice;
  log: Logger;
  /** Compress whatever the count says (the server refused the request as too long). */
  force?: boolean;
  /**
   * The turn's right to write the thread's memory (its job run's or session lock's fencing token):
   * a compression's summary is saved only while it is current, else `SummaryFenced` is thrown.
   */
  fence?: Fence | undefined;
}

/** A compression or a remade summary was not saved: a newer run owns the thread's memory. */
export class SummaryFenced extends Error {
  constructor(key: string) {
    super(`a newer run owns ${key}: its summary was not saved`);
    this.name = 'SummaryFenced';
  }
}

export interface CompressionNotice {
  summarizing(): Promise<void>;
  summary(text: string): Promise<void>;
}

export interface Prepared {
  /** Stored history after any compression. */
  history: BaseMessage[];
  /** The count of [system, ...history, human]. */
  count: PromptCount;
  compressed: boolean;
  /** Tokens a request may use: the window minus the reply budget. */
  windowBudget: number;
}

export class ContextManager {
  private readonly o: ContextManagerOptions;

  constructor(o: ContextManagerOptions) {
    this.o = o;
  }

  window(maxModelLen: number | undefined): number {
    return maxModelLen ?? this.o.maxModelLenFallback;
  }

  /** The compression threshold: configured, or the smaller of 6,000 and 60% of the window. */
  threshold(maxModelLen: number | undefined): number {
    return compressionThreshold(this.o.compressAtTokens, this.window(maxModelLen));
  }

  async meta(key: string): Promise<SessionMeta> {
    return ((await this.o.store.kv.get(`meta:${key}`)) as SessionMeta | undefined) ?? {};
  }

  async prepare(p: PrepareInput): Promise<Prepared> {
    const windowBudget = Math.max(256, this.window(p.maxModelLen) - this.o.maxReplyTokens - 64);
    let history = await this.refreshSummary(p.key, p.history, p.summarizer, p.log, p.fence);
    const meta = await this.meta(p.key);
    const threshold = this.threshold(p.maxModelLen);
    // Far below the threshold an offline estimate is enough; the exact count costs a round trip.
    const quick = await estimatePromptTokens([p.system, ...history, p.human], p.tools, meta);
    let count =
      quick.tokens < threshold / 2 && !p.force
        ? quick
        : await this.o.count([p.system, ...history, p.human], p.tools, meta);
    let compressed = false;
    const over = count.tokens > threshold;
    if ((over || p.force) && splitTurns(history).length > (p.force ? 1 : this.o.keepRecentTurns)) {
      p.log.info(
        {
          tokens: count.tokens,
          source: count.source,
          threshold,
          forced: p.force === true,
        },
        'compressing thread history',
      );
      history = await this.compress(p, history);
      compressed = true;
      count = await this.o.count([p.system, ...history, p.human], p.tools, {});
    }
    return { history, count, compressed, windowBudget };
  }

  private async compress(p: PrepareInput, history: BaseMessage[]): Promise<BaseMessage[]> {
    const turns = splitTurns(history);
    const keep = p.force ? Math.min(1, this.o.keepRecentTurns) : this.o.keepRecentTurns;
    const old = turns.slice(0, -keep).flat();
    const recent = turns.slice(-keep).flat();
    await p.notify
      .summarizing()
      .catch((err: unknown) => p.log.warn({ err }, 'could not show the summarising status'));
    let summary = '';
    try {
      summary = await summarizeMessages(old, {
        model: await p.summarizer(),
        signal: AbortSignal.timeout(this.o.summaryTimeoutMs),
      });
    } catch (err) {
      p.log.warn({ err }, 'summary failed; dropping the oldest turns instead');
    }
    // The old turns are archived either way: compression never deletes.
    const next = summary ? [...summaryMessages(summary), ...recent] : recent;
    const fence = p.fence && { lease: p.fence.lease, token: p.fence.token };
    if ((await this.o.history.compress(p.key, old, next, fence)) === 'fenced') {
      throw new SummaryFenced(p.key);
    }
    const meta = await this.meta(p.key);
    await this.o.store.kv.set(`meta:${p.key}`, {
      summaries: (meta.summaries ?? 0) + (summary ? 1 : 0),
    } satisfies SessionMeta);
    this.o.onCompressed?.(summary ? 'summary' : 'dropped');
    if (summary && this.o.postSummaries) {
      await p.notify
        .summary(summary)
        .catch((err: unknown) => p.log.warn({ err }, 'could not post the summary'));
    }
    return next;
  }

  /** Marks the session's summary as covering a message that changed since it was made. */
  async markSummaryStale(key: string): Promise<void> {
    const meta = await this.meta(key);
    await this.o.store.kv.set(`meta:${key}`, { ...meta, staleSummary: true } satisfies SessionMeta);
  }

  /**
   * Makes a stale summary again from the archived turns as they are now (edited, without deleted
   * messages). If that fails the summary is dropped: it must not keep a deleted message's words.
   */
  async refreshSummary(
    key: string,
    history: BaseMessage[],
    summarizer: () => Promise<BaseChatModel>,
    log: Logger,
    fence?: Fence,
  ): Promise<BaseMessage[]> {
    const meta = await this.meta(key);
    if (!meta.staleSummary) return history;
    const kept = history.filter((m) => !isSummaryMessage(m));
    const archived = (await this.o.history.archived(key)).filter((m) => !isSummaryMessage(m));
    let summary = '';
    if (archived.length > 0) {
      try {
        summary = await summarizeMessages(archived, {
          model: await summarizer(),
          signal: AbortSignal.timeout(this.o.summaryTimeoutMs),
        });
      } catch (err) {
        log.warn({ err }, 'could not make the summary again; dropping it');
      }
    }
    const next = summary ? [...summaryMessages(summary), ...kept] : kept;
    // Fenced without a `once`: remaking the summary is not the turn's one history write.
    const guard = fence && { lease: fence.lease, token: fence.token };
    if ((await this.o.history.save(key, next, guard)) === 'fenced') throw new SummaryFenced(key);
    const { staleSummary: _, ...rest } = meta;
    await this.o.store.kv.set(`meta:${key}`, rest satisfies SessionMeta);
    log.info({ remade: summary !== '' }, 'summary made again after a change in the thread');
    return next;
  }

  /**
   * After a turn: what to store, with bulky tool output and all knowledge evidence replaced by
   * one-line records (the whole history, so evidence stored before that rule goes too).
   */
  settle(history: BaseMessage[], human: BaseMessage, added: BaseMessage[]): BaseMessage[] {
    return cleanUpToolOutput([...history, human, ...added], this.o.toolOutputMaxChars);
  }

  async remember(
    key: string,
    lastPromptTokens: number | undefined,
    lastPromptMessages: number,
  ): Promise<void> {
    if (lastPromptTokens === undefined) return;
    const meta = await this.meta(key);
    await this.o.store.kv.set(`meta:${key}`, {
      ...meta,
      lastPromptTokens,
      lastPromptMessages,
    } satisfies SessionMeta);
  }

  /** Forgets what is kept about a session besides its history (counts, summaries). */
  async forget(key: string): Promise<void> {
    await this.o.store.kv.delete(`meta:${key}`);
  }

  /** "@threadmind summarize": the same kind of summary, on demand, history untouched. */
  async summarizeOnDemand(history: BaseMessage[], summarizer: BaseChatModel): Promise<string> {
    return summarizeMessages(history, {
      model: summarizer,
      signal: AbortSignal.timeout(this.o.summaryTimeoutMs),
    });
  }
}
