// /puzzle: the telemetry's per-stage statistics, today's sessions, the trends (win rate per
// stage per hour and per day) and the newest sessions. Drawn as inline SVG, sized by its
// viewBox (a phone and a TV alike); nothing fetched from elsewhere.
var h = Console.h;
var STAGE_COLOURS = ["#4e9a6a", "#3f7fbf", "#c49a2c", "#b4533f", "#8a5cb8"];
var DAY = 86400000;
function svg(tag, attrs) {
  var el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  Object.keys(attrs || {}).forEach(function (k) { el.setAttribute(k, attrs[k]); });
  for (var i = 2; i < arguments.length; i++) if (arguments[i]) el.appendChild(arguments[i]);
  return el;
}
function pct(x) { return x === null || x === undefined ? "–" : Math.round(x * 100) + " %"; }
function ms(x) { return x === null || x === undefined ? "–" : (x / 1000).toFixed(1) + " s"; }
// Bars of the win rate per stage (all the telemetry's sessions).
function winBars(stats) {
  var w = 500, hgt = 200, bw = 60;
  var g = svg("svg", { viewBox: "0 0 " + w + " " + hgt, class: "chart", id: "win-rate-chart", role: "img", "aria-label": "win rate per stage" });
  stats.stages.forEach(function (s, i) {
    var x = 40 + i * 92, rate = s.winRate || 0, bh = rate * (hgt - 50);
    g.appendChild(svg("rect", { x: x, y: hgt - 25 - bh, width: bw, height: Math.max(bh, 1), fill: STAGE_COLOURS[i] }));
    var t = svg("text", { x: x + bw / 2, y: hgt - 30 - bh, "text-anchor": "middle", class: "value" }); t.textContent = pct(s.winRate);
    var l = svg("text", { x: x + bw / 2, y: hgt - 8, "text-anchor": "middle" }); l.textContent = "stage " + s.stage;
    g.appendChild(t); g.appendChild(l);
  });
  return g;
}
// Lines of the win rate per stage over time buckets (a point where the stage had sessions).
function trend(buckets, id, label, fmt) {
  var w = 600, hgt = 220, left = 40, right = 10, top = 10, bottom = 30;
  var g = svg("svg", { viewBox: "0 0 " + w + " " + hgt, class: "chart", id: id, role: "img", "aria-label": label });
  [0, 0.5, 1].forEach(function (v) {
    var y = top + (1 - v) * (hgt - top - bottom);
    g.appendChild(svg("line", { x1: left, x2: w - right, y1: y, y2: y, class: "grid-line" }));
    var t = svg("text", { x: left - 4, y: y + 4, "text-anchor": "end" }); t.textContent = Math.round(v * 100) + "%"; g.appendChild(t);
  });
  if (!buckets.length) return g;
  var first = buckets[0].startMs, last = buckets[buckets.length - 1].startMs, span = Math.max(last - first, 1);
  function xOf(t) { return buckets.length === 1 ? (left + w - right) / 2 : left + (t - first) / span * (w - left - right); }
  // The first and the last bucket's time at the ends of the axis; one bucket: once, centred.
  var ticks = buckets.length === 1 ? [[buckets[0], "middle"]] :
    [[buckets[0], "start"], [buckets[buckets.length - 1], "end"]];
  ticks.forEach(function (tick) {
    var t = svg("text", { x: xOf(tick[0].startMs), y: hgt - 8, "text-anchor": tick[1], class: "axis" });
    t.textContent = fmt(tick[0].startMs); g.appendChild(t);
  });
  for (var s = 0; s < 5; s++) {
    var pts = [];
    buckets.forEach(function (b) {
      var c = b.stages[s];
      if (c[0] > 0) pts.push([xOf(b.startMs), top + (1 - c[1] / c[0]) * (hgt - top - bottom), c]);
    });
    if (pts.length > 1) g.appendChild(svg("polyline", { points: pts.map(function (p) { return p[0] + "," + p[1]; }).join(" "), fill: "none", stroke: STAGE_COLOURS[s], "stroke-width": 2 }));
    pts.forEach(function (p) {
      var dot = svg("circle", { cx: p[0], cy: p[1], r: 3.5, fill: STAGE_COLOURS[s] });
      var tip = svg("title"); tip.textContent = "stage " + (s + 1) + ": " + p[2][1] + " won of " + p[2][0];
      dot.appendChild(tip); g.appendChild(dot);
    });
  }
  return g;
}
function legend() {
  return h("p", { class: "legend" }, STAGE_COLOURS.map(function (c, i) {
    return h("span", null, h("span", { class: "swatch", style: "background:" + c }), "stage " + (i + 1) + " ");
  }));
}
function hourLabel(t) { var d = new Date(t); return d.toISOString().slice(5, 10) + " " + d.toISOString().slice(11, 13) + "h"; }
function dayLabel(t) { return new Date(t).toISOString().slice(0, 10); }
function render(view) {
  view = view || { stats: null, hours: [], days: [], recent: [], played: [] };
  var stats = view.stats;
  var today = Console.now() - Console.now() % DAY;
  var todayBucket = view.days.filter(function (d) { return d.startMs === today; })[0];
  Console.fill("page",
    h("p", null, h("a", { href: "/puzzle/play", class: "button", id: "play-link" }, "Play Strata Relay"),
      " ", h("span", { class: "muted" }, "Sessions played here go to the telemetry like any other.")),
    h("div", { class: "columns" },
      h("section", { class: "card" },
        h("h2", null, "Win rate per stage"),
        stats ? winBars(stats) : h("p", { class: "muted" }, "No statistics from the telemetry yet."),
        stats ? h("p", { class: "muted", id: "totals" }, h("span", { id: "sessions-total" }, String(stats.sessions)), " sessions recorded, " + stats.flagged + " flagged (kept out)") : null),
      h("section", { class: "card" },
        h("h2", null, "Today (UTC)"),
        h("table", { class: "list", id: "today" },
          h("thead", null, h("tr", null, h("th", null, "stage"), h("th", null, "sessions"), h("th", null, "won"), h("th", null, "win rate"), h("th", null, "flagged"))),
          h("tbody", null, [0, 1, 2, 3, 4].map(function (i) {
            var c = todayBucket ? todayBucket.stages[i] : [0, 0, 0];
            return h("tr", { "data-stage": i + 1 }, h("td", null, i + 1), h("td", { class: "sessions" }, c[0]), h("td", { class: "won" }, c[1]),
              h("td", null, c[0] ? pct(c[1] / c[0]) : "–"), h("td", null, c[2]));
          }))))),
    stats ? h("section", { class: "card" },
      h("h2", null, "Per stage (all sessions)"),
      h("div", { class: "scroll" }, h("table", { class: "list", id: "stages" },
        h("thead", null, h("tr", null, ["stage", "sessions", "won", "failed", "abandoned", "flagged", "verified", "win rate", "mean turns", "budget used", "median time", "p90 time"].map(function (t) { return h("th", null, t); }))),
        h("tbody", null, stats.stages.map(function (s) {
          return h("tr", { "data-stage": s.stage }, h("td", null, s.stage + " (" + s.moveLimit + ")"), h("td", { class: "sessions" }, s.sessions), h("td", { class: "won" }, s.won),
            h("td", null, s.failed), h("td", null, s.abandoned), h("td", null, s.flagged), h("td", null, s.verified),
            h("td", null, pct(s.winRate)), h("td", null, s.meanTurns === null ? "–" : s.meanTurns.toFixed(1)),
            h("td", null, pct(s.budgetUse)), h("td", null, ms(s.duration.p50Ms)), h("td", null, ms(s.duration.p90Ms)));
        }))))) : null,
    h("div", { class: "columns" },
      h("section", { class: "card" }, h("h2", null, "Win rate per hour (48 h)"), trend(view.hours, "trend-hours", "win rate per stage per hour", hourLabel), legend()),
      h("section", { class: "card" }, h("h2", null, "Win rate per day (60 days)"), trend(view.days, "trend-days", "win rate per stage per day", dayLabel), legend())),
    h("section", { class: "card" },
      h("h2", null, "Newest sessions"),
      view.recent.length ? h("div", { class: "scroll" }, h("table", { class: "list", id: "recent" },
        h("thead", null, h("tr", null, h("th", null, "game"), h("th", null, "stage"), h("th", null, "outcome"), h("th", null, "turns"), h("th", null, "checked"))),
        h("tbody", null, view.recent.map(function (s) {
          return h("tr", { "data-game": s.gameId }, h("td", null, s.gameId), h("td", null, s.stage), h("td", null, s.outcome),
            h("td", null, s.turns + (s.moveLimit ? " / " + s.moveLimit : "")),
            h("td", { class: s.flagged ? "bad" : "good" }, s.flagged ? "flagged: " + s.detail : (s.verified ? "moves replayed" : "v" + s.version + ", not replayable")));
        })))) : h("p", { class: "muted" }, "No session yet.")));
}
