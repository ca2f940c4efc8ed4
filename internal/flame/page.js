(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("flame-data").textContent);
  var svg = document.getElementById("flame");
  var tip = document.getElementById("tooltip");
  var details = document.getElementById("details");
  var matchedEl = document.getElementById("matched");
  var N = D.n.length, ROW = 17;

  // Layout: a frame's children start at its own offset, in order; the
  // frames come in preorder, so one running offset per depth suffices.
  var x = new Array(N), next = [0, 0], maxDepth = 0;
  for (var i = 0; i < N; i++) {
    var d = D.d[i];
    x[i] = next[d] || 0;
    next[d] = x[i] + D.v[i];
    next[d + 1] = x[i];
    if (d > maxDepth) maxDepth = d;
  }

  function esc(s) {
    return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }
  // shortName drops the package path: "a/b/c.(*T).M" is shown as "c.(*T).M".
  function shortName(s) {
    var end = s.search(/[(\[]/);
    if (end < 0) end = s.length;
    var slash = s.lastIndexOf("/", end);
    return slash < 0 ? s : s.slice(slash + 1);
  }
  function fmtValue(v) {
    var units, u = D.unit;
    if (u === "nanoseconds") units = [[1e9, "s"], [1e6, "ms"], [1e3, "µs"], [1, "ns"]];
    else if (u === "bytes") units = [[1 << 30, "GiB"], [1 << 20, "MiB"], [1 << 10, "KiB"], [1, "B"]];
    else return v.toLocaleString("en-US") + (u && u !== "count" ? " " + u : "");
    for (var k = 0; k < units.length; k++) {
      if (Math.abs(v) >= units[k][0] || k === units.length - 1) {
        var q = v / units[k][0];
        return (Math.abs(q) >= 100 || units[k][0] === 1 ? q.toFixed(0) : q.toPrecision(3)) + " " + units[k][1];
      }
    }
  }
  function pct(v, total) { return (100 * v / total).toFixed(2) + "%"; }
  function hash(s) {
    var h = 2166136261;
    for (var k = 0; k < s.length; k++) { h ^= s.charCodeAt(k); h = Math.imul(h, 16777619); }
    return h >>> 0;
  }
  function color(i) {
    if (D.diff) return D.pal[D.c[i] + D.steps];
    if (i === 0) return "#d8d8d8";
    var h = hash(D.names[D.n[i]]);
    return "hsl(" + (h % 55) + "," + (70 + (h >>> 8) % 25) + "%," + (55 + (h >>> 16) % 12) + "%)";
  }

  var zoom = 0, re = null, matched = new Uint8Array(N);

  function render() {
    var W = svg.getBoundingClientRect().width || 1200;
    var x0 = x[zoom], w = D.v[zoom], out = [], frames = 0;
    for (var i = 0; i < N; i++) {
      var s = x[i], e = s + D.v[i];
      if (e <= x0 || s >= x0 + w) continue;
      var rs = Math.max(s, x0), re2 = Math.min(e, x0 + w);
      var px = (rs - x0) / w * W, pw = (re2 - rs) / w * W, y = D.d[i] * ROW;
      var name = D.names[D.n[i]];
      out.push('<rect x="', px.toFixed(2), '" y="', y, '" width="', pw.toFixed(2), '" height="', ROW - 1,
        '" fill="', matched[i] ? "#e040e0" : color(i), '" data-i="', i, '"',
        i === 0 ? ' data-root="1"' : ' data-name="' + esc(name) + '"', "></rect>");
      if (i > 0) frames++;
      var chars = Math.floor((pw - 6) / 6.6);
      if (chars >= 3) {
        var label = i === 0 ? name : shortName(name);
        if (label.length > chars) label = label.slice(0, chars - 2) + "..";
        var dark = D.diff && Math.abs(D.c[i]) >= 7 && !matched[i];
        out.push('<text x="', (px + 3).toFixed(2), '" y="', y + ROW - 5, dark ? '" fill="#fff">' : '">', esc(label), "</text>");
      }
    }
    svg.setAttribute("height", (maxDepth + 1) * ROW);
    svg.innerHTML = out.join("");
    document.body.dataset.frames = frames;
  }

  function describe(i) {
    var name = D.names[D.n[i]], v = D.v[i];
    var s = name + ": " + fmtValue(v) + " (" + pct(v, D.total) + ")";
    if (D.diff) {
      var b = D.b[i], change = D.newOps ? 100 * (D.s[i] - D.baseScale * D.bs[i]) / D.total : 100 * (v - D.baseScale * b) / D.total;
      s = name + ": base " + fmtValue(b) + " (" + pct(b, D.baseTotal) + "), new " + fmtValue(v) +
        " (" + pct(v, D.total) + "), " + (D.newOps ? "own time per op " : "share ") + (change >= 0 ? "+" : "") + change.toFixed(2) + " points";
    }
    return s;
  }

  function frameOf(ev) {
    var t = ev.target;
    return t && t.getAttribute && t.getAttribute("data-i") !== null ? +t.getAttribute("data-i") : -1;
  }
  svg.addEventListener("mousemove", function (ev) {
    var i = frameOf(ev);
    if (i < 0) { tip.hidden = true; return; }
    tip.textContent = describe(i);
    details.textContent = tip.textContent;
    tip.hidden = false;
    var left = Math.min(ev.clientX + 12, window.innerWidth - tip.offsetWidth - 8);
    tip.style.left = Math.max(0, left) + "px";
    tip.style.top = (ev.clientY + 16) + "px";
  });
  svg.addEventListener("mouseleave", function () { tip.hidden = true; });
  svg.addEventListener("click", function (ev) {
    var i = frameOf(ev);
    if (i >= 0) { zoom = i; render(); }
  });
  document.getElementById("reset").addEventListener("click", function () { zoom = 0; render(); });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape") { zoom = 0; render(); }
  });

  // search marks the frames whose names match and sums their values,
  // counting a frame inside a matched frame once: frames come in preorder
  // with growing offsets, so a frame starting before the end of the last
  // matched one lies inside it.
  function search(text) {
    re = null;
    matched = new Uint8Array(N);
    if (text !== "") {
      try { re = new RegExp(text); } catch (e) { re = new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")); }
    }
    var sum = 0, end = -1;
    if (re) {
      for (var i = 1; i < N; i++) {
        if (!re.test(D.names[D.n[i]])) continue;
        matched[i] = 1;
        if (x[i] >= end) { sum += D.v[i]; end = x[i] + D.v[i]; }
      }
    }
    matchedEl.textContent = re ? "matched: " + pct(sum, D.total) + " (" + fmtValue(sum) + ")" : "";
    document.body.dataset.matched = re ? (sum / D.total).toFixed(6) : "";
    render();
  }
  document.getElementById("search").addEventListener("input", function (ev) { search(ev.target.value); });

  var info = D.sample + " (" + D.unit + "), total " + fmtValue(D.total);
  if (D.diff) info = D.sample + " (" + D.unit + "), base total " + fmtValue(D.baseTotal) + ", new total " + fmtValue(D.total) +
    (D.newOps ? " (" + D.baseOps + " and " + D.newOps + " iterations)" : "") + "; widths are the new profile's";
  document.getElementById("info").textContent = info + "; " + (N - 1) + " frames drawn, frames under " +
    (100 * D.minShare).toPrecision(2) + "% of the total are part of their parent. Click to zoom, Escape to zoom out.";

  if (D.diff) {
    var legend = document.getElementById("legend"),
      parts = [D.newOps ? "<span>less time per op (faster)</span>" : "<span>smaller share (faster)</span>"];
    for (var k = -D.steps; k <= D.steps; k++) parts.push('<span class="sw" style="background:' + D.pal[k + D.steps] + '"></span>');
    parts.push(D.newOps ?
      "<span>more time per op (slower); color = change in the frame's own time per operation (base scaled to the new run's iterations) as a share of the new total, grey = unchanged</span>" :
      "<span>larger share (slower); color = change in the frame's share of the total, grey = unchanged</span>");
    legend.innerHTML = parts.join("");
    legend.hidden = false;
    if (D.baseOnly) {
      var aside = document.getElementById("baseonly"), items = [];
      for (var j = 0; j < D.baseOnly.length; j++) {
        var f = D.baseOnly[j];
        items.push('<li title="' + esc(f.path.join(" > ")) + '">' + esc(f.path[f.path.length - 1]) + ": " +
          fmtValue(f.v) + " (" + pct(f.v, D.baseTotal) + " of base)</li>");
      }
      aside.innerHTML = "<h2>Only in the base profile (not drawn)</h2><ul>" + items.join("") + "</ul>";
      aside.hidden = false;
    }
  }
  var t0 = performance.now();
  var m = /^#search=(.*)$/.exec(location.hash);
  if (m) {
    var input = document.getElementById("search");
    input.value = decodeURIComponent(m[1]);
    search(input.value);
  } else {
    render();
  }
  document.body.dataset.renderMs = (performance.now() - t0).toFixed(1);
  window.addEventListener("resize", render);
})();
