// /bingo/{gameId}: one game for its organiser: calls, cards, printed batches, claims, winners.
var frame0 = JSON.parse(document.getElementById("frame").textContent).view;
var gameId = frame0.gameId;
var base = B.base(gameId);
var current = null;
var pending = {}; // action → {requestId, …}

function say(action, ok, text) { Console.say(action + "-message", ok, text); }

// Says that `action` went through, with a link to what it made.
function sayMade(action, text, link) {
  Console.fill(action + "-message", text, link);
  document.getElementById(action + "-message").className = "message ok";
}

// Sends an action; on 202 remembers its request id to match the service's answer.
function act(action, path, body, extra) {
  say(action, true, "Sending…");
  return Console.post(path, body).then(function (r) {
    if (r.ok) {
      pending[action] = Object.assign({ requestId: r.data.requestId }, extra || {});
      say(action, true, "Sent: waiting for bingo…");
      // The answer may have come in a live update before this one.
      if (current) settle(current);
    } else say(action, false, B.failed(r));
    return r;
  });
}

function callSquare(id) {
  act("call", base + "/calls", { squareId: id }, { squareId: id });
}

function callRandom() {
  if (!current) return;
  var left = current.pool.filter(function (s) { return !s.called; });
  if (!left.length) return say("call", false, "Every square has been called.");
  callSquare(left[Math.floor(Math.random() * left.length)].id);
}

// Ends the pending `action` once `g` answers it: the refusal that echoes its request id, or
// what `done(g, p)` finds in the game (then `show(found, p)` tells it).
function settleOne(g, action, done, show) {
  var p = pending[action];
  if (!p) return;
  var refused = B.findRefusal(g.rejections, p.requestId);
  var found = done(g, p);
  if (refused) say(action, false, "Refused (" + refused.code + "): " + refused.reason);
  else if (found) show(found, p);
  else return;
  delete pending[action];
}

function settle(g) {
  settleOne(g, "call",
    function (g, p) { return g.called.filter(function (c) { return c.squareId === p.squareId; })[0]; },
    function (called) { say("call", true, "Called #" + called.callNumber + ": " + called.label); });
  settleOne(g, "deal",
    function (g, p) { return g.players.filter(function (c) { return c.player === p.player; })[0]; },
    function (dealt, p) {
      sayMade("deal", p.player + " holds card " + dealt.serial + ": ",
        h("a", { id: "dealt-link", href: B.cardPath(gameId, dealt.serial) }, "their card's page"));
    });
  settleOne(g, "print",
    function (g, p) { return g.batches.filter(function (b) { return b.requestId === p.requestId; })[0]; },
    function (batch) {
      sayMade("print", "Batch " + batch.batch + " (" + batch.count + " cards): ",
        h("a", { id: "print-link", href: base + "/print?batch=" + batch.batch }, "the printable sheet"));
    });
  settleOne(g, "verify",
    function (g, p) { return g.claims.filter(function (a) { return a.requestId === p.requestId; })[0]; },
    function (answer) { say("verify", !!answer.pattern, describe(answer)); });
  settleOne(g, "close",
    function (g) { return g.closedAt; },
    function () { say("close", true, "The game is closed."); });
}

function describe(a) {
  var who = "card " + a.serial + (a.player ? " (" + a.player + ")" : " (printed)");
  if (a.pattern) return who + ": wins with " + a.pattern + (a.place ? ", place " + a.place : "");
  return who + ": no win" + (a.gameClosed ? " (the game is closed)" : " yet");
}

// The pool's buttons are drawn once and updated in place (a button being clicked is never
// replaced under the pointer by a live update).
var poolButtons = null;
function drawPool(g, callable) {
  if (!poolButtons || poolButtons.length !== g.pool.length) {
    poolButtons = g.pool.map(function (s) {
      var button = h("button", { type: "button", class: "square", "data-square": s.id,
        onclick: function () { if (!button.disabled) callSquare(s.id); } },
        h("small", null, s.id + " "), s.label,
        s.verb ? h("small", { class: "muted" }, " · " + s.verb + (s.object ? " " + s.object : "")) : null);
      return button;
    });
    Console.fill("pool", h("div", { class: "pool" }, poolButtons));
  }
  g.pool.forEach(function (s, i) {
    poolButtons[i].classList.toggle("called", s.called);
    poolButtons[i].disabled = !(callable && !s.called);
  });
}

