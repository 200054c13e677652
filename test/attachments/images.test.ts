import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import sharp from 'sharp';
import { isSvg, processImage } from '../../src/attachments/images/process-image.ts';
import { toAttachmentError } from '../../src/attachments/images/sharp-errors.ts';
import {
  AttachmentError,
  type ImageLimits,
  type ProcessedImage,
} from '../../src/attachments/types.ts';
import {
  animatedGif,
  animatedWebp,
  FRAME_COLOURS,
  FRAME_SIZE,
  gzippedSvg,
  jpegSegments,
  jpegWithGpsAndOrientation,
  PHOTO_STORED,
  pngChunkTypes,
  pngClaimingSize,
  pngScreenshot,
  pngWithTransparency,
  randomBytes,
  readExif,
  svgWithExternalEntity,
  svgWithExternalHref,
  truncatedJpeg,
} from '../fixtures/images/index.ts';

const LIMITS: ImageLimits = { maxInputPixels: 40_000_000, maxSide: 1024, timeoutMs: 10_000 };
const SVG_DETAIL = 'SVG images are not accepted, because they can reference outside files';

/** Awaits a refusal and checks its code, filename and that the user message names the file. */
async function refused(
  work: Promise<unknown>,
  code: AttachmentError['code'],
  filename: string,
): Promise<AttachmentError> {
  const err = await work.then(
    () => assert.fail(`expected ${code}, got an image`),
    (e: unknown) => e,
  );
  assert.ok(err instanceof AttachmentError, `not an AttachmentError: ${String(err)}`);
  assert.equal(err.code, code, err.message);
  assert.equal(err.filename, filename);
  assert.ok(err.userMessage.includes(filename), err.userMessage);
  assert.doesNotMatch(err.userMessage, /vips|sharp|libpng|undefined/i);
  return err;
}

/** Everything a privacy-minded reader would look for, read both by sharp and from the bytes. */
async function assertNoMetadata(img: ProcessedImage): Promise<void> {
  const meta = await sharp(img.data).metadata();
  assert.equal(meta.exif, undefined, 'EXIF left in output');
  assert.equal(meta.xmp, undefined, 'XMP left in output');
  assert.equal(meta.iptc, undefined, 'IPTC left in output');
  assert.equal(meta.icc, undefined, 'ICC profile left in output');
  assert.equal(meta.comments, undefined, 'PNG text left in output');
  assert.equal(meta.orientation, undefined, 'orientation tag left in output');
  if (img.mime === 'image/jpeg') {
    const markers = jpegSegments(img.data).map((s) => s.marker);
    // APP0 (JFIF) is harmless; APP1 is EXIF/XMP, APP2 ICC, APP13 IPTC, COM a comment.
    for (const m of markers) assert.ok(m === 0xe0 || m < 0xe1 || m > 0xef, `APP${m - 0xe0} kept`);
    assert.ok(!markers.includes(0xfe), 'COM segment kept');
  } else {
    // pHYs (pixel density) is the only ancillary chunk libvips writes unasked; it says nothing private.
    const allowed = new Set(['IHDR', 'PLTE', 'tRNS', 'pHYs', 'IDAT', 'IEND']);
    for (const type of pngChunkTypes(img.data)) assert.ok(allowed.has(type), `${type} chunk kept`);
  }
}

async function pixelAt(data: Buffer, x: number, y: number): Promise<number[]> {
  const { data: raw, info } = await sharp(data).raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [...raw.subarray(at, at + 3)];
}

const near = (a: readonly number[], b: readonly number[]) =>
  a.every((v, i) => Math.abs(v - (b[i] ?? 0)) <= 24);

describe('processImage: phone photo with EXIF GPS and orientation 6', () => {
  test('the fixture really carries GPS, XMP, ICC and orientation 6', async () => {
    const meta = await sharp(await jpegWithGpsAndOrientation()).metadata();
    assert.equal(meta.orientation, 6);
    assert.ok(meta.exif && readExif(meta.exif).gpsTags.length >= 4, 'no GPS IFD in fixture');
    assert.ok(meta.xmp && meta.icc);
  });

  test('comes out upright, as JPEG, with no metadata at all', async () => {
    const img = await processImage(await jpegWithGpsAndOrientation(), 'IMG_0001.jpg', LIMITS);
    assert.equal(img.mime, 'image/jpeg');
    assert.equal(img.sourceFormat, 'jpeg');
    // Orientation 6 = rotate 90° clockwise: 600×400 stored becomes 400×600.
    assert.deepEqual([img.width, img.height], [PHOTO_STORED.height, PHOTO_STORED.width]);
    const meta = await sharp(img.data).metadata();
    assert.deepEqual([meta.width, meta.height], [img.width, img.height]);
    // The red marker stored top-left ends up top-right.
    assert.ok(
      near(await pixelAt(img.data, img.width - 30, 30), [255, 0, 0]),
      'marker not top-right',
    );
    assert.ok(!near(await pixelAt(img.data, 30, 30), [255, 0, 0]), 'marker still top-left');
    await assertNoMetadata(img);
  });

  test('longest side is shrunk to maxSide, keeping the aspect ratio', async () => {
    const img = await processImage(await jpegWithGpsAndOrientation(), 'IMG_0001.jpg', {
      ...LIMITS,
      maxSide: 300,
    });
    assert.deepEqual([img.width, img.height], [200, 300]);
  });
});

