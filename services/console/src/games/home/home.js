var h = Console.h;
function ago(ms) {
  var s = Math.max(0, Math.round((Console.now() - ms) / 1000));
  if (s < 60) return s + " s ago";
  if (s < 3600) return Math.floor(s / 60) + " min ago";
  if (s < 86400) return Math.floor(s / 3600) + " h ago";
  return Math.floor(s / 86400) + " d ago";
}
function render(view) {
  view = view || { sections: [], services: [], process: { services: [], failing: [] } };
  var failing = view.process.failing || [];
  Console.fill("page",
    h("div", { class: "grid" }, view.sections.map(function (s) {
      return h("a", { class: "card", href: s.path, style: "text-decoration:none" }, h("h2", null, s.label), h("span", { class: "muted" }, s.path));
    })),
    h("h2", null, "Services heard from"),
    view.services.length ? h("table", { class: "list", id: "services" },
      h("thead", null, h("tr", null, h("th", null, "service"), h("th", null, "events"), h("th", null, "last event"), h("th", null, "seen"))),
      h("tbody", null, view.services.map(function (p) {
        return h("tr", { "data-producer": p.producer },
          h("td", null, p.producer), h("td", null, p.events), h("td", null, p.lastType),
          h("td", { "data-seen": p.lastSeenMs }, ago(p.lastSeenMs)));
      }))) : h("p", { class: "muted" }, "No event yet: services appear here with their first event."),
    h("h2", null, "This process"),
    h("p", { id: "process", "data-status": view.process.status },
      "transport " + view.process.transport + ", hosting " + (view.process.services || []).join(", ") + ": ",
      h("b", { class: failing.length ? "bad" : "good" }, view.process.status)),
    failing.length ? h("ul", null, failing.map(function (f) {
      return h("li", null, (f.service ? f.service + ": " : "") + f.check + " — " + f.reason);
    })) : null,
    h("p", { class: "muted" }, view.events + " events folded."));
}
Console.every(function () {
  document.querySelectorAll("[data-seen]").forEach(function (el) { el.textContent = ago(Number(el.dataset.seen)); });
});
