"""Each overrider of one override rule, as Karmada v1.18 applies it to one member's copy.

Ported from karmada ``pkg/util/overridemanager`` at tag v1.18.0: ``imageoverride.go``,
``commandargsoverride.go``, ``labelannotationoverrider.go`` and ``applyFieldOverriders`` /
``applyPolicyOverriders`` in ``overridemanager.go``. Every overrider becomes JSON patch
operations applied with json-patch's semantics (``jsonpatch.py``); after each patch the result
must still be an object with a ``kind`` (Karmada unmarshals it back into an Unstructured).

The order within a rule: image, command, args, labels, annotations, field, plaintext. The
first failure stops the rule (and Karmada's override for that cluster): ``OverrideError``.

The object passed in belongs to the caller's one copy for this cluster and is changed in place
(the result is returned, since a patch of the whole document replaces it); after a failure it
is half-changed and must be thrown away, as Karmada throws its copy away.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from webhook.engine.budget import check as check_budget
from webhook.karmada import encoding, gojson, goyaml, imageparser, typed
from webhook.karmada.jsonpatch import PatchError, apply_patch, decode_token

POD_TEMPLATE_KINDS = ("ReplicaSet", "Deployment", "DaemonSet", "StatefulSet", "Job")
"""Kinds whose containers sit at /spec/template/spec (the image, command and args overriders
know these and Pod, by kind alone)."""

Object = dict[str, Any]
Operation = dict[str, Any]


class OverrideError(ValueError):
    """An override Karmada fails to apply: the member gets no copy until it is fixed."""


def _patched(obj: Object, operations: Sequence[Operation]) -> Object:
    """``applyJSONPatch``: the patch, then Karmada's unmarshal back into an object."""
    try:
        result = apply_patch(obj, operations, in_place=True)
    except PatchError as exc:
        raise OverrideError(str(exc)) from None
    if (
        not isinstance(result, dict)
        or not result.get("kind")
        or not isinstance(result.get("kind"), str)
    ):
        raise OverrideError("Object 'Kind' is missing after the patch")
    return result


# ------------------------------------------------------------------------------------ image


def _pod_spec(obj: Object) -> tuple[str, Any] | None:
    """(prefix, pod spec) for the kinds the image overrider knows, after the typed
    conversion Karmada makes of the whole object (a field of the wrong type fails it:
    ``typed.py``)."""
    kind = obj.get("kind")
    if kind != "Pod" and kind not in POD_TEMPLATE_KINDS:
        return None
    failed = typed.conversion_error(obj)
    if failed is not None:
        raise OverrideError(f"failed to convert {kind} from unstructured object: {failed}")
    if kind == "Pod":
        return "/spec", obj.get("spec") or {}
    template = (obj.get("spec") or {}).get("template") or {}
    return "/spec/template/spec", template.get("spec") or {}


def _containers(spec: Mapping[str, Any]) -> list[Any]:
    """The containers of a converted pod spec (each an object, its image a string)."""
    return spec.get("containers") or []


def _new_image(image: str, item: Mapping[str, Any]) -> str:
    try:
        return imageparser.override_image(
            image,
            str(item.get("component", "")),
            str(item.get("operator", "")),
            str(item.get("value") or ""),
        )
    except imageparser.ImageParseError as exc:
        raise OverrideError(f"failed to parse image value({image}), error: {exc}") from None


def _predicate_image(obj: Object, path: str) -> str:
    """``obtainImageValue``: a walk of its own (no ~ unescaping; a list index skips ahead)."""
    segments = path.strip("/").split("/")
    current: Any = obj
    index = 0
    while index < len(segments) - 1:
        child = current.get(segments[index]) if isinstance(current, dict) else None
        if isinstance(child, dict):
            current = child
        elif isinstance(child, list):
            position = segments[index + 1]
            if not re.fullmatch(r"[+-]?[0-9]+", position) or not -(2**31) <= int(position) < 2**31:
                raise OverrideError(f"path({position}) of rawObj's is not number")
            number = int(position)
            if not 0 <= number < len(child) or not isinstance(child[number], dict):
                raise OverrideError(f"path({path}) does not reach an object (Karmada panics)")
            current = child[number]
            index += 1
        else:
            raise OverrideError(
                f"path({segments[index]}) of rawObj's type is not map[string]interface{{}} "
                "and []interface{}"
            )
        index += 1
    value = current.get(segments[-1]) if isinstance(current, dict) else None
    if not isinstance(value, str):
        raise OverrideError(f"failed to convert path({segments[-1]}) to string")
    return value