describe('processImage: screenshots, transparency and animation', () => {
  test('screenshot: PNG (few colours), shrunk to maxSide, tEXt and eXIf dropped', async () => {
    const img = await processImage(await pngScreenshot(), 'Screenshot 2024-05-01.png', LIMITS);
    assert.equal(img.mime, 'image/png');
    assert.equal(img.sourceFormat, 'png');
    assert.equal(Math.max(img.width, img.height), LIMITS.maxSide);
    assert.deepEqual([img.width, img.height], [1024, 640]);
    await assertNoMetadata(img);
  });

  test('small images are never enlarged', async () => {
    const img = await processImage(await pngWithTransparency(), 'logo.png', LIMITS);
    assert.deepEqual([img.width, img.height], [200, 200]);
  });

  test('transparency is kept as PNG with alpha', async () => {
    const img = await processImage(await pngWithTransparency(), 'logo.png', LIMITS);
    assert.equal(img.mime, 'image/png');
    const { data, info } = await sharp(img.data).raw().toBuffer({ resolveWithObject: true });
    assert.equal(info.channels, 4);
    assert.equal(data[3], 0, 'corner should stay transparent');
    await assertNoMetadata(img);
  });

  for (const [name, build, format] of [
    ['party.gif', animatedGif, 'gif'],
    ['party.webp', animatedWebp, 'webp'],
  ] as const) {
    test(`animated ${format}: only the first frame, in its colour`, async () => {
      const input = await build();
      assert.equal(
        (await sharp(input).metadata()).pages,
        FRAME_COLOURS.length,
        'fixture not animated',
      );
      const img = await processImage(input, name, LIMITS);
      assert.equal(img.sourceFormat, format);
      assert.equal(img.mime, 'image/png');
      assert.deepEqual([img.width, img.height], [FRAME_SIZE.width, FRAME_SIZE.height]);
      assert.equal((await sharp(img.data).metadata()).pages, undefined, 'output has pages');
      assert.deepEqual(await pixelAt(img.data, 10, 10), [...FRAME_COLOURS[0]]);
      await assertNoMetadata(img);
      assert.deepEqual(await pixelAt(img.data, FRAME_SIZE.width - 1, FRAME_SIZE.height - 1), [
        ...FRAME_COLOURS[0],
      ]);
    });
  }
});

