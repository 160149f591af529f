"""What yaml 2.8.3's `doc.toJS({ merge: true })` throws for a document composed without errors, as
agentv's `parse` then throws it: an alias to no anchor before it (nodes/Alias.js), a merge of what
is not a mapping (schema/yaml-1.1/merge.js), too many aliases (maxAliasCount 100), a repeated key
in an !!omap (schema/yaml-1.1/omap.js), and a merge into itself (a stack overflow). The walk follows
toJS's order (nodes/toJS.js, addPairToJSMap.js) but builds no values: a JS object is stood for by a
JsObject, so aliases to one anchor give the same one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .nodes import Alias, Collection, JsError, JsObject, Node, Pair, Scalar, is_map, is_seq
from .schema import same_value_zero

MAX_ALIAS_COUNT = 100
UNRESOLVED = "Unresolved alias (the anchor must be set before the alias): "
EXCESSIVE = "Excessive alias count indicates a resource exhaustion attack"
MERGE_SOURCES = "Merge sources must be maps or map aliases"


@dataclass
class _AnchorData:
    """ctx.anchors' value for an anchored node: its result and its alias counts."""

    res: Any = None
    count: int = 1
    alias_count: int = 0


def _resolve_aliases(node: Any, anchors: dict[str, Node], targets: dict[int, Node | None]) -> None:
    """Alias.resolve for every alias at once: in visit()'s order, the last node before the alias
    holding its anchor (the JS searches the list of anchored nodes and aliases for each alias)."""
    if isinstance(node, Pair):
        _resolve_aliases(node.key, anchors, targets)
        _resolve_aliases(node.value, anchors, targets)
        return
    if isinstance(node, Alias):
        targets[id(node)] = anchors.get(node.source)
    elif isinstance(node, (Scalar, Collection)) and node.anchor:
        anchors[node.anchor] = node
    if isinstance(node, Collection):
        for item in node.items:
            _resolve_aliases(item, anchors, targets)


class ToJS:
    """toJS's context: the anchors met and the alias resolution order (aliasResolveCache)."""

    def __init__(self, contents: Node | None, merge_tag: bool):
        self.targets: dict[int, Node | None] = {}
        _resolve_aliases(contents, {}, self.targets)
        self.anchors: dict[int, _AnchorData] = {}
        self.merge_tag = merge_tag

    def resolve(self, alias: Alias) -> Node | None:
        """Alias.resolve: the last node before the alias with its anchor."""
        return self.targets.get(id(alias))

    def to_js(self, node: Any) -> Any:
        """toJS: an anchored node's result is kept for the aliases to it."""
        if isinstance(node, (Scalar, Collection)) and node.anchor:
            data = _AnchorData()
            self.anchors[id(node)] = data
            if isinstance(node, Collection):
                data.res = JsObject()  # ctx.onCreate: the result exists before its items are read
            result = self.to_json(node, data.res)
            data.res = result
            return result
        return self.to_json(node, None)

    def to_json(self, node: Any, created: Any) -> Any:
        if isinstance(node, Alias):
            return self.alias(node)
        if isinstance(node, Scalar):
            return node.value
        if isinstance(node, Pair):
            self.add_pair(node, into_set=False)
            return JsObject()
        if isinstance(node, Collection):
            self.collection(node)
            return created or JsObject()
        return node

    def collection(self, node: Collection) -> None:
        if node.kind == "omap":
            self.omap(node)
        elif is_map(node):
            for pair in node.items:
                self.add_pair(pair, into_set=node.kind == "set")
        else:
            for item in node.items:
                self.to_js(item)

    def omap(self, node: Collection) -> None:
        # YAMLOMap.toJSON: a Map of its pairs, refusing a key twice
        keys: list[Any] = []
        for pair in node.items:
            if isinstance(pair, Pair):
                key = self.to_js(pair.key)
                self.to_js(pair.value)
            else:
                key = self.to_js(pair)
            if any(same_value_zero(key, seen) for seen in keys):
                raise JsError("Ordered maps must not include duplicate keys")
            keys.append(key)

    def alias(self, alias: Alias) -> Any:
        """Alias.toJSON."""
        source = self.resolve(alias)
        if source is None:
            raise JsError(UNRESOLVED + alias.source)
        data = self.anchors.get(id(source))
        if data is None:
            self.to_js(source)
            data = self.anchors[id(source)]
        data.count += 1
        if data.alias_count == 0:
            data.alias_count = self.alias_count(source)
        if data.count * data.alias_count > MAX_ALIAS_COUNT:
            raise JsError(EXCESSIVE)
        return data.res

    def alias_count(self, node: Any) -> int:
        """getAliasCount (nodes/Alias.js)."""
        if isinstance(node, Alias):
            source = self.resolve(node)
            data = self.anchors.get(id(source)) if source is not None else None
            return data.count * data.alias_count if data else 0
        if isinstance(node, Collection):
            return max((self.alias_count(item) for item in node.items), default=0)
        if isinstance(node, Pair):
            return max(self.alias_count(node.key), self.alias_count(node.value))
        return 1

    def is_merge_key(self, key: Any) -> bool:
        """isMergeKey: a `<<` the merge tag resolved, or a plain `<<` text while the schema merges."""
        if isinstance(key, Scalar) and key.merge:
            return True
        plain = isinstance(key, Scalar) and key.type in (None, "PLAIN") and key.value == "<<"
        return plain and self.merge_tag

    def add_pair(self, pair: Pair, into_set: bool) -> None:
        """addPairToJSMap."""
        if self.is_merge_key(pair.key):
            self.add_merge(pair.value)
            return
        self.to_js(pair.key)
        if not into_set:
            self.to_js(pair.value)

    def add_merge(self, value: Any) -> None:
        """addMergeToJSMap and mergeValue: each source must be a mapping, read again into the map."""
        if isinstance(value, Alias):
            value = self.resolve(value)
        items = value.items if isinstance(value, Collection) and is_seq(value) else [value]
        for item in items:
            source = self.resolve(item) if isinstance(item, Alias) else item
            if not isinstance(source, Collection) or not is_map(source):
                raise JsError(MERGE_SOURCES)
            for pair in source.items:
                self.add_pair(pair, into_set=source.kind == "set")


def to_js_error(contents: Node | None, merge_tag: bool = True) -> str | None:
    """The message of what toJS throws for the document's contents, or None."""
    try:
        ToJS(contents, merge_tag).to_js(contents)
    except JsError as error:
        return str(error)
    except RecursionError:
        return "Maximum call stack size exceeded"
    return None
