// Review on the case page: comment on a selection of rendered text, a message or source lines,
// and show each thread's anchor on both sides (the rendered text, the source lines it came from).
// The forms work without it (a message picked from a list).
(function () {
  "use strict";

  function form() { return document.getElementById("new-thread"); }

  function markers() {
    var panel = document.getElementById("review-panel");
    try { return panel ? JSON.parse(panel.getAttribute("data-markers") || "[]") : []; } catch (e) { return []; }
  }

  // ------------------------------------------------------------------ choosing an anchor
  function choose(fields, label) {
    var f = form();
    if (!f) return;
    ["kind", "message_index", "start", "quote", "path", "start_line", "end_line"].forEach(function (name) {
      f.elements[name].value = fields[name] == null ? "" : fields[name];
    });
    var target = document.getElementById("comment-target");
    var chosen = document.getElementById("anchor-chosen");
    target.hidden = true;
    target.disabled = true;
    chosen.hidden = false;
    chosen.textContent = label;
    var details = document.getElementById("threads");
    if (details) details.open = true;
    var body = document.getElementById("comment-body");
    body.scrollIntoView({ block: "center" });
    body.focus();
  }

  function contentOffset(content, node, offset) {
    var range = document.createRange();
    range.setStart(content, 0);
    range.setEnd(node, offset);
    return range.toString().length;
  }

  function selectionAnchor() {
    var selection = window.getSelection();
    if (!selection || selection.isCollapsed || !selection.rangeCount) return null;
    var range = selection.getRangeAt(0);
    var startContent = closestContent(range.startContainer);
    var endContent = closestContent(range.endContainer);
    if (!startContent || startContent !== endContent) return null;
    var card = startContent.closest(".msg");
    var index = card && /^m(\d+)$/.exec(card.id);
    if (!index) return null;
    var start = contentOffset(startContent, range.startContainer, range.startOffset);
    var quote = range.toString();
    if (!quote.trim()) return null;
    return { kind: "text", message_index: +index[1], start: start, quote: quote, rect: range.getBoundingClientRect() };
  }

  function closestContent(node) {
    var el = node.nodeType === 1 ? node : node.parentElement;
    return el && el.closest("#rendered .msg .content");
  }

  var pending = null;
  // A selection made with the mouse, or with the keyboard (shift and the arrow keys).
  document.addEventListener("keyup", function (event) {
    if (event.shiftKey || event.key === "Shift") offerSelection(event);
  });
  document.addEventListener("mouseup", offerSelection);
  function offerSelection(event) {
    var button = document.getElementById("comment-selection");
    if (!button || !form() || event.target === button) return;
    setTimeout(function () {
      pending = selectionAnchor();
      if (!pending) { button.hidden = true; return; }
      button.hidden = false;
      button.style.top = (window.scrollY + pending.rect.bottom + 6) + "px";
      button.style.left = (window.scrollX + Math.max(8, Math.min(pending.rect.left, window.innerWidth - 220))) + "px";
    }, 0);
  }
  document.addEventListener("click", function (event) {
    if (event.target.id === "comment-selection" && pending) {
      var quote = pending.quote.length > 60 ? pending.quote.slice(0, 57) + "…" : pending.quote;
      choose(pending, "“" + quote + "” in message #" + pending.message_index);
      event.target.hidden = true;
      return;
    }
    var message = event.target.closest("[data-comment-message]");
    if (message) {
      var i = +message.getAttribute("data-comment-message");
      choose({ kind: "message", message_index: i }, "message #" + i);
      return;
    }
    var line = event.target.closest("[data-comment-lines]");
    if (line) {
      var pane = document.getElementById("source-pane");
      var from = +line.getAttribute("data-from"), to = +line.getAttribute("data-to");
      choose({ kind: "line", path: pane.dataset.path, start_line: from, end_line: to },
             pane.dataset.path + (from === to ? " line " + from : " lines " + from + "–" + to));
      line.remove();
      return;
    }
    var anchor = event.target.closest("[data-thread-anchor]");
    if (anchor) {
      event.preventDefault();
      showAnchor(+anchor.getAttribute("data-thread-anchor"));
    }
  });

  // A click on a source line offers to comment on it (shift-click: from the last clicked line).
  var lastLine = null;
  document.addEventListener("click", function (event) {
    var line = event.target.closest("#source-pane .line");
    if (!line || event.target.closest("a.num") || !form()) return;
    var number = +line.dataset.line;
    var from = event.shiftKey && lastLine ? Math.min(lastLine, number) : number;
    var to = event.shiftKey && lastLine ? Math.max(lastLine, number) : number;
    lastLine = number;
    document.querySelectorAll("[data-comment-lines]").forEach(function (el) { el.remove(); });
    var button = document.createElement("button");
    button.type = "button";
    button.className = "button secondary comment-line";
    button.id = "comment-line";
    button.setAttribute("data-comment-lines", "");
    button.setAttribute("data-from", from);
    button.setAttribute("data-to", to);
    button.textContent = from === to ? "Comment on line " + from : "Comment on lines " + from + "–" + to;
    line.appendChild(button);
  });

  // ------------------------------------------------------------------ showing anchors on both sides
  function decorate() {
    var list = markers();
    document.querySelectorAll(".msg .comment-count, .line .line-comments").forEach(function (el) { el.remove(); });
    document.querySelectorAll(".line.has-comment, .seg.has-comment").forEach(function (el) {
      el.classList.remove("has-comment");
    });
    var perMessage = {};
    var ranges = [];
    var pane = document.getElementById("source-pane");
    list.forEach(function (m) {
      if (m.state === "outdated") return;
      if (m.message_index != null) {
        perMessage[m.message_index] = (perMessage[m.message_index] || 0) + 1;
        if (m.kind === "text" && m.start != null) {
          var range = textRange(m.message_index, m.start, m.end);
          if (range) ranges.push(range);
        }
      }
      if (m.kind === "line" && m.start_line) {
        // The rendered side: every stretch of text those lines produced.
        document.querySelectorAll("#rendered .seg[data-path]").forEach(function (seg) {
          var from = +seg.dataset.from || 1, to = +seg.dataset.to || 1e9;
          var own = seg.dataset.path === m.path && from <= m.end_line && m.start_line <= to;
          var via = seg.dataset.viaPath === m.path && +seg.dataset.viaFrom <= m.end_line && m.start_line <= +seg.dataset.viaTo;
          if (own || via) seg.classList.add("has-comment");
        });
      }
      if (pane && m.path === pane.dataset.path && m.start_line) {
        for (var n = m.start_line; n <= (m.end_line || m.start_line); n++) {
          var line = document.getElementById("L" + n);
          if (!line) continue;
          line.classList.add("has-comment");
          if (n === m.start_line) {
            var badge = line.querySelector(".line-comments") || document.createElement("a");
            badge.className = "line-comments";
            badge.href = "#thread-" + m.id;
            badge.setAttribute("data-thread-anchor", m.id);
            badge.title = "Comments on this line";
            badge.dataset.count = (+badge.dataset.count || 0) + 1;
            badge.textContent = badge.dataset.count;
            line.appendChild(badge);
          }
        }
      }
    });
    document.querySelectorAll("#rendered .msg").forEach(function (card) {
      var index = /^m(\d+)$/.exec(card.id);
      var head = card.querySelector(".msg-head");
      if (!index || !head) return;
      if (!head.querySelector("[data-comment-message]") && form()) {
        var add = document.createElement("button");
        add.type = "button";
        add.className = "link-button comment-message";
        add.setAttribute("data-comment-message", index[1]);
        add.textContent = "Comment";
        head.appendChild(add);
      }
      var count = perMessage[index[1]];
      if (count) {
        var badge = document.createElement("a");
        badge.className = "badge comment-count";
        badge.href = "#review-panel";
        badge.textContent = count + (count === 1 ? " comment" : " comments");
        head.insertBefore(badge, head.querySelector(".msg-stats"));
      }
    });
    if (window.CSS && CSS.highlights && window.Highlight) {
      CSS.highlights.set("review-quote", new Highlight(...ranges));
    }
  }

  function textRange(index, start, end) {
    var content = document.querySelector("#m" + index + " .content");
    if (!content) return null;
    var walker = document.createTreeWalker(content, NodeFilter.SHOW_TEXT);
    var offset = 0, range = document.createRange(), started = false, node;
    while ((node = walker.nextNode())) {
      var length = node.textContent.length;
      if (!started && start <= offset + length) { range.setStart(node, start - offset); started = true; }
      if (started && end <= offset + length) { range.setEnd(node, end - offset); return range; }
      offset += length;
    }
    return null;
  }

  function showAnchor(id) {
    var m = markers().filter(function (x) { return x.id === id; })[0];
    var thread = document.getElementById("thread-" + id);
    if (!m) return;
    if (m.message_index != null && document.getElementById("m" + m.message_index)) {
      document.getElementById("m" + m.message_index).scrollIntoView({ block: "center" });
    }
    var pane = document.getElementById("source-pane");
    if (m.path && m.start_line && pane && window.htmx) {
      if (pane.dataset.path === m.path) {
        var line = document.getElementById("L" + m.start_line);
        if (line) line.scrollIntoView({ block: "center" });
      } else {
        var bundle = location.pathname.split("/")[2];
        htmx.ajax("GET", "/b/" + bundle + "/source/" + m.path.split("/").map(encodeURIComponent).join("/")
                  + "?hl=" + m.start_line + "-" + (m.end_line || m.start_line),
                  { target: "#source-pane", swap: "outerHTML" });
      }
    }
    if (thread) thread.classList.add("flash");
  }

  // The name typed once goes with every form (and the server keeps it in a cookie).
  document.addEventListener("input", function (event) {
    if (!event.target.matches("[data-author-source]")) return;
    document.querySelectorAll("[data-author]").forEach(function (el) { el.value = event.target.value; });
  });

  document.addEventListener("htmx:afterSwap", decorate);
  // Settling a swapped source pane puts back the classes its lines came with (htmx keeps an old
  // line's class through the swap, then restores the new one's): mark the commented lines again.
  document.addEventListener("htmx:afterSettle", function (event) {
    if (event.detail.target && event.detail.target.id === "source-pane") decorate();
  });
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", decorate);
  } else {
    decorate();
  }
})();

