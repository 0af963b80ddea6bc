var lastBall = null;
// The table's LED display, pixel for pixel: one cell per pixel, lit where the row has '#'.
function led(d) {
  if (!d) return h("div", { class: "led", id: "led" });
  var cells = [];
  d.rows.forEach(function (row, r) {
    for (var c = 0; c < row.length; c++) {
      cells.push(h("i", { class: row[c] === "#" ? "on" : null, "data-r": r, "data-c": c }));
    }
  });
  return h("div", { class: "led", id: "led", title: d.text, "data-text": d.text,
    style: "grid-template-columns: repeat(" + d.width + ", 1fr); width: min(90vw, " + 3 * d.width + "vh)" }, cells);
}
function render(view) {
  var t = view && view.table, g = t && t.game;
  var s = g ? g.score : { hinge: 0, lock: 0 };
  var ibr = g ? g.ibr : { hinge: "released", lock: "released" };
  var board = Console.fill("page",
    h("div", { class: "board", id: "board", "aria-live": "polite", "aria-atomic": "true" },
      h("div", null, h("div", { class: "digits hinge", id: "score-hinge" }, s.hinge), h("div", { class: "label" }, "hinge")),
      h("div", { class: "dash" }, "–"),
      h("div", null, h("div", { class: "digits lock", id: "score-lock" }, s.lock), h("div", { class: "label" }, "lock"))),
    h("div", { class: "board-foot" },
      h("span", { id: "phase" }, T.phase(g ? g.phase : "default")),
      T.clock(g, "clock"),
      h("span", { class: ibr.hinge, "data-lock": ibr.hinge }, "hinge " + (ibr.hinge === "locked" ? "locked" : "free")),
      h("span", { class: ibr.lock, "data-lock": ibr.lock }, "lock " + (ibr.lock === "locked" ? "locked" : "free")),
      h("span", { id: "status", role: g && g.finished ? "alert" : null,
        "aria-live": g && g.finished ? "assertive" : "polite" }, T.status(g))),
    led(view && view.display));
  var ball = g && g.goals.length ? g.gameId + "/" + g.goals[0].ball : null;
  if (ball && lastBall !== null && ball !== lastBall) {
    var b = document.getElementById("board");
    b.classList.add("flash");
  }
  lastBall = ball;
  return board;
}
