// /race: the ring with every car, standings, the turn in progress, past turns, duels, hints;
// for the operator: start the race, set the odds, publish a hint.
var RING = 300, SIZE = 640, C = SIZE / 2, RADIUS = 250;
var ODDS = [["nothing", "nothing"], ["pirates", "pirates"], ["garage", "garage"], ["wreck", "wreck"], ["mineField", "mine field"]];
var filled = false;

function at(ring, out) {
  var a = (ring / RING) * 2 * Math.PI - Math.PI / 2;
  return [C + (RADIUS + out) * Math.cos(a), C + (RADIUS + out) * Math.sin(a)];
}

function ring(view) {
  var svg = R.svg("svg", { class: "ring", id: "ring", viewBox: "0 0 " + SIZE + " " + SIZE, role: "img", "aria-label": "the ring of 300 squares" });
  svg.appendChild(R.svg("circle", { class: "track", cx: C, cy: C, r: RADIUS }));
  var ticks = "", tens = "";
  for (var s = 0; s < RING; s++) {
    var a = at(s, -7), b = at(s, s % 10 === 0 ? 9 : 7);
    var seg = "M" + a[0].toFixed(1) + " " + a[1].toFixed(1) + "L" + b[0].toFixed(1) + " " + b[1].toFixed(1);
    if (s % 10 === 0) tens += seg; else ticks += seg;
  }
  svg.appendChild(R.svg("path", { class: "ticks", d: ticks }));
  svg.appendChild(R.svg("path", { class: "tens", d: tens }));
  var s0 = at(0, -16), s1 = at(0, 16);
  svg.appendChild(R.svg("line", { class: "start", x1: s0[0], y1: s0[1], x2: s1[0], y2: s1[1] }));
  [0, 50, 100, 150, 200, 250].forEach(function (n) { var p = at(n, 32); svg.appendChild(R.svg("text", { x: p[0], y: p[1] + 4 }, String(n))); });
  var stacked = {};
  view.cars.forEach(function (car) {
    var k = stacked[car.ring] = (stacked[car.ring] || 0) + 1;
    var p = at(car.ring, -22 - (k - 1) * 15);
    var dot = R.svg("circle", { class: "car" + (car.stopped ? " stopped" : ""), cx: p[0].toFixed(1), cy: p[1].toFixed(1), r: 7,
      fill: R.color(car.team), "data-car": car.car, "data-ring": car.ring });
    dot.appendChild(R.svg("title", null, car.car + " (" + car.team + "): square " + car.square + ", ring " + car.ring +
      (car.stopped ? ", out: " + car.stopped : "")));
    svg.appendChild(dot);
  });
  var label = view.status === "finished" ? "finished" : view.status === "running" ? "turn " + view.turn : "registration";
  svg.appendChild(R.svg("text", { class: "centre", x: C, y: C + 8, id: "ring-state" }, label));
  return svg;
}

function carsTable(cars) {
  if (!cars.length) return h("p", { class: "muted" }, "No car registered yet.");
  return h("table", { class: "list", id: "cars" },
    h("thead", null, h("tr", null, ["car", "team", "square", "modules", ""].map(function (t, i) { return h("th", { class: i === 1 ? "wide" : null }, t); }))),
    h("tbody", null, cars.map(function (c) {
      return h("tr", { "data-car": c.car },
        h("td", null, h("span", { class: "swatch", style: "background:" + R.color(c.team) }), c.car),
        h("td", { class: "wide" }, R.teamLink(c.team)), h("td", null, c.square),
        h("td", null, c.modules.pilots + "P " + c.modules.engines + "E " + c.modules.weapons + "W"),
        h("td", { class: "muted" }, c.stopped ? "out: " + c.stopped : c.turnsToMiss ? c.turnsToMiss + " to miss" : ""));
    })));
}

