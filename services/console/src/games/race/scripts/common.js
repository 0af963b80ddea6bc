// Shared by the race's pages: their style, SVG and card helpers, team colours.
var h = Console.h;
(function () {
  if (document.getElementById("race-css")) return;
  var link = document.createElement("link");
  link.id = "race-css";
  link.rel = "stylesheet";
  link.href = "/console/race/race.css";
  document.head.appendChild(link);
})();
var R = {
  // An SVG element; text is set with textContent, never parsed.
  svg: function (tag, attrs, text) {
    var el = document.createElementNS("http://www.w3.org/2000/svg", tag);
    Object.keys(attrs || {}).forEach(function (k) { if (attrs[k] !== null && attrs[k] !== undefined) el.setAttribute(k, attrs[k]); });
    if (text !== undefined) el.textContent = text;
    return el;
  },
  // A stable colour per team name.
  color: function (team) {
    var n = 0;
    for (var i = 0; i < team.length; i++) n = (n * 31 + team.charCodeAt(i)) % 360;
    return "hsl(" + n + ", 75%, 60%)";
  },
  teamLink: function (team) {
    return h("a", { href: "/race/teams/" + encodeURIComponent(team), class: "team", style: "color:" + R.color(team) }, team);
  },
  duelLink: function (id, text) {
    return h("a", { href: "/race/duels/" + id, "data-duel": id }, text || ("duel " + id));
  },
  cards: function (cards, cls) {
    return h("span", { class: "cards " + (cls || "") }, (cards || []).map(function (c) { return h("span", { class: "card c" + c }, c); }));
  },
  // A turn's story as a list; duel lines link to the duel.
  story: function (lines) {
    return h("ol", { class: "story" }, (lines || []).map(function (l) {
      return h("li", { class: "line " + l.kind, "data-kind": l.kind },
        l.team ? h("span", { class: "dot", style: "background:" + R.color(l.team) }) : null,
        l.text, l.duelId ? [" ", R.duelLink(l.duelId, "replay ▸")] : null);
    }));
  },
  standings: function (rows) {
    if (!rows || !rows.length) return h("p", { class: "muted" }, "No standings yet: they come after the first turn.");
    return h("table", { class: "list standings", id: "standings" },
      h("thead", null, h("tr", null, ["#", "team", "points", "distance", "fights won", "$", "cars"].map(function (t) { return h("th", null, t); }))),
      h("tbody", null, rows.map(function (s) {
        return h("tr", { "data-team": s.team },
          h("td", null, s.rank), h("td", null, R.teamLink(s.team)),
          h("td", { class: "points" }, s.points,
            s.bonusPoints ? h("span", { class: "muted" }, " (" + s.bonusPoints + " bonus)") : null),
          h("td", null, s.distance), h("td", null, s.fightsWon), h("td", null, s.budget),
          h("td", null, s.carsRacing + "/" + s.cars));
      })));
  }
};
