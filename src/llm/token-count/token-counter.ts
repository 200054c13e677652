// The token counting chain (layer 1 of ARCHITECTURE.md, "Keeping a thread inside the window"): the
// most exact count available this turn, and where it came from.
//   a. exact: vLLM POST /tokenize, or the model family's tokenizer when its package is installed
//   b. usage: the last response's prompt_tokens plus an estimate of what was added since
//   c. payload_estimate: the whole request through the calibrated per-script estimate, with the
//      model family's weights and template overheads
//   d. state_estimate: the session's stored estimate, when there is no request to look at
import { ErrorStats, type SourceError } from './error-stats.ts';
import { loadLocalTokenizer, type ModelFamily, modelFamilyOf } from './local-tokenizer.ts';
import { estimatePayloadTokens } from './payload-estimate.ts';
import { postTokenize } from './tokenize-endpoint.ts';
import type {
  ChatPayload,
  CountHint,
  CountSource,
  TokenCount,
  TokenCounterOptions,
} from './types.ts';
import { usageEstimate } from './usage-estimate.ts';

const DEFAULT_RETRY_AFTER_MS = 30_000;

export class TokenCounter {
  private readonly o: TokenCounterOptions;
  private readonly family: ModelFamily;
  private readonly stats = new ErrorStats();
  /** Set once /tokenize answered "no such route": it is not asked again. */
  private tokenizeMissing = false;
  /** After a network error or timeout, /tokenize rests until then. */
  private tokenizeRestUntil = 0;

  constructor(o: TokenCounterOptions) {
    this.o = o;
    this.family = o.modelFamily ?? modelFamilyOf(o.model);
  }

  /** Whether /tokenize has been found missing on this server. */
  get tokenizeAvailable(): boolean {
    return !this.tokenizeMissing;
  }

  /** Most exact first; each step is used only when the one before is unavailable. */
  async count(payload: ChatPayload, hint: CountHint = {}): Promise<TokenCount> {
    const empty = payload.messages.length === 0 && (payload.tools?.length ?? 0) === 0;
    if (empty) {
      if (hint.storedEstimate !== undefined) {
        return { tokens: hint.storedEstimate, source: 'state_estimate' };
      }
      return { tokens: 0, source: 'payload_estimate' };
    }
    const exact = await this.exact(payload);
    if (exact) return exact;
    // The estimates use the family's own weights and template (averaged ones for 'other').
    const fromUsage = usageEstimate(payload, hint, this.family);
    if (fromUsage !== undefined) return { tokens: fromUsage, source: 'usage' };
    return { tokens: estimatePayloadTokens(payload, this.family), source: 'payload_estimate' };
  }

  /** Record the server's actual prompt_tokens for a count made earlier (feeds errorStats). */
  observe(estimate: TokenCount, actualPromptTokens: number): void {
    this.stats.observe(estimate, actualPromptTokens);
  }

  /** Mean absolute percentage error per source, every source present (n = 0 when unused). */
  errorStats(): Record<CountSource, SourceError> {
    return this.stats.snapshot();
  }

  private async exact(payload: ChatPayload): Promise<TokenCount | undefined> {
    const now = this.o.now ?? Date.now;
    if (!this.tokenizeMissing && now() >= this.tokenizeRestUntil) {
      const result = await postTokenize(
        {
          serverRoot: this.o.serverRoot.replace(/\/+$/, ''),
          model: this.o.model,
          apiKey: this.o.apiKey,
          timeoutMs: this.o.timeoutMs,
          fetch: this.o.fetch ?? fetch,
        },
        payload,
      );
      if (result.kind === 'count') return { tokens: result.tokens, source: 'tokenize' };
      if (result.kind === 'missing') this.tokenizeMissing = true;
      else this.tokenizeRestUntil = now() + (this.o.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS);
    }
    if (this.o.localTokenizer === false) return undefined;
    const local = await loadLocalTokenizer(this.family);
    if (local) return { tokens: local.countChat(payload), source: 'local_tokenizer' };
    return undefined;
  }
}
