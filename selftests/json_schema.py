#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A JSON Schema validator for the subset of draft 2020-12 that
tools/cumcctl.schema.json uses, on Python's standard library alone (the
tests run without network and without python3-jsonschema).

json_schema.py SCHEMA DEF FILE [--lines]
    Validate FILE against SCHEMA's #/$defs/DEF: one JSON document, or with
    --lines one per non-empty line (cumcctl -j monitor). Exit 0 when valid;
    1 with a line per error on stderr; 2 on a usage error, a file that is
    no JSON, or a keyword of the schema this validator does not know (so a
    schema grown past the subset fails loudly instead of passing unchecked).
json_schema.py SCHEMA --each DEF:FILE[:lines]...
    The same for each FILE, in one run (Python starts slowly in the VM):
    a line each, "ok" or "not ok" and the errors; exit 1 if any is not ok.
"""
import json
import re
import sys

# Keywords that only annotate.
ANNOTATIONS = {"$schema", "$id", "$defs", "title", "description", "$comment"}
TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


class SchemaError(Exception):
    """The schema uses what this validator does not implement."""


def same(a, b):
    """JSON equality: 1 is not true, 0 is not false."""
    return type(a) is type(b) and a == b or (
        TYPES["number"](a) and TYPES["number"](b) and a == b)


class Validator:
    def __init__(self, root):
        self.root = root

    def resolve(self, ref):
        if not ref.startswith("#/"):
            raise SchemaError("only local $ref is supported: " + ref)
        node = self.root
        for part in ref[2:].split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return node

    def errors(self, schema, value, path="$"):
        """Every error of @value against @schema, as 'path: what' lines."""
        if schema is True:
            return []
        if schema is False:
            return [path + ": no value is allowed here"]
        out = []
        for key, arg in schema.items():
            check = getattr(self, "kw_" + key.lstrip("$"), None)
            if key in ANNOTATIONS:
                continue
            if check is None:
                raise SchemaError("unsupported keyword " + key)
            out += check(arg, value, path, schema)
        return out

    def kw_ref(self, ref, value, path, _):
        return self.errors(self.resolve(ref), value, path)

    def kw_type(self, types, value, path, _):
        types = [types] if isinstance(types, str) else types
        if any(TYPES[t](value) for t in types):
            return []
        return ["%s: %s is not of type %s" % (path, json.dumps(value), "/".join(types))]

    def kw_enum(self, allowed, value, path, _):
        if any(same(value, a) for a in allowed):
            return []
        return ["%s: %s is not one of %s" % (path, json.dumps(value), json.dumps(allowed))]

    def kw_const(self, want, value, path, _):
        return [] if same(value, want) else [
            "%s: %s is not %s" % (path, json.dumps(value), json.dumps(want))]

    def kw_minimum(self, low, value, path, _):
        return ["%s: %s < %s" % (path, value, low)] if (
            TYPES["number"](value) and value < low) else []

    def kw_maximum(self, high, value, path, _):
        return ["%s: %s > %s" % (path, value, high)] if (
            TYPES["number"](value) and value > high) else []

    def kw_pattern(self, pattern, value, path, _):
        return ["%s: %s does not match %s" % (path, json.dumps(value), pattern)] if (
            isinstance(value, str) and not re.search(pattern, value)) else []

    def kw_required(self, keys, value, path, _):
        if not isinstance(value, dict):
            return []
        return ["%s: no key %s" % (path, k) for k in keys if k not in value]

    def kw_properties(self, props, value, path, _):
        if not isinstance(value, dict):
            return []
        out = []
        for k, sub in props.items():
            if k in value:
                out += self.errors(sub, value[k], "%s.%s" % (path, k))
        return out

    def kw_additionalProperties(self, sub, value, path, schema):
        if not isinstance(value, dict):
            return []
        out = []
        for k in value:
            if k in schema.get("properties", {}):
                continue
            if sub is False:
                out.append("%s: key %s is not in the schema" % (path, k))
            else:
                out += self.errors(sub, value[k], "%s.%s" % (path, k))
        return out

    def kw_items(self, sub, value, path, _):
        if not isinstance(value, list):
            return []
        out = []
        for i, item in enumerate(value):
            out += self.errors(sub, item, "%s[%d]" % (path, i))
        return out

    def kw_allOf(self, subs, value, path, _):
        return [e for sub in subs for e in self.errors(sub, value, path)]

    def kw_anyOf(self, subs, value, path, _):
        if any(not self.errors(sub, value, path) for sub in subs):
            return []
        return ["%s: matches none of anyOf" % path]

    def kw_oneOf(self, subs, value, path, _):
        n = sum(not self.errors(sub, value, path) for sub in subs)
        return [] if n == 1 else ["%s: matches %d of oneOf, not 1" % (path, n)]

    def kw_not(self, sub, value, path, _):
        return [] if self.errors(sub, value, path) else [
            "%s: matches what it must not" % path]


def check(validator, name, path, lines):
    """The errors of @path against #/$defs/@name, as lines."""
    schema = validator.resolve("#/$defs/" + name)
    with open(path) as f:
        text = f.read()
    if lines:
        docs = [json.loads(line) for line in text.splitlines() if line.strip()]
    else:
        docs = [json.loads(text)]
    errors = []
    for i, doc in enumerate(docs):
        where = "line %d: " % (i + 1) if lines else ""
        errors += [where + e for e in validator.errors(schema, doc)]
    return errors


def each(validator, specs):
    failed = 0
    for spec in specs:
        name, path, *rest = spec.split(":")
        try:
            errors = check(validator, name, path, rest == ["lines"])
        except (SchemaError, KeyError, ValueError, OSError) as e:
            errors = [str(e)]
        failed += bool(errors)
        print("ok" if not errors else "not ok " + "; ".join(errors))
    return 1 if failed else 0


def main(argv):
    if len(argv) >= 3 and argv[2] == "--each":
        with open(argv[1]) as f:
            return each(Validator(json.load(f)), argv[3:])
    if len(argv) not in (4, 5) or (len(argv) == 5 and argv[4] != "--lines"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(argv[1]) as f:
        root = json.load(f)
    validator = Validator(root)
    try:
        errors = check(validator, argv[2], argv[3], len(argv) == 5)
    except (SchemaError, KeyError, ValueError) as e:
        print("json_schema.py: %s: %s" % (argv[3], e), file=sys.stderr)
        return 2
    for e in errors:
        print("json_schema.py: %s: %s" % (argv[3], e), file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
