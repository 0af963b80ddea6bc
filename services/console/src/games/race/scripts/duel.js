// /race/duels/{duelId}: the duel replayed step by step. Frame 0 is the deal; each step shows
// the answer (moves, attacks, parries), the cards drawn, both hands after it and the squares.
var index = 0, frames = [], last = null, follow = true;

function piste(squares) {
  var cells = [];
  for (var s = 1; s <= 23; s++) {
    var cls = s === squares[0] ? "f0" : s === squares[1] ? "f1" : "";
    cells.push(h("span", { class: cls, "data-square": s }, s === squares[0] ? "0" : s === squares[1] ? "1" : String(s)));
  }
  return h("div", { class: "piste", id: "piste", "aria-label": "squares " + squares[0] + " and " + squares[1] }, cells);
}

function fighter(view, frame, i) {
  var f = view.fighters[i] || { name: "fighter " + i, team: "", weapons: 0 };
  var hand = frame.hands ? frame.hands[i] : null;
  var active = frame.fighter === i;
  return h("div", { class: "fighter f" + i + (active ? " active" : ""), id: "fighter-" + i },
    h("h2", null, "Fighter " + i + ": " + f.name, " ", h("span", { class: "muted" }, "(" + f.team + ", " + f.weapons + " weapon(s))")),
    h("div", null, "square ", h("b", { id: "square-" + i }, frame.squares[i])),
    h("div", null, "hand ", hand ? R.cards(hand) : h("span", { class: "muted" }, "secret until the end"),
      h("span", { id: "hand-" + i, hidden: true }, hand ? hand.join(",") : "")));
}

// The shown step's content (the children of #frame).
function step(view) {
  var frame = frames[index];
  var over = index === frames.length - 1 && view.over;
  return [
    h("div", { class: "steps" },
      h("button", { type: "button", id: "first", onclick: function () { go(0); }, disabled: index === 0 }, "« first"),
      h("button", { type: "button", id: "prev", onclick: function () { go(index - 1); }, disabled: index === 0 }, "‹ previous"),
      h("b", { id: "step-label" }, index === 0 ? "the deal" : "step " + index + " of " + (frames.length - 1)),
      h("button", { type: "button", id: "next", onclick: function () { go(index + 1); }, disabled: index >= frames.length - 1 }, "next ›"),
      h("button", { type: "button", id: "last", onclick: function () { go(frames.length - 1); }, disabled: index >= frames.length - 1 }, "last »"),
      h("input", { type: "range", id: "scrub", min: 0, max: frames.length - 1, value: index, "aria-label": "step",
        oninput: function (e) { go(Number(e.target.value)); } })),
    h("p", { class: "step-text", id: "step-text", "aria-live": "polite" }, frame.text),
    frame.cards && frame.cards.length ? h("p", null, "played ", R.cards(frame.cards), frame.drawn && frame.drawn.length ? [" · drew ", R.cards(frame.drawn)] : null) : null,
    piste(frame.squares),
    h("p", { class: "muted" }, "distance " + (frame.squares[1] - frame.squares[0]) + (frame.deckLeft !== null && frame.deckLeft !== undefined ? " · " + frame.deckLeft + " card(s) left in the deck" : "")),
    h("div", { class: "fighters" }, fighter(view, frame, 0), fighter(view, frame, 1)),
    over ? h("p", { class: "winner", id: "winner" }, view.winner === null || view.winner === undefined
      ? "A draw: " + view.reasonText : view.fighters[view.winner].name + " wins: " + view.reasonText) : null];
}

function draw(view) { Console.fill("frame", step(view)); }

function go(i) {
  index = Math.max(0, Math.min(frames.length - 1, i));
  follow = index === frames.length - 1 && !(last && last.over);
  draw(last);
}

function render(view) {
  if (!view) return Console.fill("page", h("p", { class: "muted" }, "No such duel."));
  var first = last === null;
  last = view;
  frames = view.frames;
  // A duel still running follows its newest step; a finished one opens on the deal.
  if (first) {
    index = view.over ? 0 : frames.length - 1;
    follow = !view.over;
  } else if (follow) index = frames.length - 1;
  index = Math.min(index, frames.length - 1);
  Console.fill("page",
    h("p", null, h("a", { href: "/race" }, "◂ the race"), " · turn " + view.turn,
      view.combatId ? " · combat " + view.combatId : " · against pirates", " · ",
      h("span", { id: "duel-state" }, view.over ? "over" : "in progress")),
    h("section", { class: "card", id: "frame" }, step(view)),
    view.deck ? h("p", { class: "muted" }, "The deck, top first: ", R.cards(view.deck, "small")) : null);
}
