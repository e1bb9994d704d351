/**
 * What kind of image some bytes are, read from the bytes alone (the declared Content-Type is the
 * uploader's claim, not a fact), and the image as it is stored: without its metadata. Only PNG,
 * JPEG, GIF and WebP are known; SVG never is, since it is a document that can carry script.
 *
 * Each format's block structure is walked to its end marker, with nothing after it: a truncated
 * upload, or a file that starts like an image and goes on as something else (a polyglot: HTML or a
 * script behind an image header), is refused. On the way, the blocks that only carry text or
 * metadata (comments, EXIF, XMP, PNG text chunks, GIF comment and application extensions) are left
 * out, keeping what draws the picture: pixels, palette, transparency, animation, colour profile and
 * (from EXIF) the orientation. Then the bytes that remain must hold no markup (see `holdsMarkup`).
 */
export type ImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

export type CleanedImage = { type: ImageType; bytes: Buffer } | { type: ImageType; markup: true } | null;

/** The image without its metadata, `markup` when what remains still holds markup, null when it is no image this service takes. */
export function cleanImage(bytes: Buffer): CleanedImage {
  const found = cleanPng(bytes) ?? cleanJpeg(bytes) ?? cleanGif(bytes) ?? cleanWebp(bytes);
  if (!found) return null;
  return holdsMarkup(found.bytes) ? { type: found.type, markup: true } : found;
}

/**
 * A tag that starts a document or runs script, anywhere in the bytes. Browsers that ignore nosniff
 * decide on HTML from the first bytes, and a file saved and opened elsewhere may be read whole; so
 * no stored image holds one. Pixel data is compressed and so close to random: such a tag turns up
 * by chance in about one 5 MB photo in a thousand, which then is refused.
 */
const markup = /<(?:!doctype|html|head|body|script|svg|iframe|object|embed|img|style|meta|\?xml)[\s/>]/i;
function holdsMarkup(bytes: Buffer): boolean {
  return markup.test(bytes.toString('latin1'));
}

type Found = { type: ImageType; bytes: Buffer };

const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** The chunks that draw the picture (pixels, palette, transparency, colour, pixel size, animation); text, EXIF, time and private chunks go. */
const pngKept = new Set([
  'IHDR',
  'PLTE',
  'IDAT',
  'IEND',
  'tRNS',
  'cHRM',
  'gAMA',
  'iCCP',
  'sBIT',
  'sRGB',
  'cICP',
  'mDCV',
  'cLLI',
  'bKGD',
  'pHYs',
  'acTL',
  'fcTL',
  'fdAT',
]);

/** Signature, IHDR first, chunks (length, type, data, CRC) back to back, IEND last. */
function cleanPng(bytes: Buffer): Found | null {
  if (bytes.length < 8 + 25 + 12 || !bytes.subarray(0, 8).equals(pngSignature)) return null;
  const kept: Buffer[] = [pngSignature];
  let at = 8;
  let first = true;
  while (at + 12 <= bytes.length) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    const end = at + 12 + length;
    if (!/^[A-Za-z]{4}$/.test(type) || end > bytes.length) return null;
    if (first && (type !== 'IHDR' || length !== 13)) return null;
    first = false;
    // An unknown critical chunk (upper-case first letter) is one no decoder could skip.
    if (pngKept.has(type)) kept.push(bytes.subarray(at, end));
    else if (type[0]! < 'a') return null;
    if (type === 'IEND') return length === 0 && end === bytes.length ? { type: 'image/png', bytes: Buffer.concat(kept) } : null;
    at = end;
  }
  return null;
}

/**
 * SOI, marker segments, scans of entropy-coded data (several in a progressive JPEG, with tables
 * between them), EOI last. Kept: the JFIF header, the colour profile (ICC) and Adobe's colour
 * transform, and EXIF reduced to its orientation; comments and every other application segment go.
 */
