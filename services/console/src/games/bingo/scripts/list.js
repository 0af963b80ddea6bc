// /bingo: every game, and for the operator the form that opens one.
var pending = null; // {requestId, gameId} of the opening sent from this page
var lastView = null; // the answer may come in a live update before the POST's own answer

function gameCard(g) {
  return h("a", { class: "card game-link", href: B.base(g.gameId), "data-game": g.gameId },
    h("h2", null, g.gameId),
    B.facts(g),
    h("div", { class: "facts" },
      h("span", null, g.cards + " cards"),
      h("span", null, g.called + " called" + (g.lastCall ? " (last: " + g.lastCall.label + ")" : "")),
      h("span", null, g.winners + (g.winners === 1 ? " winner" : " winners")),
      h("span", null, "opened " + B.when(g.openedAt))));
}

function render(view) {
  lastView = view;
  var games = (view && view.games) || [];
  Console.fill("games", games.length ? h("div", { class: "grid" }, games.map(gameCard))
    : h("p", { class: "muted" }, "No bingo game yet."));
  var refusals = (view && view.rejections) || [];
  Console.fill("refusals", refusals.length ? [h("h2", null, "Refused"), h("ul", { class: "refusals" }, refusals.map(B.refusal))] : null);
  if (pending) {
    var opened = games.filter(function (g) { return g.openRequestId === pending.requestId; })[0];
    var refused = B.findRefusal(refusals, pending.requestId);
    if (opened) {
      Console.fill("open-message", "Game " + opened.gameId + " opened: ",
        h("a", { id: "opened-link", href: B.base(opened.gameId) }, "go to its page"));
      document.getElementById("open-message").className = "message ok";
      pending = null;
    } else if (refused) {
      Console.say("open-message", false, "Bingo refused the game (" + refused.code + "): " + refused.reason);
      pending = null;
    }
  }
}

function checked(name) {
  return Array.prototype.map.call(document.querySelectorAll("input[name=" + name + "]:checked"), function (i) { return i.value; });
}

function openGame(e) {
  e.preventDefault();
  var size = Number(document.getElementById("size").value);
  var body = {
    gameId: document.getElementById("game-id").value.trim() || null,
    tickMode: checked("tick-mode")[0] || null,
    size: size,
    squares: document.getElementById("squares").value,
    patterns: checked("pattern")
  };
  if (size % 2 === 1) body.freeCentre = document.getElementById("free-centre").checked;
  Console.say("open-message", true, "Sending…");
  Console.post("/bingo", body).then(function (r) {
    if (r.ok) {
      pending = { requestId: r.data.requestId, gameId: r.data.gameId };
      Console.say("open-message", true, "Sent: waiting for bingo to open " + r.data.gameId + "…");
      render(lastView);
    } else Console.say("open-message", false, B.failed(r));
  });
}

function modeChanged() {
  var activity = checked("tick-mode")[0] === "activity";
  document.getElementById("squares").placeholder = activity
    ? "one square per line: label | verb | object\nSay hello | talk.hello\nVisit table 3 | walk | table-3"
    : "one square per line, e.g.\nFirst goal of the night\nA foosball in-out\n…";
}

function sizeChanged() {
  var odd = Number(document.getElementById("size").value) % 2 === 1;
  var free = document.getElementById("free-centre");
  free.disabled = !odd;
  if (!odd) free.checked = false;
}

Console.fill("page",
  h("div", { class: "two" },
    h("div", null, h("section", { id: "games" }), h("section", { id: "refusals" })),
    h("div", null,
      Console.loginHint("Log in with the operator's token to open a game."),
      Console.action({ id: "open" }, "Open a game",
        h("form", { id: "open-form", onsubmit: openGame },
          h("div", { class: "row" },
            h("label", { for: "game-id" }, "Game id "),
            h("input", { id: "game-id", placeholder: "friday-quiz (optional)", maxlength: "200" })),
          h("div", { class: "row", role: "radiogroup", "aria-label": "tick mode" },
            "Ticked by: ",
            h("label", null, h("input", { type: "radio", name: "tick-mode", id: "tick-called", value: "called", checked: true, onchange: modeChanged }), " called squares"),
            h("label", null, h("input", { type: "radio", name: "tick-mode", id: "tick-activity", value: "activity", onchange: modeChanged }), " activity")),
          h("div", { class: "row" },
            h("label", { for: "size" }, "Grid "),
            h("select", { id: "size", onchange: sizeChanged },
              [3, 4, 5, 6, 7, 8, 9].map(function (n) { return h("option", { value: n, selected: n === 5 }, n + "×" + n); })),
            h("label", null, h("input", { type: "checkbox", id: "free-centre", checked: true }), " free centre")),
          h("textarea", { id: "squares", spellcheck: "false", "aria-label": "squares, one per line" }),
          h("div", { class: "row", "aria-label": "win patterns" },
            "Wins: ",
            [["line", "line"], ["row", "row"], ["column", "column"], ["diagonal", "diagonal"], ["fullCard", "full card"], ["fourCorners", "four corners"]].map(function (p) {
              return h("label", null, h("input", { type: "checkbox", name: "pattern", id: "pattern-" + p[0], value: p[0], checked: p[0] === "line" }), " " + p[1]);
            })),
          h("button", { type: "submit", class: "primary", id: "open-button" }, "Open the game"),
          h("div", { id: "open-message", class: "message" }))))));
modeChanged();
