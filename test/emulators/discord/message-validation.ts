// Discord's limits on a message payload: 2000 characters of content, embed sizes, at most 10
// files of 10 MiB, and allowed_mentions' shape (parse and explicit ids are exclusive).
import type { APIEmbed } from 'discord.js';
import { type Answer, Errors, formError } from './api-errors.ts';
import { messageComponentsProblem } from './component-validation.ts';
import type { MessagePayload } from './message-factory.ts';
import type { UploadedFile } from './request-body.ts';

export const MAX_CONTENT = 2000;
const MAX_FILES = 10;
const MAX_FILE_BYTES = 10 * 1024 * 1024;

export function validatePayload(
  payload: MessagePayload,
  files: UploadedFile[],
): Answer | undefined {
  if (payload.content !== undefined && payload.content !== null) {
    if (typeof payload.content !== 'string') {
      return formError(['content'], 'BASE_TYPE_STRING', 'Must be a string.');
    }
    // Discord counts characters (code points), not UTF-16 units.
    if ([...payload.content].length > MAX_CONTENT) {
      return formError(
        ['content'],
        'BASE_TYPE_MAX_LENGTH',
        `Must be ${MAX_CONTENT} or fewer in length.`,
      );
    }
  }
  if (Array.isArray(payload.embeds)) {
    if (payload.embeds.length > 10) {
      return formError(['embeds'], 'BASE_TYPE_MAX_LENGTH', 'Must be 10 or fewer in length.');
    }
    let total = 0;
    for (const [i, e] of (payload.embeds as APIEmbed[]).entries()) {
      const description = e.description ?? '';
      if (description.length > 4096) {
        return formError(
          ['embeds', String(i), 'description'],
          'BASE_TYPE_MAX_LENGTH',
          'Must be 4096 or fewer in length.',
        );
      }
      if ((e.title ?? '').length > 256) {
        return formError(
          ['embeds', String(i), 'title'],
          'BASE_TYPE_MAX_LENGTH',
          'Must be 256 or fewer in length.',
        );
      }
      total += description.length + (e.title ?? '').length + (e.footer?.text ?? '').length;
      for (const f of e.fields ?? []) total += f.name.length + f.value.length;
    }
    if (total > 6000) {
      return formError(
        ['embeds'],
        'MAX_EMBED_SIZE_EXCEEDED',
        'Embed size exceeds maximum size of 6000',
      );
    }
  }
  const components = messageComponentsProblem(payload.components);
  if (components !== undefined) return components;
  if (files.length > MAX_FILES) {
    return formError(['files'], 'BASE_TYPE_MAX_LENGTH', 'Must be 10 or fewer in length.');
  }
  if (files.some((f) => f.size > MAX_FILE_BYTES)) return Errors.tooLarge();
  const am = payload.allowed_mentions as { parse?: unknown; users?: unknown; roles?: unknown };
  if (am !== undefined && am !== null) {
    const parse = Array.isArray(am.parse) ? (am.parse as string[]) : [];
    if (parse.some((p) => p !== 'users' && p !== 'roles' && p !== 'everyone')) {
      return formError(
        ['allowed_mentions', 'parse'],
        'ENUM_TYPE_COERCE',
        'Value is not a valid enum value.',
      );
    }
    for (const kind of ['users', 'roles'] as const) {
      const list = am[kind];
      if (!Array.isArray(list)) continue;
      if (parse.includes(kind) && list.length > 0) {
        return formError(
          ['allowed_mentions'],
          'MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE',
          `parse:["${kind}"] and ${kind}: [ids...] are mutually exclusive.`,
        );
      }
      if (list.length > 100) {
        return formError(
          ['allowed_mentions', kind],
          'BASE_TYPE_MAX_LENGTH',
          'Must be 100 or fewer in length.',
        );
      }
    }
  }
  return undefined;
}
