// Every page: the "Log out" link posts to the API instead of leaving a GET with a side effect,
// and the language menu applies a choice at once (its button is for pages without scripts).
import { api } from "./api.js";
import { toast } from "./ui.js";

async function logOut() {
  try {
    await api.post("/api/auth/logout/");
    location.assign("/");
  } catch (err) {
    toast(err.message, "error");
  }
}

for (const link of document.querySelectorAll("[data-logout]")) {
  link.addEventListener("click", (e) => {
    e.preventDefault();
    logOut();
  });
}

const languageMenu = document.querySelector("[data-language-menu]");
if (languageMenu) {
  languageMenu.classList.add("auto");
  languageMenu.elements.language.addEventListener("change", () => {
    // The page's own address (with any query), as it is now.
    languageMenu.elements.next.value = location.pathname + location.search;
    languageMenu.submit();
  });
}
