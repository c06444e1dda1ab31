"""SGLang's own code as the judge of what we send it (issue 39). Run by the pinned SGLang's Python
(envs/upstream.sh), never by the pipeline's: it reads one JSON request on stdin and prints one JSON
answer, so the tests compare our commands, bodies and splits with SGLang's reading of them without
either side importing the other. Standard library and sglang / sglang_router only.

  {"commands": [[module, arg, ...], ...]}  -> parsed with the module's own argument parser
  {"bodies": [{...}, ...]}                 -> validated by ChatCompletionRequest, undeclared keys named
  {"splits": [[parser, text], ...]}        -> ReasoningParser(parser).parse_non_stream(text)
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys


def _parser(module: str) -> argparse.ArgumentParser:
    from sglang.srt.server_args import ServerArgs

    parser = argparse.ArgumentParser(exit_on_error=False)
    ServerArgs.add_cli_args(parser)
    if module == "sglang_router.launch_server":
        # what sglang_router/launch_server.py main() builds before it parses
        from sglang_router.router_args import RouterArgs

        RouterArgs.add_cli_args(parser, use_router_prefix=True, exclude_host_port=True)
        parser.add_argument("--router-dp-worker-base-port", type=int, default=31000)
    elif module != "sglang.launch_server":
        raise ValueError(f"not an SGLang entry point: {module}")
    return parser


def command(module: str, *args: str) -> dict:
    parser = _parser(module)
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr):
            parsed, unknown = parser.parse_known_args(list(args))
    except (argparse.ArgumentError, SystemExit) as exc:
        return {"ok": False, "error": f"{exc} {stderr.getvalue()}".strip()}
    if unknown:
        return {"ok": False, "error": f"unrecognized arguments: {' '.join(unknown)}"}
    values = {key: value for key, value in vars(parsed).items() if isinstance(value, (str, int, float, bool))}
    if module == "sglang_router.launch_server":
        from sglang_router.router_args import RouterArgs

        router = RouterArgs.from_cli_args(parsed, use_router_prefix=True)
        values["router.host"], values["router.port"] = router.host, router.port
    # argparse accepts an unambiguous prefix (--context-len): name what we wrote that is not a flag
    flags = {flag for action in parser._actions for flag in action.option_strings}
    abbreviated = [arg for arg in args if arg.startswith("--") and arg.split("=")[0] not in flags]
    if abbreviated:
        return {"ok": False, "error": f"not spelt as SGLang spells its flags: {' '.join(abbreviated)}"}
    return {"ok": True, "values": values}


def body(payload: dict) -> dict:
    from pydantic import ValidationError
    from sglang.srt.entrypoints.openai.protocol import ChatCompletionRequest

    declared = set()
    for name, field in ChatCompletionRequest.model_fields.items():
        declared |= {name, field.alias or name}
    undeclared = sorted(set(payload) - declared)
    try:
        # a copy: its before-validators fill defaults (tool_choice) into the dict they are given
        request = ChatCompletionRequest.model_validate(json.loads(json.dumps(payload)))
    except ValidationError as exc:
        return {"ok": False, "error": str(exc), "undeclared": undeclared}
    read = {key: getattr(request, key) for key in payload if key in ChatCompletionRequest.model_fields}
    return {"ok": True, "undeclared": undeclared, "read": {k: v for k, v in read.items() if k != "messages"}}


def split(parser: str, text: str) -> dict:
    from sglang.srt.parser.reasoning_parser import ReasoningParser

    reasoning, content = ReasoningParser(parser, stream_reasoning=False).parse_non_stream(text)
    return {"reasoning": reasoning, "content": content}


def main() -> None:
    asked = json.load(sys.stdin)
    answer = {
        "commands": [command(*argv) for argv in asked.get("commands", [])],
        "bodies": [body(payload) for payload in asked.get("bodies", [])],
        "splits": [split(parser, text) for parser, text in asked.get("splits", [])],
    }
    json.dump(answer, sys.stdout)


if __name__ == "__main__":
    main()
