// The console's shared script: building DOM safely, the live stream of a page's frames, the
// operator's login (token kept in sessionStorage, sent as a Bearer header on actions), clocks.
// Served by Arcade itself at /console/console.js; no framework, nothing fetched from elsewhere.
(function () {
  "use strict";
  var TOKEN = "arcade.operator-token";
  var C = (window.Console = {});
  var offset = 0; // server time minus this browser's time
  var tickers = [];

  // h("div", {class: "x", onclick: f}, "text", child…): an element; text is never parsed as HTML.
  C.h = function (tag, attrs) {
    var el = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      var value = attrs[key];
      if (value === undefined || value === null || value === false) return;
      if (key.slice(0, 2) === "on") listen(el, key.slice(2), value);
      else if (key === "text") el.textContent = value;
      else el.setAttribute(key, value === true ? "" : value);
    });
    for (var i = 2; i < arguments.length; i++) append(el, arguments[i]);
    return el;
  };
  function append(el, child) {
    if (child === undefined || child === null || child === false) return;
    if (Array.isArray(child)) return child.forEach(function (c) { append(el, c); });
    el.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }

  // An element's handlers sit in `el._on` behind one listener per event type, so a redraw
  // can hand an element kept on the page the new handlers (and the data they close over).
  function listen(el, type, fn) {
    if (!el._on) el._on = {};
    if (!el._on[type]) el.addEventListener(type, function (e) { return el._on[type](e); });
    el._on[type] = fn;
  }

  // Makes the children of `el` those of `fresh` (built by the page's render), touching only
  // what differs: an element of the same tag and id stays on the page (its attributes, text
  // and handlers updated), so focus, a field being typed in, the caret and the scroll position
  // survive a live update, and a screen reader hears only the `aria-live` text that changed.
  function morph(el, fresh) {
    var old = el.firstChild, next = fresh.firstChild;
    while (next) {
      var following = next.nextSibling;
      if (old && same(old, next)) {
        update(old, next);
        old = old.nextSibling;
      } else {
        el.insertBefore(next, old);
      }
      next = following;
    }
    while (old) { var gone = old.nextSibling; el.removeChild(old); old = gone; }
  }
  function same(a, b) {
    if (a.nodeType !== b.nodeType) return false;
    if (a.nodeType !== 1) return true;
    return a.nodeName === b.nodeName && (a.id || "") === (b.id || "") &&
      (a.getAttribute("type") || "") === (b.getAttribute("type") || "");
  }
  function update(old, next) {
    if (old.nodeType !== 1) {
      if (old.nodeValue !== next.nodeValue) old.nodeValue = next.nodeValue;
      return;
    }
    var i, a, tag = old.nodeName, before = old.getAttribute("value");
    for (i = old.attributes.length - 1; i >= 0; i--) {
      a = old.attributes[i].name;
      // A <details> the visitor opened stays open.
      if (a === "open" && tag === "DETAILS") continue;
      if (!next.hasAttribute(a)) old.removeAttribute(a);
    }
    for (i = 0; i < next.attributes.length; i++) {
      a = next.attributes[i];
      if (old.getAttribute(a.name) !== a.value) old.setAttribute(a.name, a.value);
    }
    if (next._on) Object.keys(next._on).forEach(function (type) { listen(old, type, next._on[type]); });
    // What a visitor types is theirs: a field's value moves only when the page's value did.
    if (tag === "INPUT" && next.hasAttribute("value") && next.getAttribute("value") !== before &&
        old !== document.activeElement) {
      old.value = next.getAttribute("value");
    }
    if (tag === "TEXTAREA") return;
    morph(old, next);
  }

  // Replaces the children of `el` (an element or an id), keeping what is unchanged ([morph]).
  C.fill = function (el) {
    if (typeof el === "string") el = document.getElementById(el);
    var fresh = document.createElement(el.nodeName === "svg" ? "div" : el.nodeName);
    for (var i = 1; i < arguments.length; i++) append(fresh, arguments[i]);
    morph(el, fresh);
    return el;
  };

  // Now on the server's clock, in ms since the epoch.
  C.now = function () { return Date.now() + offset; };

  // "m:ss" (or "h:mm:ss") of a duration in ms.
  C.clock = function (ms) {
    if (ms === null || ms === undefined || ms < 0) return "–";
    var s = Math.floor(ms / 1000), h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
    var ss = String(s % 60).padStart(2, "0");
    return h > 0 ? h + ":" + String(m).padStart(2, "0") + ":" + ss : m + ":" + ss;
  };

  // Calls `fn` every second (clocks that tick between updates).
  C.every = function (fn) { tickers.push(fn); };
  setInterval(function () { tickers.forEach(function (fn) { fn(); }); }, 1000);

  C.token = function () { return sessionStorage.getItem(TOKEN); };

  // POSTs JSON with the operator's token; resolves to {ok, status, data}.
  C.post = function (path, body) {
    var headers = { "Content-Type": "application/json" };
    var token = C.token();
    if (token) headers.Authorization = "Bearer " + token;
    return fetch(path, { method: "POST", headers: headers, body: JSON.stringify(body || {}) })
      .then(function (r) {
        return r.text().then(function (text) {
          var data = null;
          try { data = text ? JSON.parse(text) : null; } catch (e) { data = { error: text }; }
          if (r.status === 401) C.logout();
          return { ok: r.ok, status: r.status, data: data };
        });
      })
      .catch(function (e) { return { ok: false, status: 0, data: { error: "network: " + e } }; });
  };

  function showLogin() {
    var logged = !!C.token();
    document.body.classList.toggle("operator", logged);
    var state = document.getElementById("login-state");
    if (state) state.textContent = logged ? "operator" : "";
  }
  C.logout = function () { sessionStorage.removeItem(TOKEN); showLogin(); };

  function setupLogin() {
    var form = document.getElementById("login");
    if (!form) return;
    form.addEventListener("submit", function (e) {
      e.preventDefault();
      var input = document.getElementById("login-token");
      var token = input.value.trim();
      if (!token) return;
      fetch("/console/login", { method: "POST", headers: { Authorization: "Bearer " + token } })
        .then(function (r) {
          if (r.status === 204) {
            sessionStorage.setItem(TOKEN, token);
            input.value = "";
            showLogin();
          } else {
            return r.json().then(function (d) {
              document.getElementById("login-state").textContent = d.error || "refused";
            });
          }
        });
    });
    document.getElementById("logout").addEventListener("click", C.logout);
    showLogin();
  }

  // Draws the embedded first frame, then every frame the live stream sends.
  C.live = function (render) {
    setupLogin();
    var first = JSON.parse(document.getElementById("frame").textContent);
    offset = first.nowMs - Date.now();
    render(first.view);
    tickers.forEach(function (fn) { fn(); });
    // A page that reads its stream itself (with a token: an EventSource sends no header) sets
    // data-stream="manual" on <body>.
    if (!window.EventSource || document.body.dataset.stream === "manual") return;
    var source = new EventSource(location.pathname);
    source.addEventListener("update", function (e) {
      var frame = JSON.parse(e.data);
      offset = frame.nowMs - Date.now();
      render(frame.view);
      tickers.forEach(function (fn) { fn(); });
      document.body.dataset.updates = String(Number(document.body.dataset.updates || 0) + 1);
    });
    source.onopen = function () { document.body.dataset.live = "open"; };
    source.onerror = function () { document.body.dataset.live = "reconnecting"; };
  };

  // The line that asks a visitor to log in for a page's actions (hidden once they have).
  C.loginHint = function (text) { return C.h("p", { class: "login-hint muted" }, text); };

  // An action's card, shown to the operator only: `attrs` (its id, any other class), its
  // heading `title`, then its children.
  C.action = function (attrs, title) {
    var cls = "card action" + (attrs.class ? " " + attrs.class : "");
    var card = C.h("section", Object.assign({}, attrs, { class: cls }), C.h("h2", null, title));
    for (var i = 2; i < arguments.length; i++) append(card, arguments[i]);
    return card;
  };

  // A message line under an action: ok (green) or the error (red).
  C.say = function (el, ok, text) {
    if (typeof el === "string") el = document.getElementById(el);
    el.className = "message " + (ok ? "ok" : "error");
    el.textContent = text;
  };
})();
