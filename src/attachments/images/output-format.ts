// Which encoding a processed image is sent on in. The rule:
// - PNG when the image really uses transparency (some alpha < 255): JPEG cannot keep it.
// - PNG when it has few distinct colours (screenshots, diagrams, charts, GIF frames): JPEG blurs
//   text edges and flat areas, while PNG stores them exactly and compactly.
// - JPEG (quality 85, mozjpeg) otherwise, i.e. photos: far smaller than PNG at no visible cost.
// Colours are counted on an evenly spread sample of pixels, so the cost stays bounded.

export type OutputEncoding = 'png' | 'jpeg';

export interface RawPixels {
  data: Buffer;
  width: number;
  height: number;
  /** 3 (RGB) or 4 (RGBA), 8 bits each. */
  channels: number;
}

export interface EncodingChoice {
  encoding: OutputEncoding;
  /** Keep the alpha channel (only when it is actually used). */
  keepAlpha: boolean;
}

/** Pixels looked at when counting colours. */
const SAMPLE_PIXELS = 16_384;
/** Above this many distinct colours in the sample, the image is photo-like. */
const MAX_FEW_COLOURS = 2_048;
/** …and the distinct colours must also be at most this share of the sample (small photos). */
const MAX_FEW_COLOURS_SHARE = 0.25;

export function chooseEncoding(pixels: RawPixels): EncodingChoice {
  const hasAlphaChannel = pixels.channels === 4;
  if (hasAlphaChannel && usesAlpha(pixels)) return { encoding: 'png', keepAlpha: true };
  return { encoding: hasFewColours(pixels) ? 'png' : 'jpeg', keepAlpha: false };
}

function usesAlpha({ data, channels }: RawPixels): boolean {
  // GIF and many PNG screenshots decode with an alpha channel that is opaque everywhere.
  for (let i = channels - 1; i < data.length; i += channels) {
    if (data[i] !== 255) return true;
  }
  return false;
}

export function hasFewColours({ data, width, height, channels }: RawPixels): boolean {
  const total = width * height;
  const step = Math.max(1, Math.floor(total / SAMPLE_PIXELS));
  const sampled = Math.ceil(total / step);
  const limit = Math.min(
    MAX_FEW_COLOURS,
    Math.max(16, Math.floor(sampled * MAX_FEW_COLOURS_SHARE)),
  );
  const seen = new Set<number>();
  for (let p = 0; p < total; p += step) {
    const i = p * channels;
    // Alpha is ignored here: only opaque images get this far.
    const colour = ((data[i] ?? 0) << 16) | ((data[i + 1] ?? 0) << 8) | (data[i + 2] ?? 0);
    seen.add(colour);
    if (seen.size > limit) return false;
  }
  return true;
}