function headline(view) {
  var s = view.settings;
  var parts = [h("span", { id: "race-status", "data-status": view.status }, h("b", null, view.status))];
  if (view.status !== "registration") parts.push(h("span", null, "turn ", h("b", { id: "race-turn" }, view.turn), s && s.turns ? " of " + s.turns : ""));
  if (view.phase) parts.push(h("span", null, "step ", view.phase));
  if (view.distribution) {
    var d = view.distribution;
    parts.push(h("span", { id: "odds" }, "odds " + d.nothing + "/" + d.pirates + "/" + d.garage + "/" + d.wreck + "/" + d.mineField));
  }
  if (s) parts.push(h("span", { class: "seed" }, "seed SHA-256 " + s.seedSha256.slice(0, 16) + "…"));
  return h("div", { class: "race-top", id: "race-top", "aria-live": "polite" }, parts);
}

function finishedCard(f) {
  if (!f) return null;
  return h("section", { class: "card", id: "finished" },
    h("h2", null, "The race is over (turn " + f.turn + ", " + (f.reason === "turns" ? "its turns played" : "time up") + ")"),
    h("ul", null, f.bonuses.map(function (b) {
      return h("li", null, R.bonus(b.kind) + " (" + b.value + "): " + (b.teams.length ? b.teams.join(", ") + " +" + b.points + " points" : "nobody"));
    })),
    h("p", { class: "seed" }, "Seed, revealed: ", h("b", { id: "seed" }, f.seed)));
}

function render(view) {
  if (!view) return;
  var teams = {};
  view.cars.forEach(function (c) { teams[c.team] = true; });
  var current = view.current;
  Console.fill("race-main",
    headline(view),
    h("div", { class: "ring-wrap" }, ring(view)),
    h("div", { class: "legend" }, Object.keys(teams).sort().map(function (t) {
      return h("span", null, h("span", { class: "swatch", style: "background:" + R.color(t) }), R.teamLink(t));
    })),
    finishedCard(view.finished),
    h("h2", null, "Standings", current && current.standings ? "" : ""), R.standings(view.standings),
    h("h2", null, current ? "Turn " + current.turn : "No turn yet"),
    current ? R.story(current.lines) : h("p", { class: "muted" }, "The story of each turn comes here, live."),
    current && current.dropped ? h("p", { class: "muted" }, current.dropped + " more line(s) not kept") : null,
    view.turns.length > 1 ? [h("h2", null, "Turn by turn"),
      h("ul", { class: "turns", id: "turns" }, view.turns.map(function (t) {
        return h("li", null, h("a", { href: "/race/turns/" + t.turn, "data-turn": t.turn },
          "turn " + t.turn + (t.leader ? " · " + t.leader.team + " " + t.leader.points : "")));
      }))] : null);
  Console.fill("race-side",
    h("h2", null, "Duels"),
    view.duels.length ? h("ul", { class: "duels", id: "duels" }, view.duels.map(function (d) {
      return h("li", null, R.duelLink(d.duelId, "Duel " + d.duelId), " · turn " + d.turn + " · " + d.fighters.join(" vs ") + " · ",
        d.over ? (d.winner ? d.winner + " won (" + d.reason + ")" : d.reason) : "in progress");
    })) : h("p", { class: "muted" }, "No duel yet."),
    h("h2", null, "Cars"), carsTable(view.cars),
    view.hints.length ? [h("h2", null, "Hints"), h("ul", { id: "hints" }, view.hints.map(function (n) {
      return h("li", null, "turn " + n.turn + " · ", h("b", null, n.title), ": " + n.text);
    }))] : null,
    view.achievements.length ? [h("h2", null, "Achievements"), h("ul", null, view.achievements.map(function (n) {
      return h("li", null, "turn " + n.turn + " · ", h("b", null, n.title), " — " + n.text);
    }))] : null,
    view.refusals.length ? [h("h2", null, "Refused by the race master"), h("ul", { id: "refusals" }, view.refusals.map(function (n) {
      return h("li", { class: "message error" }, n.title + ": " + n.text);
    }))] : null);
  if (!filled) fillForms(view);
  var started = view.status !== "registration";
  document.getElementById("start-button").disabled = started;
}

