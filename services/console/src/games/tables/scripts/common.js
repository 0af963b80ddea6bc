// Shared by the tables' pages: a table's facts as DOM (score, phase, clock, locks, goals).
var h = Console.h;
var T = {
  phase: function (p) { return { default: "default", tie_break: "tie-break", timeout: "timeout" }[p] || p; },
  // The clock element: ticks while the game runs (from its start on the server's clock).
  clock: function (game, cls) {
    if (!game) return h("span", { class: cls || "clock" }, "–");
    if (game.finished) return h("span", { class: cls || "clock" }, Console.clock(game.finished.durationMs));
    if (game.startedAtMs === null || game.startedAtMs === undefined) return h("span", { class: cls || "clock" }, "–");
    return h("span", { class: cls || "clock", "data-clock-start": game.startedAtMs }, Console.clock(Console.now() - game.startedAtMs));
  },
  lock: function (side, state) {
    return h("span", { class: "pill " + state, "data-side": side, "data-lock": state }, side + " " + (state === "locked" ? "locked" : "free"));
  },
  status: function (game) {
    if (!game) return "no game yet";
    var f = game.finished;
    if (!f) return "in progress";
    if (f.reason === "aborted") return "aborted" + (f.abortReason ? ": " + f.abortReason : "");
    return f.winner + " won" + (f.reason === "timeout" ? " (timeout)" : "");
  },
  goal: function (g) {
    return h("li", { class: "goal", "data-ball": g.ball },
      Console.clock(g.clockMs), " ", h("b", { class: g.side }, g.side), " ", g.kind,
      g.counted ? "" : " (rehearsal)", g.player ? " by " + g.player : "",
      " → ", g.score.hinge + "–" + g.score.lock);
  },
  score: function (game) {
    var s = game ? game.score : { hinge: 0, lock: 0 };
    return h("div", { class: "score", id: "score", "aria-live": "polite", "aria-atomic": "true" },
      h("span", { class: "side hinge", "data-score": "hinge" }, s.hinge),
      h("span", { class: "muted" }, "–"),
      h("span", { class: "side lock", "data-score": "lock" }, s.lock));
  },
  facts: function (game) {
    var g = game || {};
    return h("div", { class: "facts" },
      h("span", { "data-phase": g.phase || "" }, "phase ", T.phase(g.phase || "default")),
      h("span", null, "clock ", T.clock(game)),
      game ? [T.lock("hinge", g.ibr.hinge), T.lock("lock", g.ibr.lock)] : null,
      h("span", { "data-status": "", role: game && game.finished ? "alert" : null,
        "aria-live": game && game.finished ? "assertive" : "polite" }, T.status(game)));
  }
};
Console.every(function () {
  document.querySelectorAll("[data-clock-start]").forEach(function (el) {
    el.textContent = Console.clock(Console.now() - Number(el.dataset.clockStart));
  });
});