def image(obj: Object, item: Mapping[str, Any]) -> Object:
    """One ``imageOverrider`` entry (``buildPatches``)."""
    predicate = item.get("predicate")
    if predicate is not None:
        path = str((predicate or {}).get("path", "")) if isinstance(predicate, dict) else ""
        current = _predicate_image(obj, path)
        if not path.startswith("/"):
            raise OverrideError("imagePath should be start with / character")
        return _patched(obj, [{"op": "replace", "path": path, "value": _new_image(current, item)}])
    found = _pod_spec(obj)
    if found is None:
        return obj
    prefix, spec = found
    operations = [
        {
            "op": "replace",
            "path": f"{prefix}/containers/{i}/image",
            "value": _new_image(container.get("image") or "", item),
        }
        for i, container in enumerate(_containers(spec))
    ]
    return _patched(obj, operations) if operations else obj


# --------------------------------------------------------------------------- command / args


def go_string(value: Any) -> str:
    """``fmt.Sprintf("%s", v)`` of a JSON value as Go decodes it."""
    if isinstance(value, str):
        return value
    if value is None:
        return "%!s(<nil>)"
    if isinstance(value, bool):
        return f"%!s(bool={'true' if value else 'false'})"
    if isinstance(value, int):
        return f"%!s(int64={value})"
    if isinstance(value, float):
        return f"%!s(float64={gojson.go_yaml_float(value)})"
    if isinstance(value, list):
        return "[" + " ".join(go_string(v) for v in value) + "]"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{go_string(v)}" for k, v in sorted(value.items())) + "]"
    return str(value)


def command_args(obj: Object, field: str, item: Mapping[str, Any]) -> Object:
    """One ``commandOverrider`` / ``argsOverrider`` entry (``buildCommandArgsPatches``)."""
    kind = obj.get("kind")
    path: tuple[str, ...]
    if kind == "Pod":
        path = ("spec", "containers")
    elif kind in POD_TEMPLATE_KINDS:
        path = ("spec", "template", "spec", "containers")
    else:
        return obj
    current: Any = obj
    for key in path:  # unstructured.NestedSlice: a null on the way is "not found"
        if current is None:
            return obj
        if not isinstance(current, dict):
            raise OverrideError(f"failed to retrieves path({'/'.join(path)}) from rawObj")
        if key not in current:
            return obj
        current = current[key]
    if not isinstance(current, list):
        raise OverrideError(f"failed to retrieves path({'/'.join(path)}) from rawObj")
    if not current:
        return obj
    raw = item.get("value") or []
    if not isinstance(raw, list) or not all(isinstance(v, str) for v in raw):
        raise OverrideError(f"{field}Overrider value must be a list of strings")
    values = list(raw)
    operator = item.get("operator")
    operations = []
    for index, container in enumerate(current):
        if not isinstance(container, dict):
            raise OverrideError("a container is not an object (Karmada panics)")
        if container.get("name") != item.get("containerName"):
            continue
        existing = container.get(field)
        if existing is not None and not isinstance(existing, list):
            raise OverrideError(f"{field} of container {index} is not a list (Karmada panics)")
        old = [go_string(v) for v in existing or []]
        if operator == "add":
            new = old + values
        elif operator == "remove":
            new = [v for v in old if v not in values]
        else:
            new = old
        operations.append(
            {
                "op": "add" if existing is None else "replace",
                "path": f"/{'/'.join(path)}/{index}/{field}",
                "value": new,
            }
        )
    return _patched(obj, operations) if operations else obj


# -------------------------------------------------------------------- labels / annotations


def _string_map(obj: Object, field: str) -> tuple[dict[str, str] | None, bool]:
    """``unstructured.NestedStringMap(obj, "metadata", field)``: (map, found) where a wrong
    type reads as not found."""
    metadata = obj.get("metadata")
    if not isinstance(metadata, dict) or field not in metadata:
        return None, False
    value = metadata[field]
    if value is None:
        return None, False
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        return None, False
    return value, True


def metadata_map(obj: Object, field: str, item: Mapping[str, Any]) -> Object:
    """One ``labelsOverrider`` / ``annotationsOverrider`` entry on the object's own metadata."""
    operator = item.get("operator")
    values = item.get("value") or {}
    if not isinstance(values, dict) or not all(isinstance(v, str) for v in values.values()):
        raise OverrideError(f"{field}Overrider value must be a map of strings")
    result = obj
    operations = []
    for key, value in values.items():
        if operator in ("remove", "replace"):
            existing, _ = _string_map(result, field)
            if existing is None or key not in existing:
                continue
        elif operator == "add":
            _, found = _string_map(result, field)
            if not found:
                if "metadata" in result and not isinstance(result["metadata"], dict):
                    continue  # SetNestedStringMap fails: the key is skipped
                result.setdefault("metadata", {})[field] = {}
        escaped = str(key).replace("/", "~1")
        operations.append({"op": operator, "path": f"/metadata/{field}/{escaped}", "value": value})
    return _patched(result, operations) if operations else result


