// /race/turns/{turn}: one turn's story and the standings after it.
function render(view) {
  var story = view && view.story;
  Console.fill("page",
    h("p", null, h("a", { href: "/race" }, "◂ the race"),
      view && view.turn > 1 ? [" · ", h("a", { href: "/race/turns/" + (view.turn - 1) }, "turn " + (view.turn - 1))] : null,
      view && view.turn < view.latest ? [" · ", h("a", { href: "/race/turns/" + (view.turn + 1) }, "turn " + (view.turn + 1))] : null),
    story ? [R.story(story.lines),
      story.dropped ? h("p", { class: "muted" }, story.dropped + " more line(s) not kept") : null,
      h("h2", null, "Standings after turn " + story.turn), R.standings(story.standings)]
      : h("p", { class: "muted" }, "This turn is not kept (or not played yet)."));
}
