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
      if (key.slice(0, 2) === "on") el.addEventListener(key.slice(2), value);
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

  // Replaces the children of `el` (an element or an id).
  C.fill = function (el) {
    if (typeof el === "string") el = document.getElementById(el);
    while (el.firstChild) el.removeChild(el.firstChild);
    for (var i = 1; i < arguments.length; i++) append(el, arguments[i]);
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
