// Small DOM helpers shared by the pages: element builder, toasts, formatting in the page's
// language. The words come from Django's JavaScript catalog (/jsi18n/, loaded before the
// modules): gettext, ngettext, pgettext and interpolate are globals.

/** The page's language (<html lang>), for Intl's dates and numbers. */
export const LANGUAGE = document.documentElement.lang || "en";

/** interpolate(gettext(...)) with named %(name)s placeholders. */
export function fmt(text, values) {
  return interpolate(text, values, true);
}

// A browser without the language's data (Chromium has none for Albanian) would write numbers
// the English way: it writes them without grouping instead.
const numberFormat = Intl.NumberFormat.supportedLocalesOf([LANGUAGE]).length
  ? new Intl.NumberFormat(LANGUAGE)
  : { format: (n) => String(n) };

/** A number as the page's language writes it (1 234 in Finnish, 1.234 in Turkish). */
export function formatNumber(n) {
  if (n === null || n === undefined || n === "" || Number.isNaN(Number(n))) return n ?? "";
  return numberFormat.format(Number(n));
}

/** A fraction 0..1 as a percentage in the page's language ("%42" in Turkish). */
export function formatPercent(fraction) {
  return new Intl.NumberFormat(LANGUAGE, { style: "percent", maximumFractionDigits: 0 }).format(fraction);
}