describe('processImage: refusals', () => {
  test('a PNG header claiming 50,000 × 50,000 is refused from the header, without decoding', async () => {
    const bomb = pngClaimingSize(50_000, 50_000);
    assert.ok(bomb.length < 200);
    const rssBefore = process.memoryUsage().rss;
    const err = await refused(processImage(bomb, 'huge.png', LIMITS), 'too_large', 'huge.png');
    // Decoding would need 7.5 GB; anything near that would show up in the resident set.
    const grownMb = (process.memoryUsage().rss - rssBefore) / 1e6;
    assert.ok(grownMb < 100, `RSS grew by ${grownMb.toFixed(0)} MB`);
    assert.equal(
      err.userMessage,
      'huge.png is too large for me to read (the image is 50,000 × 50,000 pixels).',
    );
  });

  test('the pixel limit counts width × height against maxInputPixels', async () => {
    const img = await jpegWithGpsAndOrientation(); // 240,000 pixels
    await refused(
      processImage(img, 'a.jpg', { ...LIMITS, maxInputPixels: 239_999 }),
      'too_large',
      'a.jpg',
    );
    assert.ok(await processImage(img, 'a.jpg', { ...LIMITS, maxInputPixels: 240_000 }));
  });

  const svgs = [
    ['xxe.svg', svgWithExternalEntity],
    ['href.svg', svgWithExternalHref],
    ['href.svgz', gzippedSvg],
  ] as const;
  for (const [name, build] of svgs) {
    test(`${name} is refused before sharp is called`, async (t) => {
      const proto = sharp.prototype as { metadata: () => unknown; toBuffer: () => unknown };
      const metadata = t.mock.method(proto, 'metadata');
      const toBuffer = t.mock.method(proto, 'toBuffer');
      const err = await refused(processImage(build(), name, LIMITS), 'unsupported_type', name);
      assert.ok(err.userMessage.includes(SVG_DETAIL), err.userMessage);
      assert.equal(metadata.mock.callCount() + toBuffer.mock.callCount(), 0, 'sharp was invoked');
      // The spies do see sharp when it is used.
      await processImage(await pngWithTransparency(), 'logo.png', LIMITS);
      assert.ok(metadata.mock.callCount() > 0 && toBuffer.mock.callCount() > 0);
    });
  }

  test('a truncated JPEG is corrupt', async () => {
    const err = await refused(
      processImage(await truncatedJpeg(), 'cut.jpg', LIMITS),
      'corrupt',
      'cut.jpg',
    );
    assert.match(err.userMessage, /^cut\.jpg looks damaged or incomplete/);
  });

  test('random bytes named .png are not an image format', async () => {
    const err = await refused(
      processImage(randomBytes(), 'noise.png', LIMITS),
      'unsupported_type',
      'noise.png',
    );
    assert.match(err.userMessage, /this file type is not supported/);
  });

  test('a PNG with a broken body is corrupt', async () => {
    const png = await pngScreenshot();
    const damaged = Buffer.from(png);
    damaged.fill(0x55, 200, 2000); // inside the first IDAT
    await refused(processImage(damaged, 'broken.png', LIMITS), 'corrupt', 'broken.png');
  });

  test('an empty file is refused', async () => {
    await refused(processImage(new Uint8Array(0), 'empty.png', LIMITS), 'corrupt', 'empty.png');
  });

  test('formats sharp could decode but we do not accept (TIFF) are refused', async () => {
    const tiff = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#888' } })
      .tiff()
      .toBuffer();
    await refused(processImage(tiff, 'scan.tiff', LIMITS), 'unsupported_type', 'scan.tiff');
  });

  test('HTML or XML is refused without reaching sharp', async () => {
    const html = Buffer.from('\n<!doctype html><html><body><svg></svg></body></html>');
    const err = await refused(
      processImage(html, 'page.png', LIMITS),
      'unsupported_type',
      'page.png',
    );
    assert.match(err.userMessage, /XML or HTML/);
  });

  test('running past timeoutMs is timed_out', async () => {
    const input = await pngScreenshot();
    const err = await refused(
      processImage(input, 'slow.png', { ...LIMITS, timeoutMs: 1 }),
      'timed_out',
      'slow.png',
    );
    assert.match(err.userMessage, /took too long/);
  });

  test("sharp's own timeout and pixel-limit errors map to codes", () => {
    assert.equal(toAttachmentError(new Error('timeout: 37% complete'), 'a.png').code, 'timed_out');
    assert.equal(
      toAttachmentError(new Error('Input image exceeds pixel limit'), 'a.png').code,
      'too_large',
    );
    assert.equal(
      toAttachmentError(new Error('Input buffer contains unsupported image format'), 'a.png').code,
      'unsupported_type',
    );
    assert.equal(
      toAttachmentError(new Error('VipsJpeg: premature end of JPEG image'), 'a.png').code,
      'corrupt',
    );
  });
});

describe('isSvg', () => {
  const yes: Record<string, Buffer> = {
    plain: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
    'leading whitespace': Buffer.from('\r\n\t <svg>'),
    'xml declaration and comments': Buffer.from(
      '<?xml version="1.0"?>\n<!-- a > b -->\n<svg\nwidth="1">',
    ),
    'doctype with internal subset': svgWithExternalEntity(),
    'doctype with > inside the subset': Buffer.from(
      '<!DOCTYPE svg [<!ENTITY a "x>y"><!-- ]> --><!ENTITY b SYSTEM \'file:///x\'>]><svg/>',
    ),
    'utf-8 BOM': Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<svg>')]),
    'utf-16le BOM': Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from('<?xml?><svg>', 'utf16le'),
    ]),
    'utf-16be BOM': Buffer.concat([
      Buffer.from([0xfe, 0xff]),
      Buffer.from('<svg>', 'utf16le').swap16(),
    ]),
    'utf-16le without BOM': Buffer.from('<svg>', 'utf16le'),
    'namespace prefix': Buffer.from('<svg:svg xmlns:svg="http://www.w3.org/2000/svg"/>'),
    'upper case': Buffer.from('<SVG>'),
  };
  for (const [name, bytes] of Object.entries(yes)) {
    test(`detects ${name}`, () => assert.equal(isSvg(bytes), true));
  }

  const no: Record<string, Buffer> = {
    empty: Buffer.alloc(0),
    html: Buffer.from('<!doctype html><html><svg></svg></html>'),
    'other xml root': Buffer.from('<?xml version="1.0"?><svgx/>'),
    'unterminated comment': Buffer.from('<!-- <svg>'),
    text: Buffer.from('svg is a vector format'),
    png: pngClaimingSize(1, 1),
  };
  for (const [name, bytes] of Object.entries(no)) {
    test(`rejects ${name}`, () => assert.equal(isSvg(bytes), false));
  }
});
