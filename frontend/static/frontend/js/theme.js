// The colour theme, set before the page is drawn (a classic script in <head>, so no flash of the
// wrong theme): the visitor's choice remembered in localStorage, else the system's
// prefers-color-scheme. The header's toggle switches it and remembers the choice.
(function () {
  var KEY = "canfield.theme";
  var root = document.documentElement;
  // Scripts run: the styles may fold what a script unfolds (the header's menu on small screens).
  root.classList.add("js");
  var system = window.matchMedia("(prefers-color-scheme: dark)");

  function stored() {
    try {
      var value = localStorage.getItem(KEY);
      return value === "dark" || value === "light" ? value : null;
    } catch (e) {
      return null;
    }
  }

  function current() {
    return stored() || (system.matches ? "dark" : "light");
  }

  function apply() {
    var theme = current();
    root.dataset.theme = theme;
    var button = document.querySelector("[data-theme-toggle]");
    if (button) {
      button.setAttribute("aria-pressed", theme === "dark" ? "true" : "false");
      // (the labels come translated from the page: this script runs before the catalog)
      button.title = (theme === "dark" ? button.dataset.labelLight : button.dataset.labelDark) || button.title;
    }
  }

  apply();
  if (system.addEventListener) system.addEventListener("change", apply);
  document.addEventListener("DOMContentLoaded", function () {
    apply();
    var button = document.querySelector("[data-theme-toggle]");
    if (!button) return;
    button.addEventListener("click", function () {
      try {
        localStorage.setItem(KEY, current() === "dark" ? "light" : "dark");
      } catch (e) {
        // storage refused: the theme still switches for this page
        root.dataset.theme = current() === "dark" ? "light" : "dark";
        return;
      }
      apply();
    });
  });
})();
