// The source editor of the inspector's pages: CodeMirror 6 with line numbers, highlighting for the
// formats the inspector reads, and a marked error line. Built into one ES module
// (static/vendor/codemirror/codemirror.js) by `npm run build`; static/js/code-editor.js wires it to
// the pages.
//
// The strict CSP allows no <style> element, and CodeMirror adds its styles as one unless its root
// is a shadow root, where it adopts constructable stylesheets instead: so the editor lives in a
// shadow root. The page's colour variables inherit into it.
import { EditorState, StateEffect, StateField, RangeSetBuilder } from "@codemirror/state";
import {
  Decoration, EditorView, GutterMarker, drawSelection, gutterLineClass, highlightActiveLine,
  highlightActiveLineGutter, highlightSpecialChars, keymap, lineNumbers,
} from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import {
  HighlightStyle, StreamLanguage, bracketMatching, indentOnInput, syntaxHighlighting,
} from "@codemirror/language";
import { tags } from "@lezer/highlight";
import { yaml } from "@codemirror/lang-yaml";
import { json } from "@codemirror/lang-json";
import { markdown } from "./markdown.js";
import { toml } from "@codemirror/legacy-modes/mode/toml";

const LANGUAGES = [
  [/\.ya?ml$/i, () => yaml()],
  [/\.(json|jsonl|ndjson)$/i, () => json()],
  [/\.toml$/i, () => StreamLanguage.define(toml)],
  [/\.(md|markdown)$/i, () => StreamLanguage.define(markdown)],
];

/** The language support for a file name, or none (plain text). */
export function languageFor(path) {
  const found = LANGUAGES.find(([pattern]) => pattern.test(path || ""));
  return found ? found[1]() : [];
}

const setError = StateEffect.define();

class ErrorMarker extends GutterMarker {
  constructor() { super(); this.elementClass = "cm-error-gutter"; }
}
const errorMarker = new ErrorMarker();
const errorDecoration = Decoration.line({ class: "cm-error-line" });

// The located error's line (1-based), or 0: kept through edits (mapped), replaced by each preview.
const errorLine = StateField.define({
  create: () => 0,
  update(line, transaction) {
    for (const effect of transaction.effects) if (effect.is(setError)) return effect.value;
    if (line && transaction.docChanged) {
      const doc = transaction.startState.doc;
      if (line > doc.lines) return 0;
      const mapped = transaction.changes.mapPos(doc.line(line).from, 1);
      return transaction.state.doc.lineAt(mapped).number;
    }
    return line;
  },
});

// The error line's background and its number in the gutter, from the field.
const errorMarks = [
  EditorView.decorations.compute([errorLine], (state) => {
    const line = state.field(errorLine);
    if (!line || line > state.doc.lines) return Decoration.none;
    return Decoration.set([errorDecoration.range(state.doc.line(line).from)]);
  }),
  gutterLineClass.compute([errorLine], (state) => {
    const line = state.field(errorLine);
    const builder = new RangeSetBuilder();
    if (line && line <= state.doc.lines) {
      const at = state.doc.line(line).from;
      builder.add(at, at, errorMarker);
    }
    return builder.finish();
  }),
];

// Token colours from the page's --syn-* variables (app.css: light and dark, as the source pane's
// Pygments colours), with the light ones as fallbacks.
const highlightStyle = HighlightStyle.define([
  { tag: [tags.propertyName, tags.definition(tags.propertyName)], color: "var(--syn-key, #062873)", fontWeight: "600" },
  { tag: [tags.string, tags.special(tags.string), tags.monospace], color: "var(--syn-string, #4070a0)" },
  { tag: [tags.number, tags.bool, tags.null, tags.atom, tags.literal], color: "var(--syn-literal, #40a070)" },
  { tag: [tags.comment, tags.lineComment, tags.blockComment], color: "var(--syn-comment, #60a0b0)", fontStyle: "italic" },
  { tag: [tags.keyword, tags.meta, tags.typeName, tags.labelName, tags.processingInstruction], color: "var(--syn-keyword, #007020)" },
  { tag: [tags.heading, tags.special(tags.variableName)], color: "var(--syn-heading, #000080)", fontWeight: "700" },
  { tag: [tags.quote, tags.list], color: "var(--syn-keyword, #007020)" },
  { tag: tags.link, color: "var(--accent, #3a5bd9)", textDecoration: "underline" },
  { tag: tags.emphasis, fontStyle: "italic" },
  { tag: tags.strong, fontWeight: "700" },
  { tag: tags.invalid, color: "var(--danger, #c62828)" },
]);

