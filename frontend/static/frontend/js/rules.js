// How to play: the pictures are drawn with the game's own card and board components (the layout
// is the engine's view of the deal, from the page), and a tour plays the deal's first actions:
// each step waits for its action — a tap or a drag, or the keyboard — and nothing else moves.
import { api } from "./api.js";
import { Board } from "./board.js";
import { cardElement } from "./cards.js";
import { DragController } from "./drag.js";
import { BoardKeys } from "./keys.js";
import { moveToken } from "./notation.js";
import { fmt, formatNumber, reducedMotion } from "./ui.js";

const RULES_SEEN_KEY = "canfield.rulesSeen";
localStorage.setItem(RULES_SEEN_KEY, "1"); // the game page stops pointing here

const TEXT = {
  step: (n, count) => fmt(gettext("Step %(n)s of %(count)s"), { n: formatNumber(n), count: formatNumber(count) }),
  done: gettext("Done: all four steps."),
  notThat: gettext("Not that one: the card to play is marked on the board."),
  good: gettext("Right."),
};

// ---- pictures ----------------------------------------------------------------------------------

/** Small groups of cards: a row (a foundation), a fan (a column), a spread (the waste). */
for (const figure of document.querySelectorAll("[data-cards]")) {
  const cards = figure.dataset.cards.split(" ");
  figure.classList.add("card-picture");
  figure.style.setProperty("--n", cards.length);
  cards.forEach((card, i) => {
    const el = cardElement(card);
    el.setAttribute("aria-hidden", "true");
    el.style.setProperty("--i", i);
    figure.append(el);
  });
}

const states = JSON.parse(document.querySelector("[data-layout-board]").dataset.states);
new Board(document.querySelector("[data-layout-board]"), { fit: false }).render(states[0], { animate: false });

// ---- the tour ----------------------------------------------------------------------------------

const tour = document.querySelector("[data-tour]");
const steps = [...tour.querySelectorAll("[data-tour-steps] li")];
const message = tour.querySelector("[data-tour-message]");
const board = new Board(tour.querySelector("[data-tour-board]"), { interactive: true, fit: false });
let at = 0; // the step waiting for its action

function mark() {
  for (const el of board.root.querySelectorAll(".hint-source")) el.classList.remove("hint-source");
  const step = steps[at];
  if (!step) return;
  if (step.dataset.tap === "S") board.pileElement("S")?.classList.add("hint-source");
  else for (const el of board.runElements(step.dataset.tap, Number(step.dataset.index || 0))) el.classList.add("hint-source");
}

function show({ animate = true } = {}) {
  board.render(states[at], { animate: animate && !reducedMotion() });
  steps.forEach((li, i) => {
    li.classList.toggle("current", i === at);
    li.classList.toggle("done", i < at);
    if (i === at) li.setAttribute("aria-current", "step");
    else li.removeAttribute("aria-current");
  });
  const done = at >= steps.length;
  tour.querySelector("[data-tour-done]").hidden = !done;
  tour.querySelector("[data-tour-progress]").textContent = done ? TEXT.done : TEXT.step(at + 1, steps.length);
  mark();
}

/** The action asked for, as a token: the step's, or not. */
function attempt(token) {
  const step = steps[at];
  if (!step) return;
  if (token !== step.dataset.token) {
    message.textContent = TEXT.notThat;
    return;
  }
  at += 1;
  message.textContent = TEXT.good;
  show();
}

function tap(pile, index) {
  const step = steps[at];
  if (!step) return;
  const wanted = step.dataset.tap === pile && (!pile.startsWith("T") || Number(step.dataset.index) === index);
  attempt(wanted ? step.dataset.token : null);
}

new DragController(board, {
  enabled: () => at < steps.length,
  onTap: (pile, index) => tap(pile, index),
  onDrop: async ({ src, count, dst }) => {
    const token = moveToken(src, count, dst);
    const right = token === steps[at]?.dataset.token;
    attempt(token);
    return right; // (a wrong drop springs back)
  },
});
new BoardKeys(board, {
  enabled: () => at < steps.length,
  tap: (pile, index) => tap(pile, index),
  move: (src, count, dst) => attempt(moveToken(src, count, dst)),
  say: (text) => { message.textContent = text; },
});

tour.querySelector("[data-tour-restart]").addEventListener("click", () => {
  at = 0;
  message.textContent = "";
  show({ animate: false });
});
const playButton = tour.querySelector("[data-tour-play]");
playButton?.addEventListener("click", async () => {
  playButton.disabled = true;
  try {
    const game = await api.post("/api/games/", { code: tour.dataset.code });
    location.assign(`/games/${game.id}/`);
  } catch (err) {
    message.textContent = err.message;
    playButton.disabled = false;
  }
});

show({ animate: false });