function cleanJpeg(bytes: Buffer): Found | null {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8 || bytes[2] !== 0xff) return null;
  const kept: Buffer[] = [bytes.subarray(0, 2)];
  let at = 2;
  while (at + 2 <= bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    if (marker === 0xd9) return at + 2 === bytes.length ? { type: 'image/jpeg', bytes: Buffer.concat([...kept, bytes.subarray(at)]) } : null;
    // Markers without a length: TEM and the restart markers.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      kept.push(bytes.subarray(at, at + 2));
      at += 2;
      continue;
    }
    if (marker === 0xd8 || at + 4 > bytes.length) return null;
    const length = bytes.readUInt16BE(at + 2);
    const end = at + 2 + length;
    if (length < 2 || end > bytes.length) return null;
    const segment = bytes.subarray(at, end);
    const payload = bytes.subarray(at + 4, end);
    if (marker === 0xda) {
      // Start of scan: its header, then entropy-coded data up to the next marker that is not a
      // stuffed 0xFF00 or a restart marker.
      let scan = end;
      while (scan + 1 < bytes.length) {
        if (bytes[scan] === 0xff) {
          const next = bytes[scan + 1]!;
          if (next === 0x00 || (next >= 0xd0 && next <= 0xd7)) {
            scan += 2;
            continue;
          }
          if (next !== 0xff) break;
        }
        scan += 1;
      }
      kept.push(bytes.subarray(at, scan));
      at = scan;
      continue;
    }
    if (marker >= 0xe0 && marker <= 0xef) {
      const kind = payload.toString('latin1', 0, 12);
      if (marker === 0xe0 && kind.startsWith('JFIF\0')) kept.push(segment);
      else if (marker === 0xe2 && kind === 'ICC_PROFILE\0') kept.push(segment);
      else if (marker === 0xee && kind.startsWith('Adobe')) kept.push(segment);
      else if (marker === 0xe1 && kind.startsWith('Exif\0\0')) {
        const orientation = exifOrientation(payload.subarray(6));
        if (orientation !== null) kept.push(orientationOnlyExif(orientation));
      }
    } else if (marker !== 0xfe) {
      kept.push(segment); // tables, frame header, restart interval and the like; COM (0xFE) goes
    }
    at = end;
  }
  return null;
}

/** The orientation tag (0x0112) of EXIF's first IFD, when it says anything but "as stored" (1). */
function exifOrientation(tiff: Buffer): number | null {
  if (tiff.length < 8) return null;
  const order = tiff.toString('latin1', 0, 2);
  if (order !== 'II' && order !== 'MM') return null;
  const u16 = (at: number) => (order === 'II' ? tiff.readUInt16LE(at) : tiff.readUInt16BE(at));
  const u32 = (at: number) => (order === 'II' ? tiff.readUInt32LE(at) : tiff.readUInt32BE(at));
  const ifd = u32(4);
  if (ifd + 2 > tiff.length) return null;
  const entries = u16(ifd);
  for (let entry = 0; entry < entries; entry++) {
    const at = ifd + 2 + entry * 12;
    if (at + 12 > tiff.length) return null;
    if (u16(at) !== 0x0112) continue;
    const value = u16(at + 2) === 3 ? u16(at + 8) : 0;
    return value >= 2 && value <= 8 ? value : null;
  }
  return null;
}

/** An APP1 segment holding EXIF with the orientation alone (big-endian TIFF, one IFD of one entry). */
function orientationOnlyExif(orientation: number): Buffer {
  const segment = Buffer.alloc(2 + 2 + 6 + 8 + 2 + 12 + 4);
  segment.writeUInt16BE(0xffe1, 0);
  segment.writeUInt16BE(segment.length - 2, 2);
  segment.write('Exif\0\0MM\0\x2a', 4, 'latin1');
  segment.writeUInt32BE(8, 14); // the IFD right after the TIFF header
  segment.writeUInt16BE(1, 18);
  segment.writeUInt16BE(0x0112, 20);
  segment.writeUInt16BE(3, 22); // SHORT
  segment.writeUInt32BE(1, 24);
  segment.writeUInt16BE(orientation, 28);
  return segment; // the next IFD's offset, last, stays 0
}

/** Application extensions that only loop an animation. */
const gifAnimation = new Set(['NETSCAPE2.0', 'ANIMEXTS1.0']);

/**
 * Header, screen descriptor and colour table, then extensions and images made of sub-blocks, then
 * the trailer. Kept: images and graphic control (timing, transparency) and looping extensions;
 * comments, plain text and other application extensions go.
 */
function cleanGif(bytes: Buffer): Found | null {
  const header = bytes.toString('latin1', 0, 6);
  if (bytes.length < 14 || (header !== 'GIF87a' && header !== 'GIF89a')) return null;
  const colourTable = (flags: number) => ((flags & 0x80) !== 0 ? 3 * 2 ** ((flags & 0x07) + 1) : 0);
  let at = 13 + colourTable(bytes[10]!);
  if (at > bytes.length) return null;
  const kept: Buffer[] = [bytes.subarray(0, at)];
  // Sub-blocks: a size byte and that many bytes, until a zero size. Answers the position after them, or -1.
  const skipSubBlocks = (from: number): number => {
    let position = from;
    while (position < bytes.length) {
      const size = bytes[position]!;
      position += 1;
      if (size === 0) return position;
      position += size;
    }
    return -1;
  };
  let images = 0;
  while (at < bytes.length) {
    const introducer = bytes[at]!;
    const start = at;
    if (introducer === 0x3b) {
      return images > 0 && at === bytes.length - 1 ? { type: 'image/gif', bytes: Buffer.concat([...kept, bytes.subarray(at)]) } : null;
    }
    if (introducer === 0x21) {
      if (at + 2 > bytes.length) return null;
      const label = bytes[at + 1]!;
      at = skipSubBlocks(at + 2);
      if (at < 0) return null;
      const application = label === 0xff && bytes[start + 2] === 11 ? bytes.toString('latin1', start + 3, start + 14) : null;
      if (label === 0xf9 || (application !== null && gifAnimation.has(application))) kept.push(bytes.subarray(start, at));
    } else if (introducer === 0x2c) {
      if (at + 10 > bytes.length) return null;
      at = skipSubBlocks(at + 10 + colourTable(bytes[at + 9]!) + 1); // descriptor, local table, LZW code size
      if (at < 0) return null;
      kept.push(bytes.subarray(start, at));
      images += 1;
    } else {
      return null;
    }
  }
  return null;
}

