/**
 * Tile paths of c2sp.org/tlog-tiles: `<L>/<N>[.p/<W>]` and `entries/<N>[.p/<W>]`, where N is written
 * in 3-digit groups, all but the last prefixed with `x` (1234067 is `x001/x234/067`).
 */
import { formatTileIndex } from '@agentry/sdk/tlog';
import { TILE_WIDTH } from './merkle.ts';

export { formatTileIndex };

export interface TileAddress {
  /** A hash tile's level, or 'entries' for an entry bundle. */
  level: number | 'entries';
  index: number;
  /** 256 for a full tile, 1..255 for a partial one. */
  width: number;
}

const MAX_LEVEL = 63;

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
