(function () {
  "use strict";
  var start = performance.now();
  var data = JSON.parse(document.getElementById("axag-data").textContent);
  var all = data.findings, explain = data.explain, size = data.pageSize;
  var RANK = { error: 0, warning: 1, info: 2 };
  var i;
  for (i = 0; i < all.length; i++) { all[i].i = i; }
  var form = document.getElementById("controls");
  var list = document.getElementById("findings");
  var status = document.getElementById("status");
  var pager = document.getElementById("pager");
  var prev = document.getElementById("prev"), next = document.getElementById("next");
  var pageLabel = document.getElementById("page");
  var truncated = document.getElementById("truncated");
  var shown = all, page = 0, timer = 0;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function item(f) {
    var li = el("li", "item");
    li.setAttribute("data-severity", f.s);
    li.setAttribute("data-rule", f.c);
    var h = el("h3");
    h.appendChild(el("span", "sev sev-" + f.s, f.s));
    h.appendChild(document.createTextNode(" "));
    h.appendChild(el("code", "", "[" + f.c + "]"));
    h.appendChild(document.createTextNode(" " + f.m));
    li.appendChild(h);
    li.appendChild(el("p", "where mono", f.p + (f.l >= 1 ? ":" + f.l + ":" + f.k : "")));
    if (f.f.length) {
      var pre = el("pre", "frame");
      pre.tabIndex = 0;
      pre.setAttribute("aria-label", "code frame");
      f.f.forEach(function (row) {
        pre.appendChild(el("span", "gutter", row[0]));
        if (row[2]) { pre.appendChild(el("span", "caret", row[1])); }
        else { pre.appendChild(document.createTextNode(row[1])); }
        pre.appendChild(document.createTextNode("\n"));
      });
      li.appendChild(pre);
    }
    [["help", f.h], ["fix", f.x]].forEach(function (note) {
      if (!note[1]) { return; }
      var p = el("p", "note");
      p.appendChild(el("b", "", note[0] + ":"));
      p.appendChild(document.createTextNode(" " + note[1]));
      li.appendChild(p);
    });
    if (Object.prototype.hasOwnProperty.call(explain, f.c)) {
      var d = el("details");
      d.appendChild(el("summary", "", "About " + f.c + " (" + f.n + ")"));
      d.appendChild(el("pre", "wrap", explain[f.c]));
      li.appendChild(d);
    }
    return li;
  }
  function draw() {
    var pages = Math.max(1, Math.ceil(shown.length / size));
    page = Math.min(page, pages - 1);
    var from = page * size, to = Math.min(shown.length, from + size);
    var frag = document.createDocumentFragment();
    for (var j = from; j < to; j++) { frag.appendChild(item(shown[j])); }
    list.replaceChildren(frag);
    status.setAttribute("data-matching", String(shown.length));
    status.setAttribute("data-shown", String(to - from));
    status.textContent = shown.length === 0 ? "No findings match the filters (" + all.length + " in total)."
      : "Showing " + (from + 1) + "\u2013" + to + " of " + shown.length + " matching findings (" +
        all.length + " in total).";
    pager.hidden = pages < 2;
    pageLabel.textContent = "Page " + (page + 1) + " of " + pages;
    prev.disabled = page === 0;
    next.disabled = page >= pages - 1;
  }
  function apply() {
    var sev = {};
    form.querySelectorAll("input[name=severity]").forEach(function (c) { sev[c.value] = c.checked; });
    var rule = form.elements.rule.value, file = form.elements.file.value;
    var q = form.elements.q.value.trim().toLowerCase(), sort = form.elements.sort.value;
    shown = all.filter(function (f) {
      if (!sev[f.s] || (rule && f.c !== rule) || (file && f.p !== file)) { return false; }
      if (!q) { return true; }
      if (f.t === undefined) { f.t = (f.c + "\n" + f.n + "\n" + f.m + "\n" + f.p + "\n" + f.h).toLowerCase(); }
      return f.t.indexOf(q) !== -1;
    });
    if (sort === "severity") {
      shown.sort(function (a, b) { return RANK[a.s] - RANK[b.s] || a.i - b.i; });
    } else if (sort === "rule") {
      shown.sort(function (a, b) { return a.c < b.c ? -1 : a.c > b.c ? 1 : a.i - b.i; });
    }
    page = 0;
    draw();
  }
  form.addEventListener("change", apply);
  form.elements.q.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(apply, 120);
  });
  prev.addEventListener("click", function () { page -= 1; draw(); list.scrollIntoView(); });
  next.addEventListener("click", function () { page += 1; draw(); list.scrollIntoView(); });
  form.hidden = false;
  if (truncated) { truncated.hidden = true; }
  draw();
  window.__axagReady = performance.now();
  window.__axagSetup = window.__axagReady - start;
  document.documentElement.setAttribute("data-ready", "1");
}());
