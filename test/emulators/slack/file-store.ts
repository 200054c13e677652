// The workspace's uploaded files: their bytes, the file objects Slack shows for them (files.info
// and events), where they were shared, injected download faults and the download log.
import { randomBytes } from 'node:crypto';
import { slackId } from './event-envelope.ts';
import { kindOf } from './file-types.ts';
import type {
  ChannelType,
  FileDownload,
  FileDownloadFault,
  FileRedirect,
  SlackFile,
  SlackFileShare,
  UploadFileInput,
} from './types.ts';

export const DEFAULT_UPLOADER = 'U0EMUUSER1';

export interface StoredFile {
  /** The object without share fields, as events carry it. */
  file: SlackFile;
  bytes: Uint8Array;
  redirect: FileRedirect;
  /** Secret path segment of the redirect targets (Slack's edge and CDN URLs are signed). */
  key: string;
  shares: Array<{ channel: string; type: ChannelType; share: SlackFileShare }>;
  fault?: { kind: FileDownloadFault; left: number };
}

export interface FileShareInput {
  channel: string;
  channelType: ChannelType;
  ts: string;
  threadTs?: string;
  user: string;
}

const SHARE_FIELDS = ['channels', 'groups', 'ims', 'shares', 'comments_count'] as const;

export class FileStore {
  readonly downloads: FileDownload[] = [];
  readonly otherOriginAuth: (string | undefined)[] = [];
  readonly #files = new Map<string, StoredFile>();
  readonly #teamId: string;
  readonly #origin: () => string;

  /** `origin` is the emulator's http://host:port, known once its server listens. */
  constructor(teamId: string, origin: () => string) {
    this.#teamId = teamId;
    this.#origin = origin;
  }

  upload(input: UploadFileInput): SlackFile {
    const id = slackId('F');
    const kind = kindOf(input.name);
    const now = Math.floor(Date.now() / 1000);
    const base = this.#origin();
    const team = this.#teamId;
    const safe = encodeURIComponent(input.name);
    const user = input.user ?? DEFAULT_UPLOADER;
    const file: SlackFile = {
      id,
      created: now,
      timestamp: now,
      name: input.name,
      title: input.title ?? input.name,
      mimetype: input.mimetype ?? kind.mimetype,
      filetype: input.filetype ?? kind.filetype,
      pretty_type: kind.pretty_type,
      user,
      user_team: team,
      editable: false,
      size: input.bytes.byteLength,
      mode: 'hosted',
      is_external: false,
      external_type: '',
      is_public: false,
      public_url_shared: false,
      display_as_bot: false,
      username: '',
      url_private: `${base}/files-pri/${team}-${id}/${safe}`,
      url_private_download: `${base}/files-pri/${team}-${id}/download/${safe}`,
      media_display_type: 'unknown',
      permalink: `${base}/files/${user}/${id}/${safe}`,
      permalink_public: `${base}/public/${team}-${id}-${randomBytes(5).toString('hex')}`,
      is_starred: false,
      has_rich_preview: false,
      file_access: 'visible',
    };
    this.#files.set(id, {
      file,
      bytes: input.bytes.slice(),
      redirect: input.redirect ?? 'none',
      key: randomBytes(8).toString('hex'),
      shares: [],
    });
    return this.info(id) as SlackFile;
  }

  get(id: string): StoredFile | undefined {
    return this.#files.get(id);
  }

  /** files.info's object: the file plus where it has been shared. */
  info(id: string): SlackFile | undefined {
    const f = this.#files.get(id);
    if (f === undefined) return undefined;
    const byType = (t: ChannelType) => [
      ...new Set(f.shares.filter((s) => s.type === t).map((s) => s.channel)),
    ];
    const out: SlackFile = {
      ...structuredClone(f.file),
      is_public: isPublic(f),
      comments_count: 0,
      channels: byType('channel'),
      groups: byType('group'),
      ims: byType('im'),
    };
    const pub: Record<string, SlackFileShare[]> = {};
    const priv: Record<string, SlackFileShare[]> = {};
    for (const s of f.shares) {
      const into = s.type === 'channel' ? pub : priv;
      into[s.channel] = [...(into[s.channel] ?? []), structuredClone(s.share)];
    }
    const shares: NonNullable<SlackFile['shares']> = {};
    if (Object.keys(pub).length > 0) shares.public = pub;
    if (Object.keys(priv).length > 0) shares.private = priv;
    out.shares = shares;
    return out;
  }

  /** A file as a message event carries it: the share fields left out. */
  eventFile(f: SlackFile): SlackFile {
    const out: Partial<SlackFile> = structuredClone(f);
    for (const field of SHARE_FIELDS) delete out[field];
    const stored = this.#files.get(f.id);
    if (stored !== undefined && out.mode === 'hosted') out.is_public = isPublic(stored);
    return out as SlackFile;
  }

  /** Records that a known file was posted in a message; unknown ids are left alone. */
  share(id: string, at: FileShareInput): void {
    const f = this.#files.get(id);
    if (f === undefined) return;
    const share: SlackFileShare = {
      reply_users: [],
      reply_users_count: 0,
      reply_count: 0,
      ts: at.ts,
      team_id: this.#teamId,
      share_user_id: at.user,
      source: 'UNKNOWN',
    };
    if (at.threadTs !== undefined) share.thread_ts = at.threadTs;
    if (at.channelType !== 'im') share.channel_name = `channel-${at.channel.toLowerCase()}`;
    f.shares.push({ channel: at.channel, type: at.channelType, share });
  }

  setFault(id: string, kind: FileDownloadFault | undefined, times?: number): void {
    const f = this.#files.get(id);
    if (f === undefined) throw new Error(`Slack emulator: no file ${id} to fault`);
    if (kind === undefined) delete f.fault;
    else f.fault = { kind, left: times ?? Number.POSITIVE_INFINITY };
  }

  /** The fault the next byte-carrying response of this file gets, if any. */
  takeFault(f: StoredFile): FileDownloadFault | undefined {
    if (f.fault === undefined) return undefined;
    const kind = f.fault.kind;
    f.fault.left -= 1;
    if (f.fault.left <= 0) delete f.fault;
    return kind;
  }

  record(d: Omit<FileDownload, 'at'>): void {
    this.downloads.push({ ...d, at: Date.now() });
  }
}

function isPublic(f: StoredFile): boolean {
  return f.shares.some((s) => s.type === 'channel');
}
