var tableId = JSON.parse(document.getElementById("frame").textContent).view.tableId;
var base = "/tables/" + encodeURIComponent(tableId);
var pendingGame = null;
var current = null;

function render(view) {
  var t = view && view.table, g = t && t.game;
  current = g;
  Console.fill("facts",
    T.score(g), T.facts(g),
    g && g.rulesText ? h("ul", { class: "rules", id: "rules-text", "aria-label": "the rules" },
      g.rulesText.map(function (line) { return h("li", null, line); })) : null,
    h("p", null, h("a", { href: base + "/scoreboard" }, "Full-screen scoreboard")),
    t && t.lastRejection ? h("div", { class: "message error", id: "last-rejection" },
      "Refused (" + t.lastRejection.what + " " + t.lastRejection.gameId + "): " + t.lastRejection.error) : null);
  Console.fill("goals", g && g.goals.length ? h("ul", { class: "goals" }, g.goals.map(T.goal)) : h("p", { class: "muted" }, "No goal yet."));
  if (pendingGame && t) {
    if (g && g.gameId === pendingGame) { Console.say("start-message", true, "Game " + pendingGame + " started."); pendingGame = null; }
    else if (t.lastRejection && t.lastRejection.gameId === pendingGame) {
      Console.say("start-message", false, "The referee refused the rules: " + t.lastRejection.error);
      pendingGame = null;
    }
  }
  var running = g && !g.finished;
  document.getElementById("abort").disabled = !running;
  document.getElementById("cancel-goal").disabled = !(running && g.goals.length);
  document.querySelectorAll(".goal-button").forEach(function (b) { b.disabled = !running; });
}

function rulesText() { return document.getElementById("rules").value; }

function loadExample(name) {
  fetch("/console/tables/examples.json").then(function (r) { return r.json(); }).then(function (all) {
    if (all[name]) document.getElementById("rules").value = JSON.stringify(all[name], null, 2);
  });
}

function startGame(e) {
  e.preventDefault();
  var rules;
  try { rules = JSON.parse(rulesText()); }
  catch (err) { return Console.say("start-message", false, "The rules are not JSON: " + err.message); }
  var players = null, hinge = document.getElementById("players-hinge").value.trim(), lock = document.getElementById("players-lock").value.trim();
  if (hinge || lock) players = { hinge: hinge ? hinge.split(/\s*,\s*/) : [], lock: lock ? lock.split(/\s*,\s*/) : [] };
  Console.say("start-message", true, "Sending…");
  Console.post(base + "/games", { rules: rules, players: players }).then(function (r) {
    if (r.ok) { pendingGame = r.data.gameId; Console.say("start-message", true, "Sent: waiting for the referee to start " + pendingGame + "…"); }
    else Console.say("start-message", false, (r.data && r.data.error) || ("refused: " + r.status));
  });
}

function abortGame() {
  if (!current) return;
  var reason = document.getElementById("abort-reason").value.trim();
  Console.post(base + "/abort", { gameId: current.gameId, reason: reason || null }).then(function (r) {
    Console.say("abort-message", r.ok, r.ok ? "Abort sent." : (r.data && r.data.error) || ("refused: " + r.status));
  });
}

function cancelGoal() {
  if (!current || !current.goals.length) return;
  var last = current.goals[0];
  Console.post(base + "/cancel", { gameId: current.gameId, ball: last.ball }).then(function (r) {
    Console.say("goal-message", r.ok, r.ok ? "Cancel of ball " + last.ball + " sent." : (r.data && r.data.error) || ("refused: " + r.status));
  });
}

function reportGoal(side) {
  var kind = document.getElementById("goal-kind").value, player = document.getElementById("goal-player").value.trim();
  Console.post(base + "/goals", { side: side, kind: kind, player: player || null, gameId: current ? current.gameId : null }).then(function (r) {
    Console.say("goal-message", r.ok, r.ok ? side + " " + kind + " sent." : (r.data && r.data.error) || ("refused: " + r.status));
  });
}

Console.fill("page",
  h("div", { class: "two" },
    h("div", null,
      h("section", { class: "card", id: "facts" }),
      h("h2", null, "Last goals"),
      h("section", { class: "card", id: "goals" })),
    h("div", null,
      Console.loginHint("Log in with the operator's token to start, abort or report goals."),
      Console.action({ id: "start" }, "Start a game",
        h("form", { id: "start-form", onsubmit: startGame },
          h("div", { class: "row" },
            h("label", { for: "example" }, "Rules: "),
            h("select", { id: "example", onchange: function (e) { if (e.target.value) loadExample(e.target.value); } },
              h("option", { value: "" }, "an example…"),
              ["bar", "tournament", "aggressive"].map(function (n) { return h("option", { value: n }, n); })),
            h("label", null, " or upload ",
              h("input", { type: "file", id: "rules-file", accept: "application/json,.json", onchange: function (e) {
                var file = e.target.files[0]; if (!file) return;
                file.text().then(function (text) { document.getElementById("rules").value = text; });
              } }))),
          h("textarea", { id: "rules", spellcheck: "false", "aria-label": "rules document (JSON)" }),
          h("div", { class: "row" },
            h("input", { id: "players-hinge", placeholder: "hinge players (a, b)", "aria-label": "hinge players" }),
            h("input", { id: "players-lock", placeholder: "lock players (c, d)", "aria-label": "lock players" })),
          h("button", { type: "submit", class: "primary", id: "start-button" }, "Start the game"),
          h("div", { id: "start-message", class: "message" }))),
      Console.action({ id: "report" }, "Report a goal",
        h("div", { class: "row" },
          h("select", { id: "goal-kind", "aria-label": "kind" }, h("option", { value: "goal" }, "goal"), h("option", { value: "inout" }, "in-out")),
          h("input", { id: "goal-player", placeholder: "scorer (optional)", "aria-label": "scorer" })),
        h("div", { class: "row" },
          h("button", { type: "button", class: "goal-button", id: "goal-hinge", onclick: function () { reportGoal("hinge"); } }, "Goal hinge"),
          h("button", { type: "button", class: "goal-button", id: "goal-lock", onclick: function () { reportGoal("lock"); } }, "Goal lock"),
          h("button", { type: "button", id: "cancel-goal", onclick: cancelGoal }, "Cancel the last goal")),
        h("div", { id: "goal-message", class: "message" })),
      Console.action({ id: "abort-card" }, "Abort the game",
        h("div", { class: "row" },
          h("input", { id: "abort-reason", placeholder: "reason (optional)", "aria-label": "reason" }),
          h("button", { type: "button", class: "danger", id: "abort", onclick: abortGame }, "Abort")),
        h("div", { id: "abort-message", class: "message" })))));
