// Workspaces installed through Slack's OAuth v2 flow: Bolt's InstallationStore and StateStore on
// threadmind's store, sealed (SealedRecords encrypts every value), and the credentials the port
// uses per workspace. An org-wide install (Enterprise Grid) is one record for the whole org.
import type {
  Installation,
  InstallationQuery,
  InstallationStore,
  InstallURLOptions,
  StateStore,
} from '@slack/bolt';
import { LRUCache } from 'lru-cache';
import { OneTimeStates } from '../../src/core/one-time-states.ts';
import {
  expiresWithin,
  RecordRenewal,
  type RefreshAnswer,
  type RenewalClaims,
  rotatedTokens,
} from '../../src/core/record-renewal.ts';
import type { SealedRecords } from '../../src/model/sealed-records.ts';
import { projectIdOf } from './slack-source.ts';

/** What the port needs to act in one workspace. */
export interface SlackCredentials {
  token: string;
  botUserId: string | undefined;
  botId: string | undefined;
}

/** Finds a workspace's credentials; undefined when the app is not installed there. */
export interface SlackCredentialSource {
  forProject(projectId: string): Promise<SlackCredentials | undefined>;
}

/** `E123.T456` (inside a Grid org) or `T456`, as slackSource builds it. */
export function splitProject(projectId: string): { enterpriseId?: string; teamId: string } {
  const dot = projectId.indexOf('.');
  return dot > 0
    ? { enterpriseId: projectId.slice(0, dot), teamId: projectId.slice(dot + 1) }
    : { teamId: projectId };
}

const teamKey = (enterpriseId: string | undefined, teamId: string) =>
  `slack:${projectIdOf(teamId, enterpriseId)}:installation`;
const orgKey = (enterpriseId: string) => `slack:${enterpriseId}:installation`;

/** Where a workspace's installation is stored: erasing the workspace's data keeps it. */
export function installationKeyOf(projectId: string): string {
  const { enterpriseId, teamId } = splitProject(projectId);
  return teamKey(enterpriseId, teamId);
}

/** Decrypted credentials are kept briefly: a turn makes dozens of calls in one workspace. */
const CACHE_TTL_MS = 10_000;

/**
 * With token rotation a bot token lives 12 hours; it is renewed once it has less than this left.
 * Bolt's own authorize renews within 2 hours, so a longer margin here means it never has to.
 */
const RENEW_WITHIN_SEC = 3 * 3600;
/** How long one replica may hold a workspace's renewal before another may try. */
const RENEW_CLAIM_MS = 30_000;

type Stored = Installation<'v1' | 'v2', boolean>;

/** oauth.v2.access with grant_type=refresh_token. */
export type RefreshBotToken = (refreshToken: string) => Promise<RefreshAnswer>;

export type { RenewalClaims };

/** How rotating bot tokens are renewed (absent: tokens are used as stored). */
export interface TokenRenewal {
  refresh: RefreshBotToken;
  claims: RenewalClaims;
}

export class SlackInstallations implements InstallationStore, SlackCredentialSource {
  readonly #records: SealedRecords;
  readonly #cache = new LRUCache<string, SlackCredentials>({ max: 1000, ttl: CACHE_TTL_MS });
  readonly #renewal: RecordRenewal<Stored> | undefined;

  constructor(records: SealedRecords, renewal?: TokenRenewal) {
    this.#records = records;
    this.#renewal =
      renewal &&
      new RecordRenewal<Stored>({
        records,
        claims: renewal.claims,
        claimMs: RENEW_CLAIM_MS,
        due: expiring,
        renew: (i) => renewed(i, renewal.refresh),
        renewed: () => this.#cache.clear(),
      });
  }

  async storeInstallation<V extends 'v1' | 'v2'>(i: Installation<V, boolean>): Promise<void> {
    const key = i.isEnterpriseInstall
      ? orgKey(i.enterprise?.id ?? '')
      : teamKey(i.enterprise?.id, i.team?.id ?? '');
    if (key.includes('::')) throw new Error('installation without a team or enterprise id');
    await this.#records.set(key, i);
    this.#cache.clear();
  }

