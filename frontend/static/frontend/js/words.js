// Actions in words, for people: "Queen of clubs from the reserve to column 3" for "R-T3".
// One place for it: the game page's announcements and the replay's list both use it; the
// notation (docs/notation.md) stays available in a tooltip.
import { cardName } from "./cards.js";
import { actionKind, parseMoveToken } from "./notation.js";

// In the page's language: each phrase whole, the card and pile names slotted in (languages put
// "from" and "to" in different places, or in the noun's ending).
const fmt = (text, values) => interpolate(text, values, true);
const FOUNDATIONS = {
  S: pgettext("pile in a sentence", "the spades foundation"),
  H: pgettext("pile in a sentence", "the hearts foundation"),
  D: pgettext("pile in a sentence", "the diamonds foundation"),
  C: pgettext("pile in a sentence", "the clubs foundation"),
};
const WORDS = {
  draw: gettext("Draw from the stock"),
  recycle: gettext("Turn the waste over onto the stock"),
  undo: gettext("Undo"),
  reserve: pgettext("pile in a sentence", "the reserve"),
  waste: pgettext("pile in a sentence", "the waste"),
  column: (n) => fmt(pgettext("pile in a sentence", "column %(n)s"), { n }),
  foundation: (suit) => FOUNDATIONS[suit],
  foundationN: (n) => fmt(pgettext("pile in a sentence", "foundation %(n)s"), { n }),
  run: (card, more) => fmt(ngettext("%(card)s with %(count)s card on it", "%(card)s with %(count)s cards on it", more), { card, count: more }),
  move: (what, from, to) => fmt(gettext("%(what)s from %(from)s to %(to)s"), { what, from, to }),
  someCard: gettext("A card"),
  someCards: (n) => fmt(ngettext("%(count)s card", "%(count)s cards", n), { count: n }),
};

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

function pileWords(pile, state) {
  if (pile === "R") return WORDS.reserve;
  if (pile === "W") return WORDS.waste;
  if (pile.startsWith("T")) return WORDS.column(pile.slice(1));
  const suit = state?.foundations?.[Number(pile.slice(1)) - 1]?.suit;
  return suit ? WORDS.foundation(suit) : WORDS.foundationN(pile.slice(1));
}

/** The card on top of `pile` in `state` (a column: the first card of its last `count`). */
function cardAt(pile, count, state) {
  if (!state) return null;
  if (pile === "R") return state.reserve?.top ?? null;
  if (pile === "W") return state.waste?.cards?.at(-1) ?? null;
  const i = Number(pile.slice(1)) - 1;
  if (pile.startsWith("F")) return state.foundations?.[i]?.cards?.at(-1) ?? null;
  return state.columns?.[i]?.at(-count) ?? null;
}

/**
 * An action token in words. `before`: the player's view of the position it was played in
 * (the card it moves is named from it); without it the words name the piles only.
 */
export function actionWords(token, before = null) {
  const kind = actionKind(token);
  if (kind === "draw") return WORDS.draw;
  if (kind === "recycle") return WORDS.recycle;
  if (kind === "undo") return WORDS.undo;
  const move = parseMoveToken(token);
  if (!move) return token;
  const { src, count, dst } = move;
  const card = cardAt(src, count, before);
  let what;
  if (card) what = count > 1 ? WORDS.run(cardName(card), count - 1) : cardName(card);
  else what = count > 1 ? WORDS.someCards(count) : WORDS.someCard;
  return capital(WORDS.move(what, pileWords(src, before), pileWords(dst, before)));
}