# ------------------------------------------------------------------------------------ field


def _pointer_tokens(path: str) -> list[str]:
    """go-openapi ``jsonpointer.New``: empty, or starting with /."""
    if path == "":
        return []
    if not path.startswith("/"):
        raise OverrideError('JSON pointer must be empty or start with a "/"')
    return [decode_token(t) for t in path.split("/")[1:]]


def _pointer_parent(obj: Object, tokens: list[str], path: str) -> tuple[Any, str]:
    current: Any = obj
    for token in tokens[:-1]:
        current = _pointer_step(current, token, path)
    return current, tokens[-1]


def _pointer_step(current: Any, token: str, path: str) -> Any:
    if isinstance(current, dict):
        if token not in current:
            raise OverrideError(f"object has no key {token!r} (path {path})")
        return current[token]
    if isinstance(current, list):
        if not re.fullmatch(r"[+-]?[0-9]+", token) or not 0 <= int(token) < len(current):
            raise OverrideError(f"index out of bounds array[0,{len(current)}] index '{token}'")
        return current[int(token)]
    raise OverrideError(f"invalid token reference {token!r} (path {path})")


def field(obj: Object, item: Mapping[str, Any]) -> Object:
    """One ``fieldOverrider`` entry: a JSON or YAML patch of the text in a string field."""
    path = str(item.get("fieldPath", ""))
    tokens = _pointer_tokens(path)
    if not tokens:
        raise OverrideError(f"Get object's value by overrider's path({path}) is not string")
    parent, last = _pointer_parent(obj, tokens, path)
    text = _pointer_step(parent, last, path)
    if not isinstance(text, str):
        raise OverrideError(f"Get object's value by overrider's path({path}) is not string")
    yaml_ops, json_ops = item.get("yaml") or [], item.get("json") or []
    if not isinstance(yaml_ops, list) or not isinstance(json_ops, list):
        raise OverrideError("fieldOverrider yaml and json must be lists of operations")
    try:
        if yaml_ops:
            new = encoding.to_yaml(apply_patch(goyaml.yaml_to_json(text), _sub_ops(yaml_ops)))
        elif json_ops:
            new = (
                gojson.json_dumps(apply_patch(gojson.json_loads(text), _sub_ops(json_ops)))
                if text
                else text
            )
        else:
            new = ""  # neither: Karmada writes the empty result back
    except (PatchError, gojson.EncodingError) as exc:
        raise OverrideError(f"fieldOverrider {path}: {exc}") from None
    if isinstance(parent, dict):
        parent[last] = new
    else:
        parent[int(last)] = new
    return obj


def _sub_ops(operations: Sequence[Any]) -> list[Operation]:
    return [
        {"op": o.get("operator"), "path": o.get("subPath"), "value": o.get("value")}
        for o in operations
        if isinstance(o, Mapping)
    ]


# -------------------------------------------------------------------------------- plaintext


def plaintext(obj: Object, items: Any) -> Object:
    """Every ``plaintext`` entry, as one JSON patch on the whole object."""
    if not isinstance(items, list):
        raise OverrideError("plaintext must be a list of operations")
    operations = [
        {"op": i.get("operator"), "path": i.get("path"), "value": i.get("value")}
        for i in items
        if isinstance(i, Mapping)
    ]
    return _patched(obj, operations)  # also with none: Karmada re-reads the object anyway


def _each(
    items: Any, apply: Callable[[Object, Mapping[str, Any]], Object]
) -> Callable[[Object], Object]:
    def run(obj: Object) -> Object:
        if items is not None and not isinstance(items, list):
            raise OverrideError("an overrider must be a list of entries")
        for item in items or []:
            check_budget()  # a review's budget, per overrider
            if not isinstance(item, Mapping):
                raise OverrideError("an overrider entry is not an object")
            obj = apply(obj, item)
        return obj

    return run


def apply_overriders(obj: Object, overriders: Mapping[str, Any]) -> Object:
    """``applyPolicyOverriders``: every overrider of one rule, in Karmada's order."""
    steps = (
        _each(overriders.get("imageOverrider"), image),
        _each(overriders.get("commandOverrider"), lambda o, i: command_args(o, "command", i)),
        _each(overriders.get("argsOverrider"), lambda o, i: command_args(o, "args", i)),
        _each(overriders.get("labelsOverrider"), lambda o, i: metadata_map(o, "labels", i)),
        _each(
            overriders.get("annotationsOverrider"), lambda o, i: metadata_map(o, "annotations", i)
        ),
        _each(overriders.get("fieldOverrider"), field),
    )
    for step in steps:
        obj = step(obj)
    return plaintext(obj, overriders.get("plaintext") or [])
