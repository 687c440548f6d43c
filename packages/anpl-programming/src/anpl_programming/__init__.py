"""ANPL: Python sketches with natural-language holes, compiled by a pluggable LLM, with a
sandboxed runner, tracing and IO-constrained resynthesis.

Huang et al., "ANPL: Towards Natural Programming with Interactive Decomposition", NeurIPS 2023,
https://arxiv.org/abs/2305.18498.
"""

from importlib.metadata import version as _version

from ._compiler import Attempt, CompileError, Compiler, extract_code
from ._llm import HFLLM, LLM, LibraryLLM, ScriptedLLM
from ._runner import ExecutionError, Trace, check, run, trace
from ._syntax import PRELUDE, ANPLError, Function, IOExample, Program, parse, values_equal

__version__ = _version("anpl-programming")
__all__ = [
    "ANPLError",
    "Attempt",
    "CompileError",
    "Compiler",
    "ExecutionError",
    "Function",
    "HFLLM",
    "IOExample",
    "LLM",
    "LibraryLLM",
    "PRELUDE",
    "Program",
    "ScriptedLLM",
    "Trace",
    "__version__",
    "check",
    "extract_code",
    "parse",
    "run",
    "trace",
    "values_equal",
]
