// The game's notation (docs/notation.md): one token per action. None of it is written here: the
// engine describes its notation as data (games.engine.actions.notation(), put in every page by
// base.html), and the pages read and write tokens only through that description, so that a token
// the page builds or reads is one the server reads alike, and no other.
const NOTATION = JSON.parse(document.getElementById("action-notation").textContent);

/** The foundations and the columns, in order ("F1"…"F4", "T1"…"T4"). */
export const FOUNDATIONS = Object.freeze([...NOTATION.foundations]);
export const COLUMNS = Object.freeze([...NOTATION.columns]);

const ACTIONS = new Map(Object.entries(NOTATION.actions)); // "D" -> "draw", …
const MOVE = new RegExp(`^(?:${NOTATION.pattern})$`);
/** "T1" -> ("T2" -> the most cards one move carries): the moves there are. */
const MOVES = new Map(Object.entries(NOTATION.moves).map(([src, to]) => [src, new Map(Object.entries(to))]));

const fill = (template, values) => template.replace(/\{(\w+)\}/g, (_, name) => String(values[name]));

/**
 * The token of the move of `count` cards from pile `src` to pile `dst` ("T2:3-T4"); null when the
 * notation has none (a run onto a foundation, anything onto the reserve, a pile onto itself…).
 */
export function moveToken(src, count, dst) {
  const longest = MOVES.get(src)?.get(dst) ?? 0;
  if (!Number.isInteger(count) || count < 1 || count > longest) return null;
  return fill(count === 1 ? NOTATION.one_card : NOTATION.run, { src, count, dst });
}

/** A move's token read: "T2:3-T4" -> {src: "T2", count: 3, dst: "T4"}; null for anything else
 * (D, C and U included). */
export function parseMoveToken(token) {
  const m = typeof token === "string" ? MOVE.exec(token) : null;
  if (!m) return null;
  const [, src, written, dst] = m;
  const count = written === undefined ? 1 : Number(written);
  // (the one way of writing each move: "T1:1-T3" is not a token)
  return moveToken(src, count, dst) === token ? { src, count, dst } : null;
}

/** What a token does: "move", "draw", "recycle" or "undo"; null when it is not a token. */
export function actionKind(token) {
  if (ACTIONS.has(token)) return ACTIONS.get(token);
  return parseMoveToken(token) ? "move" : null;
}

/** The token of a draw, a recycle or an undo ("draw" -> "D"). */
export function actionToken(kind) {
  for (const [token, named] of ACTIONS) if (named === kind) return token;
  throw new Error(`no action ${kind} in the notation`);
}
