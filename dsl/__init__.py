"""The lastbreath content language: parse, build, check and load ``.fg`` content."""

from .diagnostics import ContentError, Diagnostic, IllegalChoice, RulesError, SaveError, Span
from .ruleset import Ruleset, bundled_paths, load_content, load_ruleset
from .syntax import parse_file, parse_text

__all__ = [
           "ContentError",
           "Diagnostic",
           "IllegalChoice",
           "RulesError",
           "Ruleset",
           "SaveError",
           "Span",
           "bundled_paths",
           "load_content",
           "load_ruleset",
           "parse_file",
           "parse_text",
]
