// Sign-up and log-in pages: the form posts to /api/auth/...; the API opens the session.
import { api } from "./api.js";
import { safeNext } from "./ui.js";

const form = document.querySelector("[data-auth-form]");
const mode = form.dataset.mode; // "login" | "signup"
const error = form.querySelector("[data-form-error]");
const submit = form.querySelector('button[type="submit"]');
const next = safeNext(new URLSearchParams(location.search).get("next"));

for (const link of document.querySelectorAll("[data-keep-next]")) {
  if (next !== "/") link.href += `?next=${encodeURIComponent(next)}`;
}

form.addEventListener("submit", async (e) => {
  e.preventDefault();
  error.textContent = "";
  for (const el of form.querySelectorAll("[aria-invalid]")) el.removeAttribute("aria-invalid");
  const username = form.elements.username.value.trim();
  const password = form.elements.password.value;
  if (mode === "signup" && password !== form.elements.password2.value) {
    error.textContent = gettext("The two passwords differ.");
    form.elements.password2.setAttribute("aria-invalid", "true");
    form.elements.password2.focus();
    return;
  }
  submit.disabled = true;
  try {
    await api.post(`/api/auth/${mode}/`, { username, password });
    location.assign(next);
  } catch (err) {
    error.textContent = err.message;
    for (const name of Object.keys(err.body?.fields || {})) form.elements[name]?.setAttribute("aria-invalid", "true");
    submit.disabled = false;
  }
});
