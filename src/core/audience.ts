// Audience-aware answers (ARCHITECTURE.md, "Audience"). The audience of a turn is who can read
// where its answer is posted: one person in a DM, a channel's members otherwise (the port tells
// which). Knowledge evidence a tool hands the model is checked against every member before the
// model sees it; evidence some member may not read makes the answer private to the asker. Anything
// unknown (no audience from the port, a failed check) fails closed: private.
import type { Logger } from '../log/logger.ts';
import type { Destination, PlatformPort } from '../model/platform-port.ts';
import type { ThreadRef } from '../model/thread-ref.ts';
import type { EvidenceRef } from '../scope/scope.ts';
import type { KnowledgeAudience } from './channel-settings.ts';

/** The knowledge side of the check, wired by the composition root. */
export interface EvidenceAccess {
  /** The chunk ids of `evidence` that at least one of `userIds` may not read (unknown ones too). */
  unreadable(
    ref: ThreadRef,
    userIds: readonly string[],
    evidence: readonly EvidenceRef[],
  ): Promise<Set<string>>;
}

export interface AnswerAudienceOptions {
  port: PlatformPort;
  to: Destination;
  asker: string;
  mode: KnowledgeAudience;
  access: EvidenceAccess | undefined;
  log: Logger;
}

/** Why an answer went private, for the log and the tests. */
export type PrivateReason =
  | 'evidence_not_readable_by_all'
  | 'audience_unknown'
  | 'check_failed'
  | 'private_tool_result';

/** One turn's audience decision: public until some evidence is not readable by everyone. */
export class AnswerAudience {
  readonly #o: AnswerAudienceOptions;
  #reason: PrivateReason | undefined;

  constructor(o: AnswerAudienceOptions) {
    this.#o = o;
  }

  get isPrivate(): boolean {
    return this.#reason !== undefined;
  }

  get reason(): PrivateReason | undefined {
    return this.#reason;
  }

  /**
   * Runs before the model sees a result of a `private` tool server: the answer goes to the asker
   * alone, unless the place is already a direct message.
   */
  async restrict(): Promise<void> {
    const { port, to, log } = this.#o;
    if (this.#reason !== undefined) return;
    const audience = port.audience ? await port.audience(to).catch(() => undefined) : undefined;
    if (audience?.kind === 'dm') return;
    this.#reason = 'private_tool_result';
    log.info({ reason: this.#reason }, 'answer goes privately to the asker');
  }

  /** Runs before the model sees `evidence`; afterwards `isPrivate` tells where the answer may go. */
  async admit(evidence: readonly EvidenceRef[]): Promise<void> {
    const { port, to, asker, mode, access, log } = this.#o;
    if (evidence.length === 0 || this.#reason !== undefined || mode === 'asker') return;
    try {
      const audience = port.audience ? await port.audience(to) : undefined;
      if (audience?.kind === 'dm') return;
      if (audience === undefined || access === undefined) {
        this.#reason = 'audience_unknown';
      } else {
        // The asker's own access already decided what was retrieved.
        const others = audience.members.filter((m) => m !== asker);
        if (others.length === 0) return;
        const hidden = await access.unreadable(to.ref, others, evidence);
        if (hidden.size > 0) this.#reason = 'evidence_not_readable_by_all';
      }
    } catch (err) {
      log.warn({ err }, 'could not check the audience of knowledge evidence; answering privately');
      this.#reason = 'check_failed';
    }
    if (this.#reason) log.info({ reason: this.#reason }, 'answer goes privately to the asker');
  }
}
