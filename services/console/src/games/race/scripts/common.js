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
  // A colour per team, the same on every page: a team named after a colour gets it, any other
  // one of the palette by its name.
  named: { red: "#ff6b6b", blue: "#4fb3ff", green: "#47c97a", yellow: "#f2d84b", orange: "#ff9a4d",
    purple: "#b685ff", pink: "#ff8fd0", cyan: "#36d6c3", white: "#e8edf3", grey: "#a0a8b4" },
  palette: ["#ffb020", "#36d6c3", "#b685ff", "#ff8fd0", "#d7e05a", "#9aa7ff", "#7fe08a", "#ff9a4d"],
  color: function (team) {
    var first = team.split("-")[0];
    if (R.named[first]) return R.named[first];
    var i = 0;
    for (var k = 0; k < team.length; k++) i = (i * 31 + team.charCodeAt(k)) % 997;
    return R.palette[i % R.palette.length];
  },
  bonus: function (kind) {
    return { carMostFightsWon: "car with the most fights won", teamMostFightsWon: "team with the most fights won",
      carFarthest: "car that went farthest", teamFarthest: "team that went farthest" }[kind] || kind;
  },
  teamLink: function (team) {
    // The team's colour as a dot beside its name (the name itself in the theme's link colour,
    // readable in both themes whatever the colour).
    return h("a", { href: "/race/teams/" + encodeURIComponent(team), class: "team" },
      h("span", { class: "swatch", "aria-hidden": "true", style: "background:" + R.color(team) }), team);
  },
  duelLink: function (id, text) {
    return h("a", { href: "/race/duels/" + id, "data-duel": id }, text || ("duel " + id));
  },
  cards: function (cards, cls) {
    return h("span", { class: "cards " + (cls || "") }, (cards || []).map(function (c) { return h("span", { class: "pc c" + c }, c); }));
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
      h("thead", null, h("tr", null, ["#", "team", "points", "distance", "fights won", "$", "cars"].map(function (t, i) {
        return h("th", { class: i >= 3 && i <= 5 ? "wide" : null }, t);
      }))),
      h("tbody", null, rows.map(function (s) {
        return h("tr", { "data-team": s.team },
          h("td", null, s.rank), h("td", null, R.teamLink(s.team)),
          h("td", { class: "points" }, s.points,
            s.bonusPoints ? h("span", { class: "muted" }, " (" + s.bonusPoints + " bonus)") : null),
          h("td", { class: "wide" }, s.distance), h("td", { class: "wide" }, s.fightsWon), h("td", { class: "wide" }, s.budget),
          h("td", null, s.carsRacing + "/" + s.cars));
      })));
  }
};
