/* Runs in <head> before the page paints: apply the stored colour theme (auto, light or dark). */
(function () {
  "use strict";
  var theme = "auto";
  try { theme = localStorage.getItem("bananabench-theme") || "auto"; } catch (e) { /* storage blocked */ }
  if (theme !== "light" && theme !== "dark") { theme = "auto"; }
  document.documentElement.setAttribute("data-theme", theme);
})();
