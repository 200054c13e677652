// What fair admission (src/core/fair-slots.ts) shares with other workers: the Virtual Token
// Counters, kept where every worker reads and changes them in one atomic step per admission
// (redis-fair-counters.ts). The waiting turns stay with the worker that holds them.

/** A channel with turns waiting on this worker, and its waiting people. */
export interface FairCandidate {
  channel: string;
  /** The channel's fairShareWeight: its charge is divided by it. */
  weight: number;
  people: readonly string[];
}

/** What a turn really used minus what was charged when it started. */
export interface FairCorrection {
  channel: string;
  person: string;
  /** Already divided by the channel's weight. */
  channelTokens: number;
  personTokens: number;
}

export interface FairStep {
  /** Who gets the free slot (already charged the estimate); absent when nobody was asked for. */
  pick?: { channel: string; person: string } | undefined;
  /** The candidates' counters as the step found them (before the pick's charge). */
  channels: ReadonlyMap<string, number>;
  /** By channel, then person. */
  people: ReadonlyMap<string, ReadonlyMap<string, number>>;
}

export interface SharedFairCounters {
  /**
   * Applies the corrections, then, if there are candidates, picks the least-served channel among
   * them and its least-served person, and charges `estimate` to both (the channel's divided by its
   * weight). Atomic across workers.
   */
  step(
    corrections: readonly FairCorrection[],
    candidates: readonly FairCandidate[],
    estimate: number,
  ): Promise<FairStep>;
  close(): Promise<void>;
}
