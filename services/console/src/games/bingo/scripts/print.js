// /bingo/{gameId}/print?batch=N: the printable sheet of a printed batch. The cards (whose
// labels verify them) come from /bingo/{gameId}/sheet with the operator's token.
var frame0 = JSON.parse(document.getElementById("frame").textContent).view;
var gameId = frame0.gameId;
var wanted = new URLSearchParams(location.search).get("batch");
var loaded = null; // the batch drawn, or "loading"

function load() {
  var token = Console.token();
  if (!token || loaded) return;
  loaded = "loading";
  var path = B.base(gameId) + "/sheet" + (wanted ? "?batch=" + encodeURIComponent(wanted) : "");
  fetch(path, { headers: { Authorization: "Bearer " + token } }).then(function (r) {
    return r.json().then(function (data) {
      if (!r.ok) {
        // A refused token is forgotten (log in again); another refusal stays on the page.
        if (r.status === 401) { Console.logout(); loaded = null; } else loaded = "failed";
        return Console.say("sheet-message", false, data.error || ("refused: " + r.status));
      }
      loaded = data.batch;
      Console.say("sheet-message", true, "Batch " + data.batch + ": " + data.cards.length + " cards.");
      Console.fill("sheet", data.cards.map(function (card) {
        return h("section", { class: "sheet-card", "data-serial": card.serial },
          h("h2", null, h("span", null, data.gameId), h("span", null, "card " + card.serial)),
          h("div", { class: "bingo-grid", style: "--size:" + data.size },
            card.cells.map(function (label) { return h("div", { class: "cell" + (label === null ? " free" : "") + (label !== null && label.length <= 3 ? " short" : "") }, h("span", null, label === null ? "FREE" : label)); })),
          h("p", { class: "print-label" }, card.label));
      }));
      document.getElementById("print-now").disabled = false;
    });
  }).catch(function (e) { loaded = null; Console.say("sheet-message", false, "network: " + e); });
}

var printed = false; // whether the game has a batch (before one, there is no sheet to ask for)

function render(view) {
  var g = view && view.game;
  printed = !!(g && g.batches.length);
  Console.fill("batches", g && g.batches.length
    ? ["Batches: ", g.batches.map(function (b) {
      return h("a", { href: "?batch=" + b.batch, class: String(b.batch) === String(loaded) ? "current" : "" },
        b.batch + " (" + b.count + ")");
    })]
    : h("span", { class: "muted" }, "No printed batch yet: print one from the game's page."));
  if (!loaded && g && g.batches.length) load();
}

Console.fill("page",
  h("div", { class: "no-print" },
    h("p", null, h("a", { href: B.base(gameId) }, "Back to the game")),
    Console.loginHint("Log in with the operator's token to see the cards: their labels verify them."),
    h("div", { class: "row", id: "batches" }),
    h("button", { type: "button", class: "primary", id: "print-now", disabled: true, onclick: function () { window.print(); } }, "Print"),
    h("div", { id: "sheet-message", class: "message" })),
  h("div", { id: "sheet" }));
Console.every(function () { if (!loaded && printed) load(); });
