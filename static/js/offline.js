// The offline copy's viewer: everything it shows is in #bundle-data (see inspector/bundles/offline.py).
// Read-only: the case list, the source beside the messages (click a stretch of text to see its
// lines), the bundle's files beside it (a line of another case opens that case), comments and
// verdicts as they were when the copy was made.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("bundle-data").textContent);
  var root = document.getElementById("offline");
  var cases = [];
  data.documents.forEach(function (doc) {
    doc.cases.forEach(function (c) { cases.push({ doc: doc, c: c }); });
  });
  var verdicts = {};
  data.verdicts.forEach(function (v) { verdicts[v.document + "\u0000" + v.case_id] = v; });
  var LABELS = { ok: "looks right", changes: "needs changes" };

  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (key) {
      if (key === "text") node.textContent = attrs[key];
      else if (key === "className") node.className = attrs[key];
      else node.setAttribute(key, attrs[key]);
    });
    (children || []).forEach(function (child) { if (child) node.appendChild(child); });
    return node;
  }

  function text(file, a, b) {
    return file === -1 ? data.table[a] : data.files[file].substr(a, b);
  }

  function threadsOf(doc, c) {
    return data.threads.filter(function (t) {
      return t.document === doc.path && t.case_id === c.id;
    });
  }

  function lineThreads(path) {
    return data.threads.filter(function (t) { return t.kind === "line" && t.path === path; });
  }

  // ------------------------------------------------------------------ layout
  var picker = el("select", { id: "offline-case", "aria-label": "Case" });
  cases.forEach(function (item, i) {
    var v = verdicts[item.doc.path + "\u0000" + item.c.id];
    picker.appendChild(el("option", { value: i, text: item.doc.path + " › " + item.c.id +
      (v ? " — " + LABELS[v.verdict] : "") }));
  });
  var reviewed = data.verdicts.length;
  var head = el("div", { className: "panel offline-head" }, [
    el("strong", { text: cases.length + " case" + (cases.length === 1 ? "" : "s") + " · reviewed " +
      reviewed + " of " + cases.length + " · " + data.threads.length + " comment thread" +
      (data.threads.length === 1 ? "" : "s") }),
    el("label", { text: " Case " }, [picker]),
  ]);
  var pane = el("section", { id: "source-pane", className: "source-pane" });
  var right = el("div", { className: "right-col" });
  var current = null; // the case shown: { index, doc, c }
  var fileList = el("ul", { className: "file-tree" });
  data.paths.forEach(function (path, index) {
    var link = el("button", { type: "button", className: "file-link", "data-path": path, text: path });
    link.addEventListener("click", function () { showFile(index); });
    fileList.appendChild(el("li", {}, [link]));
  });
  var files = el("details", { className: "files-panel", id: "files-panel", open: "" }, [
    el("summary", { text: "Files (" + data.paths.length + ")" }),
    el("nav", { "aria-label": "Files of this bundle" }, [fileList])]);
  root.appendChild(head);
  var lineNote = el("p", { className: "line-note", id: "line-note", role: "status" });
  lineNote.hidden = true;
  root.appendChild(el("div", { className: "case-layout" }, [el("div", { className: "left-col" }, [files, pane, lineNote]), right]));

  // Whether any message of the case shown holds text from line n of the file.
  function caseUsesLine(pathIndex, n) {
    return current.c.m.some(function (messageIndex) {
      var segments = data.messages[messageIndex][1];
      for (var at = 0; at < segments.length; at += 7) {
        if (segments[at + 4] === pathIndex && segments[at + 5] <= n && n <= (segments[at + 6] || segments[at + 5])) return true;
      }
      return false;
    });
  }

  // The case's own file opens at the case's lines; any other file from its start.
  function showFile(index) {
    var span = current && current.c.span;
    if (span && span[0] === index) showSource(index, span[1], span[2]);
    else showSource(index, 0, 0);
  }

  // A line of another case of the file shown opens that case.
  function caseAtLine(pathIndex, n) {
    for (var i = 0; i < cases.length; i++) {
      var span = cases[i].c.span;
      if (span && span[0] === pathIndex && span[1] <= n && n <= span[2]) return i;
    }
    return -1;
  }

  function showSource(pathIndex, from, to) {
    pane.innerHTML = "";
    if (pathIndex < 0) return;
    var path = data.paths[pathIndex];
    pane.dataset.path = path;
    fileList.querySelectorAll(".file-link").forEach(function (link) {
      if (link.getAttribute("data-path") === path) link.setAttribute("aria-current", "true");
      else link.removeAttribute("aria-current");
    });
    pane.appendChild(el("header", { className: "pane-head" }, [el("span", { className: "pane-path", text: path })]));
    var view = el("div", { className: "code-view", tabindex: "0" });
    var marked = {};
    lineThreads(path).forEach(function (t) {
      for (var n = t.start_line; n <= t.end_line; n++) marked[n] = true;
    });
    var lines = data.files[pathIndex].split("\n");
    if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
    var first = null;
    lines.forEach(function (line, i) {
      var n = i + 1;
      var row = el("div", { className: "line" + (from && n >= from && n <= to ? " hl" : "") +
        (marked[n] ? " has-comment" : ""), id: "L" + n }, [
        el("span", { className: "num", text: String(n) }), el("span", { className: "text", text: line || "\n" })]);
      if (from && n === from) first = row;
      row.addEventListener("click", function () {
        var other = caseAtLine(pathIndex, n);
        if (other >= 0 && other !== (current && current.index)) { show(other); location.hash = String(other); return; }
        // The server's wording (which key, who reads it) needs the file's parse: here, whether it is used.
        var used = caseUsesLine(pathIndex, n);
        lineNote.hidden = used;
        lineNote.textContent = "Line " + n + ": none of this case's messages has text from it.";
        view.querySelectorAll(".line.picked").forEach(function (picked) { picked.classList.remove("picked"); });
        row.classList.add("picked");
        markSegments(pathIndex, n);
      });
      view.appendChild(row);
    });
    pane.appendChild(view);
    lineThreads(path).forEach(function (t) { pane.appendChild(threadView(t)); });
    if (first) view.scrollTop = Math.max(0, first.offsetTop - view.offsetTop - 80);
  }

  // The other way round: the text a source line made, marked in the messages (the first in view).
  function markSegments(pathIndex, n) {
    var found = [];
    right.querySelectorAll(".seg[data-src]").forEach(function (seg) {
      var from = +seg.dataset.from, to = +seg.dataset.to;
      var hit = +seg.dataset.pathIndex === pathIndex && from <= n && n <= to;
      seg.classList.toggle("active", hit);
      if (hit) found.push(seg);
    });
    if (found.length) found[0].scrollIntoView({ block: "nearest" });
  }

  function threadView(t) {
    var where = t.kind === "line" ? t.path + (t.start_line === t.end_line ? " line " + t.start_line :
      " lines " + t.start_line + "–" + t.end_line) : (t.kind === "text" ? "selection in " : "") +
      "message #" + (t.message_index == null ? "?" : t.message_index);
    var box = el("div", { className: "thread state-" + t.state + (t.resolved ? " resolved" : "") }, [
      el("div", { className: "thread-anchor", text: where + (t.resolved ? " · resolved" : "") +
        (t.state === "outdated" ? " · outdated" : "") }),
      t.kind !== "message" ? el("blockquote", { className: "quote", text: t.quote }) : null,
    ]);
    t.comments.forEach(function (comment) {
      var body = el("div", { className: "comment-body" });
      body.innerHTML = comment.html;  // rendered by the server with raw HTML escaped
      box.appendChild(el("article", { className: "comment" }, [
        el("header", {}, [el("strong", { text: comment.author }),
          el("span", { className: "muted", text: " #" + (comment.author_fingerprint || "") })]), body]));
    });
    return box;
  }

  function segment(s, thinking) {
    // [file, offset, length, kind, origin file, first line, last line]; thinking: [label, text]
    // for the model's earlier reasoning, shown beside the text as the case page shows it.
    var seg = thinking ? el("span", { className: "seg thinking k-thinking", title: data.thinking_title }, [
      el("span", { className: "thinking-label", text: thinking[0] }), document.createTextNode(thinking[1])])
      : el("span", { className: "seg k-" + data.kinds[s[3]], text: text(s[0], s[1], s[2]) });
    if (s[4] >= 0) {
      seg.title = data.paths[s[4]] + (s[5] ? ":" + s[5] + (s[6] && s[6] !== s[5] ? "-" + s[6] : "") : "");
      seg.setAttribute("data-src", "");
      seg.dataset.pathIndex = s[4];
      seg.dataset.from = s[5] || 1;
      seg.dataset.to = s[6] || s[5] || 1e9;  // no lines recorded: the whole file
      seg.addEventListener("click", function () { showSource(s[4], s[5], s[6] || s[5]); });
    }
    return seg;
  }

  function messageCard(messageIndex, index, prefix) {
    var m = data.messages[messageIndex];
    var thinking = {};
    (m[4] || []).forEach(function (t) { thinking[t[0]] = [t[1], t[2]]; });
    var content = el("div", { className: "content" });
    for (var at = 0; at < m[1].length; at += 7) {
      content.appendChild(segment(m[1].slice(at, at + 7), thinking[at / 7]));
    }
    var card = el("article", { className: "msg role-" + m[0] + (m[2] ? " omitted" : ""), id: prefix + index }, [
      el("header", { className: "msg-head" }, [el("span", { className: "anchor", text: "#" + index }),
        el("span", { className: "role", text: m[0] }),
        m[2] ? el("span", { className: "badge omitted-badge", text: "not sent: " + m[2] }) : null]),
      content]);
    m[3].forEach(function (call) {
      card.appendChild(el("div", { className: "tool-call" }, [el("div", { className: "tool-call-head", text: "calls " + call[0] }),
        el("pre", { text: call[1] })]));
    });
    return card;
  }

  // What the case's graders send the judge, or what runs instead, as the case page shows them.
  function gradersView(graders) {
    var section = el("section", { className: "graders", id: "graders" }, [
      el("h2", { text: "What the graders send" }),
      el("p", { className: "muted", text: "After the model answers, each of agentv's LLM graders sends these " +
        "messages to the judge model; what only the run knows stands as a placeholder. Graders that ask " +
        "no model say what runs instead." })]);
    graders.forEach(function (g, position) {
      var list = el("div", { className: "messages" });
      g[1].forEach(function (messageIndex, index) { list.appendChild(messageCard(messageIndex, index, "g" + position + "-m")); });
      section.appendChild(el("details", { className: "grader", open: "" }, [
        el("summary", {}, [el("strong", { text: g[0] }), g[3] ? el("span", { className: "muted grader-source", text: " " + g[3] }) : null]),
        g[2] ? el("p", { className: "grader-note", text: g[2] }) : null, list]));
    });
    return section;
  }

  function show(i) {
    var item = cases[i];
    if (!item) return;
    var doc = item.doc, c = item.c;
    current = { index: i, doc: doc, c: c };
    lineNote.hidden = true;
    right.innerHTML = "";
    var v = verdicts[doc.path + "\u0000" + c.id];
    right.appendChild(el("div", { className: "panel" }, [
      el("h1", { text: c.id }),
      el("p", { className: "muted", text: doc.path + (doc.profile ? " · " + doc.profile : "") +
        (c.skipped ? " · skipped: " + c.skipped : "") }),
      v ? el("p", { className: "verdict", text: "Verdict: " + LABELS[v.verdict] + (v.note ? " — " + v.note : "") +
        " (" + v.author + " #" + (v.author_fingerprint || "") + ")" }) :
        el("p", { className: "muted", text: "Not reviewed." }),
    ]));
    var threads = threadsOf(doc, c);
    if (threads.length) {
      var list = el("section", { className: "panel review" }, [el("h2", { text: "Comments" })]);
      threads.forEach(function (t) { list.appendChild(threadView(t)); });
      right.appendChild(list);
    }
    var messages = el("div", { className: "messages" });
    c.m.forEach(function (messageIndex, index) { messages.appendChild(messageCard(messageIndex, index, "m")); });
    right.appendChild(messages);
    if (c.g) right.appendChild(gradersView(c.g));
    var span = c.span;
    showSource(span && span[0] >= 0 ? span[0] : data.paths.indexOf(doc.path),
               span ? span[1] : 0, span ? span[2] : 0);
    picker.value = String(i);
  }

  picker.addEventListener("change", function () { show(+picker.value); location.hash = picker.value; });
  show(+(location.hash.slice(1)) || 0);
})();
