"""A port of `yaml` 2.8.3, agentv's YAML library: its Lexer, Parser and Composer, used to name a
refused document's first error as agentv does (refusal.py), and to read, as the values toJS gives
(tree.py, built as the reader's Nodes with their line spans), the documents libyaml refuses or reads
apart from `yaml` (yaml_lines.load_yaml with agentv=True).

File names mirror the JS (`dist/parse/lexer.js` -> lexer.py, `parser.js` -> parser.py, `cst.js` ->
cst.py); functions keep the JS names in snake_case, and comments cite the JS function they port.

Offsets: the JS counts a string in UTF-16 code units, so a character beyond the BMP moves yaml's
offsets by two. The port keeps Python `str` indexes (code points) throughout: every `offset` in a CST
token is an index into the Python string, and the lexemes are the same substrings (yaml never splits a
surrogate pair). Conversion to yaml's UTF-16 numbers, where one is wanted, happens at the boundary
(the oracle test converts the oracle's offsets to code points before comparing); line and column, as
yaml's LineCounter gives them, come out the same from either as long as both sides count alike.

Only complete input is lexed (agentv parses whole files): the JS's buffering of incomplete input
(`lex(source, incomplete)`, `setNext`) is left out, as is the Parser's `onNewLine` callback.
"""
