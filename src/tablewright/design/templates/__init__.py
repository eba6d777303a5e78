"""Key templates: a tiny language, tokenizer -> parser -> AST -> renderer with a table of filters.

``KeyTemplate("USER#{userId}#{startUtc|year}").render({...})`` composes a key; a missing field
renders None so the item stays out of that index.
"""

from .filters import FILTERS, TemplateValueError, fold
from .key import KeyTemplate, KeyValue
from .parser import Field, FilterCall, Literal, Template, parse
from .tokenizer import TemplateSyntaxError, field_source, quote_name

__all__ = [
    "FILTERS",
    "Field",
    "FilterCall",
    "KeyTemplate",
    "KeyValue",
    "Literal",
    "Template",
    "TemplateSyntaxError",
    "TemplateValueError",
    "field_source",
    "fold",
    "parse",
    "quote_name",
]