/** What draws a WebP: the bitstreams, alpha, animation, the extended header and the colour profile. EXIF, XMP and unknown chunks go. */
const webpKept = new Set(['VP8 ', 'VP8L', 'VP8X', 'ALPH', 'ANIM', 'ANMF', 'ICCP']);
/** VP8X flags that announce EXIF and XMP chunks, cleared with them. */
const VP8X_EXIF = 0x08;
const VP8X_XMP = 0x04;

/** RIFF container whose size is the file's, "WEBP", then chunks (padded to even length) to the end. */
function cleanWebp(bytes: Buffer): Found | null {
  if (bytes.length < 20 || bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WEBP') return null;
  if (bytes.readUInt32LE(4) + 8 !== bytes.length) return null;
  const firstChunk = bytes.toString('latin1', 12, 16);
  if (firstChunk !== 'VP8 ' && firstChunk !== 'VP8L' && firstChunk !== 'VP8X') return null;
  const kept: Buffer[] = [];
  let at = 12;
  while (at + 8 <= bytes.length) {
    const type = bytes.toString('latin1', at, at + 4);
    const size = bytes.readUInt32LE(at + 4);
    const end = at + 8 + size + (size % 2);
    if (end > bytes.length) return null;
    if (type === 'VP8X' && size >= 1) {
      const chunk = Buffer.from(bytes.subarray(at, end));
      chunk[8] = chunk[8]! & ~(VP8X_EXIF | VP8X_XMP);
      kept.push(chunk);
    } else if (webpKept.has(type)) {
      kept.push(bytes.subarray(at, end));
    }
    at = end;
  }
  if (at !== bytes.length) return null;
  const header = Buffer.from(bytes.subarray(0, 12));
  const body = Buffer.concat(kept);
  header.writeUInt32LE(4 + body.length, 4);
  return { type: 'image/webp', bytes: Buffer.concat([header, body]) };
}

export interface ImageSize {
  width: number;
  height: number;
}

/**
 * The size an image is shown at, read from the header of a cleaned image of `type`: PNG's IHDR, the
 * GIF screen, JPEG's frame header (turned when its EXIF orientation turns it a quarter), WebP's
 * VP8X canvas or its one bitstream. Null when the header does not say (it always does for a cleaned image).
 */
export function imageSize(type: ImageType, bytes: Buffer): ImageSize | null {
  const size = (width: number, height: number) => (width > 0 && height > 0 ? { width, height } : null);
  if (type === 'image/png') return size(bytes.readUInt32BE(16), bytes.readUInt32BE(20));
  if (type === 'image/gif') return size(bytes.readUInt16LE(6), bytes.readUInt16LE(8));
  if (type === 'image/jpeg') return jpegSize(bytes);
  const chunk = bytes.toString('latin1', 12, 16);
  if (chunk === 'VP8X' && bytes.length >= 30) return size(bytes.readUIntLE(24, 3) + 1, bytes.readUIntLE(27, 3) + 1);
  if (chunk === 'VP8L' && bytes.length >= 25) {
    const bits = bytes.readUInt32LE(21);
    return size((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (chunk === 'VP8 ' && bytes.length >= 30) return size(bytes.readUInt16LE(26) & 0x3fff, bytes.readUInt16LE(28) & 0x3fff);
  return null;
}

/** The first frame header (SOF0-SOF15 but DHT, JPG and DAC), its sides swapped for orientations 5-8 (a quarter turn). */
function jpegSize(bytes: Buffer): ImageSize | null {
  let at = 2;
  let orientation: number | null = null;
  while (at + 9 <= bytes.length && bytes[at] === 0xff) {
    const marker = bytes[at + 1]!;
    if (marker === 0xd9 || marker === 0xda) return null;
    const length = bytes.readUInt16BE(at + 2);
    if (marker === 0xe1 && bytes.toString('latin1', at + 4, at + 10) === 'Exif\0\0') orientation = exifOrientation(bytes.subarray(at + 10, at + 2 + length));
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      const height = bytes.readUInt16BE(at + 5);
      const width = bytes.readUInt16BE(at + 7);
      if (width === 0 || height === 0) return null;
      return orientation !== null && orientation >= 5 ? { width: height, height: width } : { width, height };
    }
    at += 2 + length;
  }
  return null;
}