function render(view) {
  var g = view && view.game;
  current = g;
  if (!g) {
    Console.fill("summary", h("p", { class: "muted" }, "No game " + gameId + " yet: it shows here once bingo opens it."));
    return;
  }
  var last = g.called.length ? g.called[g.called.length - 1] : null;
  Console.fill("summary",
    B.facts(g),
    h("div", { class: "facts" },
      h("span", { id: "card-count" }, g.cards + " cards (" + g.dealt + " dealt, " + g.printed + " printed)"),
      h("span", null, "opened " + B.when(g.openedAt)),
      g.closedAt ? h("span", null, "closed " + B.when(g.closedAt)) : null),
    g.tickMode === "called" ? h("div", { class: "last-call", id: "last-call", "aria-live": "polite", "aria-atomic": "true" },
      last ? [h("span", { class: "muted" }, "#" + last.callNumber + " "), last.label] : h("span", { class: "muted" }, "no square called yet")) : null);
  var operator = document.body.classList.contains("operator");
  var callable = g.tickMode === "called" && !g.closedAt;
  drawPool(g, callable && operator);
  Console.fill("called", g.called.length
    ? h("ol", { class: "called-list" }, g.called.map(function (c) { return h("li", { "data-square": c.squareId }, c.label); }))
    : h("p", { class: "muted" }, g.tickMode === "called" ? "Nothing called yet." : "An activity game: gestures tick the cards."));
  Console.fill("players", g.players.length
    ? h("table", { class: "list" }, h("tbody", null, g.players.map(function (c) {
      return h("tr", { "data-serial": c.serial },
        h("td", null, h("a", { href: B.cardPath(gameId, c.serial) }, "#" + c.serial)),
        h("td", null, c.player),
        h("td", null, c.ticked + "/" + c.cells + " ticked"),
        h("td", null, c.place ? "won, place " + c.place : ""));
    })))
    : h("p", { class: "muted" }, "No card dealt yet."));
  Console.fill("winners", g.winners.length
    ? h("ol", { class: "winners" }, g.winners.map(function (w) {
      return h("li", { "data-serial": w.serial },
        h("a", { href: B.cardPath(gameId, w.serial) }, "card " + w.serial), " ",
        w.player || "(printed)", " · ", w.pattern, " · ", B.when(w.wonAt));
    }))
    : h("p", { class: "muted" }, "No winner yet."));
  Console.fill("claims", g.claims.length
    ? h("ul", { class: "claims" }, g.claims.map(function (a) {
      return h("li", { class: a.pattern ? "won" : "", "data-serial": a.serial }, h("b", null, a.check), " ", describe(a));
    }))
    : h("p", { class: "muted" }, "No claim yet."));
  Console.fill("batches", g.batches.length
    ? h("ul", null, g.batches.map(function (b) {
      return h("li", null, h("a", { href: base + "/print?batch=" + b.batch }, "batch " + b.batch),
        ": " + b.count + " cards, serials " + b.first + "–" + b.last);
    }))
    : null);
  Console.fill("refusals", g.rejections.length ? [h("h2", null, "Refused"), h("ul", { class: "refusals" }, g.rejections.map(B.refusal))] : null);
  document.querySelectorAll(".called-only").forEach(function (el) { el.hidden = g.tickMode !== "called"; });
  document.querySelectorAll(".open-only button").forEach(function (b) { b.disabled = !!g.closedAt; });
  settle(g);
}

Console.fill("page",
  h("div", { class: "two" },
    h("div", null,
      h("section", { class: "card", id: "summary" }),
      h("h2", null, "Squares"),
      h("section", { class: "card", id: "pool" }),
      h("h2", { class: "called-only" }, "Called, in order"),
      h("section", { class: "card called-only", id: "called" }),
      h("h2", null, "Winners, in order"),
      h("section", { class: "card", id: "winners" }),
      h("h2", null, "Claims and checks (newest first)"),
      h("section", { class: "card", id: "claims" }),
      h("h2", null, "Players' cards"),
      h("section", { class: "card", id: "players" }),
      h("section", { id: "refusals" })),
    h("div", null,
      Console.loginHint("Log in with the operator's token to call squares, deal, print, verify or close."),
      Console.action({ id: "call-card", class: "open-only called-only" }, "Call a square",
        h("p", { class: "muted" }, "Click a square of the pool, or:"),
        h("button", { type: "button", class: "primary", id: "call-random", onclick: callRandom }, "Call a random square"),
        h("div", { id: "call-message", class: "message" })),
      Console.action({ id: "deal-card", class: "open-only" }, "Deal a card",
        h("form", { class: "row", onsubmit: function (e) {
          e.preventDefault();
          var player = document.getElementById("deal-player").value.trim();
          act("deal", base + "/cards", { player: player }, { player: player });
        } },
          h("input", { id: "deal-player", placeholder: "player", "aria-label": "player", maxlength: "200" }),
          h("button", { type: "submit", id: "deal-button" }, "Deal")),
        h("p", { class: "muted small" }, "The player claims with their token: arcade bingo player add NAME."),
        h("div", { id: "deal-message", class: "message" })),
      Console.action({ id: "print-card", class: "open-only called-only" }, "Print a batch",
        h("form", { class: "row", onsubmit: function (e) {
          e.preventDefault();
          act("print", base + "/prints", { count: Number(document.getElementById("print-count").value) });
        } },
          h("input", { id: "print-count", type: "number", min: "1", max: "1000", value: "10", "aria-label": "cards" }),
          h("button", { type: "submit", id: "print-button" }, "Print cards")),
        h("div", { id: "print-message", class: "message" }),
        h("div", { id: "batches" })),
      Console.action({ id: "verify-card", class: "called-only" }, "Verify a card",
        h("form", { class: "row", onsubmit: function (e) {
          e.preventDefault();
          act("verify", base + "/verify", { serial: Number(document.getElementById("verify-serial").value),
            label: document.getElementById("verify-label").value.trim() || null });
        } },
          h("input", { id: "verify-serial", type: "number", min: "1", placeholder: "serial", "aria-label": "serial" }),
          h("input", { id: "verify-label", placeholder: "printed label (optional)", "aria-label": "label" }),
          h("button", { type: "submit", id: "verify-button" }, "Verify")),
        h("div", { id: "verify-message", class: "message" })),
      Console.action({ id: "close-card", class: "open-only" }, "Close the game",
        h("button", { type: "button", class: "danger", id: "close-button", onclick: function () {
          if (window.confirm("Close " + gameId + "? No more deals, calls or wins.")) act("close", base + "/close", {});
        } }, "Close"),
        h("div", { id: "close-message", class: "message" })))));
// The pool's buttons depend on the login: redraw when it changes.
new MutationObserver(function () { if (current) render({ game: current }); })
  .observe(document.body, { attributes: true, attributeFilter: ["class"] });