function number(id) {
  var v = document.getElementById(id).value.trim();
  return v === "" ? null : Number(v);
}

function odds(prefix) {
  var d = {};
  ODDS.forEach(function (o) { d[o[0]] = number(prefix + o[0]); });
  return d;
}

function oddsInputs(prefix) {
  return h("div", { class: "odds" }, ODDS.map(function (o) {
    return h("label", null, o[1] + " %", h("input", { id: prefix + o[0], type: "number", min: 0, max: 100, inputmode: "numeric" }));
  }));
}

function fillForms(view) {
  var d = view.distribution || { nothing: 50, pirates: 10, garage: 10, wreck: 15, mineField: 15 };
  ["start-", "odds-"].forEach(function (prefix) {
    ODDS.forEach(function (o) { document.getElementById(prefix + o[0]).value = d[o[0]]; });
  });
  var select = document.getElementById("hint-achievement");
  view.achievementNames.forEach(function (a) { select.appendChild(h("option", { value: a.id }, a.title)); });
  filled = true;
}

function answer(id, ok, r, text) {
  Console.say(id, r.ok, r.ok ? text : (r.data && r.data.error) || ("refused: " + r.status));
}

function startRace(e) {
  e.preventDefault();
  var minutes = number("start-duration");
  var body = { turns: number("start-turns"), durationMs: minutes === null ? null : Math.round(minutes * 60000),
    turnIntervalMs: number("start-interval"), decisionTimeoutMs: number("start-timeout"), distribution: odds("start-") };
  Console.say("start-message", true, "Sending…");
  Console.post("/race/start", body).then(function (r) { answer("start-message", r.ok, r, "Sent: the race master starts the race."); });
}

function setOdds(e) {
  e.preventDefault();
  Console.post("/race/distribution", { distribution: odds("odds-") }).then(function (r) { answer("odds-message", r.ok, r, "Sent: new odds from the next event step."); });
}

function publishHint(e) {
  e.preventDefault();
  var achievement = document.getElementById("hint-achievement").value;
  Console.post("/race/hints", { achievement: achievement }).then(function (r) { answer("hint-message", r.ok, r, "Sent: the hint comes with this turn."); });
}

Console.fill("page",
  h("div", { class: "race-grid" },
    h("div", { id: "race-main" }),
    h("div", null,
      Console.loginHint("Log in with the operator's token to start the race, set the odds or publish a hint."),
      Console.action({ id: "start" }, "Start the race",
        h("form", { id: "start-form", onsubmit: startRace },
          h("div", { class: "settings" },
            h("label", null, "turns", h("input", { id: "start-turns", type: "number", min: 1, max: 100000, placeholder: "no limit" })),
            h("label", null, "duration (min)", h("input", { id: "start-duration", type: "number", min: 1, step: "any", placeholder: "120" })),
            h("label", null, "turn interval (ms)", h("input", { id: "start-interval", type: "number", min: 0, placeholder: "10000" })),
            h("label", null, "time to answer (ms)", h("input", { id: "start-timeout", type: "number", min: 1, max: 600000, placeholder: "5000" }))),
          h("p", { class: "muted" }, "Odds of the random events (they add up to 100):"),
          oddsInputs("start-"),
          h("button", { type: "submit", class: "primary", id: "start-button" }, "Start the race"),
          h("div", { id: "start-message", class: "message" }))),
      Console.action({ id: "odds-card" }, "Odds of the random events",
        h("form", { id: "odds-form", onsubmit: setOdds }, oddsInputs("odds-"),
          h("button", { type: "submit", id: "odds-button" }, "Set the odds"),
          h("div", { id: "odds-message", class: "message" }))),
      Console.action({ id: "hint-card" }, "Publish a hint",
        h("form", { class: "row", id: "hint-form", onsubmit: publishHint },
          h("select", { id: "hint-achievement", "aria-label": "achievement" }),
          h("button", { type: "submit", id: "hint-button" }, "Publish")),
        h("div", { id: "hint-message", class: "message" })),
      h("div", { id: "race-side" }))));
