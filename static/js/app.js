// Prompt Inspector: the little the pages need beyond htmx. Copying, linking segments and source
// lines, keyboard navigation of the case list, drag-and-drop upload. Everything works without it.
(function () {
  "use strict";

  function flash(button, text) {
    if (!button) return;
    var before = button.textContent;
    button.textContent = text;
    button.classList.add("done");
    setTimeout(function () { button.textContent = before; button.classList.remove("done"); }, 1400);
  }

  function copyText(text, button) {
    var done = function () { flash(button, "Copied"); };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(done, function () { fallbackCopy(text); done(); });
    } else {
      fallbackCopy(text);
      done();
    }
  }

  function fallbackCopy(text) {
    var area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.className = "offscreen";
    document.body.appendChild(area);
    area.select();
    try { document.execCommand("copy"); } catch (e) { /* nothing else to try */ }
    document.body.removeChild(area);
  }

  // ------------------------------------------------------------------ manage link
  // The manage token travels in the fragment (never sent to the server, never in a Referer): post
  // it to open the manage page.
  function unlockManagePage() {
    var form = document.getElementById("manage-unlock");
    if (!form) return;
    if (form.hasAttribute("data-token-given")) {
      // An old link with the token in its path or query: take it out of the address bar and history.
      history.replaceState(null, "", form.action);
    } else if (location.hash.length < 2) {
      return;
    } else {
      form.elements.token.value = decodeURIComponent(location.hash.slice(1));
    }
    document.getElementById("manage-unlock-hint").textContent = "Opening the manage page…";
    form.submit();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", unlockManagePage);
  } else {
    unlockManagePage();
  }
  // A queued upload's progress page swaps the form in once the bundle is stored.
  document.addEventListener("htmx:afterSwap", unlockManagePage);

  // ------------------------------------------------------------------ copy and share buttons
  document.addEventListener("click", function (event) {
    var button = event.target.closest("[data-copy], [data-copy-text], [data-share]");
    if (!button) return;
    var text;
    if (button.hasAttribute("data-share")) {
      text = window.location.href;
      warnOfUnsavedEdit();
    } else if (button.hasAttribute("data-copy-text")) {
      text = button.getAttribute("data-copy-text");
    } else {
      var source = document.querySelector(button.getAttribute("data-copy"));
      if (!source) return;
      text = "value" in source && source.tagName !== "PRE" ? source.value : source.textContent;
    }
    copyText(text, button);
  });

  // A shared link shows the saved file: say so when the editor holds text that is not saved.
  function editorIsDirty() {
    var editor = document.getElementById("source-text");
    return !!editor && editor.value !== editor.defaultValue;
  }

  function warnOfUnsavedEdit() {
    var note = document.getElementById("share-note");
    if (!note) return;
    note.hidden = !editorIsDirty();
    note.textContent = note.hidden ? "" : "Copied a link to the saved file: your unsaved edit is not in it. " +
      "Save it as a new revision, then share that revision's link.";
  }
  document.addEventListener("input", function (event) {
    if (event.target.id === "source-text" && !editorIsDirty()) warnOfUnsavedEdit();
  });

  // ------------------------------------------------------------------ settings stay in every link
  // Settings changed in place (htmx swaps the panes and pushes the canonical address) must reach the
  // links outside the swapped panes: the previous/next case and the bundle carry the address's query.
  function keepQueryInLinks() {
    document.querySelectorAll("a[data-keep-query]").forEach(function (link) {
      var url = new URL(link.href, window.location.href);
      url.search = window.location.search;
      link.href = url.pathname + url.search + url.hash;
    });
  }
  ["htmx:pushedIntoHistory", "htmx:replacedInHistory", "htmx:historyRestore"].forEach(function (name) {
    document.addEventListener(name, keepQueryInLinks);
  });
  window.addEventListener("popstate", keepQueryInLinks);

  // ------------------------------------------------------------------ case page: [ and ] for cases
  // The code editor lives in a shadow root: its keys reach the document from its host element.
  function isTyping(target) {
    return target && (target.isContentEditable ||
      (target.matches && target.matches("input, textarea, select, .code-editor")));
  }
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || isTyping(event.target)) return;
    var link = event.key === "[" ? document.getElementById("prev-case")
      : event.key === "]" ? document.getElementById("next-case") : null;
    if (!link) return;
    event.preventDefault();
    window.location.href = link.href;
  });

  // ------------------------------------------------------------------ segments <-> source lines
  // The selected segment's origin in words, beside it: on a phone the source pane is far above, and
  // a title tooltip never shows on touch.
  function showOrigin(segment, label) {
    var card = segment.closest(".msg");
    if (!card) return;
    document.querySelectorAll(".origin-note").forEach(function (old) { old.remove(); });
    var note = document.createElement("p");
    note.className = "origin-note";
    note.id = "origin-note";
    note.setAttribute("role", "status");
    var text = document.createElement("span");
    text.textContent = "Selected: " + (label || segment.getAttribute("title") || "no recorded origin");
    note.appendChild(text);
    if (segment.hasAttribute("data-src")) {
      var show = document.createElement("button");
      show.type = "button";
      show.className = "button secondary small";
      show.id = "show-source";
      show.textContent = "Show in the source";
      note.appendChild(show);
    }
    var content = card.querySelector(".content");
    var after = content && content.nextElementSibling && content.nextElementSibling.matches(".expand-label")
      ? content.nextElementSibling : content;
    (after || card.lastElementChild).insertAdjacentElement("afterend", note);
  }

  document.addEventListener("click", function (event) {
    if (!event.target.closest("#show-source")) return;
    var pane = sourcePane();
    if (pane) pane.scrollIntoView({ block: "start", behavior: "smooth" });
    var marked = pane && pane.querySelector(".line.hl");
    if (marked) scrollToHighlight();
  });

  function sourcePane() { return document.getElementById("source-pane"); }

  function clearMarks(selector, cls) {
    document.querySelectorAll(selector).forEach(function (el) { el.classList.remove(cls); });
  }

  function scrollToHighlight() {
    var pane = sourcePane();
    if (!pane) return;
    var first = pane.querySelector(".line.hl");
    var view = pane.querySelector(".code-view");
    if (first && view) {
      view.scrollTop = Math.max(0, first.offsetTop - view.offsetTop - view.clientHeight / 3);
    }
  }

  function markLines(from, to, cls) {
    var pane = sourcePane();
    if (!pane) return;
    clearMarks("#source-pane .line." + cls, cls);
    for (var n = from; n <= to; n++) {
      var line = document.getElementById("L" + n);
      if (line) line.classList.add(cls);
    }
  }

  document.addEventListener("click", function (event) {
    var plain = event.target.closest(".seg:not([data-src])");
    if (plain && !(window.getSelection && String(window.getSelection()).length)) {
      clearMarks(".seg.active", "active");
      plain.classList.add("active");
      showOrigin(plain);
      return;
    }
    var segment = event.target.closest(".seg[data-src]");
    if (segment && window.htmx) {
      if (window.getSelection && String(window.getSelection()).length) return; // selecting text
      clearMarks(".seg.active", "active");
      segment.classList.add("active");
      var from = +segment.dataset.from, to = +segment.dataset.to;
      var src = segment.dataset.src;
      var picked = clickedGuidelineLine(segment, event, from, to);
      if (picked) {
        // One line of a guideline's text: that line is the origin, named and marked alone.
        showOrigin(segment, lineLabel(segment, from, to, picked));
        markLineText([lineWithin(segment, picked - from)].filter(Boolean));
        from = to = picked;
        src = src.replace(/([?&]hl=)[^&]*/, "$1" + picked + "-" + picked);
      } else {
        markLineText([]);
        showOrigin(segment);
      }
      var pane = sourcePane();
      if (pane && pane.dataset.path === segment.dataset.path) {
        // Same file already shown: move the highlight without a round trip.
        markLines(from || 1, to || from || 0, "hl");
        pane.dataset.hlFrom = from; pane.dataset.hlTo = to;
        scrollToHighlight();
        return;
      }
      htmx.ajax("GET", src, { target: "#source-pane", swap: "outerHTML" });
      return;
    }
    var line = event.target.closest("#source-pane .line");
    if (line && !event.target.closest("a.num")) {
      var path = sourcePane().dataset.path;
      if (highlightProduced(path, +line.dataset.line)) hideLineNote();
      else explainLine(path, +line.dataset.line);
      // While the pane shows the case's own file, the address (and so Share) names the line.
      if (showsCaseFile() && window.history && history.replaceState) {
        history.replaceState(history.state, "", "#L" + line.dataset.line);
      }
    }
  });

  // A line that made none of this case's text: the server says what it is (another case's line,
  // a key the tool never sends, a comment); another case's line opens that case.
  function explainLine(path, number) {
    var note = document.getElementById("line-note");
    // A drag over lines selects them (to quote or comment on them): not a click to explain.
    if (!note || !window.htmx || (window.getSelection && String(window.getSelection()).length)) return;
    var query = new URLSearchParams(window.location.search);
    query.set("path", path);
    query.set("line", String(number));
    htmx.ajax("GET", note.dataset.url + "?" + query.toString(), { target: "#line-note", swap: "outerHTML" });
  }

  function hideLineNote() {
    var note = document.getElementById("line-note");
    if (note) note.hidden = true;
  }

  document.addEventListener("htmx:afterSwap", function (event) {
    if (!event.detail.target || event.detail.target.id !== "line-note") return;
    var jump = document.getElementById("line-jump");
    if (jump) window.location.href = jump.href;
  });

  // The Files panel's links are the files' own pages; with htmx, open them in the source pane (a
  // new tab or window still gets the page).
  document.addEventListener("click", function (event) {
    var link = event.target.closest("#files-panel a.file-link");
    if (!link || !window.htmx || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey ||
        event.button !== 0) return;
    event.preventDefault();
    htmx.ajax("GET", link.getAttribute("href"), { target: "#source-pane", swap: "outerHTML" });
  });

  function showsCaseFile() {
    var pane = sourcePane(), back = document.getElementById("back-to-case");
    return pane && back && pane.dataset.path === back.dataset.document;
  }

  // A shared link to a line (#L34) marks what that line produced, as a click would.
  function markLineFromAddress() {
    var match = /^#L(\d+)$/.exec(window.location.hash);
    if (match && showsCaseFile()) highlightProduced(sourcePane().dataset.path, +match[1]);
  }

  document.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && event.target.matches && event.target.matches(".seg[data-src]")) {
      event.target.click();
    }
  });

  // A linked segment in a collapsed long message must be visible: open that message.
  // A segment the server found to be its file's lines verbatim (data-by-line: a guideline whose
  // text agentv did not trim; the API splits the same ones line by line): the line a click lands
  // on is the file's line from + the line breaks before it.
  function clickedGuidelineLine(segment, event, from, to) {
    if (!segment.hasAttribute("data-by-line") || !(to > from) || segment.childNodes.length !== 1) return 0;
    var node = segment.firstChild, offset = -1;
    if (document.caretPositionFromPoint) {
      var position = document.caretPositionFromPoint(event.clientX, event.clientY);
      if (position && position.offsetNode === node) offset = position.offset;
    } else if (document.caretRangeFromPoint) {
      var range = document.caretRangeFromPoint(event.clientX, event.clientY);
      if (range && range.startContainer === node) offset = range.startOffset;
    }
    if (offset < 0) return 0;
    var before = node.textContent.slice(0, offset).split("\n").length - 1;
    return Math.min(to, from + before);
  }

  function lineLabel(segment, from, to, picked) {
    var title = segment.getAttribute("title") || "";
    return title.replace(":" + from + "-" + to, ":" + picked + " (line " + picked + " of lines " + from + "–" + to + ")");
  }

  function expandCard(element) {
    var card = element.closest(".msg");
    var toggle = card && card.querySelector(".expand-toggle");
    if (toggle) toggle.checked = true;
  }

  // A segment of several lines (a whole guideline file) is one span: the line clicked is marked
  // inside it, so provenance reads line by line. The segment's text is the file's lines verbatim.
  function lineWithin(seg, offset) {
    var node = seg.firstChild;
    if (!node || node.nodeType !== 3 || seg.childNodes.length !== 1 || !window.Range) return null;
    var text = node.textContent, start = 0;
    for (var n = 0; n < offset; n++) {
      start = text.indexOf("\n", start);
      if (start < 0) return null;
      start += 1;
    }
    var end = text.indexOf("\n", start);
    var range = new Range();
    range.setStart(node, start);
    range.setEnd(node, end < 0 ? text.length : end);
    return range;
  }

  function markLineText(ranges) {
    if (!(window.CSS && CSS.highlights && window.Highlight)) return;
    if (ranges.length) CSS.highlights.set("source-line", new Highlight(...ranges));
    else CSS.highlights.delete("source-line");
  }

  function highlightProduced(path, number) {
    var lineRanges = [];
    clearMarks(".seg.linked, .msg.linked", "linked");
    clearMarks(".seg.active", "active");  // a segment clicked earlier is no longer the subject
    clearMarks("#source-pane .line.picked", "picked");
    var line = document.getElementById("L" + number);
    if (line) line.classList.add("picked");
    var first = null;
    document.querySelectorAll("#rendered .seg[data-path]").forEach(function (seg) {
      var d = seg.dataset;
      var from = +d.from || 0, to = +d.to || from;
      // A `type: file` line produced the file's text too: it names the line as its `via`.
      var own = d.path === path && from <= number && number <= to;
      var via = d.viaPath === path && +d.viaFrom <= number && number <= +d.viaTo;
      if (own || via) {
        seg.classList.add("linked");
        expandCard(seg);
        if (!first) first = seg;
        if (own && to > from) lineRanges.push(lineWithin(seg, number - from));
      }
    });
    markLineText(lineRanges.filter(Boolean));
    if (!first) {
      // No segment carries that line (e.g. a YAML key): fall back to the message built from it.
      document.querySelectorAll("#rendered .msg[data-path]").forEach(function (msg) {
        if (msg.dataset.path === path && +msg.dataset.from <= number && number <= +msg.dataset.to) {
          msg.classList.add("linked");
          if (!first) first = msg;
        }
      });
    }
    if (first) first.scrollIntoView({ block: "nearest", behavior: "smooth" });
    return first;
  }

  // Hover: show which source lines a segment came from when that file is on the left.
  document.addEventListener("mouseover", function (event) {
    var segment = event.target.closest(".seg[data-path]");
    var pane = sourcePane();
    if (!segment || !pane || pane.dataset.path !== segment.dataset.path) return;
    markLines(+segment.dataset.from || 0, +segment.dataset.to || 0, "hover");
  });
  document.addEventListener("mouseout", function (event) {
    if (event.target.closest(".seg[data-path]")) clearMarks("#source-pane .line.hover", "hover");
  });

  // The prompt-cache band arrives after the page: it names the messages inside the cached prefix.
  function markCachedMessages() {
    var band = document.getElementById("cache-band");
    if (!band || band.getAttribute("data-marked") === "1") return;
    band.setAttribute("data-marked", "1");
    // The band for another provider may mark other messages: forget the last one's.
    clearMarks(".msg.cached-prefix", "cached-prefix");
    var listed = band.getAttribute("data-cached-messages");
    if (!listed) return;
    listed.split(",").forEach(function (index) {
      var card = document.getElementById("m" + index);
      if (card) card.classList.add("cached-prefix");
    });
  }
  document.addEventListener("htmx:afterSettle", markCachedMessages);

  document.addEventListener("htmx:afterSwap", function (event) {
    if (event.detail.target && event.detail.target.id === "source-pane") scrollToHighlight();
    var back = document.getElementById("back-to-case");
    var pane = sourcePane();
    // Offer the way back only while the left pane shows another file than the case's.
    if (back && pane) back.hidden = pane.dataset.path === back.dataset.document;
    if (pane) {
      document.querySelectorAll("#files-panel a.file-link").forEach(function (link) {
        if (link.dataset.path === pane.dataset.path) link.setAttribute("aria-current", "true");
        else link.removeAttribute("aria-current");
      });
      if (event.detail.target && event.detail.target.id === "source-pane") hideLineNote();
    }
  });
  // Settling puts the swapped pane's classes (its highlight) in place: scroll to it then. Only for
  // the pane itself: another pane settling must not undo where the reader scrolled it.
  document.addEventListener("htmx:afterSettle", function (event) {
    if (!event.detail.target || event.detail.target.id !== "source-pane") return;
    var pane = sourcePane();
    if (pane && !document.querySelector("#source-pane .line.hl")) return;
    scrollToHighlight();
  });

  // The revision form carries the render settings for the link it returns; htmx may have changed
  // them since the page loaded, so copy the current ones in on submit.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    var settings = document.getElementById("settings-form");
    if (form.id !== "revise-form" || !settings) return;
    form.querySelectorAll("input[type=hidden][data-setting]").forEach(function (el) { el.remove(); });
    new FormData(settings).forEach(function (value, key) {
      var input = document.createElement("input");
      input.type = "hidden";
      input.name = key;
      input.value = value;
      input.setAttribute("data-setting", "");
      form.appendChild(input);
    });
  });

  // A link into a diff from the review panel carries the settings the page had when the panel
  // loaded; htmx may have changed them since, so it takes the current ones when followed.
  document.addEventListener("click", function (event) {
    var link = event.target.closest && event.target.closest("a[data-page-settings]");
    var settings = document.getElementById("settings-form");
    if (!link || !settings) return;
    var url = new URL(link.href);
    new FormData(settings).forEach(function (value, key) {
      // Patterns given empty mean none; any other empty setting is the default.
      if (value === "" && key !== "patterns") url.searchParams.delete(key);
      else url.searchParams.set(key, value);
    });
    link.href = url.pathname + url.search;
  });

  // ------------------------------------------------------------------ bundle page: filter, j/k
  function caseRows() {
    return Array.prototype.filter.call(document.querySelectorAll(".case-row"), function (row) {
      return !row.hidden;
    });
  }

  function select(rows, index) {
    if (!rows.length) return;
    index = Math.max(0, Math.min(rows.length - 1, index));
    rows.forEach(function (row) { row.classList.remove("selected"); });
    rows[index].classList.add("selected");
    rows[index].scrollIntoView({ block: "nearest" });
  }

  // The header counts what the filter leaves ("3 of 12 cases"), not the whole bundle only.
  function showCaseCount(matching) {
    var header = document.getElementById("case-total");
    if (!header) return;
    var total = +header.dataset.total;
    var noun = total === 1 ? " case" : " cases";
    header.textContent = matching === null ? total + noun : matching + " of " + total + noun;
  }
  document.addEventListener("htmx:afterSettle", function (event) {
    var sections = document.getElementById("case-sections");
    if (!sections || !event.detail.target || event.detail.target.id !== "case-sections") return;
    showCaseCount(sections.dataset.matching === "" ? null : +sections.dataset.matching);
  });

  // On a phone the case page leads with its messages: the file list starts folded.
  var filesPanel = document.getElementById("files-panel");
  if (filesPanel && window.matchMedia && window.matchMedia("(max-width: 900px)").matches) filesPanel.open = false;

  var filter = document.getElementById("case-filter");
  if (filter) {
    filter.addEventListener("input", function () {
      // A paged bundle is filtered on the server (htmx swaps the sections in).
      if (filter.hasAttribute("data-server-filter")) return;
      var words = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
      var shown = 0;
      document.querySelectorAll(".case-row").forEach(function (row) {
        var text = row.dataset.search || "";
        var match = words.every(function (w) { return text.indexOf(w) !== -1; });
        row.hidden = !match;
        if (match) shown++;
      });
      document.querySelectorAll(".document").forEach(function (doc) {
        var rows = doc.querySelectorAll(".case-row");
        if (rows.length) doc.hidden = !doc.querySelector(".case-row:not([hidden])");
      });
      var none = document.getElementById("no-match");
      if (none) none.hidden = shown !== 0;
      showCaseCount(words.length ? shown : null);
      // Hidden rows must not keep the selection, or j/k would start from an invisible row.
      document.querySelectorAll(".case-row.selected").forEach(function (row) {
        row.classList.remove("selected");
      });
      var rows = caseRows();
      if (rows.length) rows[0].classList.add("selected");
    });
  }

  document.addEventListener("keydown", function (event) {
    if (!document.querySelector(".case-row")) return;
    var typing = event.target.matches && event.target.matches("input, textarea, select");
    if (event.key === "/" && !typing && filter) {
      event.preventDefault();
      filter.focus();
      return;
    }
    if (typing && event.target !== filter) return;
    if (typing && (event.key === "j" || event.key === "k")) return;
    var rows = caseRows();
    var current = rows.findIndex(function (row) { return row.classList.contains("selected"); });
    if (event.key === "j" || event.key === "ArrowDown" && typing) {
      event.preventDefault();
      select(rows, current + 1);
    } else if (event.key === "k" || event.key === "ArrowUp" && typing) {
      event.preventDefault();
      select(rows, current < 0 ? 0 : current - 1);
    } else if (event.key === "Enter" && current >= 0) {
      event.preventDefault();
      var link = rows[current].querySelector("a.case-link");
      if (link) window.location.href = link.href;
    } else if (event.key === "Escape" && typing) {
      // A search box clears itself on Escape without an input event: show every case again.
      filter.value = "";
      filter.dispatchEvent(new Event("input"));
      filter.blur();
    }
  });

  // ------------------------------------------------------------------ upload: drop and folder paths
  var form = document.getElementById("upload-form");
  if (form) {
    var files = document.getElementById("files");
    var folder = document.getElementById("folder");
    var picked = document.getElementById("picked");
    var paths = form.querySelector("[name=relative_paths]");
    var zone = document.getElementById("dropzone");

    var describe = function (emptyFolder) {
      var count = files.files.length + folder.files.length;
      picked.textContent = count ? count + " file" + (count === 1 ? "" : "s") + " chosen"
        : emptyFolder ? "That folder holds no files: nothing to upload." : "";
      picked.classList.toggle("picked-empty", !count && !!emptyFolder);
      zone.classList.toggle("has-files", count > 0);
    };
    folder.addEventListener("change", function () {
      // Multipart uploads carry base names only; send the folder structure beside them.
      paths.value = Array.prototype.map.call(folder.files, function (f) {
        return f.webkitRelativePath || f.name;
      }).join("\n");
      describe(folder.files.length === 0);
    });
    // A large upload takes a while to send and check: say so, and take no second click.
    form.addEventListener("submit", function () {
      var button = form.querySelector("button[type=submit]");
      var chosen = Array.prototype.concat.apply([], [files.files, folder.files].map(function (list) {
        return Array.prototype.slice.call(list);
      }));
      var bytes = chosen.reduce(function (sum, file) { return sum + file.size; }, 0);
      button.disabled = true;
      button.textContent = "Uploading…";
      form.setAttribute("aria-busy", "true");
      var status = document.getElementById("upload-status");
      status.hidden = false;
      status.querySelector(".upload-status-text").textContent = chosen.length
        ? "Sending " + chosen.length + " file" + (chosen.length === 1 ? "" : "s") + " (" +
          (bytes >= 1048576 ? (bytes / 1048576).toFixed(1) + " MB" : Math.max(1, Math.round(bytes / 1024)) + " kB") +
          "), then checking and rendering each one…"
        : "Checking and rendering…";
    });
    files.addEventListener("change", describe);
    ["dragenter", "dragover"].forEach(function (name) {
      zone.addEventListener(name, function (e) { e.preventDefault(); zone.classList.add("over"); });
    });
    ["dragleave", "drop"].forEach(function (name) {
      zone.addEventListener(name, function () { zone.classList.remove("over"); });
    });
    zone.addEventListener("drop", function (event) {
      event.preventDefault();
      var items = event.dataTransfer.items;
      var entries = items ? Array.prototype.map.call(items, function (i) {
        return i.webkitGetAsEntry && i.webkitGetAsEntry();
      }).filter(Boolean) : [];
      if (entries.some(function (e) { return e.isDirectory; })) {
        readEntries(entries).then(function (found) {
          var transfer = new DataTransfer();
          found.forEach(function (item) { transfer.items.add(item.file); });
          folder.files = transfer.files;
          paths.value = found.map(function (item) { return item.path; }).join("\n");
          describe(found.length === 0);
        });
      } else {
        files.files = event.dataTransfer.files;
        describe();
      }
    });
  }

  function readEntries(entries) {
    var found = [];
    function walk(entry, prefix) {
      if (entry.isFile) {
        return new Promise(function (resolve) {
          entry.file(function (file) { found.push({ file: file, path: prefix + file.name }); resolve(); },
                     function () { resolve(); });
        });
      }
      var reader = entry.createReader();
      return new Promise(function (resolve) {
        var all = [];
        (function more() {
          reader.readEntries(function (batch) {
            if (!batch.length) {
              Promise.all(all.map(function (child) { return walk(child, prefix + entry.name + "/"); }))
                .then(resolve);
              return;
            }
            all = all.concat(Array.prototype.slice.call(batch));
            more();
          }, function () { resolve(); });
        })();
      });
    }
    return Promise.all(entries.map(function (entry) { return walk(entry, ""); })).then(function () {
      return found;
    });
  }

  // With unsaved edits in the editor, a settings change re-renders the edited text (a preview),
  // not the saved file: the messages pane must never silently drop the user's edit.
  document.addEventListener("htmx:beforeRequest", function (event) {
    var editor = document.getElementById("source-text");
    var form = document.getElementById("settings-form");
    var elt = event.detail.elt;
    if (!editor || !form || !editorIsDirty()) return;
    // The settings form and the export panel's menus both re-render the saved file; the preview
    // re-renders the edited text with the same settings (its answer carries the address).
    var export_ = document.getElementById("export");
    if (elt !== form && !(export_ && export_.contains(elt) && elt.hasAttribute("hx-get"))) return;
    event.preventDefault();
    htmx.trigger(editor, "preview-now");
  });

  window.addEventListener("DOMContentLoaded", function () {
    scrollToHighlight();
    markLineFromAddress();
  });
  window.addEventListener("hashchange", markLineFromAddress);
})();
