// Local mode (`prompt-inspector serve PATH`): when a file of the folder changes, re-render the page
// in place — same address, same scroll positions, same selected segment and source lines — so the
// page follows the editor without a reload. A light poll, not a socket: the dev server is threaded
// and one JSON request every half second costs nothing on 127.0.0.1.
(function () {
  "use strict";
  var url = document.body.getAttribute("data-local-version-url");
  if (!url || !window.fetch) return;
  var known = null;
  var busy = false;
  // The source scroll the reader wanted, kept while a render is too short to hold it: an editor
  // that saves by emptying the file first shows an empty file for one refresh, which must not
  // become the scroll the next refresh restores.
  var wanted = null;

  function poll() {
    if (busy || document.hidden) return;
    busy = true;
    fetch(url, { cache: "no-store" })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (answer) {
        if (!answer) return null;
        if (known === null) { known = answer.version; return null; }
        if (answer.version === known) return null;
        known = answer.version;
        return refresh();
      })
      .catch(function () { /* the server stopped: keep the page as it is */ })
      .then(function () { busy = false; });
  }

  function sourceUrl(pane) {
    var path = pane.dataset.path.split("/").map(encodeURIComponent).join("/");
    var from = pane.dataset.hlFrom, to = pane.dataset.hlTo;
    return "/b/local/source/" + path + (from ? "?hl=" + from + "-" + (to || from) : "");
  }

  // What the reader was looking at, by what identifies it across renders.
  function remember() {
    var view = document.querySelector("#source-pane .code-view");
    var active = document.querySelector("#rendered .seg.active");
    var picked = document.querySelector("#source-pane .line.picked");
    var pane = document.getElementById("source-pane");
    var files = document.getElementById("files-panel");
    var state = {
      filesOpen: files ? files.open : null,
      x: window.scrollX, y: window.scrollY,
      sourceTop: view ? (wanted && wanted.path === (pane && pane.dataset.path) &&
                         wanted.actual === view.scrollTop ? wanted.top : view.scrollTop) : null,
      panePath: pane ? pane.dataset.path : null,
      paneSrc: pane ? sourceUrl(pane) : null,
      picked: picked ? +picked.dataset.line : null,
      active: null
    };
    if (active) {
      var message = active.closest(".msg");
      var segments = message ? message.querySelectorAll(".seg[data-src]") : [];
      state.active = {
        message: message ? message.id : null,
        index: Array.prototype.indexOf.call(segments, active),
        path: active.dataset.path, from: active.dataset.from
      };
    }
    return state;
  }

  function restore(state) {
    var files = document.getElementById("files-panel");
    if (files && state.filesOpen !== null) files.open = state.filesOpen;
    window.scrollTo(state.x, state.y);
    var view = document.querySelector("#source-pane .code-view");
    if (view && state.sourceTop !== null) {
      view.scrollTop = state.sourceTop;
      var pane = document.getElementById("source-pane");
      wanted = { path: pane ? pane.dataset.path : null, top: state.sourceTop, actual: view.scrollTop };
    }
    if (state.active) {
      var message = state.active.message && document.getElementById(state.active.message);
      var segments = message ? message.querySelectorAll(".seg[data-src]") : [];
      var segment = segments[state.active.index];
      if (!segment || segment.dataset.path !== state.active.path) {
        segment = document.querySelector('#rendered .seg[data-path="' + CSS.escape(state.active.path || "") +
                                          '"][data-from="' + CSS.escape(state.active.from || "") + '"]');
      }
      if (segment) segment.classList.add("active");
    }
    if (state.picked !== null) {
      var line = document.getElementById("L" + state.picked);
      if (line) line.classList.add("picked");
    }
  }

  // Tests and anything else that must know the page has settled after a change.
  function done() { document.body.setAttribute("data-local-refreshed", String(known)); }

  function paneSettled() {
    return new Promise(function (resolve) {
      document.addEventListener("htmx:afterSettle", function once(event) {
        if (!event.detail.target || event.detail.target.id !== "source-pane") return;
        document.removeEventListener("htmx:afterSettle", once);
        resolve();
      });
    });
  }

  function refresh() {
    var state = remember();
    // One save can be two changes on disk, so two refreshes: "refreshed" holds only between them.
    document.body.removeAttribute("data-local-refreshed");
    return fetch(window.location.href, { cache: "no-store", headers: { "X-Local-Refresh": "1" } })
      .then(function (response) { return response.text(); })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html");
        var main = document.querySelector("main");
        var next = fresh.querySelector("main");
        if (!main || !next) return;
        main.className = next.className;
        main.innerHTML = next.innerHTML;
        document.title = fresh.title;
        var actions = document.querySelector(".topbar-actions");
        var nextActions = fresh.querySelector(".topbar-actions");
        if (actions && nextActions) actions.innerHTML = nextActions.innerHTML;
        if (window.htmx) htmx.process(main);
        var pane = document.getElementById("source-pane");
        // The reader had opened another file on the left: open it again, lines kept.
        restore(state);
        if (pane && state.panePath && pane.dataset.path !== state.panePath && state.paneSrc) {
          // Restored once the pane has settled: settling scrolls it to its highlight (app.js).
          var settled = paneSettled();
          return htmx.ajax("GET", state.paneSrc, { target: "#source-pane", swap: "outerHTML" })
            .then(function () { return settled; })
            .then(function () { restore(state); done(); });
        }
        done();
      });
  }

  setInterval(poll, 500);
  poll();
})();
