// Sign-up and log-in pages: the form posts to /api/auth/...; the API opens the session. The
// rules of a new account stand beside its fields from the start; an error is shown by the field
// it concerns, in the server's sentence (in the page's language), never after a field's name.
import { api } from "./api.js";
import { safeNext } from "./ui.js";

const form = document.querySelector("[data-auth-form]");
const mode = form.dataset.mode; // "login" | "signup"
const error = form.querySelector("[data-form-error]");
const submit = form.querySelector('button[type="submit"]');
const next = safeNext(new URLSearchParams(location.search).get("next"));

const TEXT = {
  username: gettext("Enter a username."),
  password: gettext("Enter a password."),
  differ: gettext("The two passwords differ."),
};

for (const link of document.querySelectorAll("[data-keep-next]")) {
  if (next !== "/") link.href += `?next=${encodeURIComponent(next)}`;
}

function clear() {
  error.textContent = "";
  for (const el of form.querySelectorAll("[data-field-error]")) el.textContent = "";
  for (const el of form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
}

/** Shows each field's sentences by it; returns whether any field was marked. */
function showFields(fields) {
  let first = null;
  for (const [name, messages] of Object.entries(fields)) {
    const input = form.elements[name];
    const box = form.querySelector(`[data-field-error="${name}"]`);
    if (!input || !box) continue;
    box.textContent = messages.join(" ");
    input.setAttribute("aria-invalid", "true");
    first = first || input;
  }
  first?.focus();
  return first !== null;
}

form.addEventListener("submit", async (e) => {
  e.preventDefault();
  clear();
  const username = form.elements.username.value.trim();
  const password = form.elements.password.value;
  const missing = {};
  if (!username) missing.username = [TEXT.username];
  if (!password) missing.password = [TEXT.password];
  else if (mode === "signup" && password !== form.elements.password2.value) missing.password2 = [TEXT.differ];
  if (showFields(missing)) return;
  submit.disabled = true;
  try {
    await api.post(`/api/auth/${mode}/`, { username, password });
    location.assign(next);
  } catch (err) {
    const fields = err.body?.fields || {};
    const shown = showFields(fields);
    // What no field shows: a refused log-in, a limit, the network.
    const rest = Object.entries(fields).filter(([name]) => !form.querySelector(`[data-field-error="${name}"]`));
    if (!shown || rest.length) error.textContent = rest.length ? rest.flatMap(([, m]) => m).join(" ") : err.message;
    submit.disabled = false;
  }
});