/** h("div.card.red", {dataset: {card: "QC"}}, child, ...) -> HTMLElement */
export function h(tag, props = {}, ...children) {
  const [name, ...classes] = tag.split(".");
  const el = document.createElement(name || "div");
  if (classes.length) el.className = classes.join(" ");
  for (const [key, value] of Object.entries(props || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "dataset") Object.assign(el.dataset, value);
    else if (key === "style" && typeof value === "object") Object.assign(el.style, value);
    else if (key === "class") el.className += ` ${value}`;
    else if (key.startsWith("on") && typeof value === "function") el.addEventListener(key.slice(2), value);
    else if (key in el && !key.includes("-") && key !== "role") el[key] = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function svgUse(id, className = "") {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  if (className) svg.setAttribute("class", className);
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const use = document.createElementNS(ns, "use");
  use.setAttribute("href", `#${id}`);
  svg.append(use);
  return svg;
}

/**
 * The page's one place for messages: one at a time, in a box of its own that never covers the
 * cards (on the game page, of a fixed height: a message never moves nor resizes the board; see
 * site.css), read out by screen readers (a polite live region). A message said with `say`
 * shows for a while, then the standing one (set with `stand`: a notice that holds while it is
 * true, such as "no useful moves left") comes back.
 */
export class MessageArea {
  constructor(el) {
    this.el = el;
    this.text = el.querySelector("[data-message-text]");
    this.extra = el.querySelector("[data-message-actions]");
    this.standing = null;
    this.timer = null;
  }

  /** Shows `text` (with buttons: `actions`) for `ms` milliseconds, then the standing message
   * again. */
  say(text, kind = "info", ms = 5000, actions = []) {
    clearTimeout(this.timer);
    this.show({ text, kind, actions });
    this.timer = setTimeout(() => {
      this.timer = null;
      this.show(this.standing);
    }, ms);
  }

  /** The message that stays while nothing else is said: {text, kind, actions}, or null. */
  stand(message) {
    this.standing = message;
    if (!this.timer) this.show(message);
  }

  /** Takes back a message said with `say` at once. */
  clear() {
    clearTimeout(this.timer);
    this.timer = null;
    this.show(this.standing);
  }

  show(message) {
    const text = message?.text ?? "";
    if (this.text.textContent !== text) this.text.textContent = text; // (read out when it changes)
    this.el.dataset.kind = message?.kind ?? "";
    // A button drawn again (the notice is rebuilt with each position) keeps the keyboard's place.
    const focused = this.extra.contains(document.activeElement) ? document.activeElement.dataset.action : null;
    this.extra.replaceChildren(...(message?.actions || []));
    if (focused) this.extra.querySelector(`[data-action="${focused}"]`)?.focus();
    this.el.classList.toggle("has-message", Boolean(text));
  }
}

let pageMessages;

/** The page's message area, when it has one. */
export function pageMessageArea() {
  if (pageMessages === undefined) {
    const el = document.querySelector("[data-messages]");
    pageMessages = el ? new MessageArea(el) : null;
  }
  return pageMessages;
}

/** A short message: in the page's message area when it has one, else a floating note (one at a
 * time: a new one replaces the last). */
export function toast(message, kind = "info", ms = 3200) {
  const area = pageMessageArea();
  if (area) {
    area.say(message, kind, Math.max(ms, 4000));
    return;
  }
  const box = document.getElementById("toasts");
  if (!box) return;
  const item = h(`div.toast.toast-${kind}`, {}, message);
  box.replaceChildren(item);
  requestAnimationFrame(() => item.classList.add("show"));
  setTimeout(() => {
    item.classList.remove("show");
    setTimeout(() => item.remove(), 300);
  }, ms);
}

export function formatDuration(ms) {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return "–";
  const total = Math.max(0, Math.floor(ms / 1000));
  const s = total % 60;
  const m = Math.floor(total / 60) % 60;
  const hours = Math.floor(total / 3600);
  const pad = (n) => String(n).padStart(2, "0");
  return hours ? `${hours}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`; // (the same in every language)
}

// Some browsers carry no date names for some languages (Chromium has none for Albanian): they
// get the date in figures, as the language writes it, rather than in English.
const intlSpeaksLanguage = Intl.DateTimeFormat.supportedLocalesOf([LANGUAGE]).length > 0;

export function formatDay(isoDay) {
  if (!isoDay) return "";
  const d = new Date(`${isoDay}T00:00:00Z`);
  if (Number.isNaN(d.getTime())) return isoDay;
  if (!intlSpeaksLanguage) {
    const [year, month, day] = isoDay.split("-").map(Number);
    return interpolate(pgettext("numeric date", "%(month)s/%(day)s/%(year)s"), { year, month, day }, true);
  }
  return d.toLocaleDateString(LANGUAGE, { weekday: "short", year: "numeric", month: "short", day: "numeric", timeZone: "UTC" });
}

/** How every page names a game's result (the API's `result`: won, resigned, closed, in_progress). */
export const RESULT_LABELS = {
  won: pgettext("game result", "Won"),
  resigned: pgettext("game result", "Resigned"),
  closed: pgettext("game result", "Day over"),
  in_progress: pgettext("game result", "In progress"),
};

export function resultLabel(result) {
  return RESULT_LABELS[result] || result || "";
}

/** How a list names a game of its rows (`result`, and `actions` logged): a game in progress that
 * has no action yet — opened, never played — is "Not started", not "In progress". */
export function gameResultLabel(game) {
  if (game.result === "in_progress" && game.actions === 0) return pgettext("game result", "Not started");
  return resultLabel(game.result);
}

/** A local path to return to after logging in, never another site. */
export function safeNext(value, fallback = "/") {
  if (typeof value === "string" && value.startsWith("/") && !value.startsWith("//") && !value.startsWith("/\\")) return value;
  return fallback;
}

export function loginUrl() {
  return `/login/?next=${encodeURIComponent(location.pathname + location.search)}`;
}

export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = h("textarea", { value: text, style: { position: "fixed", opacity: "0" } });
    document.body.append(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    area.remove();
    return ok;
  }
}

export function reducedMotion() {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

const CELEBRATION_SUITS = ["S", "H", "D", "C"];

/**
 * A win's moment: small cards cascading down `container` (a dialog), about 1.5 s, drawn by CSS
 * alone (site.css, "The win's moment") and gone under prefers-reduced-motion. Decoration only:
 * hidden from screen readers, which hear the dialog's heading.
 */
export function celebrate(container, count = 16) {
  container.querySelector(":scope > .celebration")?.remove();
  const box = h("div.celebration", { "aria-hidden": "true" });
  for (let i = 0; i < count; i++) {
    const suit = CELEBRATION_SUITS[i % 4];
    const piece = svgUse(`suit-${suit}`);
    const card = h(`span.celebration-card${suit === "H" || suit === "D" ? ".red" : ""}`, {}, piece);
    // A spread that looks scattered but is the same every time: no randomness to test around.
    card.style.setProperty("--x", `${(i * 37 + 7) % 96}%`);
    card.style.setProperty("--delay", `${(i * 53) % 400}ms`);
    card.style.setProperty("--turn", `${((i * 71) % 90) - 45}deg`);
    box.append(card);
  }
  container.prepend(box);
  return box;
}

/** Shows an error box inside `container`, with a log-in link when the server wants one. */
export function showError(container, err) {
  const needsLogin = err && (err.status === 401 || err.status === 403) && !document.body.dataset.username;
  container.replaceChildren(
    h("div.notice.notice-error", { role: "alert" },
      h("p", {}, err?.message || String(err)),
      needsLogin ? h("p", {}, h("a.button.primary", { href: loginUrl() }, gettext("Log in")), " ", h("a.button", { href: "/signup/" }, gettext("Sign up"))) : null,
    ),
  );
}

/** The answer of the opening in hand of each dialog that `ask` opened: a function that settles it. */
const asking = new WeakMap();

/**
 * A question in the site's own dialog (a modal <dialog>, labelled by its heading): `text` goes in
 * its `[data-ask-text]`, and the answer is true when it is closed by its `value="yes"` button,
 * false by any other (or Escape). The focus starts on the element with `autofocus` (the safe
 * answer), stays in the dialog while it is open (Tab and Shift+Tab go round its buttons), and goes
 * back where it was when it closes.
 *
 * A dialog's `close` event is told after it has closed, in a task of its own, and a busy page may
 * take a key press before it: the question asked again while the last closing is still untold.
 * That opening is answered then (by the value it closed with), and the late event, which finds
 * the dialog open again, answers nothing: each opening gets its own answer.
 */
export function ask(dialog, text) {
  asking.get(dialog)?.();
  const before = document.activeElement;
  dialog.querySelector("[data-ask-text]").textContent = text;
  dialog.returnValue = "";
  if (!dialog.dataset.askBound) {
    dialog.dataset.askBound = "1";
    dialog.addEventListener("keydown", (e) => {
      if (e.key !== "Tab") return;
      const stops = [...dialog.querySelectorAll("button, a[href], input, select, textarea")].filter((el) => !el.disabled && !el.hidden);
      if (!stops.length) return;
      const at = stops.indexOf(document.activeElement);
      const next = e.shiftKey ? (at <= 0 ? stops.length - 1 : at - 1) : (at + 1) % stops.length;
      e.preventDefault();
      stops[next].focus();
    });
    dialog.addEventListener("close", () => {
      if (!dialog.open) asking.get(dialog)?.();
    });
  }
  dialog.showModal();
  return new Promise((resolve) => {
    asking.set(dialog, () => {
      asking.delete(dialog);
      if (before?.isConnected && typeof before.focus === "function") before.focus();
      resolve(dialog.returnValue === "yes");
    });
  });
}
