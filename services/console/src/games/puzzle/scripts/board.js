// /puzzle/play/{gameId}: the board as the server holds it. The page only draws (heights,
// stone, anchors, charged cells, moves left, won/failed) and sends pulses; the rules run on
// the server, whose answer (and the live stream) redraws the board.
var h = Console.h;
var busy = false;
var drawn = null; // the last game drawn, as JSON: the same game is not drawn again

var COLOURS = ["#5b6b8c", "#e0b341", "#b35c44"]; // level 0 low, 1 resonant, 2 high
function render(game) {
  var json = JSON.stringify(game);
  if (json === drawn) return;
  drawn = json;
  if (!game) {
    Console.fill("page", h("p", { class: "message error" }, "No such game on this console."),
      h("p", null, h("a", { href: "/puzzle/play" }, "Start a new board")));
    return;
  }
  document.getElementById("title").textContent = "Strata Relay — stage " + game.stage;
  var playing = game.status === "playing";
  // A grid of five rows; one Tab stop (the cell last focused), the arrows move between cells,
  // Enter or Space pulses. Cells that cannot move stay focusable (aria-disabled) so the
  // keyboard can cross them.
  var rows = [];
  game.cells.forEach(function (c) {
    var label = "cell " + c.x + "," + c.y + ", height " + c.height +
      (c.stone ? ", stone" : "") + (c.anchor ? ", " + c.anchor : "") + (c.charged ? ", charged" : "");
    var cls = "strata-cell level-" + c.level + (c.stone ? " stone" : "") +
      (c.anchor ? " anchor " + c.anchor : "") + (c.charged ? " charged" : "");
    var id = "cell-" + c.x + "-" + c.y;
    var fixed = !playing || c.stone || !!c.anchor;
    if (!rows[c.y]) rows[c.y] = [];
    rows[c.y][c.x] = h("div", { role: "gridcell", class: "strata-slot" }, h("button", {
      type: "button", class: cls, id: id, "data-x": c.x, "data-y": c.y,
      "data-height": c.height, "data-charged": c.charged ? "1" : "0", "aria-label": label, title: label,
      "aria-disabled": fixed ? "true" : null, tabindex: id === (stop || "cell-0-0") ? "0" : "-1",
      onclick: function () { if (!fixed) pulse(game.gameId, c.x, c.y); },
      onkeydown: function (e) { move(e, c.x, c.y); },
      onfocus: function () { roam(id); }
    },
      h("span", { class: "column", "aria-hidden": "true", style: "height:" + (c.height * 18) + "%;background:" + COLOURS[c.level] }),
      h("span", { class: "height", "aria-hidden": "true" }, c.anchor ? (c.anchor === "source" ? "S" : "T") : String(c.height))));
  });
  var board = h("div", { class: "strata-board", id: "board", role: "grid", "aria-label": "the board, 5 by 5" },
    rows.map(function (row, y) { return h("div", { role: "row", class: "strata-row", "aria-rowindex": y + 1 }, row); }));
  var status = game.status === "won" ? "Won: the target is charged" :
    game.status === "failed" ? "Failed: no move left" : "Playing";
  Console.fill("page",
    h("div", { class: "strata" },
      board,
      h("div", { class: "strata-side" },
        h("p", { id: "status", "data-status": game.status, class: "status " + game.status,
          role: game.status === "won" ? "alert" : "status",
          "aria-live": game.status === "won" ? "assertive" : "polite" }, status),
        h("p", { "aria-live": "polite", id: "moves-line" }, h("b", { id: "moves-left" }, String(game.movesLeft)), " moves left of " + game.moveLimit),
        h("p", { class: "muted" }, "seed ", h("span", { id: "seed" }, String(game.seed)), ", stage " + game.stage,
          " · ", h("span", { id: "turns" }, String(game.moves.length)), " pulses"),
        h("p", { id: "moves", class: "muted", "aria-live": "polite" }, game.moves.length ?
          "pulses: " + game.moves.map(function (m) { return "[" + m[0] + "," + m[1] + "]"; }).join(" ") : "no pulse yet"),
        h("p", { id: "pulse-message", class: "message" }),
        !playing ? h("p", { id: "published", "data-published": game.published ? "1" : "0" },
          game.published ? "Session sent to the statistics." : "Sending the session…") : null,
        h("p", null, h("a", { href: "/puzzle/play", id: "new-board" }, "New board"), " · ",
          h("a", { href: "/puzzle" }, "Statistics")),
        h("details", null, h("summary", null, "How to play"),
          h("p", null, "A pulse raises the cell you tap and its four neighbours by one level (low → resonant → high → low); stone and anchors do not move. " +
            "Charge flows from the source (S) through adjacent resonant cells (yellow); the game is won when it reaches the target (T) before the moves run out.")))));
}
var stop = null; // the cell that holds the board's one Tab stop
function roam(id) {
  if (stop === id) return;
  var before = document.getElementById(stop || "cell-0-0");
  if (before) before.tabIndex = -1;
  stop = id;
  document.getElementById(id).tabIndex = 0;
}
var ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
function move(e, x, y) {
  var d = ARROWS[e.key];
  if (!d) return;
  var next = document.getElementById("cell-" + (x + d[0]) + "-" + (y + d[1]));
  e.preventDefault();
  if (next) next.focus();
}
function pulse(gameId, x, y) {
  if (busy) return;
  busy = true;
  Console.post("/puzzle/play/" + encodeURIComponent(gameId) + "/pulses", { x: x, y: y }).then(function (r) {
    busy = false;
    if (r.ok && r.data && r.data.game) {
      render(r.data.game);
    } else {
      Console.say("pulse-message", false, (r.data && r.data.error) || ("refused (" + r.status + ")"));
    }
  });
}
