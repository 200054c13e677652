import type { Logger } from '../log/logger.ts';
import { cachedPromise } from '../util/cached-promise.ts';
import { type ChatModelOptions, createChatModel, type OfflineChatOpenAI } from './chat-model.ts';
import { type PriorityPolicy, probePriorityPolicy } from './gpu-share.ts';
import { fetchModelInfo, fetchModels, type ModelInfo } from './model-info.ts';
import type { UsageSink } from './usage-meter.ts';

export interface ModelEndpointOptions {
  baseUrl: string;
  model: string;
  apiKey?: string | undefined;
  temperature: number;
  maxReplyTokens: number;
  requestTimeoutMs: number;
  maxRetries: number;
  /** Stream replies (the text model) or not (the vision model, read whole by a tool). */
  streaming?: boolean;
  log: Logger;
  fetch?: typeof fetch;
  /**
   * vLLM's request priority: `auto` probes the server once (ARCHITECTURE.md, "Sharing the GPU"),
   * `on` trusts that it runs `--scheduling-policy priority`, `off` never sends one. Default off.
   */
  priority?: 'auto' | 'on' | 'off';
  /** Send `cache_salt` per audience. Default false. */
  cacheSalt?: boolean;
  usage?: UsageSink | undefined;
}

export interface ResolvedModel {
  chat: OfflineChatOpenAI;
  info: ModelInfo;
}

/**
 * A model server (text or vision). Which model is served is learnt from /v1/models on first use (not at start-up,
 * so the bot starts while the GPU node is still loading) and kept once known.
 */
export class ModelEndpoint {
  /** By model id ('' = the configured default). */
  private readonly resolved = new Map<string, Promise<ResolvedModel>>();
  private readonly o: ModelEndpointOptions;
  private policy: PriorityPolicy;
  private probing: Promise<PriorityPolicy> | undefined;

  constructor(o: ModelEndpointOptions) {
    this.o = o;
    this.policy = o.priority === 'on' ? 'priority' : o.priority === 'auto' ? 'unknown' : 'fcfs';
  }

  /** Whether requests carry vLLM's `priority` now. */
  get priorityPolicy(): PriorityPolicy {
    return this.policy;
  }

  /** The priority policy, probed once with `auto` (again later if the server did not say). */
  learnPolicy(model: string): Promise<PriorityPolicy> {
    if (this.o.priority !== 'auto' || this.policy !== 'unknown')
      return Promise.resolve(this.policy);
    this.probing ??= probePriorityPolicy({ ...this.endpoint(10_000), model }).then((p) => {
      this.policy = p;
      this.probing = undefined;
      this.o.log.info({ priority_policy: p }, 'model server scheduling policy');
      return p;
    });
    return this.probing;
  }

  /** What every chat model of this endpoint shares: priority, cache salt, usage. */
  private shared(): Pick<ChatModelOptions, 'share' | 'usage'> {
    return {
      share: { policy: () => this.policy, cacheSalt: this.o.cacheSalt ?? false },
      usage: this.o.usage,
    };
  }

  get baseUrl(): string {
    return this.o.baseUrl;
  }

  /** The configured model, or `model` (a channel's choice among those the server lists). */
  resolve(model = ''): Promise<ResolvedModel> {
    // A failed discovery is retried on the next turn rather than cached.
    return cachedPromise(this.resolved, model, () => this.discover(model || this.o.model));
  }

  /** The ids the server serves now. */
  async models(timeoutMs = 5000): Promise<string[]> {
    return (await fetchModels(this.endpoint(timeoutMs))).map((m) => m.id);
  }

  private endpoint(timeoutMs: number) {
    return {
      baseUrl: this.o.baseUrl,
      apiKey: this.o.apiKey,
      timeoutMs,
      ...(this.o.fetch ? { fetch: this.o.fetch } : {}),
    };
  }

  private async discover(model: string): Promise<ResolvedModel> {
    const info = await fetchModelInfo(this.endpoint(10_000), model);
    this.o.log.info(
      { model: info.id, max_model_len: info.maxModelLen, base_url: this.o.baseUrl },
      'text model resolved',
    );
    await this.learnPolicy(info.id);
    const chat = createChatModel({
      baseUrl: this.o.baseUrl,
      model: info.id,
      apiKey: this.o.apiKey,
      temperature: this.o.temperature,
      maxTokens: this.o.maxReplyTokens,
      timeoutMs: this.o.requestTimeoutMs,
      maxRetries: this.o.maxRetries,
      streaming: this.o.streaming ?? true,
      ...this.shared(),
    });
    return { chat, info };
  }

  /** The same model with another reply budget and no streaming (summaries, one-off calls). */
  async variant(maxReplyTokens: number): Promise<OfflineChatOpenAI> {
    const { info } = await this.resolve();
    return createChatModel({
      baseUrl: this.o.baseUrl,
      model: info.id,
      apiKey: this.o.apiKey,
      temperature: 0.1,
      maxTokens: maxReplyTokens,
      timeoutMs: this.o.requestTimeoutMs,
      maxRetries: this.o.maxRetries,
      streaming: false,
      ...this.shared(),
    });
  }

  /** For /readyz: the server answers /models within a short time. */
  async check(timeoutMs = 3000): Promise<void> {
    await fetchModelInfo(this.endpoint(timeoutMs), this.o.model);
  }
}
