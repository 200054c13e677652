// A Discord gateway session as the active gateway leaves it for the next one: enough to RESUME it
// (Discord then replays what it dispatched since `sequence`), and when it was last known alive.

export interface GatewaySessionInfo {
  sessionId: string;
  /** The last sequence number this process received. */
  sequence: number;
  /** Where Discord wants this session resumed (READY's resume_gateway_url). */
  resumeURL: string;
  shardId: number;
  shardCount: number;
  /** Epoch ms of the save: the holder was alive then. */
  savedAt: number;
}

/** Where the active gateway keeps its session, one per application. */
export interface GatewaySessionStore {
  load(): Promise<GatewaySessionInfo | undefined>;
  save(info: GatewaySessionInfo): Promise<void>;
  clear(): Promise<void>;
}
