// Slack files → FileRefs whose download uses the bot token, from Slack's file hosts only.
import type { WebClient } from '@slack/web-api';
import { type FileSource, remoteFile } from '../../src/attachments/download.ts';
import type { Logger } from '../../src/log/logger.ts';
import { webLink } from '../../src/model/answer-extras.ts';
import type { FileRef, QueuedFile } from '../../src/model/incoming.ts';

export interface SlackFileRef {
  id: string;
  name?: string;
  title?: string;
  size?: number;
  mimetype?: string;
  url_private?: string;
  url_private_download?: string;
  /** The file's page in Slack, for people (never downloaded from). */
  permalink?: string;
  mode?: string;
}

export interface SlackFileOptions {
  client: WebClient;
  /** Slack's file hosts (the bot token of the workspace is given per call). */
  source: FileSource;
  log: Logger;
}

/** Files of a message that can be read (deleted and external files cannot). */
export function readableFiles(files: SlackFileRef[] | undefined): SlackFileRef[] {
  return (files ?? []).filter((f) => f.mode !== 'tombstone' && f.mode !== 'external');
}

export class SlackFiles {
  private readonly o: SlackFileOptions;

  constructor(o: SlackFileOptions) {
    this.o = o;
  }

  /**
   * `token`: the bot token of the workspace the files were shared in. `lookUp: false` (a process
   * that only queues): a file without its download address keeps none, and the worker that
   * downloads it looks it up then (`fromQueued`), so no Web API call waits before the ack.
   */
  async refs(files: SlackFileRef[] | undefined, token: string, lookUp = true): Promise<FileRef[]> {
    return Promise.all(readableFiles(files).map((f) => this.ref(f, token, lookUp)));
  }

  private async ref(given: SlackFileRef, token: string, lookUp: boolean): Promise<FileRef> {
    // app_mention payloads may carry file ids without download addresses.
    const file =
      given.url_private_download || given.url_private || !lookUp
        ? given
        : await this.lookUp(given.id, token);
    const ref = remoteFile(
      { ...this.o.source, bearerToken: token },
      {
        id: given.id,
        name: file?.name ?? file?.title ?? given.name ?? given.id,
        size: file?.size ?? given.size,
      },
      file?.url_private_download ?? file?.url_private,
    );
    const link = webLink(file?.permalink ?? given.permalink);
    return link ? { ...ref, link } : ref;
  }

  /** A file of a message queued by another process, downloaded with its workspace's token. */
  fromQueued(f: QueuedFile, token: () => Promise<string>): FileRef {
    return {
      ...f,
      download: async () => {
        const bearerToken = await token();
        const known = await (f.url ? undefined : this.lookUp(f.id, bearerToken));
        const url = f.url ?? known?.url_private_download ?? known?.url_private;
        return remoteFile({ ...this.o.source, bearerToken }, f, url).download();
      },
    };
  }

  private async lookUp(id: string, token: string): Promise<SlackFileRef | undefined> {
    try {
      const res = await this.o.client.files.info({ file: id, token });
      return res.file as SlackFileRef | undefined;
    } catch (err) {
      this.o.log.warn({ err, file_id: id }, 'files.info failed');
      return undefined;
    }
  }
}
