(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("flame-data").textContent);
  var svg = document.getElementById("flame");
  var tip = document.getElementById("tooltip");
  var details = document.getElementById("details");
  var matchedEl = document.getElementById("matched");
  var N = D.n.length, ROW = 17;
  // Widths: a diff draws the frames found in base only too (D.w).
  var WID = D.w || D.v;

  // Layout: a frame's children start at its own offset, in order; the
  // frames come in preorder, so one running offset per depth suffices.
  var x = new Array(N), next = [0, 0], maxDepth = 0;
  for (var i = 0; i < N; i++) {
    var d = D.d[i];
    x[i] = next[d] || 0;
    next[d] = x[i] + WID[i];
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
  var HATCH = {1: "url(#only-base)", 2: "url(#only-new)"};
  function color(i) {
    if (D.diff && D.side[i]) return HATCH[D.side[i]];
    if (D.diff) return D.pal[D.c[i] + D.steps];
    if (i === 0) return "#d8d8d8";
    var h = hash(D.names[D.n[i]]);
    return "hsl(" + (h % 55) + "," + (70 + (h >>> 8) % 25) + "%," + (55 + (h >>> 16) % 12) + "%)";
  }

  var zoom = 0, re = null, matched = new Uint8Array(N);

  function render() {
    var W = svg.getBoundingClientRect().width || 1200;
    var x0 = x[zoom], w = WID[zoom], frames = 0;
    var out = ['<defs><pattern id="only-base" patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)">',
      '<rect width="6" height="6" fill="#b8d4ff"></rect><rect width="2.5" height="6" fill="#3a6fd0"></rect></pattern>',
      '<pattern id="only-new" patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(-45)">',
      '<rect width="6" height="6" fill="#ffd0b0"></rect><rect width="2.5" height="6" fill="#e0601a"></rect></pattern></defs>'];
    for (var i = 0; i < N; i++) {
      var s = x[i], e = s + WID[i];
      if (e <= x0 || s >= x0 + w) continue;
      var rs = Math.max(s, x0), re2 = Math.min(e, x0 + w);
      var px = (rs - x0) / w * W, pw = (re2 - rs) / w * W, y = D.d[i] * ROW;
      var name = D.names[D.n[i]];
      out.push('<rect x="', px.toFixed(2), '" y="', y, '" width="', pw.toFixed(2), '" height="', ROW - 1,
        '" fill="', matched[i] ? "#e040e0" : color(i), '" data-i="', i, '"', D.diff && D.side[i] ? ' data-side="' + D.side[i] + '"' : "",
        i === 0 ? ' data-root="1"' : ' data-name="' + esc(name) + '"', "></rect>");
      if (i > 0) frames++;
      var chars = Math.floor((pw - 6) / 6.6);
      if (chars >= 3) {
        var label = i === 0 ? name : shortName(name);
        if (label.length > chars) label = label.slice(0, chars - 2) + "..";
        var dark = D.diff && !D.side[i] && Math.abs(D.c[i]) >= 7 && !matched[i];
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
      if (D.side[i]) s += "; function " + SIDES[D.side[i]];
      if (D.rn[i] >= 0) s += "; in new: " + D.names[D.rn[i]];
      if (D.rb[i] >= 0) s += "; in base: " + D.names[D.rb[i]];
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
    if (i >= 0) { zoom = i; render(); if (i > 0) showCallers(D.names[D.n[i]]); }
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
    (D.newOps ? " (" + D.baseOps + " and " + D.newOps + " iterations)" : "") + "; widths are the new profile's, frames on base's call paths only their base value on the new scale";
  document.getElementById("info").textContent = info + "; " + (N - 1) + " frames drawn, frames under " +
    (100 * D.minShare).toPrecision(2) + "% of the total are part of their parent. Click to zoom, Escape to zoom out.";

  var SIDES = {0: "in both", 1: "only in base", 2: "only in new"};
  if (D.diff) {
    var legend = document.getElementById("legend"),
      parts = ['<div class="row">', D.newOps ? "<span>less time per op (faster)</span>" : "<span>smaller share (faster)</span>"];
    for (var k = -D.steps; k <= D.steps; k++) parts.push('<span class="sw" style="background:' + D.pal[k + D.steps] + '"></span>');
    parts.push(D.newOps ? "<span>more time per op (slower)</span>" : "<span>larger share (slower)</span>",
      '<span class="sw only-base"></span><span>only in base</span><span class="sw only-new"></span><span>only in new</span></div>',
      '<div class="note">', D.newOps ?
        "Color: the change in the frame's own time per operation (base scaled to the new run's iterations) as a share of the new total; grey: unchanged. " :
        "Color: the change in the frame's share of the total; grey: unchanged. ",
      "Hatched: a function with no samples in the other profile. Frames on base's call paths only are drawn at their base value on the new scale. " +
      "Frames are matched by normalized names (type arguments and closure numbers dropped); hover shows a frame's names in either profile.</div>");
    legend.innerHTML = parts.join("");
    legend.hidden = false;
  }

  // The table of functions: flat and cumulative, base and new, change.
  // Per operation the values are per iteration; otherwise shares.
  var F = D.fns.slice(), selected = -1, byName = {}, sortCol = -1, sortDesc = true;
  function index() {
    byName = {};
    for (var q = 0; q < F.length; q++) byName[F[q].n] = q;
  }
  index();
  // sortKey is a row's value in column col, on a scale both sides share.
  function sortKey(f, col) {
    var bs = D.diff ? (D.newOps ? 1 / D.baseOps : 1 / D.baseTotal) : 0, ns = D.diff && D.newOps ? 1 / D.newOps : 1 / D.total;
    if (!D.diff) return [null, f.f, f.f, f.c, f.c][col];
    return [null, f.bf * bs, f.f * ns, f.f * ns - f.bf * bs, f.bc * bs, f.c * ns, f.c * ns - f.bc * bs][col];
  }
  function sortBy(col) {
    sortDesc = col === sortCol ? !sortDesc : col !== 0;
    sortCol = col;
    var name = selected >= 0 ? F[selected].n : null;
    F.sort(function (a, b) {
      var c = col === 0 ? (a.n < b.n ? -1 : a.n > b.n ? 1 : 0) : sortKey(a, col) - sortKey(b, col);
      return sortDesc ? -c : c;
    });
    index();
    selected = name === null ? -1 : byName[name];
    drawTop();
  }
  function perOp(v, ops) { return fmtValue(v / ops); }
  function cell(v, b) {
    if (!D.diff) return "<td>" + fmtValue(v) + "</td><td>" + pct(v, D.total) + "</td>";
    var bs = D.newOps ? perOp(b, D.baseOps) : pct(b, D.baseTotal),
      ns = D.newOps ? perOp(v, D.newOps) : pct(v, D.total), ch;
    if (D.newOps) {
      var bo = b / D.baseOps, no = v / D.newOps;
      ch = bo === 0 ? (no === 0 ? "" : "new") : (no === 0 ? "gone" : ((no / bo - 1) * 100 >= 0 ? "+" : "") + ((no / bo - 1) * 100).toFixed(1) + "%");
    } else {
      var pts = 100 * (v / D.total - b / D.baseTotal);
      ch = (pts >= 0 ? "+" : "") + pts.toFixed(2) + " pts";
    }
    var cls = ch.charAt(0) === "+" || ch === "new" ? "up" : ch.charAt(0) === "-" || ch === "gone" ? "down" : "";
    return "<td>" + bs + "</td><td>" + ns + '</td><td class="' + cls + '">' + ch + "</td>";
  }
  function drawTop() {
    var cols = D.diff ? ["function", "flat base", "flat new", "change", "cum base", "cum new", "change"] :
      ["function", "flat", "flat %", "cum", "cum %"], head = ["<tr>"];
    for (var h = 0; h < cols.length; h++) {
      head.push('<th data-col="' + h + '" title="sort">' + cols[h] + (h === sortCol ? (sortDesc ? " ▼" : " ▲") : "") + "</th>");
    }
    var rows = [head.join("") + "</tr>"];
    for (var j = 0; j < F.length; j++) {
      var f = F[j];
      rows.push('<tr class="fn' + (j === selected ? " sel" : "") + (f.side ? " side" + f.side : "") + '" data-fn="' + j + '" title="' + esc(f.n) + '"><td>' +
        (f.side ? '<span class="sw ' + (f.side === 1 ? "only-base" : "only-new") + '" title="' + SIDES[f.side] + '"></span>' : "") +
        esc(shortName(f.n)) + "</td>" + cell(f.f, f.bf) + cell(f.c, f.bc) + "</tr>");
    }
    document.getElementById("top-table").innerHTML = rows.join("");
    document.body.dataset.functions = F.length;
  }
  function showCallers(name) {
    var j = byName[name];
    if (j === undefined) return;
    selected = j;
    drawTop();
    var f = F[j], rows = ["<tr><th>caller</th>" + (D.diff ? "<th>base share</th><th>new share</th><th>base</th><th>new</th>" : "<th>share</th><th>value</th>") + "</tr>"];
    for (var k = 0; k < (f.cl || []).length; k++) {
      var c = f.cl[k];
      rows.push('<tr class="caller" data-caller="' + esc(c.n) + '" title="' + esc(c.n) + '"><td>' + esc(c.n === "all" ? "(root)" : shortName(c.n)) + "</td>" +
        (D.diff ? "<td>" + (f.bc ? pct(c.b, f.bc) : "") + "</td><td>" + (f.c ? pct(c.v, f.c) : "") + "</td><td>" +
          (D.newOps ? perOp(c.b, D.baseOps) : fmtValue(c.b)) + "</td><td>" + (D.newOps ? perOp(c.v, D.newOps) : fmtValue(c.v)) + "</td>" :
          "<td>" + pct(c.v, f.c) + "</td><td>" + fmtValue(c.v) + "</td>") + "</tr>");
    }
    document.getElementById("callers-title").textContent = "Callers of " + f.n + (f.side ? " (" + SIDES[f.side] + ")" : "");
    document.getElementById("callers-table").innerHTML = rows.join("");
    document.getElementById("callers").hidden = false;
    document.body.dataset.callers = (f.cl || []).length;
    document.body.dataset.selected = f.n;
  }
  document.getElementById("top-table").addEventListener("click", function (ev) {
    var th = ev.target.closest && ev.target.closest("th[data-col]");
    if (th) { sortBy(+th.getAttribute("data-col")); return; }
    var tr = ev.target.closest && ev.target.closest("tr[data-fn]");
    if (tr) showCallers(F[+tr.getAttribute("data-fn")].n);
  });
  document.getElementById("callers-table").addEventListener("click", function (ev) {
    var tr = ev.target.closest && ev.target.closest("tr[data-caller]");
    if (tr) showCallers(tr.getAttribute("data-caller"));
  });
  drawTop();
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
