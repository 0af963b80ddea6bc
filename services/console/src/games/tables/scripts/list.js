function render(view) {
  var tables = (view && view.tables) || [];
  Console.fill("page",
    tables.length ? null : h("p", { class: "muted" }, "No table has played yet: a table appears here with its first game."),
    h("div", { class: "grid" }, tables.map(function (t) {
      var g = t.game;
      return h("section", { class: "card", "data-table": t.tableId },
        h("h2", null, h("a", { href: "/tables/" + encodeURIComponent(t.tableId) }, "Table " + t.tableId),
          " ", h("a", { class: "muted", href: "/tables/" + encodeURIComponent(t.tableId) + "/scoreboard" }, "scoreboard")),
        T.score(g), T.facts(g),
        g && g.goals.length ? h("ul", { class: "goals" }, g.goals.slice(0, 3).map(T.goal)) : null);
    })),
    h("form", { class: "row", onsubmit: function (e) {
      e.preventDefault();
      var id = document.getElementById("goto").value.trim();
      if (id) location.href = "/tables/" + encodeURIComponent(id);
    } }, h("input", { id: "goto", placeholder: "table id, e.g. t1", "aria-label": "table id" }),
      h("button", { type: "submit" }, "Open table")));
}
