// Process-wide sharp settings for untrusted uploads. Importing this module applies them once.
//
// - Only the JPEG, PNG, WebP and GIF loaders stay enabled (sharp.block/unblock). is-svg.ts refuses
//   SVG before sharp sees it; this is the second fence, so an SVG (or .svgz, TIFF, HEIF, …) that
//   slips past the sniffing is still never handed to librsvg or another loader.
// - The libvips operation cache is off: uploads never repeat, so it would only keep decoded
//   pixels of past images in memory (up to 50 MB by default).
// - sharp.concurrency keeps its default. sharp runs on libuv's threadpool, not the event loop, so
//   a large image delays other threadpool work (fs, dns, zlib) but never the bot's event loop.

import sharp from 'sharp';

export const ACCEPTED_FORMATS: ReadonlySet<string> = new Set(['jpeg', 'png', 'gif', 'webp']);

// Parent class names: unblocking one re-enables its buffer, source and file variants.
const ACCEPTED_LOADERS = [
  'VipsForeignLoadJpeg',
  'VipsForeignLoadPng',
  'VipsForeignLoadWebp',
  'VipsForeignLoadNsgif',
];

sharp.block({ operation: ['VipsForeignLoad'] });
sharp.unblock({ operation: ACCEPTED_LOADERS });
sharp.cache(false);

export { sharp };
