"""The one YAML reader for files we do not control (problem files, and anything a user points
`check` at): size-capped, aliases and anchors refused, nesting bounded, duplicate keys refused.

PyYAML's safe loader builds only plain data, but it expands aliases: 570 bytes of nested
anchors become gigabytes of lists (the "billion laughs" bomb), and deep `[[[[...]]]]` nesting
recurses until Python's stack gives out. No library option turns these off, so the file is
first scanned as a YAML event stream (linear in its size, nothing built) and refused on the
first alias, anchor or nesting past MAX_DEPTH; only then is it constructed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar

import yaml
from pydantic import BaseModel, ConfigDict, model_validator
from pydantic_core import PydanticCustomError

from extrembench.core.errors import InputError
from extrembench.core.files import open_regular

MAX_FILE_BYTES = 256 * 1024  # a problem file is a few KB; expressions are capped at 1,000 characters
MAX_DEPTH = 20  # mappings/lists inside each other; the problem format needs 3
MAX_NODES = 20_000  # scalars + collections in one file
SHOWN_VALUE_CHARS = 80  # an error message shows at most this much of an offending value


class UntrustedYAMLError(InputError, ValueError):
    """The file cannot be read safely; `field` says where ('(file)', '(yaml)')."""

    def __init__(self, field: str, reason: str):
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}")


class _UniqueKeyLoader(yaml.SafeLoader):
    """SafeLoader that rejects duplicate mapping keys, which plain YAML silently overwrites."""


def _construct_mapping(loader: yaml.SafeLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {str(key)[:80]!r}", key_node.start_mark
                )
            seen.add(key)
        except TypeError:  # an unhashable key ({[1]: x}); construct_mapping reports it
            pass
    return loader.construct_mapping(node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
UniqueKeyLoader = _UniqueKeyLoader  # for our own files too (config): a repeated key is a mistake there as well


def shown(value: Any) -> str:
    """repr of an untrusted value, cut short: an error message never prints a huge value."""
    text = repr(value)
    return text if len(text) <= SHOWN_VALUE_CHARS else f"{text[:SHOWN_VALUE_CHARS]}... ({len(text)} characters)"


class StrictModel(BaseModel):
    """A mapping of a file we do not control: unknown keys are errors, numbers are never read from text.
    Unknown keys get one message listing them all and the allowed ones, worded by the subclass."""

    model_config = ConfigDict(extra="forbid", strict=True)
    unknown_keys_wording: ClassVar[str] = "unknown key(s) {extra}; allowed: {allowed}"
    # how the message lists keys (the unknown ones, sorted, then the allowed ones)
    list_keys: ClassVar[Callable[[list[str]], str]] = staticmethod(lambda keys: ", ".join(map(shown, keys[:10])))

    @model_validator(mode="before")
    @classmethod
    def _known_keys(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            extra = sorted(str(k) for k in data if k not in cls.model_fields)
            if extra:
                raise PydanticCustomError(
                    "unknown_keys",
                    cls.unknown_keys_wording,
                    {"extra": cls.list_keys(extra), "allowed": cls.list_keys(list(cls.model_fields))},
                )
        return data


def _where(mark) -> str:
    return f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else "?"


def _scan(text: str) -> None:
    """Refuse aliases, anchors, excessive nesting or size, from the event stream alone."""
    depth = nodes = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):
        if isinstance(event, yaml.AliasEvent):
            raise UntrustedYAMLError(
                "(yaml)",
                f"alias *{event.anchor[:40]} at {_where(event.start_mark)}: "
                "aliases and anchors are not allowed; write the value out",
            )
        if getattr(event, "anchor", None) is not None:
            raise UntrustedYAMLError(
                "(yaml)",
                f"anchor &{event.anchor[:40]} at {_where(event.start_mark)}: "
                "aliases and anchors are not allowed; write the value out",
            )
        if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise UntrustedYAMLError(
                    "(yaml)", f"nested deeper than {MAX_DEPTH} levels at {_where(event.start_mark)}"
                )
        elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
            depth -= 1
        if isinstance(event, (yaml.ScalarEvent, yaml.MappingStartEvent, yaml.SequenceStartEvent)):
            nodes += 1
            if nodes > MAX_NODES:
                raise UntrustedYAMLError("(yaml)", f"more than {MAX_NODES} values in one file")


def read_untrusted_text(path: str | os.PathLike, *, max_bytes: int = MAX_FILE_BYTES) -> str:
    """The file's text, refused (UntrustedYAMLError, field '(file)') past `max_bytes`, when it is
    not a regular file or not UTF-8; the size is checked before anything is read."""
    try:
        # a FIFO, device or directory is refused before any read (a FIFO would wait for a writer
        # forever, /dev/zero never ends); the size is taken from the descriptor that is read
        with os.fdopen(open_regular(path), "rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if size > max_bytes:
                raise UntrustedYAMLError("(file)", f"{size} bytes, more than the {max_bytes}-byte limit for one file")
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        raise UntrustedYAMLError("(file)", f"cannot read: {exc.strerror or exc}") from None
    if len(data) > max_bytes:  # grew between stat and read
        raise UntrustedYAMLError("(file)", f"more than the {max_bytes}-byte limit for one file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UntrustedYAMLError("(file)", f"not UTF-8 text (byte {exc.start}); save the file as UTF-8") from None


def parse_untrusted_yaml(text: str) -> Any:
    """Plain data (dict, list, str, int, float, bool, None, dates) from YAML text we do not trust."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        raise UntrustedYAMLError("(file)", f"more than the {MAX_FILE_BYTES}-byte limit for one file")
    try:
        _scan(text)
        return yaml.load(text, Loader=_UniqueKeyLoader)  # SafeLoader subclass: builds plain data only
    except yaml.YAMLError as exc:
        raise UntrustedYAMLError("(yaml)", " ".join(str(exc).split())[:500]) from None
    except RecursionError:  # belt and braces: _scan bounds the depth first
        raise UntrustedYAMLError("(yaml)", "nested too deeply") from None
    except (ValueError, OverflowError) as exc:  # e.g. an integer past Python's 4,300-digit limit
        raise UntrustedYAMLError("(yaml)", f"a value cannot be read: {str(exc)[:200]}") from None


def load_untrusted_yaml(path: str | os.PathLike) -> Any:
    """Read and parse one untrusted YAML file; raises UntrustedYAMLError (field + reason)."""
    return parse_untrusted_yaml(read_untrusted_text(Path(path)))
