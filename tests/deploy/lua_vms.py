"""The two Lua hosts fedgate's health answers run in, emulated over real Lua 5.1 (lupa):

- Karmada's resource interpreter (karmada v1.18.0,
  pkg/resourceinterpreter/customized/declarative/luavm/lua.go and lua_convert.go): gopher-lua
  (Lua 5.1) with the base, table, string, math and a safe os library, the functions it disables
  raising, arguments converted from JSON values, and the result table encoded as gopher-json does
  (numbers as JSON numbers, an empty table as ``[]``) and then cleaned the way
  ``convertEmptySliceToEmptyStructPartly`` cleans a result with no reference object (every empty
  ``[]`` field dropped; an empty result is ``{}``).
- Argo CD's health scripts (argo-cd util/lua/lua.go ExecuteHealthLua): the object as the global
  ``obj``, the script's returned table read as ``{status, message}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

lua51 = pytest.importorskip("lupa.lua51", reason="lupa (Lua 5.1 for Python) is not installed")

DISABLED = (
    "collectgarbage",
    "dofile",
    "getfenv",
    "getmetatable",
    "load",
    "loadfile",
    "loadstring",
    "rawequal",
    "rawget",
    "rawset",
    "setfenv",
    "setmetatable",
    "module",
    "newproxy",
)
"""Karmada's luavm sets these to functions that raise (lua.go setLib)."""


class LuaFailed(AssertionError):
    """The script raised, or returned what the host cannot use."""


def _runtime() -> Any:
    runtime = lua51.LuaRuntime(unpack_returned_tuples=True)
    for name in DISABLED:
        runtime.execute(f"function {name}() error('call function {name} is not supported') end")
    runtime.execute("io = nil; os = {time = os.time, date = os.date, clock = os.clock}")
    return runtime


def to_lua(runtime: Any, value: Any) -> Any:
    """A JSON value as Karmada's ``decodeValue`` hands it to Lua."""
    if isinstance(value, Mapping):
        table = runtime.table()
        for key, item in value.items():
            table[key] = to_lua(runtime, item)
        return table
    if isinstance(value, list):
        table = runtime.table()
        for index, item in enumerate(value, 1):
            table[index] = to_lua(runtime, item)
        return table
    return value


def from_lua(value: Any) -> Any:
    """gopher-json's ``Encode``: a table with keys 1..n is an array, an empty one ``[]``."""
    if lua51.lua_type(value) == "table":
        keys = list(value.keys())
        if not keys or all(isinstance(k, int) for k in keys):
            if sorted(keys) != list(range(1, len(keys) + 1)):
                raise LuaFailed(f"a sparse array cannot be encoded: {keys}")
            return [from_lua(value[k]) for k in range(1, len(keys) + 1)]
        if not all(isinstance(k, str) for k in keys):
            raise LuaFailed(f"mixed table keys cannot be encoded: {keys}")
        return {k: from_lua(value[k]) for k in keys}
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _drop_empty_lists(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_empty_lists(v) for k, v in value.items() if v != []}
    if isinstance(value, list):
        return [_drop_empty_lists(v) for v in value]
    return value


def karmada(script: str, function: str, *args: Any) -> Any:
    """Run one customization function as Karmada's interpreter would; its converted result."""
    runtime = _runtime()
    try:
        runtime.execute(script)
        entry = runtime.globals()[function]
        if entry is None:
            raise LuaFailed(f"not found function {function}")
        result = entry(*(to_lua(runtime, a) for a in args))
    except lua51.LuaError as exc:
        raise LuaFailed(str(exc)) from exc
    if lua51.lua_type(result) != "table":
        raise LuaFailed(f"expect the returned type is table but got {lua51.lua_type(result)}")
    converted = from_lua(result)
    return {} if converted == [] else _drop_empty_lists(converted)


def argocd_health(script: str, obj: Mapping[str, Any]) -> dict[str, str]:
    """Run an Argo CD health script on ``obj``: its ``{status, message}``."""
    runtime = _runtime()
    runtime.globals()["obj"] = to_lua(runtime, obj)
    try:
        result = runtime.execute(script)
    except lua51.LuaError as exc:
        raise LuaFailed(str(exc)) from exc
    converted = from_lua(result)
    if not isinstance(converted, dict) or "status" not in converted:
        raise LuaFailed(f"a health script must return {{status, message}}, not {converted!r}")
    return {"status": converted["status"], "message": converted.get("message", "")}
