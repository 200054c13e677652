// An Embedder over an OpenAI-compatible `POST {base}/embeddings` (vLLM with `--runner pooling`,
// the embedded engine on loopback, or any server that speaks the same API). Texts go in batches of
// bounded size, a bounded number of requests at once across all callers, each with its own time
// limit. Which model is served is learnt from /models when none is configured; the dimension is
// learnt from the first answer and held: a vector of another dimension is an error, never kept.
import { fetchModels } from '../model-info.ts';
import { SideModelHttp } from '../side-http.ts';
import type { Embedder, EmbedOptions, EmbedPurpose } from './embedder.ts';
import { EmbeddingError, embeddingErrorOf } from './embedding-error.ts';
import { parseEmbeddings } from './embeddings-wire.ts';

/** Text put before a query or a document, for models trained with them (E5: "query: "). */
export interface EmbedPrefixes {
  query?: string | undefined;
  document?: string | undefined;
}

export interface HttpEmbedderOptions {
  /** The OpenAI-compatible base URL, e.g. http://embed:8000/v1. */
  baseUrl: string;
  /** The model to ask for; empty: the first one the server lists. */
  model: string;
  apiKey?: string | undefined;
  /** Most texts in one request. */
  batchSize: number;
  /** Most requests in flight at once, across every caller of this embedder. */
  concurrency: number;
  /** Time allowed for one request. */
  timeoutMs: number;
  /** Prefixes by model id; a model not listed gets none. */
  prefixes?: Readonly<Record<string, EmbedPrefixes>>;
  /** Ask for base64 vectors (a quarter of the bytes) instead of JSON numbers. Default float. */
  encodingFormat?: 'float' | 'base64';
  fetch?: typeof fetch;
}

export class HttpEmbedder implements Embedder {
  private readonly o: HttpEmbedderOptions;
  private readonly http: SideModelHttp;
  private discovery: Promise<string> | undefined;
  private modelId: string | undefined;
  private dims: number | undefined;

  constructor(o: HttpEmbedderOptions) {
    this.o = o;
    this.http = new SideModelHttp(
      { ...o, path: 'embeddings' },
      {
        noun: 'embedding',
        make: (reason, message, cause) => new EmbeddingError(reason, message, { cause }),
        classify: embeddingErrorOf,
        // A discovered model that is no longer served (the server was given another): learn
        // again on the next call, under a new id, so old and new vectors are never compared.
        onNotFound: () => {
          if (!o.model) this.forget();
        },
      },
    );
    if (o.model) this.modelId = o.model;
  }

  /**
   * `model@dimension` (plus the document prefix, which changes stored vectors), once both are
   * known: after the first `embed` or `ready()`. Before that it ends in `@?` and matches no stored
   * vector.
   */
  get id(): string {
    const prefix = this.prefixFor('document');
    return `${this.modelId ?? ''}@${this.dims ?? '?'}${prefix ? `|${prefix}` : ''}`;
  }

  /** The model asked for: configured, or learnt from /models. */
  get model(): string | undefined {
    return this.modelId;
  }

  /** The dimension of every vector, once the first answer came. */
  get dimensions(): number | undefined {
    return this.dims;
  }

  /** Learns the model and its dimension (one short request) and returns the final `id`. */
  async ready(signal?: AbortSignal): Promise<string> {
    if (this.dims === undefined || this.modelId === undefined)
      await this.embed(['dimension probe'], { purpose: 'query', ...(signal ? { signal } : {}) });
    return this.id;
  }

  /** For /readyz: the server lists models within a short time, the one in use among them. */
  async check(timeoutMs = 3000): Promise<void> {
    const models = await fetchModels({
      baseUrl: this.o.baseUrl,
      apiKey: this.o.apiKey,
      timeoutMs,
      ...(this.o.fetch ? { fetch: this.o.fetch } : {}),
    });
    const wanted = this.modelId;
    if (wanted !== undefined && !models.some((m) => m.id === wanted))
      throw new EmbeddingError('unavailable', `${this.o.baseUrl} no longer serves ${wanted}`);
  }

  async embed(texts: readonly string[], opts: EmbedOptions): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const model = await this.resolveModel(opts.signal);
    const prefix = this.prefixFor(opts.purpose);
    const input = prefix ? texts.map((t) => prefix + t) : [...texts];
    const size = Math.max(1, this.o.batchSize);
    const batches: string[][] = [];
    for (let i = 0; i < input.length; i += size) batches.push(input.slice(i, i + size));
    // Every batch is started (each waits for a permit); the first failure fails the call.
    const results = await Promise.all(batches.map((b) => this.request(model, b, opts.signal)));
    return results.flat();
  }

  private prefixFor(purpose: EmbedPurpose): string {
    if (this.modelId === undefined) return '';
    return this.o.prefixes?.[this.modelId]?.[purpose] ?? '';
  }

  private resolveModel(signal: AbortSignal | undefined): Promise<string> {
    if (this.modelId !== undefined) return Promise.resolve(this.modelId);
    this.discovery ??= this.http.firstModel(signal).then(
      (id) => {
        this.modelId = id;
        return id;
      },
      (err: unknown) => {
        this.discovery = undefined; // tried again on the next call
        throw err;
      },
    );
    return this.discovery;
  }

  private async request(
    model: string,
    input: string[],
    signal: AbortSignal | undefined,
  ): Promise<Float32Array[]> {
    const format = this.o.encodingFormat ?? 'float';
    const body = await this.http.post({ model, input, encoding_format: format }, signal);
    const vectors = parseEmbeddings(body, input.length, this.dims);
    if (this.modelId === model) this.dims ??= vectors[0]?.length;
    return vectors;
  }

  private forget(): void {
    this.discovery = undefined;
    this.modelId = undefined;
    this.dims = undefined;
  }
}
