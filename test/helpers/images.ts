import { crc32 } from 'node:zlib';
import type { TestApp } from './app.ts';
/**
 * Small real images for tests (a 16x12 canvas drawn by Chromium, and a 1x1 GIF), and a few
 * files that only pretend to be images.
 */
export const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAABAAAAAMCAYAAABr5z2BAAAARElEQVR4AdyQsQ0AIAgEPyzEBPZu43r2TmDjOtp/gQUkJJBcQfN/edFxrgeB8+IDVldYsHC8ATf8/ooGbW5Y8Cb5GzwAAAD//1zSn3IAAAAGSURBVAMAw+g/SSK1eJYAAAAASUVORK5CYII=',
  'base64',
);
export const jpeg = Buffer.from(
  '/9j/4AAQSkZJRgABAQAAAQABAAD/4gHYSUNDX1BST0ZJTEUAAQEAAAHIAAAAAAQwAABtbnRyUkdCIFhZWiAH4AABAAEAAAAAAABhY3NwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAA9tYAAQAAAADTLQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAlkZXNjAAAA8AAAACRyWFlaAAABFAAAABRnWFlaAAABKAAAABRiWFlaAAABPAAAABR3dHB0AAABUAAAABRyVFJDAAABZAAAAChnVFJDAAABZAAAAChiVFJDAAABZAAAAChjcHJ0AAABjAAAADxtbHVjAAAAAAAAAAEAAAAMZW5VUwAAAAgAAAAcAHMAUgBHAEJYWVogAAAAAAAAb6IAADj1AAADkFhZWiAAAAAAAABimQAAt4UAABjaWFlaIAAAAAAAACSgAAAPhAAAts9YWVogAAAAAAAA9tYAAQAAAADTLXBhcmEAAAAAAAQAAAACZmYAAPKnAAANWQAAE9AAAApbAAAAAAAAAABtbHVjAAAAAAAAAAEAAAAMZW5VUwAAACAAAAAcAEcAbwBvAGcAbABlACAASQBuAGMALgAgADIAMAAxADb/2wBDAAYEBQYFBAYGBQYHBwYIChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCUoKSj/2wBDAQcHBwoIChMKChMoGhYaKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCj/wAARCAAMABADASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAX/xAAhEAAABQQCAwAAAAAAAAAAAAABAgQREgADExQFMQZRcf/EABUBAQEAAAAAAAAAAAAAAAAAAAUG/8QAIxEAAAQDCQAAAAAAAAAAAAAAABETFAQVIQUjJFJTgYKxsv/aAAwDAQACEQMRAD8AeKcMn5fa2T3S4oRxiAdv24D6p5XwyfiNXWPdNlnLIID03TAHuoqZWoSy1r92zJpYziV/rUUq1CqOzfu3ovHIcTN8eqSXWlNnbjD6fEvVQG5hmaKd5m3Pqg//2Q==',
  'base64',
);
export const webp = Buffer.from(
  'UklGRnICAABXRUJQVlA4WAoAAAAgAAAADwAACwAASUNDUMgBAAAAAAHIAAAAAAQwAABtbnRyUkdCIFhZWiAH4AABAAEAAAAAAABhY3NwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAA9tYAAQAAAADTLQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAlkZXNjAAAA8AAAACRyWFlaAAABFAAAABRnWFlaAAABKAAAABRiWFlaAAABPAAAABR3dHB0AAABUAAAABRyVFJDAAABZAAAAChnVFJDAAABZAAAAChiVFJDAAABZAAAAChjcHJ0AAABjAAAADxtbHVjAAAAAAAAAAEAAAAMZW5VUwAAAAgAAAAcAHMAUgBHAEJYWVogAAAAAAAAb6IAADj1AAADkFhZWiAAAAAAAABimQAAt4UAABjaWFlaIAAAAAAAACSgAAAPhAAAts9YWVogAAAAAAAA9tYAAQAAAADTLXBhcmEAAAAAAAQAAAACZmYAAPKnAAANWQAAE9AAAApbAAAAAAAAAABtbHVjAAAAAAAAAAEAAAAMZW5VUwAAACAAAAAcAEcAbwBvAGcAbABlACAASQBuAGMALgAgADIAMAAxADZWUDgghAAAAFADAJ0BKhAADAABQCYlsAJ0S4Bwf/mq70h7HPlAAwvC4AqAAP7ZR2+z7mrgt7r8tYvo+5qy7SscW3/+DX3BCnwMzHEQNH/8NfuCFBHKjWaff/8HTNFSXrpi9P0pMBQ6SgmbzfzH/Z/P69zi//svv1+v3+Ftxr/poFLx8S/OFu3ETBAAAA==',
  'base64',
);
export const gif = Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');

