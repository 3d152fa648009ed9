(function () {
  "use strict";
  var form = document.getElementById("controls");
  var q = document.getElementById("q");
  var felt = document.getElementById("felt-only");
  var status = document.getElementById("status");
  var items = Array.prototype.slice.call(document.querySelectorAll("[data-search]"));
  var noun = status.getAttribute("data-noun") || "tools";
  function apply() {
    var text = q.value.trim().toLowerCase(), n = 0;
    items.forEach(function (it) {
      var ok = text === "" || it.getAttribute("data-search").indexOf(text) !== -1;
      if (ok && felt && felt.checked) { ok = (it.getAttribute("data-felt") || "0") !== "0"; }
      it.hidden = !ok;
      if (ok) { n += 1; }
    });
    var links = document.querySelectorAll(".toc a");
    Array.prototype.forEach.call(links, function (a) {
      var target = document.getElementById(a.getAttribute("href").slice(1));
      a.parentNode.hidden = target ? target.hidden : false;
    });
    if (felt) {
      document.querySelectorAll("tr[data-felt]").forEach(function (tr) {
        tr.hidden = felt.checked && tr.getAttribute("data-felt") === "0";
      });
    }
    status.setAttribute("data-matching", String(n));
    status.textContent = "Showing " + n + " of " + items.length + " " + noun + ".";
  }
  form.addEventListener("input", apply);
  form.addEventListener("change", apply);
  form.hidden = false;
  apply();
  document.documentElement.setAttribute("data-ready", "1");
}());
