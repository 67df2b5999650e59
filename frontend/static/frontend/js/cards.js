// Drawing cards: CSS boxes with inline SVG suit symbols. Only names and looks; no rules here.
import { h, svgUse } from "./ui.js";

// A card's name is one phrase per rank with the suit in it ("queen of %(suit)s"): languages
// join them differently (Turkish "sinek kızı", Finnish "risti kuningatar", Albanian "çikë spathi").
const SUIT_NAMES = {
  S: pgettext("suit", "spades"), H: pgettext("suit", "hearts"),
  D: pgettext("suit", "diamonds"), C: pgettext("suit", "clubs"),
};
const RANK_NAMES = {
  A: pgettext("rank", "ace"), 2: pgettext("rank", "two"), 3: pgettext("rank", "three"),
  4: pgettext("rank", "four"), 5: pgettext("rank", "five"), 6: pgettext("rank", "six"),
  7: pgettext("rank", "seven"), 8: pgettext("rank", "eight"), 9: pgettext("rank", "nine"),
  T: pgettext("rank", "ten"), J: pgettext("rank", "jack"), Q: pgettext("rank", "queen"),
  K: pgettext("rank", "king"),
};
const CARD_NAMES = {
  A: gettext("ace of %(suit)s"), 2: gettext("two of %(suit)s"), 3: gettext("three of %(suit)s"),
  4: gettext("four of %(suit)s"), 5: gettext("five of %(suit)s"), 6: gettext("six of %(suit)s"),
  7: gettext("seven of %(suit)s"), 8: gettext("eight of %(suit)s"), 9: gettext("nine of %(suit)s"),
  T: gettext("ten of %(suit)s"), J: gettext("jack of %(suit)s"), Q: gettext("queen of %(suit)s"),
  K: gettext("king of %(suit)s"),
};
// A suit inside a card's name ("of clubs"): some languages inflect it there.
const SUIT_IN_NAME = {
  S: pgettext("suit in a card's name", "spades"), H: pgettext("suit in a card's name", "hearts"),
  D: pgettext("suit in a card's name", "diamonds"), C: pgettext("suit in a card's name", "clubs"),
};

export const rankOf = (card) => card.slice(0, -1);
export const suitOf = (card) => card.slice(-1);
export const isRed = (suit) => suit === "H" || suit === "D";
export const rankLabel = (rank) => (rank === "T" ? "10" : rank);
export const rankName = (rank) => RANK_NAMES[rank] || rank;
export const suitName = (suit) => SUIT_NAMES[suit] || suit;

/** "QC" -> "queen of clubs" (in the page's language) */
export function cardName(card) {
  const template = CARD_NAMES[rankOf(card)];
  const suit = SUIT_IN_NAME[suitOf(card)] || suitOf(card);
  return template ? interpolate(template, { suit }, true) : card;
}

/** A face-up card element; data-card carries its name ("QC"). */
export function cardElement(card) {
  const rank = rankOf(card);
  const suit = suitOf(card);
  const face = rank === "J" || rank === "Q" || rank === "K";
  const body = face
    ? h("span.art", { "aria-hidden": "true" }, h("span.art-rank", { dataset: { rank } }), svgUse(`suit-${suit}`, "art-suit"))
    : svgUse(`suit-${suit}`, rank === "A" ? "pip pip-ace" : "pip");
  // Corner index: rank over suit at the top left (seen in the waste's sideways spread), one more
  // suit at the top right (seen with the rank in a column's downward fan), the index again
  // upside down at the bottom right. The rank is drawn by CSS (content: attr(data-rank)): the
  // card's name is its accessible label, and no glyph competes with it.
  const index = (extra) =>
    h(`span.idx${extra}`, { "aria-hidden": "true" },
      h(`span.idx-rank${rank === "T" ? ".ten" : ""}`, { dataset: { rank: rankLabel(rank) } }), svgUse(`suit-${suit}`, "idx-suit"));
  return h(
    `div.card.face-up.${isRed(suit) ? "red" : "black"}${face ? ".court" : ""}`,
    { dataset: { card } },
    index(""),
    svgUse(`suit-${suit}`, "corner-suit"),
    body,
    index(".idx-bottom"),
  );
}

export function backElement() {
  return h("div.card.back", { "aria-hidden": "true" }, h("span.back-inner"));
}
