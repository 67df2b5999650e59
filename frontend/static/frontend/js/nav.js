// Every page: the "Log out" link posts to the API instead of leaving a GET with a side effect.
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
