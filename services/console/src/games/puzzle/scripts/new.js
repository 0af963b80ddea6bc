// /puzzle/play: a new Strata Relay board from a seed (empty: the server draws one) and a
// stage; the games finished here lately.
var h = Console.h;
function render(view) {
  view = view || { played: [] };
  if (document.getElementById("new-game")) { drawPlayed(view.played); return; }
  var stage = h("select", { id: "stage", name: "stage", "aria-label": "stage" },
    [1, 2, 3, 4, 5].map(function (s) { return h("option", { value: s }, "stage " + s + " (" + 2 * s + " moves)"); }));
  var seed = h("input", { id: "seed", name: "seed", inputmode: "numeric", placeholder: "random", "aria-label": "seed (empty: random)" });
  var form = h("form", { id: "new-game", class: "card" },
    h("h2", null, "New board"),
    h("label", null, "Seed ", seed),
    h("label", null, "Stage ", stage),
    h("button", { type: "submit", id: "start" }, "Play"),
    h("p", { id: "start-message", class: "message" }));
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    Console.post("/puzzle/play", { seed: seed.value, stage: stage.value }).then(function (r) {
      if (r.ok) location.href = r.data.path;
      else Console.say("start-message", false, (r.data && r.data.error) || ("refused (" + r.status + ")"));
    });
  });
  Console.fill("page", form, h("h2", null, "Finished here lately"), h("div", { id: "played" }));
  drawPlayed(view.played);
}
function drawPlayed(played) {
  Console.fill("played", played.length ? h("table", { class: "list" },
    h("thead", null, h("tr", null, h("th", null, "game"), h("th", null, "stage"), h("th", null, "seed"), h("th", null, "outcome"), h("th", null, "pulses"), h("th", null, "time"))),
    h("tbody", null, played.map(function (g) {
      return h("tr", null, h("td", null, h("a", { href: "/puzzle/play/" + encodeURIComponent(g.gameId) }, g.gameId.slice(-8))),
        h("td", null, g.stage), h("td", null, g.seed), h("td", { class: g.outcome === "won" ? "good" : "bad" }, g.outcome),
        h("td", null, g.turns), h("td", null, Console.clock(g.durationMs)));
    }))) : h("p", { class: "muted" }, "No game finished on this console yet."));
}
