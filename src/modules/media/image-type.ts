/**
 * What kind of image some bytes are, read from the bytes alone (the declared Content-Type is the
 * uploader's claim, not a fact). Only PNG, JPEG, GIF and WebP are known; SVG never is, since it is
 * a document that can carry script.
 *
 * Beyond the magic number each format's block structure is walked to its end marker, with nothing
 * after it: a truncated upload, or a file that starts like an image and goes on as something else
 * (a polyglot: HTML or a script behind an image header), is refused.
 */
export type ImageType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';

export function sniffImageType(bytes: Buffer): ImageType | null {
  if (looksLikeMarkup(bytes)) return null;
  if (isPng(bytes)) return 'image/png';
  if (isJpeg(bytes)) return 'image/jpeg';
  if (isGif(bytes)) return 'image/gif';
  if (isWebp(bytes)) return 'image/webp';
  return null;
}

/**
 * Browsers that ignore nosniff decide on HTML from the first bytes of a response; whatever the
 * structure says, an upload whose head holds a tag that starts a document is not served.
 */
const markup = /<(?:!doctype|html|head|body|script|svg|iframe|object|embed|\?xml)[\s/>]/i;
function looksLikeMarkup(bytes: Buffer): boolean {
  return markup.test(bytes.subarray(0, 1024).toString('latin1'));
}

const pngSignature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Signature, IHDR first, chunks (length, type, data, CRC) back to back, IEND last. */
function isPng(bytes: Buffer): boolean {
  if (bytes.length < 8 + 25 + 12 || !bytes.subarray(0, 8).equals(pngSignature)) return false;
  let at = 8;
  let first = true;
  while (at + 12 <= bytes.length) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    const end = at + 12 + length;
    if (!/^[A-Za-z]{4}$/.test(type) || end > bytes.length) return false;
    if (first && (type !== 'IHDR' || length !== 13)) return false;
    first = false;
    if (type === 'IEND') return length === 0 && end === bytes.length;
    at = end;
  }
  return false;
}

/** SOI, marker segments up to the start of scan, then entropy-coded data ending in EOI. */
function isJpeg(bytes: Buffer): boolean {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8 || bytes[2] !== 0xff) return false;
  if (bytes[bytes.length - 2] !== 0xff || bytes[bytes.length - 1] !== 0xd9) return false;
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return false;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    // Markers without a length: TEM and the restart markers.
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2;
      continue;
    }
    if (marker === 0xd8 || marker === 0xd9) return false;
    const length = bytes.readUInt16BE(at + 2);
    if (length < 2 || at + 2 + length > bytes.length - 2) return false;
    if (marker === 0xda) return true; // start of scan: the image data runs to the EOI checked above
    at += 2 + length;
  }
  return false;
}

/** Header, screen descriptor and colour table, then extensions and images made of sub-blocks, then the trailer. */
function isGif(bytes: Buffer): boolean {
  const header = bytes.toString('latin1', 0, 6);
  if (bytes.length < 14 || (header !== 'GIF87a' && header !== 'GIF89a')) return false;
  const colourTable = (flags: number) => ((flags & 0x80) !== 0 ? 3 * 2 ** ((flags & 0x07) + 1) : 0);
  let at = 13 + colourTable(bytes[10]!);
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
    if (introducer === 0x3b) return images > 0 && at === bytes.length - 1;
    if (introducer === 0x21) {
      at = skipSubBlocks(at + 2);
    } else if (introducer === 0x2c) {
      if (at + 10 > bytes.length) return false;
      at = skipSubBlocks(at + 10 + colourTable(bytes[at + 9]!) + 1); // descriptor, local table, LZW code size
      images += 1;
    } else {
      return false;
    }
    if (at < 0) return false;
  }
  return false;
}

/** RIFF container whose size is the file's, "WEBP", then chunks (padded to even length) to the end. */
function isWebp(bytes: Buffer): boolean {
  if (bytes.length < 20 || bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WEBP') return false;
  if (bytes.readUInt32LE(4) + 8 !== bytes.length) return false;
  const firstChunk = bytes.toString('latin1', 12, 16);
  if (firstChunk !== 'VP8 ' && firstChunk !== 'VP8L' && firstChunk !== 'VP8X') return false;
  let at = 12;
  while (at + 8 <= bytes.length) {
    const size = bytes.readUInt32LE(at + 4);
    at += 8 + size + (size % 2);
    if (at > bytes.length) return false;
  }
  return at === bytes.length;
}
