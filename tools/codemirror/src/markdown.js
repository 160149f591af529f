// A small Markdown tokenizer for highlighting only (headings, fences, inline code, emphasis, links,
// lists, quotes). @codemirror/lang-markdown brings HTML, CSS and JavaScript support with it,
// four times the rest of the editor, for nested code the inspector's files rarely hold.
export const markdown = {
  name: "markdown",
  startState: () => ({ fence: null }),
  copyState: (state) => ({ fence: state.fence }),
  token(stream, state) {
    if (stream.sol()) {
      const fence = stream.match(/^\s*(```+|~~~+)/, false);
      if (fence) {
        const mark = fence[1];
        if (state.fence === null) state.fence = mark;
        else if (mark.startsWith(state.fence)) state.fence = null;
        stream.skipToEnd();
        return "meta";
      }
      if (state.fence !== null) { stream.skipToEnd(); return "string"; }
      if (stream.match(/^#{1,6}\s.*/)) return "heading";
      if (stream.match(/^\s*>/)) return "quote";
      if (stream.match(/^\s*([-*+]|\d+[.)])\s/)) return "list";
    }
    if (state.fence !== null) { stream.skipToEnd(); return "string"; }
    if (stream.match(/^`[^`]*`/)) return "monospace";
    if (stream.match(/^(\*\*|__)(?=\S)(.*?\S)\1/)) return "strong";
    if (stream.match(/^([*_])(?=\S)(.*?\S)\1/)) return "emphasis";
    if (stream.match(/^!?\[[^\]]*\]\([^)]*\)/)) return "link";
    if (stream.match(/^\{\{[^}]*\}\}/)) return "variableName.special";
    stream.next();
    stream.eatWhile(/[^`*_![{]/);
    return null;
  },
};
