// The HTTP part shared by the side models (embeddings, a reranker) on an OpenAI-compatible server:
// one JSON POST under its own deadline and a bound on requests in flight across all callers, its
// failures classified into the caller's error class, and learning which model is served.
import { Semaphore } from '../util/semaphore.ts';
import { fetchModels } from './model-info.ts';
import type { SideModelReason } from './side-error.ts';

export interface SideHttpOptions {
  /** The OpenAI-compatible base URL, e.g. http://embed:8000/v1. */
  baseUrl: string;
  /** The path posted to under the base URL, e.g. "embeddings". */
  path: string;
  apiKey?: string | undefined;
  /** Time allowed for one request. */
  timeoutMs: number;
  /** Most requests in flight at once. */
  concurrency: number;
  fetch?: typeof fetch | undefined;
}

/** How a side model names its failures: its error class, and its classification of the rest. */
export interface SideHttpErrors {
  /** The kind of model in messages, e.g. "embedding". */
  noun: string;
  make(reason: SideModelReason, message: string, cause?: unknown): Error;
  classify(err: unknown, what: string): Error;
  /** Called on an HTTP 404: the model asked for may no longer be served. */
  onNotFound?: () => void;
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError');
}

export class SideModelHttp {
  readonly url: string;
  private readonly o: SideHttpOptions;
  private readonly errors: SideHttpErrors;
  private readonly gate: Semaphore;

  constructor(o: SideHttpOptions, errors: SideHttpErrors) {
    this.o = o;
    this.errors = errors;
    this.url = `${o.baseUrl.replace(/\/+$/, '')}/${o.path}`;
    this.gate = new Semaphore(Math.max(1, o.concurrency));
  }

  /** POSTs `payload` as JSON and returns the parsed answer, or throws the caller's error. */
  async post(payload: unknown, signal: AbortSignal | undefined): Promise<unknown> {
    const release = await this.gate.acquire();
    try {
      signal?.throwIfAborted();
      const timeout = AbortSignal.timeout(this.o.timeoutMs);
      const both = signal ? AbortSignal.any([signal, timeout]) : timeout;
      try {
        const res = await (this.o.fetch ?? fetch)(this.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...(this.o.apiKey ? { authorization: `Bearer ${this.o.apiKey}` } : {}),
          },
          body: JSON.stringify(payload),
          signal: both,
        });
        if (!res.ok) {
          await res.body?.cancel();
          if (res.status === 404) this.errors.onNotFound?.();
          throw Object.assign(new Error(`answered HTTP ${res.status}`), { status: res.status });
        }
        return await res.json();
      } catch (err) {
        throw this.failure(err, signal, timeout);
      }
    } finally {
      release();
    }
  }

  /** The first model the server lists, for when none is configured. */
  async firstModel(signal: AbortSignal | undefined): Promise<string> {
    signal?.throwIfAborted();
    const { noun } = this.errors;
    let models: { id: string }[];
    try {
      models = await fetchModels({
        baseUrl: this.o.baseUrl,
        apiKey: this.o.apiKey,
        timeoutMs: this.o.timeoutMs,
        ...(this.o.fetch ? { fetch: this.o.fetch } : {}),
      });
    } catch (err) {
      throw this.errors.make('unavailable', `cannot list the ${noun} models: ${String(err)}`, err);
    }
    const first = models[0];
    if (!first) throw this.errors.make('unavailable', `${this.o.baseUrl} lists no ${noun} model`);
    return first.id;
  }

  private failure(err: unknown, signal: AbortSignal | undefined, timeout: AbortSignal): Error {
    const e = this.errors;
    if (signal?.aborted) return e.make('aborted', 'the caller stopped waiting', signal.reason);
    if (timeout.aborted && isAbort(err))
      return e.make('timeout', `POST ${this.url} took over ${this.o.timeoutMs} ms`, err);
    if (err instanceof SyntaxError)
      return e.make('bad_response', `POST ${this.url} answered with no JSON`, err);
    return e.classify(err, `POST ${this.url}`);
  }
}