  async fetchInstallation(
    q: InstallationQuery<boolean>,
  ): Promise<Installation<'v1' | 'v2', boolean>> {
    const found = await this.#find(q);
    if (!found) throw new Error('no installation for this workspace');
    return found;
  }

  async deleteInstallation(q: InstallationQuery<boolean>): Promise<void> {
    await this.remove(q.enterpriseId, q.teamId, q.isEnterpriseInstall);
  }

  /** Removes the workspace's (or, for an org-wide install, the org's) installation and its tokens. */
  async remove(
    enterpriseId: string | undefined,
    teamId: string | undefined,
    orgWide: boolean,
  ): Promise<boolean> {
    // Cleared first: from here on this process stops using the tokens, even if the delete fails.
    this.#cache.clear();
    if (orgWide && enterpriseId) return this.#records.delete(orgKey(enterpriseId));
    if (!teamId) return false;
    return this.#records.delete(teamKey(enterpriseId, teamId));
  }

  async forProject(projectId: string): Promise<SlackCredentials | undefined> {
    const cached = this.#cache.get(projectId);
    if (cached) return cached;
    const { enterpriseId, teamId } = splitProject(projectId);
    const i = await this.#find({ teamId, enterpriseId, isEnterpriseInstall: false });
    const token = i?.bot?.token;
    if (!token) return undefined;
    const creds = { token, botUserId: i.bot?.userId, botId: i.bot?.id };
    this.#cache.set(projectId, creds);
    return creds;
  }

  async #find(q: InstallationQuery<boolean>): Promise<Stored | undefined> {
    const keys: string[] = [];
    if (q.isEnterpriseInstall && q.enterpriseId) keys.push(orgKey(q.enterpriseId));
    else {
      if (q.teamId) keys.push(teamKey(q.enterpriseId, q.teamId));
      // A workspace of an org where the app was installed org-wide.
      if (q.enterpriseId) keys.push(orgKey(q.enterpriseId));
    }
    for (const key of keys) {
      const found = await this.#records.get<Stored>(key);
      // A token with less than the margin left is renewed first.
      if (found) return this.#renewal ? this.#renewal.current(key, found) : found;
    }
    return undefined;
  }
}

/** The installation with its bot token exchanged for a new one (oauth.v2.access, refresh_token). */
async function renewed(current: Stored, refresh: RefreshBotToken): Promise<Stored> {
  const token = current.bot?.refreshToken;
  if (!token || !current.bot) return current;
  return { ...current, bot: { ...current.bot, ...rotatedTokens(await refresh(token)) } };
}

/** A rotating bot token (it has a refresh token and an expiry) with less than the margin left. */
function expiring(i: Stored): boolean {
  return i.bot?.refreshToken !== undefined && expiresWithin(i.bot.expiresAt, RENEW_WITHIN_SEC);
}

/** Bolt's StateStore on one-time states (src/core/one-time-states.ts). */
export class SlackStateStore implements StateStore {
  readonly #states: OneTimeStates<InstallURLOptions>;

  constructor(records: SealedRecords, ttlMs: number) {
    this.#states = new OneTimeStates(records, 'slack:oauth-state:', ttlMs);
  }

  generateStateParam(installOptions: InstallURLOptions, now: Date): Promise<string> {
    return this.#states.issue(installOptions, now);
  }

  async verifyStateParam(now: Date, state: string): Promise<InstallURLOptions> {
    const saved = await this.#states.redeem(state, now);
    if (saved) return saved;
    // Bolt answers its failure page for any error here; the code names the reason in its log.
    throw Object.assign(new Error('The install link is invalid, used or expired; start again'), {
      code: 'slack_oauth_invalid_state',
    });
  }
}
