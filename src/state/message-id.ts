/**
 * Message ids: random (version 4) UUIDs, as `crypto.randomUUID()` makes them, written as one
 * flat string. Node's `randomUUID` joins its text from 20 pieces (a chain of about 20 string
 * objects, flattened again when the id is first hashed or compared); an agent turn draws
 * four ids. Here the random bytes come from the same source (`randomFillSync`, drawn for
 * {@link POOL} ids at a time, as Node does) and the text is written byte by byte into a
 * buffer read back as one string.
 *
 * @module
 */
import { nodeCrypto } from "../lazy.js";

/** Ids whose random bytes are drawn at once. */
const POOL = 128;

/** The random bytes of the next {@link POOL} ids (made on the first id: no crypto at import). */
let random: Buffer | null = null;
/** Offset of the next id's 16 bytes in {@link random}. */
let at = POOL * 16;

/** The text of an id: `xxxxxxxx-xxxx-4xxx-Nxxx-xxxxxxxxxxxx`, its dashes written once. */
let text: Buffer | null = null;

/** Where in {@link text} the two hex digits of each of the 16 bytes go. */
const DIGITS_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

const HEX = "0123456789abcdef";
/** The code of the high and the low hex digit of each byte. */
const HIGH = new Uint8Array(256);
const LOW = new Uint8Array(256);
for (let b = 0; b < 256; b++) {
  HIGH[b] = HEX.charCodeAt(b >> 4);
  LOW[b] = HEX.charCodeAt(b & 15);
}

/** A fresh random UUID (version 4, variant 10), in lower case, as `crypto.randomUUID()` gives. */
export function randomId(): string {
  if (at === POOL * 16) {
    random ??= Buffer.allocUnsafe(POOL * 16);
    nodeCrypto().randomFillSync(random);
    at = 0;
  }
  const r = random!;
  if (text === null) {
    text = Buffer.alloc(36);
    text[8] = text[13] = text[18] = text[23] = 0x2d;
  }
  const t = text;
  for (let i = 0; i < 16; i++) {
    let b = r[at + i]!;
    if (i === 6) b = (b & 0x0f) | 0x40;
    else if (i === 8) b = (b & 0x3f) | 0x80;
    const p = DIGITS_AT[i]!;
    t[p] = HIGH[b]!;
    t[p + 1] = LOW[b]!;
  }
  at += 16;
  return t.toString("latin1", 0, 36);
}
