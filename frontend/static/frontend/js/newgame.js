// The New game form, used in the game page's dialog and on the home page: a random deal (draw 1
// "Easy" / draw 3 "Hard", the standard or the classic rules), or a deal by its code. A random
// deal is one the solver proved winnable, unless "Any deal" is ticked (the request's any_deal).
// A code of a deal proved lost starts its game, and the form says so before going to it.
//
// A code is sent as it was given (only the blanks around a pasted code are dropped): the server
// reads it with the engine's own parser, and its answer — the game, or a refusal in the page's
// language — is all the form knows about codes. The code names its draw and rules, so the draw and
// rules choices belong to random deals alone.
import { api } from "./api.js";

export function bindNewGameForm(form, { onCancel } = {}) {
  const codeInput = form.elements.code;
  const error = form.querySelector("[data-form-error]");
  const submit = form.querySelector('button[type="submit"]');
  const byCode = () => form.elements.deal.value === "code";
  const notice = form.querySelector("[data-deal-notice]");
  const playAnyway = form.querySelector("[data-play-anyway]");
  const hideNotice = () => { if (notice) notice.hidden = true; };
  form.addEventListener("input", hideNotice);
  playAnyway?.addEventListener("click", () => location.assign(playAnyway.dataset.href));

  // Focus stays where the player put it: choosing "By code" shows the field, and the next Tab
  // reaches it.
  const syncMode = () => {
    form.classList.toggle("by-code", byCode());
    codeInput.disabled = !byCode();
    codeInput.required = byCode();
    error.textContent = "";
  };
  for (const radio of form.querySelectorAll('input[name="deal"]')) radio.addEventListener("change", syncMode);
  form.querySelector("[data-cancel]")?.addEventListener("click", () => onCancel?.());
  syncMode();

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    let body;
    if (byCode()) {
      const code = codeInput.value.trim();
      if (!code) {
        error.textContent = interpolate(gettext("Enter a game code such as %(example)s."), { example: "CF1-D3-AAAAACL" }, true);
        codeInput.focus();
        return;
      }
      body = { code };
    } else {
      body = { draw: Number(form.elements.draw.value), variant: form.elements.variant?.value || "app" };
      if (form.elements.any_deal?.checked) body.any_deal = true;
    }
    submit.disabled = true;
    hideNotice();
    try {
      const game = await api.post("/api/games/", body);
      if (game.deal?.winnable === false && notice) {
        // A deal proved lost: the game is there, but the player decides to play it.
        notice.querySelector("[data-deal-notice-text]").textContent = game.deal.message;
        playAnyway.dataset.href = `/games/${game.id}/`;
        notice.hidden = false;
        submit.disabled = false;
        playAnyway.focus();
        return;
      }
      location.assign(`/games/${game.id}/`);
    } catch (err) {
      // Whatever the refusal (invalid_code, unknown_deal, daily_not_public, throttled...), the
      // server's words; anyone may start a practice game (a visitor becomes a guest).
      error.textContent = err.message;
      submit.disabled = false;
      if (byCode()) codeInput.focus();
    }
  });
}
