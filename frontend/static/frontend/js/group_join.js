// An invite's page: the button joins the group (a page view joins nothing), then its page.
import { api } from "./api.js";

const root = document.querySelector("[data-group-join]");
const button = root.querySelector("[data-join]");
const error = root.querySelector("[data-join-error]");

button.addEventListener("click", async () => {
  button.disabled = true;
  error.textContent = "";
  try {
    const group = await api.post("/api/groups/join/", { invite: root.dataset.invite });
    location.assign(`/groups/${group.id}/`);
  } catch (err) {
    error.textContent = err.message;
    button.disabled = false;
  }
});
