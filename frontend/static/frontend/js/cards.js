// Drawing cards: CSS boxes with inline SVG suit symbols. Only names and looks; no rules here.
import { h, svgUse } from "./ui.js";

const SUIT_NAMES = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
const RANK_NAMES = {
  A: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
  8: "eight", 9: "nine", T: "ten", J: "jack", Q: "queen", K: "king",
};

export const rankOf = (card) => card.slice(0, -1);
export const suitOf = (card) => card.slice(-1);
export const isRed = (suit) => suit === "H" || suit === "D";
export const rankLabel = (rank) => (rank === "T" ? "10" : rank);
export const rankName = (rank) => RANK_NAMES[rank] || rank;
export const suitName = (suit) => SUIT_NAMES[suit] || suit;

/** "QC" -> "queen of clubs" */
export function cardName(card) {
  return `${rankName(rankOf(card))} of ${suitName(suitOf(card))}`;
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
