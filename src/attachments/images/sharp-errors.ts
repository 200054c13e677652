// Turns what sharp/libvips throws into the AttachmentError the poster is told about. libvips
// messages are technical ("VipsJpeg: premature end of JPEG image"), so they go in `cause` only.

import { AttachmentError } from '../types.ts';

const TIMEOUT = /\btimeout: \d+% complete/i;
const UNSUPPORTED = /unsupported image format|\bblocked\b/i;
const PIXEL_LIMIT = /exceeds pixel limit/i;
const CHANNEL_LIMIT = /exceeds channel limit/i;
const CUT_OFF =
  /premature end|truncated|unexpected end|end of (?:file|data|stream)|not enough data/i;

export function toAttachmentError(err: unknown, filename: string): AttachmentError {
  if (err instanceof AttachmentError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const options = { cause: err };
  if (TIMEOUT.test(message)) return new AttachmentError('timed_out', filename, '', options);
  if (UNSUPPORTED.test(message))
    return new AttachmentError('unsupported_type', filename, '', options);
  if (PIXEL_LIMIT.test(message)) {
    return new AttachmentError('too_large', filename, 'the image has too many pixels', options);
  }
  if (CHANNEL_LIMIT.test(message)) {
    return new AttachmentError(
      'unsupported_type',
      filename,
      'the image has too many colour channels',
      options,
    );
  }
  if (CUT_OFF.test(message)) {
    return new AttachmentError('corrupt', filename, 'the image data ends early', options);
  }
  return new AttachmentError('corrupt', filename, '', options);
}
