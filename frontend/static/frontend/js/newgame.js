// The New game form (draw 1 "Easy" / draw 3 "Hard", random deal or by code), used in the
// game page's dialog and on the home page.
import { api } from "./api.js";

const CODE_RE = /^\s*CF\d+-D([13])-[A-Z]{7}\s*$/i;

export function bindNewGameForm(form, { onCancel } = {}) {
  const codeInput = form.elements.code;
  const error = form.querySelector("[data-form-error]");
  const submit = form.querySelector('button[type="submit"]');

  const syncMode = () => {
    const byCode = form.elements.deal.value === "code";
    form.classList.toggle("by-code", byCode);
    codeInput.disabled = !byCode;
    codeInput.required = byCode;
  };
  for (const radio of form.querySelectorAll('input[name="deal"]')) radio.addEventListener("change", () => {
    syncMode();
    if (form.elements.deal.value === "code") codeInput.focus();
  });
  codeInput.addEventListener("input", () => {
    // The code names its draw mode; show it.
    const m = CODE_RE.exec(codeInput.value);
    if (m) form.elements.draw.value = m[1];
  });
  codeInput.addEventListener("focus", () => {
    if (form.elements.deal.value !== "code") {
      form.elements.deal.value = "code";
      syncMode();
    }
  });
  for (const radio of form.querySelectorAll('input[name="draw"]')) radio.addEventListener("change", () => {
    // CF1-D1-X and CF1-D3-X are the same layout with the other draw mode.
    if (CODE_RE.test(codeInput.value)) {
      codeInput.value = codeInput.value.trim().toUpperCase().replace(/-D[13]-/, `-D${form.elements.draw.value}-`);
    }
  });
  form.querySelector("[data-cancel]")?.addEventListener("click", () => onCancel?.());
  syncMode();

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    const body = { variant: form.elements.variant?.value || "app" };
    if (form.elements.deal.value === "code") {
      const code = codeInput.value.trim().toUpperCase();
      if (!code) {
        error.textContent = interpolate(gettext("Enter a game code such as %(example)s."), { example: "CF1-D3-AAAAACL" }, true);
        codeInput.focus();
        return;
      }
      body.code = code;
    } else {
      body.draw = Number(form.elements.draw.value);
    }
    submit.disabled = true;
    try {
      const game = await api.post("/api/games/", body);
      location.assign(`/games/${game.id}/`);
    } catch (err) {
      // (anyone may start a practice game: a visitor becomes a guest; a refusal says why)
      error.textContent = err.message;
      submit.disabled = false;
    }
  });
}
