/**
 * One file of named arrays and a JSON header, read and written whole: how discovery's index is kept
 * between starts (agent-index.ts, "saved"). Layout: a magic, the header's length (uint32, little-endian),
 * the header (JSON: the caller's `meta` and each array's kind, offset and length), then each array's
 * bytes at an offset that is a multiple of 8. Written to a temporary name and renamed, so a reader
 * never sees half a file.
 */
import { closeSync, openSync, readSync, renameSync, writeSync } from 'node:fs';

const MAGIC = 'AGPK';
const ALIGN = 8;

const kinds = {
  Int8Array,
  Uint8Array,
  Int16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
} as const;
type Kind = keyof typeof kinds;
export type PackedArray = Int8Array | Uint8Array | Int16Array | Int32Array | Uint32Array | Float32Array | Float64Array;

interface Header {
  meta: unknown;
  arrays: Record<string, { kind: Kind; offset: number; length: number }>;
}

const kindOf = (array: PackedArray): Kind => {
  const kind = (Object.keys(kinds) as Kind[]).find((name) => array instanceof kinds[name]);
  if (!kind) throw new Error('packed-file: unsupported array');
  return kind;
};

export function writePackedFile(path: string, meta: unknown, arrays: Record<string, PackedArray>): void {
  const header: Header = { meta, arrays: {} };
  let offset = 0;
  for (const [name, array] of Object.entries(arrays)) {
    header.arrays[name] = { kind: kindOf(array), offset, length: array.length };
    offset += Math.ceil(array.byteLength / ALIGN) * ALIGN;
  }
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(Math.ceil((8 + headerBytes.length) / ALIGN) * ALIGN);
  prefix.write(MAGIC, 0, 'latin1');
  prefix.writeUInt32LE(headerBytes.length, 4);
  headerBytes.copy(prefix, 8);
  const temporary = `${path}.${process.pid}.tmp`;
  const file = openSync(temporary, 'w');
  try {
    writeSync(file, prefix);
    const padding = Buffer.alloc(ALIGN);
    for (const array of Object.values(arrays)) {
      writeSync(file, new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
      const pad = Math.ceil(array.byteLength / ALIGN) * ALIGN - array.byteLength;
      if (pad > 0) writeSync(file, padding, 0, pad);
    }
  } finally {
    closeSync(file);
  }
  renameSync(temporary, path);
}

/** The file's meta and arrays, each read straight into its own array; throws on a file that is not one or is cut short. */
export function readPackedFile(path: string): { meta: unknown; arrays: Record<string, PackedArray> } {
  const file = openSync(path, 'r');
  try {
    const readFully = (target: Uint8Array, position: number) => {
      for (let done = 0; done < target.length;) {
        const read = readSync(file, target, done, target.length - done, position + done);
        if (read === 0) throw new Error(`${path} is cut short`);
        done += read;
      }
    };
    const prefix = Buffer.alloc(8);
    readFully(prefix, 0);
    if (prefix.toString('latin1', 0, 4) !== MAGIC) throw new Error(`${path} is not a packed file`);
    const headerBytes = Buffer.alloc(prefix.readUInt32LE(4));
    readFully(headerBytes, 8);
    const header = JSON.parse(headerBytes.toString('utf8')) as Header;
    const start = Math.ceil((8 + headerBytes.length) / ALIGN) * ALIGN;
    const arrays: Record<string, PackedArray> = {};
    for (const [name, { kind, offset, length }] of Object.entries(header.arrays)) {
      const array = new kinds[kind](length);
      readFully(new Uint8Array(array.buffer), start + offset);
      arrays[name] = array;
    }
    return { meta: header.meta, arrays };
  } finally {
    closeSync(file);
  }
}

/** A value as an array of a packed file (strings, small maps), and back. */
export const packJson = (value: unknown): Uint8Array => Buffer.from(JSON.stringify(value), 'utf8');
export const unpackJson = (bytes: PackedArray): unknown => JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
