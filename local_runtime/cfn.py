"""CloudFormation YAML loading and a small intrinsic-function resolver."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable

import yaml


class Tagged(dict):
    """A short-form intrinsic (``!Ref X``) loaded as ``{"Ref": X}``."""


def _make_constructor(fn_name: str):
    def construct(loader: yaml.SafeLoader, node: yaml.Node):
        if isinstance(node, yaml.ScalarNode):
            value: Any = loader.construct_scalar(node)
            if fn_name == "Fn::GetAtt" and isinstance(value, str):
                value = value.split(".", 1)
        elif isinstance(node, yaml.SequenceNode):
            value = loader.construct_sequence(node, deep=True)
        else:
            value = loader.construct_mapping(node, deep=True)
        return {fn_name: value}

    return construct


class CfnLoader(yaml.SafeLoader):
    pass


for _tag in ["Ref", "Condition"]:
    CfnLoader.add_constructor(f"!{_tag}", _make_constructor(_tag))
for _tag in ["GetAtt", "Sub", "Join", "If", "Equals", "Not", "And", "Or", "Select", "Split", "FindInMap",
             "ImportValue", "Base64", "Cidr", "GetAZs", "Transform"]:
    CfnLoader.add_constructor(f"!{_tag}", _make_constructor(f"Fn::{_tag}"))


def load(path: str | Path) -> dict:
    with open(path, encoding="utf-8") as fh:
        return yaml.load(fh, Loader=CfnLoader)  # noqa: S506 - SafeLoader subclass


class Resolver:
    """Resolves intrinsics given ``ref(logical_id)`` and ``getatt(logical_id, attr)`` callbacks."""

    def __init__(self, template: dict, params: dict[str, Any], ref: Callable[[str], Any],
                 getatt: Callable[[str, str], Any], pseudo: dict[str, Any] | None = None) -> None:
        self.t = template
        self.params = params
        self._ref = ref
        self._getatt = getatt
        self.pseudo = {"AWS::Region": "us-east-1", "AWS::AccountId": "123456789012", "AWS::StackName": "local",
                       "AWS::Partition": "aws", "AWS::URLSuffix": "amazonaws.com", "AWS::NoValue": None,
                       **(pseudo or {})}

    def ref(self, name: str) -> Any:
        if name in self.pseudo:
            return self.pseudo[name]
        if name in self.params:
            return self.params[name]
        return self._ref(name)

    def condition(self, name: str) -> bool:
        return bool(self.resolve(self.t.get("Conditions", {})[name]))

    def resolve(self, v: Any) -> Any:
        if isinstance(v, list):
            out = [self.resolve(x) for x in v]
            return [x for x in out if x is not _NOVALUE]
        if not isinstance(v, dict):
            return v
        if len(v) == 1:
            (k, arg), = v.items()
            if k == "Ref":
                r = self.ref(arg)
                return _NOVALUE if arg == "AWS::NoValue" else r
            if k == "Fn::GetAtt":
                lid, attr = arg if isinstance(arg, list) else arg.split(".", 1)
                return self._getatt(lid, attr)
            if k == "Fn::Sub":
                return self._sub(arg)
            if k == "Fn::Join":
                sep, items = arg
                return sep.join(str(x) for x in self.resolve(items))
            if k == "Fn::If":
                cond, a, b = arg
                return self.resolve(a if self.condition(cond) else b)
            if k == "Fn::Equals":
                a, b = self.resolve(arg)
                return str(a) == str(b)
            if k == "Fn::Not":
                return not self.resolve(arg[0])
            if k == "Fn::And":
                return all(self.resolve(x) for x in arg)
            if k == "Fn::Or":
                return any(self.resolve(x) for x in arg)
            if k == "Condition":
                return self.condition(arg)
            if k == "Fn::Select":
                idx, items = arg
                return self.resolve(items)[int(self.resolve(idx))]
            if k == "Fn::Split":
                sep, s = arg
                return str(self.resolve(s)).split(sep)
            if k == "Fn::FindInMap":
                m, a, b = (self.resolve(x) for x in arg)
                return self.t["Mappings"][m][a][b]
            if k == "Fn::Base64":
                import base64
                return base64.b64encode(str(self.resolve(arg)).encode()).decode()
        resolved = {k: self.resolve(x) for k, x in v.items()}
        return {k: x for k, x in resolved.items() if x is not _NOVALUE}

    def _sub(self, arg: Any) -> str:
        if isinstance(arg, list):
            text, variables = arg[0], {k: self.resolve(x) for k, x in arg[1].items()}
        else:
            text, variables = arg, {}

        def repl(m: re.Match) -> str:
            name = m.group(1)
            if name.startswith("!"):
                return "${" + name[1:] + "}"
            if name in variables:
                return str(variables[name])
            if "." in name:
                lid, attr = name.split(".", 1)
                return str(self._getatt(lid, attr))
            return str(self.ref(name))

        return re.sub(r"\$\{([^}]+)\}", repl, text)


class _NoValue:
    def __repr__(self) -> str:
        return "NoValue"


_NOVALUE = _NoValue()
