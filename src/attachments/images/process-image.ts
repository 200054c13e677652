// An uploaded image, made safe and small enough to send to a vision model: decoded with sharp
// under a pixel limit and a timeout, turned upright, stripped of all metadata (EXIF with GPS,
// XMP, IPTC, ICC: nothing is copied to the output), shrunk and re-encoded as PNG or JPEG.

import type { SharpOptions } from 'sharp';
import { withDeadline } from '../../util/deadline.ts';
import { AttachmentError, type ImageLimits, type ProcessedImage } from '../types.ts';
import { isGzip, isGzippedSvg, isSvg, looksLikeMarkup } from './is-svg.ts';
import { chooseEncoding } from './output-format.ts';
import { toAttachmentError } from './sharp-errors.ts';
import { ACCEPTED_FORMATS, sharp } from './sharp-setup.ts';

export { isSvg } from './is-svg.ts';

const SVG_REFUSED = 'SVG images are not accepted, because they can reference outside files';
const JPEG_QUALITY = 85;
const numbers = new Intl.NumberFormat('en-US');

/** Decodes, cleans and re-encodes one image; throws AttachmentError for anything it refuses. */
export async function processImage(
  bytes: Uint8Array,
  filename: string,
  limits: ImageLimits,
): Promise<ProcessedImage> {
  refuseBeforeDecoding(bytes, filename);
  const work = decodeAndEncode(bytes, filename, limits).catch((err: unknown) => {
    throw toAttachmentError(err, filename);
  });
  // sharp's own timeout stops libvips work, but its clock excludes time queued for a libuv thread
  // and the final encode; this bounds the wait.
  return withDeadline(work, limits.timeoutMs, () => new AttachmentError('timed_out', filename));
}

/** Checks on the raw bytes, so SVG/XML never reaches sharp (and librsvg) at all. */
function refuseBeforeDecoding(bytes: Uint8Array, filename: string): void {
  if (bytes.length === 0) throw new AttachmentError('corrupt', filename, 'the file is empty');
  if (isSvg(bytes) || isGzippedSvg(bytes)) {
    throw new AttachmentError('unsupported_type', filename, SVG_REFUSED);
  }
  if (looksLikeMarkup(bytes)) {
    throw new AttachmentError(
      'unsupported_type',
      filename,
      'it is an XML or HTML file, not an image',
    );
  }
  if (isGzip(bytes)) {
    throw new AttachmentError(
      'unsupported_type',
      filename,
      'it is a compressed (gzip) file, not an image',
    );
  }
}

async function decodeAndEncode(
  bytes: Uint8Array,
  filename: string,
  limits: ImageLimits,
): Promise<ProcessedImage> {
  const maxPixels = Math.max(1, Math.floor(limits.maxInputPixels));
  const input: SharpOptions = {
    // 'error' aborts on corrupt or truncated pixel data but tolerates libjpeg's benign warnings
    // (extraneous bytes, bad restart markers) that many phone and screenshot JPEGs carry.
    failOn: 'error',
    limitInputPixels: maxPixels,
    autoOrient: true,
    // First frame of an animated GIF/WebP: one still is what a vision model takes.
    pages: 1,
    page: 0,
  };

  // metadata() reads only the header, so the size check needs no pixel memory. It runs without
  // the limit so that a refusal can say how big the image claims to be.
  const meta = await sharp(bytes, { ...input, limitInputPixels: false }).metadata();
  if (!ACCEPTED_FORMATS.has(meta.format)) {
    const detail = `${meta.format.toUpperCase()} images are not supported`;
    throw new AttachmentError('unsupported_type', filename, detail);
  }
  const frameHeight = meta.pageHeight ?? meta.height;
  if (meta.width * frameHeight > maxPixels) {
    const detail = `the image is ${numbers.format(meta.width)} × ${numbers.format(frameHeight)} pixels`;
    throw new AttachmentError('too_large', filename, detail);
  }

  const timeout = { seconds: Math.min(3600, Math.max(1, Math.ceil(limits.timeoutMs / 1000))) };
  const side = Math.max(1, Math.floor(limits.maxSide));
  // Raw pixels in between: the encoding choice looks at them, and raw carries no metadata at all.
  const decoded = await sharp(bytes, input)
    .timeout(timeout)
    .resize({ width: side, height: side, fit: 'inside', withoutEnlargement: true })
    .toColourspace('srgb')
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
  const { width, height, channels } = decoded.info;
  const choice = chooseEncoding({ data: decoded.data, width, height, channels });

  // We made these pixels ourselves and they fit maxSide, so the input pixel limit does not apply.
  let out = sharp(decoded.data, { raw: { width, height, channels }, limitInputPixels: false });
  out = out.timeout(timeout);
  if (channels === 4 && !choice.keepAlpha) out = out.removeAlpha();
  const encoded =
    choice.encoding === 'png'
      ? await out.png().toBuffer()
      : await out.jpeg({ quality: JPEG_QUALITY, mozjpeg: true }).toBuffer();
  return {
    data: encoded,
    mime: choice.encoding === 'png' ? 'image/png' : 'image/jpeg',
    width,
    height,
    sourceFormat: meta.format,
  };
}
