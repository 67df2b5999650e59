// Every page: the "Log out" link posts to the API instead of leaving a GET with a side effect,
// the language menu applies a choice at once (its button is for pages without scripts), and on a
// small screen the header's links fold into a menu that its button opens.
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

const navToggle = document.querySelector("[data-nav-toggle]");
const nav = document.querySelector("[data-nav]");
if (navToggle && nav) {
  const setOpen = (open) => {
    navToggle.setAttribute("aria-expanded", String(open));
    nav.classList.toggle("open", open);
  };
  navToggle.addEventListener("click", () => {
    const open = navToggle.getAttribute("aria-expanded") !== "true";
    setOpen(open);
    if (open) nav.querySelector("a")?.focus();
  });
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && nav.classList.contains("open")) {
      setOpen(false);
      navToggle.focus();
    }
  });
  document.addEventListener("click", (e) => {
    if (nav.classList.contains("open") && !nav.contains(e.target) && !navToggle.contains(e.target)) setOpen(false);
  });
}