// Bundle page: mark each case row with its verdict and open threads (from the progress panel,
// which loads after the cached page). The filter by verdict is the server's (bundle.html).
(function () {
  "use strict";
  var LABELS = { ok: ["verdict-ok", "looks right"], changes: ["verdict-changes", "needs changes"] };

  function rows() {
    var panel = document.getElementById("review-progress");
    try { return JSON.parse(panel && panel.getAttribute("data-rows") || "{}"); } catch (e) { return {}; }
  }

  function markRows() {
    var found = rows();
    document.querySelectorAll(".case-row").forEach(function (row) {
      var doc = row.closest(".document"), link = row.querySelector("a.case-link");
      var path = doc && doc.querySelector(".doc-path");
      if (!path || !link) return;
      var item = found[path.textContent + "\u0000" + link.textContent] || ["", 0];
      row.dataset.verdict = item[0] || "none";
      row.querySelectorAll(".review-badge").forEach(function (el) { el.remove(); });
      var cell = link.parentNode;
      if (LABELS[item[0]]) {
        cell.appendChild(document.createTextNode(" "));
        var badge = document.createElement("span");
        badge.className = "badge review-badge " + LABELS[item[0]][0];
        badge.textContent = LABELS[item[0]][1];
        cell.appendChild(badge);
      }
      if (item[1]) {
        var count = document.createElement("span");
        count.className = "badge review-badge comment-badge";
        // Threads, as the case page's "N open" counts them (a thread holds several comments).
        count.textContent = item[1] + (item[1] === 1 ? " open thread" : " open threads");
        cell.appendChild(count);
      }
    });
  }

  // After the progress panel arrives, and after more rows arrive (a paged list).
  document.addEventListener("htmx:afterSettle", function () {
    if (document.getElementById("review-progress")) markRows();
  });
})();
