// Shared by the bingo pages: a game's facts and a card's grid as DOM.
var h = Console.h;
var B = {
  base: function (gameId) { return "/bingo/" + encodeURIComponent(gameId); },
  cardPath: function (gameId, serial) { return B.base(gameId) + "/cards/" + serial; },
  mode: function (m) { return m === "called" ? "called squares" : "activity (gestures)"; },
  status: function (game) { return game.closedAt ? "closed" : "open"; },
  when: function (ms) { return ms ? new Date(ms).toLocaleTimeString() : "–"; },
  // The facts line of a game: mode, grid, patterns, status.
  facts: function (g) {
    return h("div", { class: "facts" },
      h("span", { "data-mode": g.tickMode }, B.mode(g.tickMode)),
      h("span", null, g.size + "×" + g.size + (g.freeCentre ? ", free centre" : "")),
      h("span", null, "wins: " + g.patterns.join(", ")),
      h("span", { class: "pill " + (g.closedAt ? "closed" : "open"), "data-status": B.status(g) }, B.status(g)));
  },
  // A card's grid: `cells` as the card view gives them (label, free, ticked, winning).
  grid: function (size, cells) {
    return h("div", { class: "bingo-grid", style: "--size:" + size, id: "grid" },
      cells.map(function (c) {
        var text = c.free ? "FREE" : (c.label || "#" + c.squareId);
        // A number (or a label as short) fills its cell; a phrase gets the size that fits it.
        var cls = "cell" + (text.length <= 3 ? " short" : "") + (c.free ? " free" : "") + (c.ticked ? " ticked" : "") + (c.winning ? " winning" : "");
        return h("div", { class: cls, "data-cell": c.cell, "data-square": c.squareId === null ? "" : c.squareId },
          h("span", null, text));
      }));
  },
  // A refusal as a line: the request, its code and why.
  refusal: function (r) {
    return h("li", { "data-request": r.requestId || "" },
      h("b", null, r.requestType.replace(/^bingo\./, "").replace(/\.v\d+$/, "")), " ",
      h("code", null, r.code), ": ", r.reason);
  },
  findRefusal: function (list, requestId) {
    if (!requestId || !list) return null;
    for (var i = 0; i < list.length; i++) if (list[i].requestId === requestId) return list[i];
    return null;
  },
  // The message of a console action that did not go out.
  failed: function (r) { return (r.data && r.data.error) || ("refused: " + r.status); }
};
