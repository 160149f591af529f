// The source editors (case page, "why nothing renders"): CodeMirror in place of each
// textarea[data-code-editor], which stays the form field and gets every change. Without
// JavaScript, or if this module fails to load, the textarea is the editor.
import { mountEditor } from "../vendor/codemirror/codemirror.js";

const editors = new Map(); // textarea id -> editor

function mountAll(root) {
  const found = Array.from(root.querySelectorAll("textarea[data-code-editor]"));
  if (root.matches && root.matches("textarea[data-code-editor]")) found.push(root);
  found.forEach((textarea) => {
    if (textarea.hidden) return; // mounted already
    const editor = mountEditor(textarea, { path: textarea.dataset.path });
    editors.set(textarea.id, editor);
    const line = +textarea.dataset.errorLine || 0;
    if (line) {
      editor.showError(line);
      // The upload's located error: the cursor starts there, ready to fix it.
      if (textarea.hasAttribute("autofocus")) editor.jumpTo(line);
    } else if (+textarea.dataset.startLine) {
      // A case's editor opens at the case, not at the file's first line.
      editor.jumpTo(+textarea.dataset.startLine, { focus: false });
    }
  });
}

function editorFor(id) {
  const editor = editors.get(id);
  return editor && editor.host.isConnected ? editor : null;
}

// A preview answers with the messages or with the edited text's located error: mark that line,
// and move the cursor there unless the reader is typing in the editor (then "Go to line" does).
document.addEventListener("htmx:afterSwap", (event) => {
  const target = event.detail.target;
  if (!target || target.id !== "rendered") return;
  const editor = editorFor("source-text");
  if (!editor) return;
  const rendered = document.getElementById("rendered");
  const located = rendered && rendered.querySelector("[data-error-line]");
  const line = located ? +located.dataset.errorLine : 0;
  editor.showError(line);
  if (line && !editor.view.hasFocus) editor.jumpTo(line, { focus: false });
});

document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-jump-line]");
  const editor = button && editorFor("source-text");
  if (!editor) return;
  const details = editor.host.closest("details");
  if (details) details.open = true;
  editor.jumpTo(+button.dataset.jumpLine);
});

// The case page's editor form of a large file arrives by htmx when it is opened.
document.addEventListener("htmx:load", (event) => mountAll(event.detail.elt));
mountAll(document);
document.documentElement.dataset.codeEditor = "ready";
