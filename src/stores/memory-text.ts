/**
 * The memory store's short form of JSON text: frequent pieces of nodestep's events and chat
 * messages (`{"type":"ai","id":"`, `"update":{`, `{"status":"completed"}`, `null`, …) each
 * replaced by one control character, U+0003 to U+001F. `JSON.stringify` never writes those
 * raw (inside strings it escapes them, and it writes no whitespace between tokens), so any
 * text it made maps back exactly: {@link unpackJson} replaces each such character by its piece,
 * wherever in the text the piece was found. An event of the `threads` bench holds about a
 * third fewer characters so; text without any of the pieces is kept as it is.
 *
 * @module
 */

/** The pieces, by their character's code − 3 (so at most 29). Longer pieces first where one starts another. */
const PIECES: readonly string[] = [
  '{"type":"ai","id":"',
  '{"type":"tool","id":"',
  '{"type":"human","id":"',
  '{"type":"system","id":"',
  '"toolCalls":[{"id":"',
  '"toolCalls":[]',
  '"toolCallId":"',
  '"arguments":{',
  '"content":"',
  '"content":',
  '"name":"',
  '{"next":[',
  '"update":{"messages":[',
  '"update":{',
  '"same":{',
  '"tasks":[',
  '{"input":{"messages":[',
  '"init":{',
  '{"status":"completed"}',
  '"status":"',
  '"messages":[',
  '"finalText":',
  '"type":"',
  '"id":"',
  "null",
];

const FIRST = 3;
const CODES = new Map(PIECES.map((p, i) => [p, String.fromCharCode(FIRST + i)]));
const PACK = new RegExp(PIECES.map((p) => p.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&")).join("|"), "g");
// biome-ignore lint/suspicious/noControlCharactersInRegex: the short form's own characters
const UNPACK = /[\u0003-\u001f]/g;

const code = (piece: string): string => CODES.get(piece)!;
const piece = (c: string): string => PIECES[c.charCodeAt(0) - FIRST]!;

/** `json` (text `JSON.stringify` made) in its short form. */
export function packJson(json: string): string {
  return json.replace(PACK, code);
}

/** The JSON text that {@link packJson} made `packed` of. */
export function unpackJson(packed: string): string {
  return packed.replace(UNPACK, piece);
}