const theme = EditorView.theme({
  "&": {
    color: "var(--text, #1d2330)",
    backgroundColor: "var(--code-bg, #fbfbfd)",
    border: "1px solid var(--border, #dfe3ea)",
    borderRadius: "6px",
    fontSize: ".82rem",
    // As tall as its host allows: the host's height, or its text up to the host's max-height.
    height: "100%",
    minHeight: "inherit",
    maxHeight: "inherit",
  },
  "&.cm-focused": { outline: "2px solid var(--accent, #3a5bd9)", outlineOffset: "1px" },
  ".cm-scroller": { fontFamily: "var(--mono, monospace)", lineHeight: "1.45", overflow: "auto" },
  ".cm-content": { caretColor: "var(--text, #1d2330)" },
  ".cm-cursor": { borderLeftColor: "var(--text, #1d2330)" },
  ".cm-gutters": {
    backgroundColor: "var(--panel, #ffffff)", color: "var(--muted, #6b7385)",
    borderRight: "1px solid var(--border, #dfe3ea)",
  },
  ".cm-activeLine": { backgroundColor: "color-mix(in srgb, var(--accent, #3a5bd9) 6%, transparent)" },
  ".cm-activeLineGutter": { backgroundColor: "color-mix(in srgb, var(--accent, #3a5bd9) 12%, transparent)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": {
    backgroundColor: "color-mix(in srgb, var(--accent, #3a5bd9) 28%, transparent)",
  },
  ".cm-error-line": {
    backgroundColor: "var(--error-bg, #fdecec)",
    boxShadow: "inset 3px 0 0 var(--error-border, #d64545)",
  },
  ".cm-error-gutter": { color: "var(--danger, #c62828)", fontWeight: "700" },
});

/**
 * Puts an editor in place of a textarea, which stays in the form (hidden) and gets every change,
 * with an `input` event as typing would send. Returns { view, host, showError(line),
 * jumpTo(line, { focus }), focus() }.
 */
export function mountEditor(textarea, options = {}) {
  const host = document.createElement("div");
  host.className = "code-editor";
  host.dataset.for = textarea.id;
  const shadow = host.attachShadow({ mode: "open" });

  const label = options.label || textarea.getAttribute("aria-label") || "Source";
  const view = new EditorView({
    root: shadow,
    parent: shadow,
    state: EditorState.create({
      doc: textarea.value,
      extensions: [
        lineNumbers(),
        highlightActiveLineGutter(),
        highlightSpecialChars(),
        history(),
        drawSelection(),
        indentOnInput(),
        bracketMatching(),
        highlightActiveLine(),
        syntaxHighlighting(highlightStyle),
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        EditorState.tabSize.of(2),
        languageFor(options.path),
        errorLine,
        errorMarks,
        theme,
        // Long lines (a prompt on one line) wrap: no sideways scrolling to read what one types.
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ "aria-label": label, spellcheck: "false" }),
        EditorView.updateListener.of((update) => {
          if (!update.docChanged) return;
          textarea.value = update.state.doc.toString();
          textarea.dispatchEvent(new Event("input", { bubbles: true }));
        }),
      ],
    }),
  });
  textarea.hidden = true;
  textarea.insertAdjacentElement("beforebegin", host);

  function lineStart(line) {
    const doc = view.state.doc;
    return doc.line(Math.max(1, Math.min(doc.lines, line))).from;
  }

  return {
    view,
    host,
    showError(line) {
      view.dispatch({ effects: setError.of(line && line > 0 ? line : 0) });
    },
    jumpTo(line, { focus = true } = {}) {
      const at = lineStart(line);
      view.dispatch({ selection: { anchor: at }, effects: EditorView.scrollIntoView(at, { y: "center" }) });
      if (focus) view.focus();
    },
    focus() { view.focus(); },
  };
}
