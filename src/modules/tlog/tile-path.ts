/**
 * Tile paths of c2sp.org/tlog-tiles: `<L>/<N>[.p/<W>]` and `entries/<N>[.p/<W>]`, where N is written
 * in 3-digit groups, all but the last prefixed with `x` (1234067 is `x001/x234/067`).
 */
import { TILE_WIDTH } from './merkle.ts';

export interface TileAddress {
  /** A hash tile's level, or 'entries' for an entry bundle. */
  level: number | 'entries';
  index: number;
  /** 256 for a full tile, 1..255 for a partial one. */
  width: number;
}

const MAX_LEVEL = 63;

export function formatTileIndex(index: number): string {
  const groups: string[] = [];
  do {
    groups.unshift(String(index % 1000).padStart(3, '0'));
    index = Math.floor(index / 1000);
  } while (index > 0);
  return groups.map((group, i) => (i < groups.length - 1 ? `x${group}` : group)).join('/');
}

/** Reads a tile path; null when it is not one written the one canonical way. */
export function parseTilePath(path: string): TileAddress | null {
  const match = /^(entries|0|[1-9][0-9]?)\/((?:x[0-9]{3}\/){0,5}[0-9]{3})(?:\.p\/([1-9][0-9]{0,2}))?$/.exec(path);
  if (!match) return null;
  const level = match[1] === 'entries' ? 'entries' : Number(match[1]);
  const index = Number(match[2]!.replace(/[x/]/g, ''));
  const width = match[3] === undefined ? TILE_WIDTH : Number(match[3]);
  if ((level !== 'entries' && level > MAX_LEVEL) || width > TILE_WIDTH - (match[3] === undefined ? 0 : 1) || formatTileIndex(index) !== match[2]) return null;
  return { level, index, width };
}
