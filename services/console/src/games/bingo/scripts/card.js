// /bingo/{gameId}/cards/{serial}: a player's card, ticking live, and their claim.
var frame0 = JSON.parse(document.getElementById("frame").textContent).view;
var gameId = frame0.gameId, serial = frame0.serial;
var PLAYER_TOKEN = "arcade.bingo-player-token";
var pendingClaim = null;
var lastView = null; // the answer may come in a live update before the POST's own answer

function claimToken() {
  return Console.token() || sessionStorage.getItem(PLAYER_TOKEN);
}

function claim() {
  var input = document.getElementById("claim-token");
  var typed = input.value.trim();
  input.value = "";
  if (typed) sessionStorage.setItem(PLAYER_TOKEN, typed);
  var token = claimToken();
  if (!token) return Console.say("claim-message", false, "Give your player token (or log in as the operator) to claim.");
  Console.say("claim-message", true, "Claiming…");
  fetch(B.cardPath(gameId, serial) + "/claim", {
    method: "POST", headers: { "Content-Type": "application/json", Authorization: "Bearer " + token }, body: "{}"
  }).then(function (r) {
    return r.text().then(function (text) {
      var data = null;
      try { data = text ? JSON.parse(text) : null; } catch (e) { data = { error: text }; }
      if (r.status === 202) {
        pendingClaim = data.requestId;
        Console.say("claim-message", true, "Claim sent: bingo is checking your card…");
        render(lastView);
      } else {
        if (r.status === 401 && !Console.token()) sessionStorage.removeItem(PLAYER_TOKEN);
        Console.say("claim-message", false, (data && data.error) || ("refused: " + r.status));
      }
      showToken();
    });
  }).catch(function (e) { Console.say("claim-message", false, "network: " + e); });
}

function showToken() {
  var has = !!(Console.token() || sessionStorage.getItem(PLAYER_TOKEN));
  document.getElementById("claim-token").hidden = has;
  document.getElementById("forget-token").hidden = !sessionStorage.getItem(PLAYER_TOKEN);
}

function render(view) {
  lastView = view;
  var g = view && view.game, c = view && view.card;
  if (!g || !c) {
    Console.fill("card", h("p", { class: "muted" }, "No card " + serial + " in game " + gameId + " yet: it shows here once it is dealt."));
    Console.fill("state", null);
    document.getElementById("claim-card").hidden = true;
    return;
  }
  // A printed card is verified by the organiser; a won card or a closed game has nothing to claim.
  document.getElementById("claim-card").hidden = c.printed || !!g.closedAt || (!!c.win && !pendingClaim);
  Console.fill("card",
    h("div", { class: "card-head" },
      h("span", { class: "player" }, c.player || "printed card"),
      h("span", { class: "muted" }, " · card " + c.serial + " · " + gameId)),
    B.grid(g.size, c.cells),
    h("div", { class: "facts" },
      h("span", { id: "ticked-count", "data-ticked": c.ticked, "aria-live": "polite" }, c.ticked + " of " + c.cells.length + " ticked"),
      h("span", null, "wins: " + g.patterns.join(", ")),
      g.closedAt ? h("span", { class: "pill closed" }, "game closed") : null));
  var calls = g.recentCalls;
  Console.fill("state",
    c.win ? h("div", { class: "win", id: "win", role: "alert" }, "BINGO! ", c.win.pattern + " · place " + c.win.place) : null,
    g.tickMode === "called" ? h("div", { id: "calls", "aria-live": "polite" },
      h("h2", null, "Called (" + g.calledCount + ")"),
      calls.length ? h("ol", { class: "recent-calls", reversed: true, start: g.calledCount }, calls.map(function (k) { return h("li", null, k.label); }))
        : h("p", { class: "muted" }, "Nothing called yet.")) : h("p", { class: "muted" }, "Your gestures tick your squares."));
  if (pendingClaim) {
    var a = c.lastAnswer && c.lastAnswer.requestId === pendingClaim ? c.lastAnswer : null;
    var refused = B.findRefusal(view.rejections, pendingClaim);
    if (a) {
      if (a.pattern) Console.say("claim-message", true, "Bingo! Your card wins with " + a.pattern + (a.place ? ", place " + a.place : "") + ".");
      else Console.say("claim-message", false, a.gameClosed ? "The game is closed: no more wins." : "Not yet: no win pattern is complete on your card.");
      pendingClaim = null;
    } else if (refused) {
      Console.say("claim-message", false, "Refused (" + refused.code + "): " + refused.reason);
      pendingClaim = null;
    }
  }
}

Console.fill("page",
  h("div", { class: "two" },
    h("section", { class: "card", id: "card" }),
    h("div", null,
      h("section", { id: "state" }),
      h("section", { class: "card", id: "claim-card" },
        h("h2", null, "Claim"),
        h("div", { class: "row" },
          h("input", { id: "claim-token", type: "password", placeholder: "your player token", "aria-label": "player token", autocomplete: "off" }),
          h("button", { type: "button", class: "primary big", id: "claim-button", onclick: claim }, "Bingo!"),
          h("button", { type: "button", id: "forget-token", hidden: true, onclick: function () {
            sessionStorage.removeItem(PLAYER_TOKEN); showToken();
          } }, "Forget my token"))),
      // Outside the claim's card: the answer stays once the card has won.
      h("div", { id: "claim-message", class: "message" }))));
showToken();
new MutationObserver(showToken).observe(document.body, { attributes: true, attributeFilter: ["class"] });
