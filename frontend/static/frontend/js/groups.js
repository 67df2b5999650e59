// My groups: the list, and a form to make one (then its page, where its invite link is).
import { api } from "./api.js";
import { fmt, formatNumber, h, showError } from "./ui.js";

const root = document.querySelector("[data-groups]");
const list = root.querySelector("[data-group-list]");
const form = root.querySelector("[data-new-group]");

async function showList() {
  let groups;
  try {
    groups = await api.get("/api/groups/");
  } catch (err) {
    showError(list, err);
    return;
  }
  if (!groups.length) {
    list.replaceChildren(h("p.muted", {}, gettext("You are in no group yet: make one below, or ask a friend for their group's invite link.")));
    return;
  }
  list.replaceChildren(h("ul.group-list", {}, groups.map((group) => h("li", {},
    h("a", { href: `/groups/${group.id}/` }, group.name),
    h("span.muted", {}, group.owned
      ? fmt(ngettext("yours · %(count)s member", "yours · %(count)s members", group.members), { count: formatNumber(group.members) })
      : fmt(ngettext("owner %(owner)s · %(count)s member", "owner %(owner)s · %(count)s members", group.members), { owner: group.owner, count: formatNumber(group.members) })),
  ))));
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = form.elements.name;
  const error = form.querySelector("[data-field-error]");
  const submit = form.querySelector('button[type="submit"]');
  error.textContent = "";
  input.removeAttribute("aria-invalid");
  submit.disabled = true;
  try {
    const group = await api.post("/api/groups/", { name: input.value });
    location.assign(`/groups/${group.id}/`);
  } catch (err) {
    error.textContent = err.body?.fields?.name?.join(" ") || err.message;
    input.setAttribute("aria-invalid", "true");
    input.focus();
    submit.disabled = false;
  }
});

showList();
