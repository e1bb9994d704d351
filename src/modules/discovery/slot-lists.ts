/**
 * A short list of whole numbers per slot (an agent's word ids, its filter terms' ids), all packed in
 * one growing Int32Array: a JavaScript array or Set per agent costs over a hundred bytes before its
 * first element, which at a million agents is most of a node's memory.
 *
 * A list that grows is written anew at the end; the space it left is reclaimed by packing everything
 * again once it is half of what is held.
 */
export interface SlotLists {
  set(slot: number, values: ArrayLike<number>): void;
  clear(slot: number): void;
  /** The list of `slot` (a view: valid until the next `set`). */
  get(slot: number): Int32Array;
  has(slot: number, value: number): boolean;
  /** The lists as arrays (a view: valid until the next change), for `restore` at another start. */
  snapshot(): { data: Int32Array; starts: Uint32Array; lengths: Uint32Array };
  restore(saved: { data: Int32Array; starts: Uint32Array; lengths: Uint32Array }): void;
}

const GROWTH = 1.25;

export function createSlotLists(): SlotLists {
  let data: Int32Array = new Int32Array(1024);
  let end = 0;
  let starts: Uint32Array = new Uint32Array(256);
  let lengths: Uint32Array = new Uint32Array(256);
  let unused = 0;

  function ensureSlot(slot: number): void {
    if (slot < starts.length) return;
    const next = Math.max(slot + 1, Math.ceil(starts.length * GROWTH));
    const grownStarts = new Uint32Array(next);
    grownStarts.set(starts);
    const grownLengths = new Uint32Array(next);
    grownLengths.set(lengths);
    starts = grownStarts;
    lengths = grownLengths;
  }

  function pack(): void {
    let live = 0;
    for (let slot = 0; slot < lengths.length; slot++) live += lengths[slot]!;
    const packed = new Int32Array(Math.max(1024, Math.ceil(live * GROWTH)));
    let at = 0;
    for (let slot = 0; slot < lengths.length; slot++) {
      const length = lengths[slot]!;
      packed.set(data.subarray(starts[slot]!, starts[slot]! + length), at);
      starts[slot] = at;
      at += length;
    }
    data = packed;
    end = at;
    unused = 0;
  }

  function reserve(length: number): void {
    if (unused > 4096 && unused * 2 > end) pack();
    if (end + length <= data.length) return;
    const grown = new Int32Array(Math.max(end + length, Math.ceil(data.length * GROWTH)));
    grown.set(data.subarray(0, end));
    data = grown;
  }

  return {
    set(slot, values) {
      ensureSlot(slot);
      const length = values.length;
      if (length <= lengths[slot]!) {
        unused += lengths[slot]! - length;
        data.set(values, starts[slot]!);
        lengths[slot] = length;
        return;
      }
      unused += lengths[slot]!;
      lengths[slot] = 0;
      reserve(length);
      data.set(values, end);
      starts[slot] = end;
      lengths[slot] = length;
      end += length;
    },

    clear(slot) {
      if (slot >= lengths.length) return;
      unused += lengths[slot]!;
      lengths[slot] = 0;
    },

    get(slot) {
      if (slot >= lengths.length) return new Int32Array(0);
      return data.subarray(starts[slot]!, starts[slot]! + lengths[slot]!);
    },

    snapshot: () => ({ data: data.subarray(0, end), starts, lengths }),

    restore(saved) {
      data = saved.data;
      end = saved.data.length;
      starts = saved.starts;
      lengths = saved.lengths;
      unused = end - lengths.reduce((sum, length) => sum + length, 0);
    },

    has(slot, value) {
      if (slot >= lengths.length) return false;
      for (let i = starts[slot]!, last = i + lengths[slot]!; i < last; i++) if (data[i] === value) return true;
      return false;
    },
  };
}