export const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script><rect width="10" height="10"/></svg>');
export const html = Buffer.from('<!doctype html><html><body><script>alert(document.cookie)</script></body></html>');
/** A GIF header with a page behind it: what an old browser's sniffing would run as HTML. */
export const gifHtmlPolyglot = Buffer.concat([Buffer.from('GIF89a'), Buffer.from('<html><script>alert(1)</script></html>')]);
/** A complete PNG with a script appended after its last chunk. */
export const pngWithTrailer = Buffer.concat([png, Buffer.from('<script>alert(1)</script>')]);
/** The first half of a PNG, as an interrupted upload leaves it. */
export const truncatedPng = png.subarray(0, Math.floor(png.length / 2));

/** `image` (a PNG) with one more chunk right after IHDR, with its CRC: near the start, where a browser's sniffing looks. */
export function pngWithChunk(image: Buffer, type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([image.subarray(0, 33), length, typeAndData, crc, image.subarray(33)]);
}

/** `image` (a JPEG) with one more marker segment right after SOI. */
export function jpegWithSegment(image: Buffer, marker: number, payload: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt16BE(0xff00 | marker);
  header.writeUInt16BE(payload.length + 2, 2);
  return Buffer.concat([image.subarray(0, 2), header, payload, image.subarray(2)]);
}

/** EXIF (little-endian TIFF) with an orientation and a description: what a phone writes, with more (places, serial numbers). */
export function exifWith(orientation: number, description: string): Buffer {
  const text = Buffer.from(`${description}\0`, 'latin1');
  const tiff = Buffer.alloc(8 + 2 + 2 * 12 + 4);
  tiff.write('II*\0', 0, 'latin1');
  tiff.writeUInt32LE(8, 4);
  tiff.writeUInt16LE(2, 8);
  // ImageDescription (ASCII), its text after the IFD.
  tiff.writeUInt16LE(0x010e, 10);
  tiff.writeUInt16LE(2, 12);
  tiff.writeUInt32LE(text.length, 14);
  tiff.writeUInt32LE(tiff.length, 18);
  // Orientation (SHORT).
  tiff.writeUInt16LE(0x0112, 22);
  tiff.writeUInt16LE(3, 24);
  tiff.writeUInt32LE(1, 26);
  tiff.writeUInt16LE(orientation, 30);
  return Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), tiff, text]);
}

/** `image` (a GIF) with one more extension block (label and one sub-block of data) before its first image. */
export function gifWithExtension(image: Buffer, label: number, data: Buffer): Buffer {
  const blocks: Buffer[] = [];
  for (let at = 0; at < data.length; at += 255) {
    const part = data.subarray(at, at + 255);
    blocks.push(Buffer.from([part.length]), part);
  }
  // The 1x1 GIF: header, screen descriptor and a 2-colour table take 19 bytes.
  return Buffer.concat([image.subarray(0, 19), Buffer.from([0x21, label]), ...blocks, Buffer.from([0]), image.subarray(19)]);
}

/** `image` (a WebP) with one more chunk at its end, the RIFF size made right, and `flags` set in VP8X. */
export function webpWithChunk(image: Buffer, type: string, data: Buffer, flags = 0): Buffer {
  const header = Buffer.alloc(8);
  header.write(type, 0, 'latin1');
  header.writeUInt32LE(data.length, 4);
  const out = Buffer.concat([image, header, data, Buffer.alloc(data.length % 2)]);
  out.writeUInt32LE(out.length - 8, 4);
  out[20] = out[20]! | flags;
  return out;
}

/** A script page, as an attacker hides one in an image. */
export const scriptPage = Buffer.from('<html><script>alert(document.cookie)</script></html>');

/** Uploads an image as `token` through `POST /v1/media` (its type is read from the bytes, not the header). */
export const uploadImage = (app: TestApp, token: string, bytes: Buffer = png) =>
  app.request({ method: 'POST', url: '/v1/media', token, rawBody: bytes, headers: { 'content-type': 'application/octet-stream' } });
