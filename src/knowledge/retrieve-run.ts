// One `retrieve` call's bookkeeping: its deadline and what is left of it, the per-phase read
// options, the denied counts, the mode that ran, and the result (or failure) it ends with.
import type { Logger } from '../log/logger.ts';
import type { ReadOptions } from './read-runner.ts';
import type { KnowledgeSettings } from './settings.ts';
import type {
  DeniedReason,
  FailureKind,
  KnowledgeItem,
  KnowledgeRequest,
  KnowledgeResult,
  RetrievalMode,
} from './types.ts';

export type Phase = (name: string) => ReadOptions;
export type Deny = (reason: DeniedReason, n: number) => void;

export class RetrieveRun {
  /** The mode that ran: the asked one, until a step falls back to another. */
  ran: RetrievalMode;
  readonly #req: KnowledgeRequest;
  readonly #settings: KnowledgeSettings;
  readonly #log: Logger;
  readonly #started = performance.now();
  readonly #deadline: number;
  readonly #denied = new Map<DeniedReason, number>();

  constructor(req: KnowledgeRequest, settings: KnowledgeSettings, log: Logger) {
    this.#req = req;
    this.#settings = settings;
    this.#log = log;
    this.#deadline = this.#started + req.timeout_ms;
    this.ran = req.retrieval_mode ?? settings.defaultMode;
  }

  remaining(): number {
    return Math.floor(this.#deadline - performance.now());
  }

  readonly deny: Deny = (reason, n) => {
    if (n > 0) this.#denied.set(reason, (this.#denied.get(reason) ?? 0) + n);
  };

  /** Each step gets the per-step ceiling or what is left of the request, and knows which it got. */
  readonly phase: Phase = (name) => {
    const left = this.remaining();
    const capped = this.#settings.phaseTimeoutMs < left;
    return {
      timeoutMs: capped ? this.#settings.phaseTimeoutMs : left,
      limit: capped ? 'phase' : 'request',
      phase: name,
      traceId: this.#req.trace_id,
    };
  };

  result(items: KnowledgeItem[], used: number, failure?: KnowledgeResult['failure']) {
    const req = this.#req;
    const out: KnowledgeResult = {
      answerable: failure === undefined && items.length > 0,
      retrieval_mode: this.ran,
      items: failure === undefined ? items : [],
      limits: {
        used_tokens: failure === undefined ? used : 0,
        max_tokens: req.max_tokens,
        elapsed_ms: Math.round(performance.now() - this.#started),
        timeout_ms: req.timeout_ms,
      },
      denied: [...this.#denied].map(([reason, count]) => ({ reason, count })),
    };
    if (failure) out.failure = failure;
    this.#log.debug(
      {
        trace_id: req.trace_id,
        mode: this.ran,
        items: out.items.length,
        denied: out.denied,
        failure,
      },
      'knowledge retrieve',
    );
    return out;
  }

  fail(kind: FailureKind, message: string): KnowledgeResult {
    return this.result([], 0, { kind, message });
  }
}
