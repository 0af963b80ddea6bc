// /race/teams/{team}: the team's own log, behind its token (or the operator's). The page holds
// no log: it asks for it with `Authorization: Bearer`, as a live stream read with fetch (an
// EventSource cannot send a header). The token stays in this tab's sessionStorage.
var team = JSON.parse(document.getElementById("frame").textContent).view.team;
var KEY = "arcade.race-team-token." + team;
var reader = null, generation = 0;
document.body.dataset.stream = "manual";

function teamToken() { return sessionStorage.getItem(KEY) || Console.token(); }

function entry(e) {
  var qa = null;
  if (e.kind === "decision") {
    qa = h("div", { class: "qa" },
      h("span", { class: "label" }, "asked"), h("span", { class: "question", "data-kind": e.question.kind }, e.question.text,
        e.question.duelId ? [" ", R.duelLink(e.question.duelId, "replay ▸")] : null),
      h("span", { class: "label" }, "answer"), h("span", { class: "answer" }, e.answer ? answerText(e.answer) : "—"),
      h("span", { class: "label" }, "closed"), h("span", { class: "closure", "data-closure": e.closure }, e.closure),
      e.penalty ? [h("span", { class: "label penalty" }, "penalty"), h("span", { class: "penalty" }, e.penalty)] : null);
  }
  return h("li", { class: e.kind, "data-kind": e.kind, "data-seq": e.seq },
    h("span", { class: "kind" }, "turn " + e.turn + " · " + e.kind),
    e.kind === "decision" ? h("b", null, "decision " + e.decisionId + " · " + e.car) : h("span", { class: "text" }, e.text),
    qa);
}

function answerText(a) {
  switch (a.kind) {
    case "shouldFight": return "fight: " + (a.fight ? "yes" : "no");
    case "crossMineField": return "cross: " + (a.cross ? "yes" : "no");
    case "exploreWreck": return "explore: " + (a.explore ? "yes" : "no");
    case "buyAtGarage": return a.module ? "buy a " + a.module : "buy nothing";
    case "duelAnswer": return "play [" + a.cards.join(", ") + "]";
    case "reportState": return "square " + a.square + ", " + a.modules.pilots + "P " + a.modules.engines + "E " + a.modules.weapons + "W";
    default: return JSON.stringify(a);
  }
}

function render(view) {
  if (!view || view.locked) return;
  var s = view.standing;
  Console.fill("team-log",
    h("div", { class: "race-top" },
      h("span", null, "race ", h("b", null, view.status), view.turn ? ", turn " + view.turn : ""),
      s ? h("span", { id: "team-standing" }, "rank ", h("b", null, s.rank), " · ", h("b", null, s.points), " point(s) · $" + s.budget) : null),
    view.cars.length ? h("ul", { id: "team-cars" }, view.cars.map(function (c) {
      return h("li", null, h("b", null, c.car), " square " + c.square + " · " + c.modules.pilots + "P " + c.modules.engines + "E " + c.modules.weapons + "W" +
        (c.stopped ? " · out: " + c.stopped : c.turnsToMiss ? " · " + c.turnsToMiss + " turn(s) to miss" : ""));
    })) : null,
    h("p", { class: "muted" }, "The master's questions reach only the team's queue; the console shows each one as the race's public facts tell it (a mine field drawn, a combat paired, a duel, the state checks), with the answer and how it was closed."),
    view.log.length ? h("ol", { class: "log", id: "log" }, view.log.map(entry))
      : h("p", { class: "muted", id: "log" }, view.known ? "Nothing yet." : "The console has not seen this team yet: its log starts with its first registration."),
    view.dropped ? h("p", { class: "muted" }, view.dropped + " older entr(ies) not kept") : null);
}

// Reads the live stream with the token; each `update` event is a frame.
function follow() {
  var token = teamToken();
  var mine = ++generation;
  if (!token) { document.body.classList.remove("team-open"); return; }
  Console.say("team-message", true, "Opening the log…");
  fetch(location.pathname, { headers: { Accept: "text/event-stream", Authorization: "Bearer " + token } })
    .then(function (r) {
      if (!r.ok) {
        return r.json().catch(function () { return {}; }).then(function (d) {
          sessionStorage.removeItem(KEY);
          document.body.classList.remove("team-open");
          Console.say("team-message", false, d.error || ("refused: " + r.status));
        });
      }
      document.body.classList.add("team-open");
      document.body.dataset.live = "open";
      Console.say("team-message", true, "");
      reader = r.body.getReader();
      var decoder = new TextDecoder(), buffer = "";
      function pump() {
        return reader.read().then(function (chunk) {
          if (mine !== generation) return;
          if (chunk.done) throw new Error("the stream ended");
          buffer += decoder.decode(chunk.value, { stream: true });
          var end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            var block = buffer.slice(0, end); buffer = buffer.slice(end + 2);
            var data = block.split("\n").filter(function (l) { return l.indexOf("data:") === 0; })
              .map(function (l) { return l.slice(5).replace(/^ /, ""); }).join("\n");
            if (data && /^event: ?update$/m.test(block)) {
              render(JSON.parse(data).view);
              document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
            }
          }
          return pump();
        });
      }
      return pump();
    })
    .catch(function () {
      if (mine !== generation) return;
      document.body.dataset.live = "reconnecting";
      setTimeout(function () { if (mine === generation) follow(); }, 2000);
    });
}

function useToken(e) {
  e.preventDefault();
  var input = document.getElementById("team-token");
  var token = input.value.trim();
  if (!token) return;
  sessionStorage.setItem(KEY, token);
  input.value = "";
  follow();
}

Console.fill("page",
  h("form", { class: "row team-login", id: "team-login", autocomplete: "off", onsubmit: useToken },
    h("input", { id: "team-token", type: "password", placeholder: "team " + team + "'s token", "aria-label": "team token" }),
    h("button", { type: "submit", id: "team-token-submit" }, "Open the log"),
    h("button", { type: "button", id: "team-forget", onclick: function () {
      sessionStorage.removeItem(KEY); generation++; if (reader) reader.cancel();
      document.body.classList.remove("team-open"); Console.fill("team-log");
    } }, "Forget the token")),
  h("p", { class: "muted" }, "A team's log needs its token (", h("code", null, "arcade race team add " + team), ") or the operator's."),
  h("div", { id: "team-message", class: "message" }),
  h("div", { id: "team-log" }));
follow();
// The operator logging in from the header opens the log too.
new MutationObserver(function () {
  if (document.body.classList.contains("operator") && !document.body.classList.contains("team-open") && !sessionStorage.getItem(KEY)) follow();
}).observe(document.body, { attributes: true, attributeFilter: ["class"] });
